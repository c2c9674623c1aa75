// Supervision: hep-core's policy as the public `Supervisor` (a state machine without I/O:
// a driver of one's own written with it, the snippet of docs/node.md, run on real children;
// its events in order; its argument checks; the policy itself is pinned by
// conformance/supervise/, which conformance.test.mjs runs through this class), and `spawn`,
// the package's driver of it, on real children (the twin of
// bindings-python/tests/test_supervise.py): streaming, cancel (keeps reading, the next step
// at once, cancelOnBreak, `await using`), timeouts and the idle timeout, the consumer held
// up or let go, live stderr, the reference harness's own paths, strict mode, no orphans
// (also when the supervising Node goes away), grace periods, and the core's constants.
// Every wait is bounded by a watchdog and every test by a timeout: a supervisor that
// buffers output or leaks a child makes a test fail, never hang. The `// START name`
// regions are snippets of docs/node.md. (Children that misbehave: faults.test.mjs.)

// START driver
import { spawn as spawnChild } from 'node:child_process';
import { Supervisor } from 'hep';

/** Runs a harness; the Supervisor decides everything, this function only does the I/O. */
function supervise(command, args, options, onFrame) {
  return new Promise((resolve) => {
    const sup = new Supervisor(performance.now(), options); // times: ms on one monotonic clock
    const child = spawnChild(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const kill = (signal) => {
      try {
        process.kill(-child.pid, signal); // the child's process group
      } catch {} // already gone
    };
    let timer;
    const step = (input) => {
      input(performance.now());
      for (let action = sup.pollAction(); action !== null; action = sup.pollAction()) {
        if (action.kind === 'signal') kill(action.signal);
        else if (action.kind === 'kill_group') kill('SIGKILL');
        else if (action.kind === 'pause_stdout') child.stdout.pause();
        else if (action.kind === 'resume_stdout') child.stdout.resume();
        else if (action.kind === 'close_pipes') child.stdout.destroy(), child.stderr.destroy();
      }
      for (const event of sup.pollEvents()) if (event.kind === 'frame') onFrame(event.frame);
      for (let line = sup.pollStderr(); line !== null; line = sup.pollStderr()) console.error(line);
      clearTimeout(timer);
      const due = sup.deadline(); // when to wake it next
      if (due !== null) timer = setTimeout(() => step((now) => sup.tick(now)), due - performance.now());
      if (sup.finished) resolve(sup.result());
    };
    child.stdout.on('data', (chunk) => step((now) => sup.stdout(now, chunk)));
    child.stderr.on('data', (chunk) => step((now) => sup.stderr(now, chunk)));
    child.stdout.on('close', () => step((now) => sup.stdoutClosed(now)));
    child.stderr.on('close', () => step((now) => sup.stderrClosed(now)));
    child.on('exit', (code, signal) => step((now) => sup.exited(now, code, signal)));
  });
}
// END driver

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as hep from 'hep';
import {
  EXIT_CANCELLED,
  INTERRUPT_GRACE_MS,
  MIN_DROP_AT_BYTES,
  PAUSE_AT_BYTES,
  STDERR_TAIL_BYTES,
  TERMINATE_GRACE_MS,
  HepError,
  Stream,
  exitCodeForSignal,
  sanitize,
  spawn,
} from 'hep';
import {
  CANCELLED,
  DONE,
  HEADER,
  KILLED_MID_LINE,
  LEAK_WATCHDOG_MS,
  REPO,
  START,
  STDIO,
  STUBBORN,
  WATCHDOG_MS,
  alive,
  assertNoProcessLeft,
  collect,
  emit,
  eventually,
  exists,
  groupMembers,
  hepBin,
  readPid,
  sh,
  simulate,
  takeUntil,
  types,
  watchdog,
} from './supervise-support.mjs';

const TEST = { timeout: 30_000 };
const PACKAGE = join(REPO, 'bindings-node');
let tmp;

before(() => {
  hepBin(); // builds target/debug/hep if it is missing
  tmp = mkdtempSync(join(tmpdir(), 'hep-supervise-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
const tmpPath = (name) => join(tmp, `${name}-${++serial}`);
const isDelta = (f) => f.type === 'message_delta' || f.type === 'tool_delta';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const signalsOf = (result) => result.supervision.signals.map((s) => s.signal);
/** A header line, newline included, for the Supervisor's own tests. */
const HEADER_LINE = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';

/** A stand-in for `console` whose `log` and `error` keep the lines (the doc snippets print). */
function quiet() {
  const lines = [];
  const keep = (...parts) => lines.push(parts.join(' '));
  return { lines, log: keep, error: keep };
}

// ---- spawn ----

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

  test('an unawaited failed start leaves no unhandled rejection', TEST, () => {
    // In a Node of its own, without this test runner's handlers: a rejection nobody handles
    // would be counted, and would crash it without the listener.
    const script = `
      const { spawn } = require('hep');
      const unhandled = [];
      process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));
      const run = spawn(${JSON.stringify(join(tmp, 'no-such-harness'))});
      // 'error' has fired by then, and so has the report of a rejection nobody handled.
      setTimeout(() => setImmediate(() => {
        run.result.then(() => null, (error) => error.code).then((code) => console.log(JSON.stringify({ unhandled, code })));
      }), 100);
    `;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: join(REPO, 'bindings-node'), encoding: 'utf8', timeout: 10_000 });
    // No rejection went unhandled, and the start did fail (the result is rejected).
    assert.deepEqual(JSON.parse(out), { unhandled: [], code: 'ENOENT' });
  });

  test('where supervising is unsupported (Windows), spawn throws naming the platform; reading and writing still work', TEST, () => {
    // In a Node of its own that says it is Windows once hep is loaded (the addon for this
    // machine): the check reads the platform at each call.
    const script = `
      const hep = require('hep');
      Object.defineProperty(process, 'platform', { value: 'win32' });
      let error = null;
      try { hep.spawn('true'); } catch (e) { error = { code: e.code, platform: e.platform, message: e.message }; }
      const lines = [];
      new hep.Writer((l) => lines.push(l), { fahVersion: '1' }).messageDelta('hé');
      const frames = new hep.Stream().feed(lines.join(''));
      console.log(JSON.stringify({ error, frames }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(REPO, 'bindings-node'), encoding: 'utf8', timeout: 10_000 }));
    assert.deepEqual(out.error, {
      code: 'ERR_HEP_UNSUPPORTED_PLATFORM',
      platform: 'win32',
      message:
        'hep: spawn() is not supported on this platform (win32): supervising a harness needs process groups and POSIX signals (Linux, macOS); reading and writing HEP work everywhere',
    });
    assert.deepEqual(out.frames, [{ type: 'message_delta', turn_id: 1, delta: 'hé' }]);
  });

  test('supervising is supported on the POSIX platforms, not on Windows', () => {
    const { requireSupervision } = createRequire(import.meta.url)('../lib/platform.js');
    for (const platform of ['linux', 'darwin', 'freebsd', 'openbsd', 'android']) requireSupervision('spawn()', platform);
    assert.throws(() => requireSupervision('spawn()', 'win32'), { code: 'ERR_HEP_UNSUPPORTED_PLATFORM', platform: 'win32' });
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

describe('the core constants and helpers', () => {
  test('constants are the core policy', () => {
    assert.deepEqual(
      [hep.PROTOCOL_VERSION, hep.EXIT_OK, hep.EXIT_FAILED, hep.EXIT_CANCELLED, hep.INTERRUPT_GRACE_MS, hep.TERMINATE_GRACE_MS, hep.STDERR_TAIL_BYTES, hep.TOOL_RESULT_CAP],
      ['v1', 0, 1, 130, 12_000, 2000, 65536, 2000],
    );
    assert.deepEqual(
      [hep.DRAIN_AFTER_EXIT_MS, hep.MAX_STDERR_LINE, hep.PAUSE_AT_BYTES, hep.MIN_DROP_AT_BYTES],
      [2000, 16384, 1 << 20, 1 << 20],
    );
    // The interrupt grace outlasts the reference's 10 s settle plus its drain and exit.
    assert.ok(hep.INTERRUPT_GRACE_MS > 10_000);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const workspace = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
    assert.equal(hep.VERSION, pkg.version);
    assert.equal(`version = "${hep.VERSION}"`, workspace.match(/^version = ".*"$/m)[0], 'package.json and the workspace agree');
  });

  test('exitCodeForSignal takes a name or a number', () => {
    assert.equal(hep.exitCodeForSignal('SIGINT'), 130);
    assert.equal(hep.exitCodeForSignal(2), 130);
    assert.equal(hep.exitCodeForSignal('SIGKILL'), 137);
    assert.equal(hep.exitCodeForSignal(15), 143);
    assert.throws(() => hep.exitCodeForSignal('SIGNOPE'), RangeError);
    assert.throws(() => hep.exitCodeForSignal(0), RangeError);
    assert.throws(() => hep.exitCodeForSignal(null), TypeError);
  });

  test('Tail keeps the last bytes and counts the dropped ones', () => {
    const tail = new hep.Tail(5);
    tail.push(Buffer.from('abc'));
    tail.push('defg');
    assert.deepEqual([tail.text(), tail.dropped], ['cdefg', 2]);
    tail.push(new Uint8Array([0xc3, 0xa9, 0x21]));
    assert.deepEqual([tail.text(), tail.dropped], ['fgé!', 5]);
    tail.push(Buffer.from('xxxxé'));
    assert.deepEqual([tail.text(), tail.dropped], ['xxxé', 11]);
    const cut = new hep.Tail(5);
    cut.push('ééé');
    assert.deepEqual([cut.text(), cut.dropped], ['\ufffdéé', 1], 'a character cut at the start is U+FFFD');
    assert.equal(new hep.Tail().text(), '');
    assert.throws(() => tail.push(5), TypeError);
    assert.throws(() => new hep.Tail(-1), RangeError);
  });
});

// ---- cancel keeps reading ----

describe('cancel keeps reading', () => {
  test('a child blocked on a full pipe (the loop stuck) still writes cancelled: verdict cancelled on SIGINT alone', TEST, async () => {
    const run = spawn(...emit('flood'));
    const dog = watchdog(run.pid);
    const started = performance.now();
    let result = null;
    let stuck = 0;
    for await (const frame of run) {
      stuck += 1;
      if (frame.type !== 'message_delta') continue;
      // The loop takes no frame for a while: past 1 MiB waiting, the supervisor stops
      // reading, and the child blocks on its full pipe. Then the cancel, from inside the loop.
      await sleep(500);
      await run.cancel();
      result = await run.result;
      break;
    }
    const rest = await collect(run);
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.exitCode, result.conforms], ['cancelled', 130, true], result.reasons.join('; '));
    assert.deepEqual(signalsOf(result), ['SIGINT'], 'the child needed more than SIGINT');
    assert.ok(performance.now() - started < 5_000);
    assert.equal(rest.at(-1).type, 'cancelled');
    assert.equal(result.supervision.noticesDropped, 0);
    // Reading had paused: the child wrote little more than the pause threshold (1 MiB of 1 KB deltas).
    const wrote = Number(/wrote (\d+) deltas/.exec(result.stderrTail)[1]);
    assert.equal(stuck + rest.length, wrote + 4, 'every frame was delivered');
    assert.ok(wrote < 4000, `${wrote} deltas: stdout was not paused`);
  });

  test('a flooding child nobody iterates: verdict cancelled on SIGINT alone, memory bounded', TEST, async () => {
    const run = spawn(...emit('flood'));
    const dog = watchdog(run.pid);
    await once(run, 'stderr'); // "flooding": its SIGINT handler is set
    await sleep(500);
    await run.cancel();
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.exitCode, signalsOf(result)], ['cancelled', 130, ['SIGINT']], result.reasons.join('; '));
    assert.equal(result.lastTerminal, 'cancelled');
    // What waits for a later loop is bounded (16 MiB of events); the rest is counted.
    const wrote = Number(/wrote (\d+) deltas/.exec(result.stderrTail)[1]);
    const kept = (await collect(run)).length;
    assert.equal(kept + result.supervision.noticesDropped, wrote + 4);
    assert.ok(kept < 20_000, `${kept} frames waited`);
  });
});

// ---- who takes the frames: the consumer is attached only while a loop is in progress ----

describe('the consumer', () => {
  /** `[command, args]` of a child that writes `bytes` of deltas at once (`cat` of a file), then `wrote all` on stderr. */
  function bulk(bytes) {
    const file = tmpPath('bulk.hep');
    const delta = (i) => `{"type":"message_delta","turn_id":1,"delta":"${String(i).padStart(8, '0')} ${'x'.repeat(1000)}"}`;
    const count = Math.ceil(bytes / delta(0).length);
    const lines = [HEADER, START, '{"type":"message_start","turn_id":1,"role":"assistant"}'];
    for (let i = 0; i < count; i++) lines.push(delta(i));
    lines.push(DONE);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return { child: sh('cat "$1"; echo wrote all >&2', file), lines: lines.length };
  }

  test('a run whose user only awaits the result reads on past the pause threshold: it finishes, every frame kept', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child);
    const dog = watchdog(run.pid);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired, 'the run was held up: stdout paused though nobody iterates');
    assert.deepEqual([result.verdict, result.lines, result.supervision.noticesDropped], ['ok', lines, 0]);
    assert.equal((await collect(run)).length, lines, 'the frames waited for a later loop');
  });

  test('a loop left early (no cancelOnBreak) with more than the pause threshold waiting: reading goes on', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child);
    const dog = watchdog(run.pid);
    let wroteAll = false;
    run.on('stderr', (line) => {
      wroteAll ||= line === 'wrote all';
    });
    let taken = 0;
    for await (const frame of run) {
      taken += 1;
      if (frame.type !== 'message_delta') continue;
      await sleep(300); // the loop in progress holds the child up (stdout paused)...
      break;
    }
    assert.equal(wroteAll, false, 'stdout was not paused while the loop was in progress');
    const result = await run.result; // ...and once it is left, nobody is: the run ends
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.supervision.noticesDropped], ['ok', 0]);
    assert.equal(taken + (await collect(run)).length, lines);
  });

  test('the idle clock stops while a slow loop holds stdout paused: no idle cancel', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child, { idleTimeoutMs: 800 });
    const dog = watchdog(run.pid);
    let wroteAllAt = null;
    run.on('stderr', (line) => {
      if (line === 'wrote all') wroteAllAt = performance.now();
    });
    let count = 0;
    let slept = null;
    for await (const frame of run) {
      count += 1;
      if (frame.type === 'message_delta' && slept === null) {
        await sleep(2000); // longer than the idle timeout without a frame read: the child is held up, not idle
        slept = performance.now();
      }
    }
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.supervision.cancelledBy, run.cancelledBy], ['ok', null, null], result.reasons.join('; '));
    assert.equal(count, lines);
    assert.ok(wroteAllAt > slept, 'stdout was never paused: the test proves nothing');
  });
});

describe('a cancel under way is not hurried', () => {
  test('await using (Symbol.asyncDispose) after cancel(): SIGTERM only after the interrupt grace', TEST, async () => {
    const run = spawn(...emit('deaf'), { interruptGraceMs: 600 }); // ignores SIGINT; SIGTERM ends it
    await takeUntil(run, (f) => f.type === 'message_delta');
    run.cancel();
    assert.equal(run.cancelledBy, 'user');
    await run[Symbol.asyncDispose]();
    const result = await run.result;
    const [int, term] = result.supervision.signals;
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM']);
    assert.ok(term.atMs - int.atMs >= 600, JSON.stringify(result.supervision.signals));
  });

  test('cancelOnBreak after cancel() inside the loop: SIGTERM only after the interrupt grace', TEST, async () => {
    const run = spawn(...emit('deaf'), { interruptGraceMs: 600, cancelOnBreak: true });
    for await (const frame of run) {
      if (frame.type !== 'message_delta') continue;
      run.cancel();
      break;
    }
    const result = await run.result;
    const [int, term] = result.supervision.signals;
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM']);
    assert.ok(term.atMs - int.atMs >= 600, JSON.stringify(result.supervision.signals));
  });
});

describe('an exit nobody reports', () => {
  test('something else reaped the child (libuv never reports it): once the pipes close, the run ends without an exit code', TEST, async () => {
    // The child closes both pipes and lives on; `process.kill(pid, 0)` is made to say it is
    // gone, as it would be had another waitpid() taken it.
    const run = spawn(...sh(`printf '%s\\n' '${HEADER}' '${START}'; exec >&- 2>&-; sleep 10`));
    const dog = watchdog(run.pid);
    const kill = process.kill;
    process.kill = (pid, signal) => {
      if (pid === run.pid && signal === 0) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
      return kill.call(process, pid, signal);
    };
    try {
      const result = await run.result;
      await run.cancel(); // resolved: the child is gone
      assert.deepEqual([result.verdict, result.exitCode, result.supervision.signals], ['incomplete', null, []]);
    } finally {
      process.kill = kill;
      dog.stop();
    }
    assert.ok(!dog.fired);
    // The run's end killed its group (a reaped child leaves nothing behind there).
    assert.ok(await eventually(() => !alive(run.pid)));
  });
});

// ---- the idle timeout ----

describe('idleTimeoutMs', () => {
  // Writes a turn start and then only stderr, every 50 ms; SIGINT: `cancelled`, exit 130.
  const silent = sh(
    `stop() { printf '%s\\n' '${CANCELLED}'; exit 130; }; trap stop INT; printf '%s\\n' '${HEADER}' '${START}'; ` +
      'i=0; while [ $i -lt 600 ]; do echo still here >&2; sleep 0.05; i=$((i+1)); done; exit 3',
  );

  test('a run with no frame for that long is cancelled (stderr does not count): cancelled by idle', TEST, async () => {
    const [command, args] = silent;
    const console = quiet();
    // START idle
    const run = spawn(command, args, { idleTimeoutMs: 400 }); // no frame for 0.4 s: cancel
    const result = await run.result;
    console.log(result.verdict, result.supervision.cancelledBy); // "cancelled" "idle"
    console.log(result.reasons[0]); // "the supervisor cancelled the run: idle for 0.4 s: no frame"
    // END idle
    assert.deepEqual(console.lines, ['cancelled idle', 'the supervisor cancelled the run: idle for 0.4 s: no frame']);
    assert.equal(result.exitCode, 130);
    assert.equal(result.lastTerminal, 'cancelled');
    assert.equal(result.supervision.timedOut, false);
    assert.equal(run.timedOut, false);
    assert.ok(result.supervision.signals[0].atMs >= 400, `${result.supervision.signals[0].atMs} ms`);
    assert.match(result.stderrTail, /still here/);
  });

  test('frames keep a run alive: the simulator at speed 1 (a frame at least every 0.6 s) is never idle for 2 s', TEST, async () => {
    const run = spawn(...simulate('tools', 1), { idleTimeoutMs: 2000 });
    const result = await run.result;
    assert.deepEqual([result.verdict, result.supervision.cancelledBy], ['ok', null]);
  });

  test('timeoutMs and idleTimeoutMs: whichever comes first cancels, named in the result', TEST, async () => {
    const run = spawn(...silent, { idleTimeoutMs: 5000, timeoutMs: 300 });
    const result = await run.result;
    assert.deepEqual([result.verdict, result.supervision.cancelledBy, result.supervision.timedOut], ['cancelled', 'timeout', true]);
    assert.equal(result.reasons[0], 'the supervisor cancelled the run: timed out after 0.3 s');
    assert.equal(run.timedOut, true);
  });

  test('idleTimeoutMs is checked as the other times', () => {
    assert.throws(() => spawn('true', [], { idleTimeoutMs: -1 }), RangeError);
    assert.throws(() => spawn('true', [], { idleTimeoutMs: '5s' }), TypeError);
  });
});

// ---- live stderr ----

describe('live stderr', () => {
  test("each stderr line is a 'stderr' event as it comes, while the child runs", TEST, async () => {
    const flag = tmpPath('flag');
    const [command, args] = emit('wait', flag);
    const console = quiet();
    // START stderr
    const run = spawn(command, args);
    run.on('stderr', (line) => console.error(`harness: ${sanitize(line)}`)); // each line as it comes
    // END stderr
    const dog = watchdog(run.pid);
    assert.ok(await eventually(() => console.lines.length > 0));
    assert.ok(alive(run.pid), 'the line came only at the end');
    assert.deepEqual(console.lines, ['harness: emitter wait: first delta written']);
    writeFileSync(flag, '');
    const result = await run.result;
    dog.stop();
    assert.deepEqual(console.lines, ['harness: emitter wait: first delta written', 'harness: emitter wait: finished']);
    assert.equal(result.stderrTail, 'emitter wait: first delta written\nemitter wait: finished\n');
  });

  test("events.on(run, 'stderr') iterates the lines; a last line without newline comes at the end", TEST, async () => {
    const run = spawn('sh', ['-c', "echo one >&2; sleep 0.1; printf 'two\\r\\nthree' >&2"]);
    const lines = [];
    const stop = new AbortController();
    run.result.then(() => stop.abort());
    try {
      const { on } = await import('node:events');
      for await (const [line] of on(run, 'stderr', { signal: stop.signal })) lines.push(line);
    } catch (error) {
      if (error.name !== 'AbortError') throw error;
    }
    assert.deepEqual(lines, ['one', 'two', 'three']);
  });
});

// ---- the second cancel, cancelOnBreak ----

describe('cancel: the next step, cancelOnBreak', () => {
  test('a second cancel() takes the next step at once: SIGTERM, then SIGKILL', TEST, async () => {
    const run = spawn(...emit('stubborn')); // ignores SIGINT and SIGTERM
    await takeUntil(run, (f) => f.type === 'message_delta');
    const started = performance.now();
    run.cancel(); // SIGINT
    run.cancel(); // SIGTERM at once
    await run.cancel(); // SIGKILL at once
    const result = await run.result;
    assert.ok(performance.now() - started < 2_000);
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM', 'SIGKILL']);
    assert.deepEqual([result.verdict, result.exitCode], ['incomplete', 137]);
  });

  test('cancelOnBreak: leaving a loop early cancels the child', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const [command, args] = emit('hang', pidfile);
    // START cancel-on-break
    const run = spawn(command, args, { cancelOnBreak: true });
    for await (const frame of run) {
      if (frame.type === 'message_delta') break; // cancels: SIGINT to its group, ...
    }
    const { verdict } = await run.result; // "cancelled"
    // END cancel-on-break
    assert.equal(verdict, 'cancelled');
    assert.deepEqual(types(await collect(run)), ['cancelled']);
    await assertNoProcessLeft(run.pid, await readPid(pidfile));
  });

  test('without cancelOnBreak, a loop left early leaves the run going', TEST, async () => {
    const flag = tmpPath('flag');
    const run = spawn(...emit('wait', flag));
    await takeUntil(run, (f) => f.type === 'message_delta');
    await sleep(100);
    assert.ok(alive(run.pid));
    writeFileSync(flag, '');
    assert.equal((await run.result).verdict, 'ok');
  });

  test('a loop that throws also counts as leaving early', TEST, async () => {
    const run = spawn(...emit('hang', tmpPath('sleeper.pid')), { cancelOnBreak: true });
    await assert.rejects(async () => {
      for await (const frame of run) if (frame.type === 'message_delta') throw new Error('the consumer failed');
    }, /the consumer failed/);
    assert.equal((await run.result).verdict, 'cancelled');
  });
});

// ---- await using ----

describe('Symbol.asyncDispose', () => {
  test('run[Symbol.asyncDispose]() cancels the run and waits for its end', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const run = spawn(...emit('hang', pidfile));
    await takeUntil(run, (f) => f.type === 'message_delta');
    await run[Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose')]();
    assert.ok(!exists(run.pid), 'not reaped when dispose resolved');
    assert.equal((await run.result).verdict, 'cancelled');
    await assertNoProcessLeft(run.pid, await readPid(pidfile));
    await run[Symbol.asyncDispose](); // once it has ended, nothing more
  });

  test('await using (TypeScript, compiled for Node 20): the run is cancelled when the block is left', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const source = `
      import { spawn, type Run } from 'hep';
      const [command, args] = JSON.parse(process.argv[1]!) as [string, string[]];
      let kept: Run | undefined;
      {
        // START await-using
        await using run = spawn(command, args);
        for await (const frame of run) {
          if (frame.type === 'message_delta') break; // leaving the block cancels the run and waits for it
        }
        // END await-using
        kept = run;
      }
      const result = await kept.result; // settled already
      console.log(JSON.stringify({ pid: kept.pid, verdict: result.verdict }));
    `;
    const ts = createRequire(join(PACKAGE, 'package.json'))('typescript');
    const { outputText, diagnostics } = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      reportDiagnostics: true,
    });
    assert.deepEqual(diagnostics, []);
    assert.ok(!outputText.includes('await using'), 'TypeScript left `await using` for Node 20 to parse');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', outputText, JSON.stringify(emit('hang', pidfile))], {
      cwd: PACKAGE,
      timeout: WATCHDOG_MS,
    });
    const { pid, verdict } = JSON.parse(out.toString());
    assert.equal(verdict, 'cancelled');
    await assertNoProcessLeft(pid, await readPid(pidfile));
  });
});

// ---- no orphans when the supervising process goes away ----

describe('no orphans when Node goes away', () => {
  /** Starts a Node script that spawns `emit('hang')`, prints the child's pid, then does `then`. */
  function supervisor(pidfile, then) {
    const [command, args] = emit('hang', pidfile);
    const script = `
      import { spawn } from 'hep';
      import { existsSync } from 'node:fs';
      const run = spawn(${JSON.stringify(command)}, ${JSON.stringify(args)});
      while (!existsSync(${JSON.stringify(pidfile)})) await new Promise((r) => setTimeout(r, 10));
      console.log(run.pid);
      ${then}
    `;
    return spawnChild(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** The pid the script prints, its exit code and signal, its stderr. */
  async function outcome(child, signal = null) {
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => {
      out += b;
      if (signal !== null && out.includes('\n')) child.kill(signal);
    });
    child.stderr.on('data', (b) => (err += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), WATCHDOG_MS);
    const [code, sig] = await once(child, 'exit');
    clearTimeout(timer);
    return { pid: Number(out.trim().split('\n')[0]), code, signal: sig, err };
  }

  test('an uncaught exception: the run is killed with its group', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const { pid, code, err } = await outcome(supervisor(pidfile, "throw new Error('the supervisor failed');"));
    assert.equal(code, 1);
    assert.match(err, /the supervisor failed/);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  test('an unhandled rejection: the same', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const { pid, code } = await outcome(supervisor(pidfile, "Promise.reject(new Error('nobody catches this'));"));
    assert.equal(code, 1);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    test(`${signal} that the program does not handle: the run is cancelled (its cancelled frame written), then Node dies of ${signal}`, TEST, async () => {
      const pidfile = tmpPath('sleeper.pid');
      const then = `
        run.result.then((r) => console.error('result', r.verdict, r.exitCode, r.lastTerminal));
        setInterval(() => {}, 1000); // would run forever
      `;
      const { pid, code, signal: died, err } = await outcome(supervisor(pidfile, then), signal);
      assert.deepEqual([code, died], [null, signal]);
      assert.match(err, /result cancelled 130 cancelled/);
      await assertNoProcessLeft(pid, pid, await readPid(pidfile));
    });
  }

  test('a program that handles the signal itself decides (here: it exits, and the exit hook kills the run)', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const then = `
      process.on('SIGTERM', () => { console.error('handled'); process.exit(7); });
      setInterval(() => {}, 1000);
    `;
    const { pid, code, err } = await outcome(supervisor(pidfile, then), 'SIGTERM');
    assert.equal(code, 7);
    assert.match(err, /handled/);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  test('Node SIGKILLed: no hook can run, the run outlives it; under setpriv --pdeathsig the child dies with Node', TEST, async (t) => {
    try {
      execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    } catch {
      t.skip('no setpriv (util-linux) here');
      return;
    }
    const script = `
      import { spawn } from 'hep';
      const [command, args] = JSON.parse(process.argv[1]);
      const plain = spawn(command, args);
      // START pdeathsig
      const run = spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]); // Linux: dies with Node
      // END pdeathsig
      console.log(plain.pid, run.pid);
      setInterval(() => {}, 1000);
    `;
    const child = spawnChild(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(['sleep', ['20']])], {
      cwd: PACKAGE,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(child.stdout, 'data');
    const [plain, guarded] = line.toString().trim().split(' ').map(Number);
    try {
      assert.ok(alive(plain) && alive(guarded));
      child.kill('SIGKILL');
      await once(child, 'exit');
      assert.ok(await eventually(() => !alive(guarded)), 'the child under setpriv outlived Node');
      await sleep(200);
      assert.ok(alive(plain), 'expected the documented limit: without PR_SET_PDEATHSIG the child outlives a SIGKILLed Node');
    } finally {
      for (const pid of [plain, guarded]) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  test('a finished run leaves no listener behind', TEST, async () => {
    const before = ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e));
    const run = spawn(...simulate('chat'));
    assert.deepEqual(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e)),
      before.map((n) => n + 1),
    );
    await run.result;
    assert.deepEqual(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e)),
      before,
    );
  });
});

// ---- the Supervisor, for a driver of one's own ----

describe('a driver of its own', () => {
  test('docs: the driver mirrors a run', TEST, async () => {
    const [command, args] = simulate('tools');
    const frames = [];
    // START driver-use
    const result = await supervise(command, args, { timeoutMs: 60_000 }, (frame) => frames.push(frame));
    console.log(result.verdict, result.supervision.durationMs); // "ok" and how long it took
    // END driver-use
    assert.equal(result.verdict, 'ok');
    assert.equal(frames[0].type, 'hep_header');
    assert.equal(frames.length, result.lines);
    assert.deepEqual(result.supervision.signals, []);
  });

  test('its timeout climbs the whole ladder for a child that ignores SIGINT and SIGTERM', TEST, async () => {
    const options = { timeoutMs: 300, interruptGraceMs: 200, terminateGraceMs: 200 };
    const result = await supervise(...STUBBORN, options, () => {}); // sh: its traps are set at once
    assert.deepEqual([result.verdict, result.exitCode, result.supervision.timedOut], ['incomplete', 137, true]);
    const signals = result.supervision.signals.map((s) => s.signal);
    assert.deepEqual(signals, ['SIGINT', 'SIGTERM', 'SIGKILL']);
    const [int, term, kill] = result.supervision.signals.map((s) => s.atMs);
    assert.ok(int >= 300 && term - int >= 200 && kill - term >= 200, JSON.stringify(result.supervision.signals));
  });
});

describe('Supervisor', () => {
  test('events come in order: frames, violations and skipped lines as they were found, the halt last', () => {
    const sup = new Supervisor(0, { raw: true });
    sup.stdout(1, `${HEADER_LINE}{"type":"agent_start","turn_id":2}\nnot json\n{"type":"agent_start","turn_id":1}\n`);
    const events = sup.pollEvents();
    assert.deepEqual(
      events.map((e) => (e.kind === 'frame' ? e.frame.type : e.kind === 'violation' ? e.violation.code : e.error.code)),
      ['hep_header', 'agent_start', 'first_turn_id_not_one', 'HEP_SYNTAX', 'agent_start', 'turn_id_mismatch', 'duplicate_agent_start'],
    );
    assert.equal(events[1].frame.line, 2);
    assert.ok(events[3].error instanceof HepError);
    assert.deepEqual(sup.pollEvents(), []);
    assert.deepEqual(
      sup.violations.map((v) => v.code),
      ['first_turn_id_not_one', 'turn_id_mismatch', 'duplicate_agent_start'],
    );
    assert.deepEqual(
      sup.skipped.map((e) => e.line),
      [3],
    );

    const strict = new Supervisor(0, { strict: true });
    strict.stdout(1, `${HEADER_LINE}not json\n${HEADER_LINE}`);
    const halted = strict.pollEvents(10);
    assert.deepEqual(
      halted.map((e) => e.kind),
      ['frame', 'skipped', 'halted'],
    );
    assert.equal(halted[2].error.code, 'HEP_SYNTAX');
    assert.equal(strict.halted.line, 2);
  });

  test('pollEvents(max) takes at most max; the result once the exit and both closes are told', () => {
    const sup = new Supervisor(1000, { timeoutMs: 50 });
    sup.stdout(1001, Buffer.from(`${HEADER_LINE}{"type":"agent_start","turn_id":1}\n`));
    assert.equal(sup.pollEvents(1).length, 1);
    assert.equal(sup.pollEvents(1).length, 1);
    assert.equal(sup.deadline(), 1050);
    sup.tick(1050);
    assert.deepEqual(sup.pollAction(), {
      kind: 'signal',
      signal: 'SIGINT',
      reason: 'timeout',
      next: { signal: 'SIGTERM', afterMs: 12_000 },
    });
    sup.exited(1060, null, 'SIGINT');
    assert.deepEqual(sup.pollAction(), { kind: 'kill_group' });
    assert.equal(sup.result(), null);
    sup.stdoutClosed(1061);
    sup.stderrClosed(1062);
    const result = sup.result();
    assert.equal(result, sup.result());
    assert.deepEqual([result.verdict, result.exitCode, result.supervision.durationMs], ['cancelled', 130, 62]);
    assert.equal(result.reasons[0], 'the supervisor cancelled the run: timed out after 0.05 s');
    assert.equal(result.turns.length, 1);
  });

  test('the getters follow the run: stdoutOpen, cancelling, cancelledBy, timedOut', () => {
    const sup = new Supervisor(0, { timeoutMs: 100 });
    assert.deepEqual([sup.stdoutOpen, sup.cancelling, sup.cancelledBy, sup.timedOut], [true, false, null, false]);
    sup.tick(100);
    assert.equal(sup.pollAction().kind, 'signal');
    assert.deepEqual([sup.cancelling, sup.cancelledBy, sup.timedOut], [true, 'timeout', true]);
    sup.cancel(150); // the user's: it takes the next step at once; the run stays the timeout's
    assert.deepEqual(sup.pollAction().signal, 'SIGTERM');
    assert.equal(sup.cancelledBy, 'timeout');
    sup.stdoutClosed(160);
    assert.equal(sup.stdoutOpen, false);
    sup.exited(170, null, 'SIGTERM');
    assert.deepEqual([sup.cancelling, sup.cancelledBy, sup.timedOut], [false, 'timeout', true]);
  });

  test('a detached consumer is never paused for; attached, backpressure applies from the next read', () => {
    const sup = new Supervisor(0, { pauseAtBytes: 1000 });
    assert.equal(sup.dropAtBytes, MIN_DROP_AT_BYTES, 'at least MIN_DROP_AT_BYTES');
    assert.equal(new Supervisor(0, { pauseAtBytes: PAUSE_AT_BYTES }).dropAtBytes, 16 * PAUSE_AT_BYTES);
    const delta = (i) => `{"type":"message_delta","turn_id":1,"delta":"${String(i).repeat(100)}"}\n`;
    sup.stdout(1, `${HEADER_LINE}{"type":"agent_start","turn_id":1}\n{"type":"message_start","turn_id":1,"role":"assistant"}\n`);
    sup.setConsumer(2, false);
    for (let i = 0; i < 20; i++) sup.stdout(3, delta(i));
    assert.equal(sup.pollAction(), null, 'never paused while detached');
    sup.setConsumer(4, true);
    assert.equal(sup.paused, false);
    sup.stdout(5, delta(20));
    assert.deepEqual(sup.pollAction(), { kind: 'pause_stdout' });
    sup.setConsumer(6, false); // detaching resumes
    assert.deepEqual(sup.pollAction(), { kind: 'resume_stdout' });
    assert.equal(sup.pollEvents().length, 24, 'every event waited');
  });

  test('exited(nowMs, null, null): gone, how unknown; the run is judged without an exit code', () => {
    const sup = new Supervisor(0);
    sup.stdout(1, `${HEADER_LINE}{"type":"agent_start","turn_id":1}\n`);
    sup.exited(2, null, null);
    assert.deepEqual(sup.pollAction(), { kind: 'kill_group' });
    sup.stdoutClosed(3);
    sup.stderrClosed(3);
    const result = sup.result();
    assert.deepEqual([result.verdict, result.exitCode], ['incomplete', null]);
  });

  test('wrong arguments are TypeErrors and RangeErrors naming them', () => {
    const sup = new Supervisor(0);
    const cases = [
      [() => new Supervisor(), TypeError, 'Supervisor(nowMs) must be a number, not undefined'],
      [() => new Supervisor(-1), RangeError, /^Supervisor\(nowMs\) must be a finite non-negative number/],
      [() => new Supervisor(0, { timeout: 5 }), TypeError, /^Supervisor\(options\): unknown option timeout/],
      [() => new Supervisor(0, { idleTimeoutMs: Infinity }), RangeError, /^Supervisor\(options\): idleTimeoutMs must be/],
      [() => new Supervisor(0, { pauseAtBytes: 1.5 }), RangeError, /pauseAtBytes must be a non-negative integer/],
      [() => new Supervisor(0, { strict: 1 }), TypeError, 'Supervisor(options): strict must be a boolean, not a number'],
      [() => sup.stdout(1, 42), TypeError, /^Supervisor\.stdout\(chunk\): chunk must be/],
      [() => sup.stderr(NaN, 'x'), RangeError, /^Supervisor\.stderr\(nowMs\)/],
      [() => sup.exited(1, 0, 'SIGKILL'), TypeError, 'Supervisor.exited(): give a code or a signal, not both'],
      [() => sup.setConsumer(1, 'yes'), TypeError, 'Supervisor.setConsumer(attached) must be a boolean, not a string'],
      [() => sup.setConsumer(-1, true), RangeError, /^Supervisor\.setConsumer\(nowMs\)/],
      [() => sup.exited(1, null, 'SIGNOPE'), RangeError, /^Supervisor\.exited\(signal\)/],
      [() => sup.cancel(1, 'bored'), RangeError, /^Supervisor\.cancel\(reason\): reason must be one of user, timeout, idle/],
      [() => sup.pollEvents(-1), RangeError, /^Supervisor\.pollEvents\(max\)/],
    ];
    for (const [call, type, message] of cases) {
      assert.throws(call, (e) => e instanceof type && (typeof message === 'string' ? e.message === message : message.test(e.message)), String(message));
    }
  });
});
