// Supervising real child processes with `spawn` (the twin of
// bindings-python/tests/test_supervise.py). Every wait is bounded by a watchdog and every
// test by a timeout: a supervisor that buffers output or leaks a child makes a test fail,
// never hang. The `// START name` regions are the snippets of docs/node.md.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  EXIT_CANCELLED,
  HepError,
  INTERRUPT_GRACE_MS,
  STDERR_TAIL_BYTES,
  Stream,
  TERMINATE_GRACE_MS,
  exitCodeForSignal,
  sanitize,
  spawn,
} from 'hep';
import {
  KILLED_MID_LINE,
  LEAK_WATCHDOG_MS,
  REPO,
  STDIO,
  WATCHDOG_MS,
  alive,
  assertNoProcessLeft,
  collect,
  emit,
  exists,
  groupMembers,
  hepBin,
  readPid,
  simulate,
  takeUntil,
  types,
  watchdog,
} from './supervise-support.mjs';

const TEST = { timeout: 30_000 };
let tmp;

before(() => {
  hepBin(); // builds target/debug/hep if it is missing
  tmp = mkdtempSync(join(tmpdir(), 'hep-supervise-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
const tmpPath = (name) => join(tmp, `${name}-${++serial}`);
const isDelta = (f) => f.type === 'message_delta' || f.type === 'tool_delta';

/** A stand-in for `console` whose `log` keeps the lines (the doc snippets print). */
function quiet() {
  const lines = [];
  return { lines, log: (...parts) => lines.push(parts.join(' ')) };
}

// ---- a frame reaches the consumer while the child still runs ----

describe('streaming', () => {
  test('a frame arrives while the child is still running', TEST, async () => {
    const flag = tmpPath('flag');
    const run = spawn(...emit('wait', flag));
    let dog = watchdog(run.pid);
    const seen = await takeUntil(run, (f) => f.type === 'message_delta');
    dog.stop();
    // The child cannot end before the flag exists: the frame came from a running child.
    assert.ok(!dog.fired, 'the delta arrived only after the watchdog killed the child: output is buffered');
    assert.ok(!existsSync(flag) && alive(run.pid));
    assert.deepEqual(types(seen), ['hep_header', 'agent_start', 'message_start', 'message_delta']);
    writeFileSync(flag, '');
    dog = watchdog(run.pid);
    const rest = await collect(run); // a second loop goes on where the first one stopped
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual(types(rest), ['message_delta', 'turn_done']);
    assert.equal(result.verdict, 'ok');
    assert.equal(result.exitCode, 0);
    assert.equal(result.conforms, true);
    assert.equal(result.answer, 'waiting done');
    assert.deepEqual(result.usage, { input: 3, output: 5, cost: 0.25 });
    assert.ok(!exists(run.pid), 'the child was not reaped');
  });

  test('the simulator at speed 1 streams frames as they are written', TEST, async () => {
    const arrivals = [];
    const start = performance.now();
    const run = spawn(...simulate('chat', 1));
    const dog = watchdog(run.pid);
    const frames = [];
    for await (const frame of run) {
      arrivals.push(performance.now() - start);
      frames.push(frame);
    }
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.equal(result.verdict, 'ok');
    assert.equal(result.exitCode, 0);
    // The run takes a while at speed 1; the header must come long before the end.
    assert.ok(arrivals.at(-1) - arrivals[0] > 300, String(arrivals));
    assert.ok(new Set(arrivals.map((t) => Math.round(t / 10))).size > 5, 'frames arrived in a few big batches');
    // Same seed, same bytes: the frames equal those of the same run at speed 0.
    const [command, args] = simulate('chat');
    const fast = execFileSync(command, args, { timeout: WATCHDOG_MS });
    assert.deepEqual(frames, new Stream().feed(fast));
    assert.equal(frames.at(-1).type, 'turn_done');
    assert.ok(result.answer && result.answer === frames.at(-1).message);
  });

  // [scenario, verdict, exit code, warnings ([code, turn id]) of a reference path it takes]
  const scenarios = [
    ['chat', 'ok', 0, []],
    ['tools', 'ok', 0, []],
    ['error', 'failed', 1, []],
    ['compaction', 'ok', 0, []],
    ['stuck', 'ok', 0, []],
    ['big-output', 'ok', 0, []],
    ['future', 'ok', 0, []],
    ['over-window', 'ok', 0, [['round_after_fatal_error', 3]]],
    ['skipped-compaction', 'ok', 0, [['unpaired_compaction_start', 1]]],
  ];
  for (const [scenario, verdict, code, warnings] of scenarios) {
    test(`the simulator's ${scenario} scenario: ${verdict}, exit ${code}`, TEST, async () => {
      const run = spawn(...simulate(scenario));
      const dog = watchdog(run.pid);
      const frames = await collect(run);
      const result = await run.result;
      dog.stop();
      assert.equal(result.verdict, verdict, result.reasons.join('; '));
      assert.equal(result.exitCode, code);
      assert.equal(result.conforms, true);
      assert.equal(result.lines, frames.length);
      assert.equal(frames[0].type, 'hep_header');
      assert.equal(frames[0].hep, 'v1');
      assert.deepEqual(
        result.violations.map((v) => [v.code, v.turnId]),
        warnings,
      );
      assert.ok(result.violations.every((v) => v.severity === 'warning'));
      assert.deepEqual(result.skipped, []);
      if (scenario === 'future') assert.ok(frames.some((f) => f.type === 'unknown'));
      if (scenario === 'tools') {
        assert.ok(result.toolCalls.length > 0);
        assert.ok(result.toolCalls.every((c) => c.status === 'ok' || c.status === 'failed'));
      }
      if (scenario === 'error') assert.equal(frames.at(-1).type, 'turn_error');
      if (scenario === 'over-window') {
        assert.ok(frames.some((f) => f.type === 'turn_error' && f.fatal));
        assert.equal(result.lastTerminal, 'turn_done');
      }
    });
  }

  test('a run nobody iterates still reads its frames and resolves its result', TEST, async () => {
    const run = spawn(...simulate('big-output'));
    const dog = watchdog(run.pid);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.equal(result.verdict, 'ok');
    assert.ok(result.lines > 10);
    // The frames stay available to a late consumer.
    assert.equal((await collect(run)).length, result.lines);
  });

  test('raw: each frame keeps its line and line number, not enumerable', TEST, async () => {
    const run = spawn(...simulate('chat'), { raw: true });
    const frames = await collect(run);
    await run.result;
    const header = frames[0];
    assert.equal(header.line, 1);
    assert.ok(header.raw.startsWith('{"type":"hep_header","hep":"v1"'));
    assert.deepEqual(Object.keys(header), ['type', 'hep', 'fah', 'session']);
    assert.equal(frames.at(-1).line, frames.length);
  });

  test('docs: the quick start mirrors a run', TEST, async () => {
    const [command, args] = simulate('tools');
    const console = quiet();
    // START quickstart
    const run = spawn(command, args); // e.g. 'hep', ['simulate', '--scenario', 'tools']
    let text = '';
    for await (const frame of run) {
      switch (frame.type) {
        case 'message_delta':
          text += frame.delta;
          break;
        case 'tool_start':
          console.log(`⚙ ${sanitize(frame.name)}(${sanitize(frame.args_summary)})`);
          break;
        case 'turn_done':
          console.log(sanitize(text));
          text = '';
          break;
      }
    }
    const result = await run.result;
    console.log(result.verdict, result.answer, result.usage);
    // END quickstart
    assert.equal(result.verdict, 'ok');
    assert.ok(console.lines.some((l) => l.startsWith('⚙ bash(')));
    assert.ok(console.lines.at(-1).startsWith('ok All 42 tests pass'));
  });
});

// ---- cancellation ----

describe('cancel', () => {
  test('cancel gives verdict cancelled, exit 130 and a last cancelled frame', TEST, async () => {
    const run = spawn(...simulate('cancel-me', 1));
    const dog = watchdog(run.pid);
    await takeUntil(run, isDelta);
    const started = performance.now();
    await run.cancel();
    const took = performance.now() - started;
    const after = await collect(run);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.ok(took < INTERRUPT_GRACE_MS, 'SIGINT alone should end the simulator');
    assert.equal(after.at(-1).type, 'cancelled');
    assert.equal(result.verdict, 'cancelled');
    assert.equal(result.exitCode, EXIT_CANCELLED);
    assert.equal(result.exitCode, 130);
    assert.equal(result.conforms, true, result.reasons.join('; '));
    assert.equal(result.turns.at(-1).end, 'cancelled');
    // Once the child is gone, cancel does nothing more.
    await run.cancel();
  });

  test('docs: cancel when a tool starts', TEST, async () => {
    const [command, args] = simulate('cancel-me', 4);
    const console = quiet();
    // START cancel
    const run = spawn(command, args);
    for await (const frame of run) {
      if (frame.type === 'tool_start') {
        await run.cancel(); // SIGINT to its group; SIGTERM, SIGKILL after grace periods
      }
    }
    const { verdict, exitCode } = await run.result;
    console.log(verdict, exitCode); // "cancelled" 130 if it was still running
    // END cancel
    assert.deepEqual(console.lines, ['cancelled 130']);
  });

  test('an AbortSignal cancels: verdict cancelled, exit 130', TEST, async () => {
    const [command, args] = simulate('cancel-me', 1);
    // START abort
    const controller = new AbortController();
    const run = spawn(command, args, { signal: controller.signal });
    for await (const frame of run) {
      if (frame.type === 'message_delta') controller.abort(); // the same as run.cancel()
    }
    const result = await run.result; // verdict "cancelled", exit code 130
    // END abort
    assert.equal(result.verdict, 'cancelled');
    assert.equal(result.exitCode, 130);
    assert.equal(result.conforms, true);
  });

  test('a signal aborted before the start cancels at once', TEST, async () => {
    const run = spawn(...simulate('cancel-me', 1), { signal: AbortSignal.abort() });
    const dog = watchdog(run.pid);
    await run.cancel();
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    // Before its handler is installed SIGINT kills the simulator (128 + 2); after, it exits
    // 130, with or without a `cancelled` frame (none when the signal lands before agent_start).
    assert.equal(result.exitCode, 130);
    // Exit 130 is a cancel wherever the signal lands; only a stream with no line at all
    // (killed before the header) is cut short.
    assert.equal(result.verdict, result.lines === 0 ? 'incomplete' : 'cancelled', result.reasons.join('; '));
  });

  test('timeoutMs cancels a run that takes too long', TEST, async () => {
    const [command, args] = simulate('cancel-me', 1);
    const console = quiet();
    // START timeout
    const run = spawn(command, args, { timeoutMs: 500 }); // cancelled after 0.5 s
    const result = await run.result;
    console.log(run.timedOut, result.verdict); // true "cancelled"
    // END timeout
    assert.deepEqual(console.lines, ['true cancelled']);
    assert.equal(result.verdict, 'cancelled');
    assert.equal(result.exitCode, 130);
  });

  test('a run that ends in time does not time out', TEST, async () => {
    const run = spawn(...simulate('chat'), { timeoutMs: 20_000 });
    const result = await run.result; // the pending timer must not keep node:test waiting
    assert.equal(run.timedOut, false);
    assert.equal(result.verdict, 'ok');
  });

  test('cancel escalates to SIGKILL for a child that ignores SIGINT and SIGTERM', TEST, async () => {
    const run = spawn(...emit('stubborn'), { interruptGraceMs: 200, terminateGraceMs: 200 });
    const dog = watchdog(run.pid);
    await takeUntil(run, isDelta);
    const started = performance.now();
    await run.cancel();
    const took = performance.now() - started;
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.ok(took >= 390 && took < 400 + TERMINATE_GRACE_MS, `took ${took} ms`);
    assert.equal(result.exitCode, exitCodeForSignal('SIGKILL'));
    assert.equal(result.exitCode, 137);
    assert.equal(result.verdict, 'incomplete');
  });

  test('cancel escalates to SIGTERM for a child that ignores SIGINT', TEST, async () => {
    const run = spawn(...emit('deaf'), { interruptGraceMs: 200 });
    const dog = watchdog(run.pid);
    await takeUntil(run, isDelta);
    const started = performance.now();
    await run.cancel();
    const took = performance.now() - started;
    const result = await run.result;
    dog.stop();
    assert.ok(took >= 190 && took < 200 + TERMINATE_GRACE_MS, `took ${took} ms`);
    assert.equal(result.exitCode, 143);
    assert.equal(result.verdict, 'incomplete');
  });
});

// ---- the reference harness's own paths (conformance/stream/reference/), on real children ----

describe("the reference harness's own paths", () => {
  const codes = (result) => result.violations.map((v) => [v.code, v.severity, v.turnId]);
  const isLastDone = (f) => f.type === 'turn_done' && f.stop_reason === 'stop';

  // A signal after the last round (the reference persisting, compacting or waiting for
  // background jobs) aborts nothing: no `cancelled`, exit 130, the answer kept.
  const signalled = [
    ['after-last-round', 'turn_done', [['cancelled_between_rounds', 'warning', 2]]],
    [
      'post-run-compaction',
      'compaction_start',
      [
        ['unpaired_compaction_start', 'warning', 3],
        ['cancelled_between_rounds', 'warning', 2],
      ],
    ],
  ];
  for (const [mode, last, violations] of signalled) {
    test(`a cancel after the last round (${mode}): exit 130 with no cancelled frame is cancelled, the answer kept`, TEST, async () => {
      const run = spawn(...emit(mode));
      const dog = watchdog(run.pid);
      const seen = await takeUntil(run, (f) => f.type === last && (last !== 'turn_done' || isLastDone(f)));
      const started = performance.now();
      await run.cancel();
      const took = performance.now() - started;
      const rest = await collect(run);
      const result = await run.result;
      dog.stop();
      assert.ok(!dog.fired);
      assert.ok(took < INTERRUPT_GRACE_MS, 'SIGINT alone should end the emitter');
      assert.deepEqual(rest, [], 'nothing is written after the signal');
      assert.ok(!seen.some((f) => f.type === 'cancelled'));
      assert.equal(result.verdict, 'cancelled', result.reasons.join('; '));
      assert.equal(result.exitCode, 130);
      assert.equal(result.answer, 'All tests pass.');
      assert.equal(result.lastTerminal, 'turn_done');
      assert.deepEqual(codes(result), violations);
      assert.equal(result.conforms, true, 'warnings only');
      // The supervisor's own reason comes first (who cancelled), then the stream's.
      assert.equal(result.reasons[0], 'the supervisor cancelled the run: cancelled on request');
      assert.match(result.reasons[1], /between rounds/);
    });
  }

  test("a cancel during the simulator's post-run compaction: no cancelled frame, verdict cancelled", TEST, async () => {
    // At speed 1 the post-run compaction lasts 1.5 s: the cancel lands in it, after the run
    // has stopped streaming, so the simulator (as the reference) writes nothing more.
    const run = spawn(...simulate('compaction', 1));
    const dog = watchdog(run.pid);
    let ended = false;
    const seen = await takeUntil(run, (f) => {
      ended ||= isLastDone(f);
      return ended && f.type === 'compaction_start';
    });
    await run.cancel();
    const rest = await collect(run);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual(types(rest), []);
    assert.ok(!seen.some((f) => f.type === 'cancelled'));
    assert.deepEqual([result.verdict, result.exitCode, result.answer], ['cancelled', 130, seen.findLast(isLastDone).message]);
    assert.deepEqual(
      result.violations.map((v) => v.code),
      ['unpaired_compaction_start', 'cancelled_between_rounds'],
    );
    assert.equal(result.conforms, true);
  });

  test('exit 1 after the last turn_done is failed (failed_after_last_round), the answer kept', TEST, async () => {
    const run = spawn(...emit('crash-after-last-round'));
    const frames = await collect(run);
    const result = await run.result;
    assert.equal(frames.at(-1).type, 'turn_done');
    assert.ok(!frames.some((f) => f.type === 'turn_error'));
    assert.deepEqual([result.verdict, result.exitCode, result.answer], ['failed', 1, 'All tests pass.']);
    assert.deepEqual(codes(result), [['failed_after_last_round', 'warning', 2]]);
    assert.equal(result.conforms, true);
    assert.match(result.stderrTail, /failed while saving the session/);
  });

  test('an over-window continuation (fatal turn_error, compaction, a new round) ends ok', TEST, async () => {
    const run = spawn(...emit('over-window'));
    const frames = await collect(run);
    const result = await run.result;
    assert.deepEqual(
      frames.slice(1).map((f) => `${f.type}(${f.turn_id})`),
      [
        'agent_start(1)',
        'message_start(1)',
        'message_delta(1)',
        'tool_start(1)',
        'tool_delta(1)',
        'turn_done(1)',
        'turn_error(2)',
        'compaction_start(3)',
        'compaction_end(3)',
        'message_start(3)',
        'message_delta(3)',
        'turn_done(3)',
      ],
    );
    assert.equal(frames.find((f) => f.type === 'turn_error').fatal, true);
    assert.deepEqual([result.verdict, result.exitCode, result.answer], ['ok', 0, 'All tests pass.']);
    assert.deepEqual(codes(result), [['round_after_fatal_error', 'warning', 3]]);
    assert.equal(result.conforms, true);
    assert.deepEqual(
      result.turns.map((t) => [t.turnId, t.end]),
      [
        [1, 'turn_done'],
        [2, 'turn_error'],
        [3, 'turn_done'],
      ],
    );
    assert.equal(result.tokensFreed, 120_000);
  });
});

// ---- a child killed mid-line ----

test('a child killed mid-line is incomplete, with a truncated line', TEST, async () => {
  const run = spawn(...KILLED_MID_LINE);
  const frames = await collect(run);
  const result = await run.result;
  assert.deepEqual(types(frames), ['hep_header', 'agent_start']);
  assert.equal(result.exitCode, 137);
  assert.equal(result.verdict, 'incomplete');
  assert.equal(result.conforms, false);
  assert.deepEqual(
    result.skipped.map((s) => [s.kind, s.line]),
    [['truncated', 3]],
  );
  assert.equal(result.halted, null);
});

// ---- stderr ----

describe('stderr', () => {
  test('the stderr tail is captured and bounded', TEST, async () => {
    const run = spawn(...emit('stderr', 3 * STDERR_TAIL_BYTES));
    const frames = await collect(run);
    const result = await run.result;
    assert.equal(result.verdict, 'ok');
    assert.equal(frames.length, 6);
    const tail = result.stderrTail;
    assert.ok(
      tail.endsWith('LAST STDERR LINE\nemitter stderr: first delta written\nemitter stderr: finished\n'),
      tail.slice(-200),
    );
    const bytes = Buffer.byteLength(tail);
    assert.ok(STDERR_TAIL_BYTES - 100 < bytes && bytes <= STDERR_TAIL_BYTES, `${bytes} bytes`);
    assert.ok(!tail.includes('stderr line 0\n'));
  });

  test('the stderr of a short run', TEST, async () => {
    const flag = tmpPath('flag');
    writeFileSync(flag, '');
    const run = spawn(...emit('wait', flag));
    const result = await run.result;
    assert.equal(result.stderrTail, 'emitter wait: first delta written\nemitter wait: finished\n');
  });
});

// ---- no leaks ----
//
// The emitter leaves a `sleep` in its process group that ignores SIGINT and SIGTERM. With
// STDIO `inherit` that grandchild also holds the child's stdout and stderr open, as a
// background process started by a real harness's tool would.

describe('no orphans', () => {
  for (const stdio of STDIO) {
    test(`cancel kills the child and its group (grandchild stdio: ${stdio})`, TEST, async () => {
      const pidfile = tmpPath('sleeper.pid');
      const run = spawn(...emit('hang', pidfile, stdio));
      const dog = watchdog(run.pid, LEAK_WATCHDOG_MS);
      await takeUntil(run, isDelta);
      const child = run.pid;
      const sleeper = await readPid(pidfile);
      assert.ok(alive(child) && alive(sleeper));
      assert.deepEqual(new Set(groupMembers(child)), new Set([child, sleeper]));
      await run.cancel();
      const frames = await collect(run);
      const result = await run.result;
      dog.stop();
      assert.ok(
        !dog.fired,
        'the result came only when the watchdog killed the group: the supervisor waits for stdout EOF, ' +
          'which the grandchild still holds, before killing the group',
      );
      await assertNoProcessLeft(child, child, sleeper);
      assert.equal(result.verdict, 'cancelled');
      assert.equal(result.exitCode, 130);
      assert.equal(frames.at(-1).type, 'cancelled');
    });

    test(`what the child leaves in its group is killed when it ends (grandchild stdio: ${stdio})`, TEST, async () => {
      const pidfile = tmpPath('sleeper.pid');
      const run = spawn(...emit('orphan', pidfile, stdio));
      const dog = watchdog(run.pid, LEAK_WATCHDOG_MS);
      const frames = await collect(run);
      const result = await run.result;
      dog.stop();
      assert.ok(
        !dog.fired,
        'the child ended but the result only came when the watchdog killed its group: the supervisor waits ' +
          'for stdout EOF, which the grandchild still holds, before killing the group',
      );
      assert.equal(result.verdict, 'ok');
      assert.equal(result.exitCode, 0);
      assert.equal(frames.at(-1).type, 'turn_done');
      await assertNoProcessLeft(run.pid, await readPid(pidfile));
    });
  }

  test('a supervisor that exits kills the groups of the runs it leaves', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const [command, args] = emit('hang', pidfile);
    const script = `
      import { spawn } from 'hep';
      import { existsSync } from 'node:fs';
      const run = spawn(${JSON.stringify(command)}, ${JSON.stringify(args)});
      while (!existsSync(${JSON.stringify(pidfile)})) await new Promise((r) => setTimeout(r, 10));
      console.log(run.pid);
      process.exit(0); // without cancelling
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(REPO, 'bindings-node'),
      timeout: WATCHDOG_MS,
    });
    const child = Number(out.toString().trim());
    await assertNoProcessLeft(child, child, await readPid(pidfile));
  });
});

// ---- strict and lenient ----

describe('strict mode', () => {
  test('strict mode throws at the bad line, after the frames before it', TEST, async () => {
    const run = spawn(...emit('garbage'), { strict: true });
    const seen = [];
    await assert.rejects(
      async () => {
        for await (const frame of run) seen.push(frame);
      },
      (error) => {
        assert.ok(error instanceof HepError);
        assert.equal(error.code, 'HEP_SYNTAX');
        assert.equal(error.line, 4);
        return true;
      },
    );
    assert.deepEqual(types(seen), ['hep_header', 'agent_start', 'message_start']);
    const result = await run.result;
    assert.equal(result.verdict, 'protocol_error');
    assert.equal(result.halted.kind, 'syntax');
    assert.equal(result.halted.line, 4);
  });

  test('strict mode throws HEP_TRUNCATED for a child killed mid-line', TEST, async () => {
    const run = spawn(...KILLED_MID_LINE, { strict: true });
    const seen = [];
    await assert.rejects(
      async () => {
        for await (const frame of run) seen.push(frame);
      },
      { name: 'HepError', code: 'HEP_TRUNCATED', line: 3 },
    );
    assert.deepEqual(types(seen), ['hep_header', 'agent_start']);
    const result = await run.result;
    assert.equal(result.exitCode, 137);
    assert.equal(result.halted.kind, 'truncated');
    assert.equal(result.conforms, false);
  });

  test('lenient mode skips the bad line', TEST, async () => {
    const run = spawn(...emit('garbage'));
    const frames = await collect(run);
    const result = await run.result;
    assert.equal(frames.length, 6);
    assert.deepEqual(
      result.skipped.map((s) => [s.kind, s.line]),
      [['syntax', 4]],
    );
    assert.equal(run.stream.skipped[0].line, 4);
    assert.equal(result.verdict, 'protocol_error');
    assert.equal(result.exitCode, 0);
    assert.equal(result.conforms, false);
  });
});

// ---- misuse ----

describe('errors', () => {
  test('a command that cannot start rejects the result and the iteration', TEST, async () => {
    const run = spawn(join(tmp, 'no-such-harness'), ['--flag']);
    assert.equal(run.pid, undefined);
    await assert.rejects(collect(run), { code: 'ENOENT' });
    await assert.rejects(run.result, { code: 'ENOENT' });
    await run.cancel(); // nothing to cancel
  });

  test('an unawaited failed start leaves no unhandled rejection', TEST, async () => {
    spawn(join(tmp, 'no-such-harness'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // 'error' has fired by now
  });

  test('options that would bypass the process group are refused', () => {
    for (const option of [{ stdio: 'inherit' }, { detached: false }, { timeout: 5 }, { killSignal: 'SIGKILL' }]) {
      assert.throws(() => spawn('true', [], option), TypeError);
    }
    assert.throws(() => spawn('true', [], { signal: 'stop' }), TypeError);
    assert.throws(() => spawn('true', [], { strict: 'yes' }), TypeError);
    assert.throws(() => spawn('true', 'not an array'), TypeError);
  });
});

// ---- the grace periods of a cancel ----

describe('grace periods', () => {
  test('wrong grace periods and timeouts are TypeErrors and RangeErrors naming them', () => {
    const most = 2 ** 31 - 1;
    const range = (name, value) =>
      `spawn(options): ${name} must be a number of milliseconds from 0 to ${most} (the longest Node timer), not ${value}`;
    const cases = [
      [{ interruptGraceMs: '5000' }, TypeError, 'spawn(options): interruptGraceMs must be a number of milliseconds, not a string'],
      [{ terminateGraceMs: null }, TypeError, 'spawn(options): terminateGraceMs must be a number of milliseconds, not null'],
      [{ timeoutMs: 10n }, TypeError, 'spawn(options): timeoutMs must be a number of milliseconds, not a bigint'],
      [{ interruptGraceMs: -1 }, RangeError, range('interruptGraceMs', -1)],
      [{ interruptGraceMs: NaN }, RangeError, range('interruptGraceMs', NaN)],
      [{ terminateGraceMs: Infinity }, RangeError, range('terminateGraceMs', Infinity)],
      // A longer Node timer fires at once: a grace of 2**31 ms would be none.
      [{ terminateGraceMs: most + 1 }, RangeError, range('terminateGraceMs', most + 1)],
      [{ timeoutMs: most + 1 }, RangeError, range('timeoutMs', most + 1)],
    ];
    for (const [options, type, message] of cases) {
      assert.throws(() => spawn('true', [], options), (e) => e instanceof type && e.message === message, message);
    }
  });

  test('the bounds themselves are accepted', TEST, async () => {
    const run = spawn('true', [], { interruptGraceMs: 0, terminateGraceMs: 2 ** 31 - 1, timeoutMs: 2 ** 31 - 1 });
    assert.equal((await run.result).exitCode, 0);
    assert.equal(run.timedOut, false);
  });

  test('without interruptGraceMs, SIGTERM waits for the core grace (the reference settles for 10 s)', TEST, async () => {
    // `deaf` ignores SIGINT and SIGTERM ends it: it lives until the grace runs out.
    const run = spawn(...emit('deaf'));
    const dog = watchdog(run.pid);
    await takeUntil(run, isDelta);
    const cancelled = run.cancel();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stillRunning = alive(run.pid);
    process.kill(-run.pid, 'SIGKILL'); // the rest of the 12 s is not this test's to wait
    await cancelled;
    const result = await run.result;
    dog.stop();
    assert.ok(stillRunning, 'SIGTERM came within 1.5 s of SIGINT');
    assert.ok(INTERRUPT_GRACE_MS > 10_000, `${INTERRUPT_GRACE_MS} ms`);
    assert.equal(result.exitCode, 137);
  });
});

// ---- the snippets of docs/node.md about a run ----

test('docs: spawn and the run result', TEST, async () => {
  const [command, args] = simulate('tools');
  const console = quiet();
  // START spawn
  const run = spawn(command, args, { cwd: process.cwd() }); // options also go to child_process.spawn
  console.log('child pid', run.pid); // also its process group id
  for await (const frame of run) {
    console.log(frame.type); // each frame as soon as its line is complete
  }
  const result = await run.result; // stdout read to the end, the child reaped, the run judged
  console.log(result.verdict, run.stream.violations);
  // END spawn
  // START result
  console.log(result.verdict); // "ok", "failed", "cancelled", "incomplete" or "protocol_error"
  console.log(result.reasons); // why, as sentences
  console.log(result.exitCode, result.conforms); // the child's exit code; no protocol errors?
  console.log(result.answer); // the user-visible answer: the last round's message
  const { input, output, cost } = result.usage; // totals over every turn_done
  console.log(`${input} in / ${output} out · $${cost.toFixed(4)}`);
  for (const turn of result.turns) console.log(turn.end, turn.text);
  for (const call of result.toolCalls) console.log(call.name, call.status);
  for (const v of result.violations) console.log(v.line, v.severity, v.code, v.message);
  for (const s of result.skipped) console.log(s.line, s.kind, s.message);
  console.log(result.lines, result.halted, result.stderrTail);
  // END result
  assert.equal(result.verdict, 'ok');
  assert.equal(console.lines[0], `child pid ${run.pid}`);
  assert.ok(console.lines.includes('tool_start'));
});
