// A tiny HEP emitter built on the package's `Writer`, for the supervision tests
// (the twin of bindings-python/tests/emitters/emit.py).
//
//     emit.mjs wait FLAG        one round; after the first delta, waits for FLAG to exist
//     emit.mjs stderr NBYTES    one round, after writing NBYTES of numbered lines to stderr
//     emit.mjs garbage          a round with a malformed line in it
//     emit.mjs orphan PIDFILE [STDIO]   one round, leaving a `sleep` in its process group
//     emit.mjs hang PIDFILE [STDIO]     starts a `sleep` in its group, then waits; SIGINT: `cancelled`, 130
//     emit.mjs stubborn         ignores SIGINT and SIGTERM, waits forever
//     emit.mjs deaf             ignores SIGINT only, waits forever (SIGTERM ends it)
//     emit.mjs flood            writes 1 KB deltas as fast as its stdout takes them (a
//                               Writer awaiting `ready` on an asynchronous pipe) until
//                               SIGINT: then `cancelled`, exit 130; notes when it starts
//                               (its SIGINT handler set) and how many it wrote
//
// The reference harness's own paths (conformance/stream/reference/), each after a complete
// two-round run (header, agent_start, a tool call, two turn_done):
//
//     emit.mjs after-last-round       then waits; SIGINT or SIGTERM: exit 130, no `cancelled`
//     emit.mjs post-run-compaction    then compaction_start and waits; a signal: the same
//     emit.mjs crash-after-last-round then exits 1, with no turn_error
//     emit.mjs over-window            round 2 ends with a fatal turn_error, a compaction
//                                     follows, round 3 ends with turn_done; exit 0
//
// The `sleep` ignores SIGINT and SIGTERM and outlives any test. STDIO is `detach` (default:
// its stdout and stderr are /dev/null) or `inherit` (it holds the child's stdout and stderr
// pipes open, as a background tool process of a real harness would).
//
// Every wait of the emitter is bounded (WAIT_LIMIT_MS): a test that goes wrong fails, it never hangs.

import { spawn } from 'node:child_process';
import { existsSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writer } from 'hep';

const WAIT_LIMIT_MS = 30_000;
const USAGE = { input: 3, output: 5, cost: 0.25 };

const [mode, arg = '', stdio = 'detach'] = process.argv.slice(2);
// `node --test test/` loads every module under test/, this one included: without a mode,
// it does nothing.
if (mode === undefined) process.exit(0);
// Each line goes out with one synchronous write: nothing waits in a buffer.
const w = new Writer((line) => writeSync(1, line), { fahVersion: '9.9.9' });
const note = (text) => writeSync(2, `emitter ${mode}: ${text}\n`);

/** Waits until `check()` holds, or the wait limit passes; whether it held. */
async function until(check) {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/**
 * Starts a grandchild in this process group that ignores SIGINT and SIGTERM (only the
 * supervisor's final SIGKILL to the group ends it); returns once it ignores them (it
 * writes its pid to `pidfile` then).
 */
async function startSleeper(pidfile) {
  const script = 'trap "" INT TERM; echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300';
  const out = stdio === 'inherit' ? 'inherit' : 'ignore';
  const sleeper = spawn('sh', ['-c', script, 'sh', pidfile], { stdio: ['ignore', out, out] });
  sleeper.unref(); // this emitter does not wait for it
  await until(() => existsSync(pidfile));
}

const ANSWER = 'All tests pass.';

/** `agent_start` and a first round that runs a tool. */
function toolRound() {
  w.agentStart();
  w.messageStart('assistant');
  w.messageDelta('Looking at the tests.');
  w.toolStart('c1', 'bash', { command: 'cargo test' });
  w.toolDelta('c1', 'test result: ok\n');
  const result = { id: 'c1', name: 'bash', ok: true, text: 'test result: ok' };
  w.turnDone('Looking at the tests.', [result], USAGE, 'toolUse');
}

/** A round that gives the answer. */
function answerRound() {
  w.messageStart('assistant');
  w.messageDelta(ANSWER);
  w.turnDone(ANSWER, [], USAGE, 'stop');
}

/**
 * The reference's paths after (or between) rounds. A signal there aborts nothing: the
 * reference writes no `cancelled`, and exits 130 once its run has settled.
 */
async function referencePath() {
  let signalled = false;
  const onSignal = () => {
    signalled = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  toolRound();
  if (mode === 'over-window') {
    // The next request does not fit the context window: the round fails (fatal, as the
    // reference writes every turn_error), then the reference compacts and carries on.
    w.turnError('prompt is too long: 210000 tokens > 200000 maximum', true);
    w.compactionStart();
    w.compactionEnd(120_000);
    answerRound();
    return 0;
  }
  answerRound();
  if (mode === 'crash-after-last-round') {
    note('failed while saving the session');
    return 1;
  }
  if (mode === 'post-run-compaction') w.compactionStart();
  note('waiting for a signal');
  return (await until(() => signalled)) ? 130 : 3;
}

/**
 * Floods stdout until SIGINT, then writes `cancelled`. Its stdout is an asynchronous pipe
 * and each frame waits for `ready`: while the supervisor does not read, the child waits
 * for 'drain' (and still takes the signal), as a harness with a full pipe does.
 */
async function flood() {
  let stop = false;
  process.on('SIGINT', () => {
    stop = true;
  });
  note('flooding');
  const out = new Socket({ fd: 1, readable: false });
  const writer = new Writer(out, { fahVersion: '9.9.9' });
  writer.header('emit-flood');
  writer.agentStart();
  writer.messageStart('assistant');
  const delta = 'x'.repeat(1000);
  const deadline = Date.now() + WAIT_LIMIT_MS;
  let n = 0;
  while (!stop && Date.now() < deadline) {
    writer.messageDelta(delta);
    n += 1;
    await writer.ready; // the pipe is full: wait for the supervisor to read
    if (n % 64 === 0) await new Promise((resolve) => setImmediate(resolve)); // lets the signal in
  }
  note(`wrote ${n} deltas`);
  if (stop) writer.cancelled();
  await new Promise((resolve) => out.end(resolve));
  return stop ? 130 : 3;
}

const REFERENCE_PATHS = ['after-last-round', 'post-run-compaction', 'crash-after-last-round', 'over-window'];

async function main() {
  let cancelled = false;
  if (mode === 'flood') return flood();
  w.header(`emit-${mode}`);
  if (REFERENCE_PATHS.includes(mode)) return referencePath();
  if (mode === 'stubborn' || mode === 'deaf') process.on('SIGINT', () => {});
  if (mode === 'stubborn') process.on('SIGTERM', () => {});
  if (mode === 'hang') {
    process.on('SIGINT', () => {
      cancelled = true;
    });
    await startSleeper(arg);
  }
  w.agentStart();
  w.messageStart('assistant');
  if (mode === 'stderr') {
    let n = Number(arg);
    for (let i = 0; n > 0; i++) {
      const line = `stderr line ${i}\n`.slice(0, n);
      writeSync(2, line);
      n -= line.length;
    }
    writeSync(2, 'LAST STDERR LINE\n');
  }
  if (mode === 'garbage') writeSync(1, 'this is not json\n');
  w.messageDelta('waiting');
  note('first delta written');
  if (mode === 'wait' && !(await until(() => existsSync(arg)))) {
    w.turnError('the flag never came', true);
    return 1;
  }
  if (mode === 'hang') {
    await until(() => cancelled);
    w.cancelled();
    return 130;
  }
  if (mode === 'stubborn' || mode === 'deaf') {
    await sleep(WAIT_LIMIT_MS);
    return 3;
  }
  if (mode === 'orphan') await startSleeper(arg);
  w.messageDelta(' done');
  w.turnDone('waiting done', [], USAGE, 'stop');
  note('finished');
  return 0;
}

process.exit(await main());
