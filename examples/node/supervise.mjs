// A supervisor: runs a HEP emitter, mirrors its progress live, cancels it on Ctrl-C.
//
// It runs the simulator `hep simulate --scenario SCENARIO --speed 4` (default scenario:
// `tools`), or the command given after `--`:
//
//     node examples/node/supervise.mjs
//     node examples/node/supervise.mjs cancel-me      # then Ctrl-C
//     node examples/node/supervise.mjs -- node examples/node/emit.mjs
//     node examples/node/supervise.mjs -- fa --output events -p "fix the failing test"
//
// The `hep` binary is $HEP_BIN, else target/debug/hep in this repository, else `hep` on
// PATH. Everything the stream says goes through `sanitize` before it reaches the
// terminal. The exit code is the child's (0 ok, 1 failed, 130 cancelled). A Ctrl-C is passed
// on as `run.cancel()`: SIGINT, then SIGTERM after the core's 12 s grace (the reference
// settles for up to 10 s) and SIGKILL 2 s later; a second Ctrl-C takes the next step at
// once. A run that writes no frame for 10 minutes is cancelled (heartbeats of a long tool
// call count), and the child's stderr is shown line by line as it comes.

import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_FAILED, sanitize, spawn } from 'hep';

/** $HEP_BIN, else target/debug/hep in the repository, else `hep` (looked up on PATH). */
function findHep() {
  if (process.env.HEP_BIN) return process.env.HEP_BIN;
  const local = fileURLToPath(new URL('../../target/debug/hep', import.meta.url));
  try {
    accessSync(local, constants.X_OK);
    return local;
  } catch {
    return 'hep';
  }
}

// START show
/** Mirrors frames on the terminal; stream text always goes through `sanitize`. */
class Mirror {
  #midLine = false; // assistant text was printed without its newline yet

  /** Ends the line of streamed assistant text, if one is open. */
  endText() {
    if (this.#midLine) process.stdout.write('\n');
    this.#midLine = false;
  }

  line(text) {
    this.endText();
    process.stdout.write(`${text}\n`);
  }

  show(frame) {
    switch (frame.type) {
      case 'hep_header':
        this.line(`● HEP ${sanitize(frame.hep)} · fa ${sanitize(frame.fah)} · session ${sanitize(frame.session)}`);
        break;
      case 'message_start':
        this.line(`── turn ${frame.turn_id} ──`);
        break;
      case 'message_delta':
        if (frame.delta === '') break;
        process.stdout.write(sanitize(frame.delta));
        this.#midLine = !frame.delta.endsWith('\n');
        break;
      case 'tool_start':
        this.line(`  ⚙ ${sanitize(frame.name)}(${sanitize(frame.args_summary)})`);
        break;
      case 'tool_delta':
        for (const text of frame.update.replace(/\n$/, '').split('\n')) this.line(`  │ ${sanitize(text)}`);
        break;
      case 'tool_liveness':
        if (frame.action === 'heartbeat') {
          const note = frame.detail ? ` · ${sanitize(frame.detail)}` : '';
          this.line(`  ⏳ ${sanitize(frame.name)} after ${(frame.elapsed_ms / 1000).toFixed(1)}s${note}`);
        } else {
          this.line(`  ⚠ ${sanitize(frame.name)}: ${sanitize(frame.action)}`);
        }
        break;
      case 'turn_done': {
        for (const r of frame.tool_results) {
          this.line(`  ${r.ok ? '✓' : '✗'} ${sanitize(r.name)} ${r.ok ? 'ok' : 'failed'}`);
        }
        const { input, output, cost } = frame.usage;
        const why = sanitize(frame.stop_reason);
        this.line(`  · turn ${frame.turn_id} done (${why}) · ${input} in / ${output} out · $${cost.toFixed(4)}`);
        break;
      }
      case 'turn_error':
        this.line(`  ✗ turn ${frame.turn_id} failed: ${sanitize(frame.error)}`);
        break;
      case 'cancelled':
        this.line(`  ✗ turn ${frame.turn_id} cancelled`);
        break;
      case 'compaction_start':
      case 'compaction_end':
        this.line(`  · ${frame.type}`);
        break;
      default:
        break; // agent_start, and frame types from a newer emitter: nothing to show
    }
  }
}
// END show

async function main(argv) {
  const dash = argv.indexOf('--');
  const [command, ...args] =
    dash >= 0
      ? argv.slice(dash + 1)
      : [findHep(), 'simulate', '--scenario', argv[0] ?? 'tools', '--speed', '4', '--color', 'never'];

  // START supervise
  const mirror = new Mirror();
  const run = spawn(command, args, { idleTimeoutMs: 10 * 60_000 }); // silent for 10 min: cancel
  run.on('stderr', (line) => {
    mirror.endText();
    console.error(`  ! ${sanitize(line)}`); // the child's stderr, line by line
  });
  const cancel = () => {
    mirror.endText();
    console.error('cancelling (SIGINT, then SIGTERM and SIGKILL if it lingers; again: at once)…');
    run.cancel(); // a second Ctrl-C: the next signal at once
  };
  // The child has its own process group: Ctrl-C reaches only us, and we pass it on.
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
  try {
    for await (const frame of run) mirror.show(frame); // `cancelled` too, when it comes
  } finally {
    process.removeListener('SIGINT', cancel);
    process.removeListener('SIGTERM', cancel);
  }
  const result = await run.result;
  mirror.endText();
  // END supervise

  // START verdict
  console.log('── summary ──');
  console.log(`verdict     ${result.verdict} — ${sanitize(result.reasons.join('; '))}`);
  console.log(`answer      ${result.answer != null ? sanitize(result.answer) : '(none)'}`);
  const { input, output, cost } = result.usage;
  console.log(`usage       ${input} in / ${output} out · $${cost.toFixed(6)}`);
  const ok = result.toolCalls.filter((call) => call.status === 'ok').length;
  console.log(`tools       ${result.toolCalls.length} (${ok} ok)`);
  console.log(`exit code   ${result.exitCode}`);
  for (const v of result.violations) {
    console.log(`violation   line ${v.line}: ${v.severity} ${v.code}: ${sanitize(v.message)}`);
  }
  const { cancelledBy, signals } = result.supervision;
  if (cancelledBy !== null) console.log(`cancelled   by ${cancelledBy}: ${signals.map((s) => s.signal).join(', ')}`);
  // END verdict
  return result.exitCode ?? EXIT_FAILED;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const hint = error.code === 'ENOENT' ? ' (for hep: set HEP_BIN, run `cargo build -p hep-cli`, or put hep on PATH)' : '';
  console.error(`supervise: ${error.message}${hint}`); // e.g. spawn hep ENOENT: no such command
  process.exitCode = 2;
}
