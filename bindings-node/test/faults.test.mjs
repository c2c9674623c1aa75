// Process faults with `spawn` (the twin of bindings-python/tests/test_faults.py): a child
// that closes stdout but keeps running, floods stdout and stderr, ignores SIGINT (and
// SIGTERM), leaves grandchildren (one in a session of its own), ends without a terminal
// frame, or outlives `timeoutMs`. Each test checks the verdict, the exit code, and that the
// child is reaped and its group gone. (Killed mid-line, the SIGKILL escalation and
// leftovers in the group: supervise.test.mjs.)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STDERR_TAIL_BYTES, spawn } from 'hep';
import {
  CLOSES_STDOUT_THEN_HANGS,
  LEAK_WATCHDOG_MS,
  NO_TERMINAL,
  ONLY_SIGTERM_STOPS,
  REPO,
  STUBBORN,
  alive,
  assertNoProcessLeft,
  closesStdout,
  collect,
  escapes,
  exists,
  flood,
  readPid,
  simulate,
  types,
  watchdog,
} from './supervise-support.mjs';

const TEST = { timeout: 60_000 };
const FLOOD_FRAMES = 50_000;
const FLOOD_PAD = 1000; // 50,000 lines of about 1 KB: 51 MB on stdout, as much on stderr
let tmp;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hep-faults-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
const tmpPath = (name) => join(tmp, `${name}-${++serial}`);

async function assertReaped(run) {
  assert.ok(!exists(run.pid), `the child ${run.pid} was not reaped`);
  await assertNoProcessLeft(run.pid);
}

/** Whether `promise` has settled, once everything already due has run. */
async function settled(promise) {
  const pending = Symbol('pending');
  await new Promise((resolve) => setImmediate(resolve));
  return (await Promise.race([promise, pending])) !== pending;
}

describe('the child closes stdout but keeps running', () => {
  test('the loop ends, the result waits for the exit', TEST, async () => {
    const flag = tmpPath('flag');
    const run = spawn(...closesStdout(flag));
    const dog = watchdog(run.pid);
    const frames = await collect(run); // ends at stdout's end
    // The child cannot exit before the flag exists.
    assert.ok(alive(run.pid));
    assert.equal(await settled(run.result), false, 'the result came before the child exited');
    writeFileSync(flag, '');
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual(types(frames), ['hep_header', 'agent_start', 'turn_done']);
    assert.equal(result.verdict, 'ok');
    assert.equal(result.exitCode, 0);
    assert.equal(result.stderrTail, 'stdout closed\nexiting after the flag\n');
    await assertReaped(run);
  });

  test('cancel still reaches it', TEST, async () => {
    const run = spawn(...CLOSES_STDOUT_THEN_HANGS);
    const dog = watchdog(run.pid);
    const frames = await collect(run);
    assert.ok(alive(run.pid));
    await run.cancel();
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual(types(frames), ['hep_header', 'agent_start']);
    // Exit 130 is a cancel wherever the signal found the run: here inside round 1.
    assert.deepEqual([result.verdict, result.exitCode, result.stderrTail], ['cancelled', 130, 'got SIGINT\n']);
    assert.deepEqual(result.violations.map((v) => [v.code, v.turnId]), [['cancelled_in_open_round', 1]]);
    assert.equal(result.conforms, true);
    await assertReaped(run);
  });

  test('timeoutMs still reaches it', TEST, async () => {
    const run = spawn(...CLOSES_STDOUT_THEN_HANGS, { timeoutMs: 300 });
    const dog = watchdog(run.pid);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.equal(run.timedOut, true);
    assert.deepEqual([result.verdict, result.exitCode, result.stderrTail], ['cancelled', 130, 'got SIGINT\n']);
    assert.deepEqual(result.violations.map((v) => v.code), ['cancelled_in_open_round']);
    await assertReaped(run);
  });
});

describe('the child floods stdout and stderr', () => {
  test('every frame arrives, in order, and the stderr tail stays bounded', TEST, async () => {
    const run = spawn(...flood(FLOOD_FRAMES, FLOOD_PAD));
    const dog = watchdog(run.pid, 60_000);
    let count = 0;
    let inOrder = true;
    for await (const frame of run) {
      if (frame.type !== 'message_delta') continue;
      inOrder &&= frame.delta.startsWith(`${String(count).padStart(8, '0')} `);
      count += 1;
    }
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.equal(count, FLOOD_FRAMES);
    assert.ok(inOrder, 'a frame was lost or reordered');
    assert.deepEqual([result.verdict, result.exitCode, result.lines], ['ok', 0, FLOOD_FRAMES + 4]);
    const last = `stderr ${String(FLOOD_FRAMES - 1).padStart(8, '0')} ${'x'.repeat(FLOOD_PAD)}\nstderr end\n`;
    assert.ok(result.stderrTail.endsWith(last));
    assert.ok(Buffer.byteLength(result.stderrTail) <= STDERR_TAIL_BYTES);
    await assertReaped(run);
  });

  test('a slow loop keeps memory bounded: reading waits for it', TEST, async () => {
    // A supervisor in a process of its own, with a 32 MiB heap, whose loop is slower than
    // the flood (it sleeps 1 ms every 16 frames). Were the 51 MB of frames queued for it,
    // the heap would run out and the process die.
    const script = `
      import { spawn } from 'hep';
      const [command, args] = JSON.parse(process.argv[1]);
      const run = spawn(command, args);
      let n = 0;
      for await (const frame of run) {
        n += 1;
        if (n % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      console.log(JSON.stringify({ frames: n, verdict: (await run.result).verdict }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--max-old-space-size=32', '--input-type=module', '-e', script, JSON.stringify(flood(FLOOD_FRAMES, FLOOD_PAD))],
      { cwd: join(REPO, 'bindings-node'), timeout: 120_000 },
    );
    assert.deepEqual(JSON.parse(out.toString()), { frames: FLOOD_FRAMES + 4, verdict: 'ok' });
  });
});

describe('the child ignores signals', () => {
  test('SIGINT ignored: SIGTERM after the grace, and its cancelled frame makes the verdict', TEST, async () => {
    const run = spawn(...ONLY_SIGTERM_STOPS, { interruptGraceMs: 200 });
    const dog = watchdog(run.pid);
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next(); // its traps are set before it writes
    await run.cancel();
    const frames = await collect(run);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual(types(frames), ['agent_start', 'cancelled']);
    assert.deepEqual([result.verdict, result.exitCode, result.conforms], ['cancelled', 130, true]);
    await assertReaped(run);
  });

  test('SIGINT and SIGTERM ignored, timeoutMs: SIGKILL after both graces', TEST, async () => {
    const run = spawn(...STUBBORN, { timeoutMs: 100, interruptGraceMs: 100, terminateGraceMs: 100 });
    const dog = watchdog(run.pid);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.equal(run.timedOut, true);
    assert.deepEqual([result.verdict, result.exitCode], ['incomplete', 137]);
    await assertReaped(run);
  });
});

// A process that calls setsid leaves the child's process group: group signals no longer
// reach it (the documented limit). What the supervisor guarantees: it does not wait for
// such a process, although it holds the child's stdout and stderr open.
describe('grandchildren, one of them in a session of its own', () => {
  for (const end of ['done', 'cancel']) {
    test(`neither keeps the run (${end})`, TEST, async () => {
      const pidfiles = tmpPath('sleeper');
      const run = spawn(...escapes(pidfiles, end));
      const dog = watchdog(run.pid, LEAK_WATCHDOG_MS);
      let escapee = 0;
      try {
        const iterator = run[Symbol.asyncIterator]();
        const first = await iterator.next();
        const grouped = await readPid(`${pidfiles}.group`);
        escapee = await readPid(`${pidfiles}.session`);
        if (end === 'cancel') await run.cancel();
        const frames = [first.value, ...(await collect(run))];
        const result = await run.result;
        dog.stop();
        assert.ok(!dog.fired, "the supervisor waited for the escaped grandchild's stdout to close");
        assert.ok(alive(escapee), 'the grandchild in its own session still holds stdout: the run did not wait for it');
        const expected = end === 'done' ? ['ok', 0, 'turn_done'] : ['cancelled', 130, 'cancelled'];
        assert.deepEqual([result.verdict, result.exitCode, frames.at(-1).type], expected);
        await assertReaped(run);
        await assertNoProcessLeft(run.pid, grouped);
      } finally {
        dog.stop();
        if (escapee) process.kill(escapee, 'SIGKILL');
      }
    });
  }
});

describe('the child exits without a terminal frame', () => {
  for (const [name, [command, args], code, verdict, violations] of NO_TERMINAL) {
    test(`${name}: ${verdict}`, TEST, async () => {
      const run = spawn(command, args);
      await collect(run);
      const result = await run.result;
      assert.deepEqual([result.verdict, result.exitCode, result.conforms], [verdict, code, false]);
      assert.deepEqual(
        result.violations.map((v) => v.code),
        violations,
      );
      await assertReaped(run);
    });
  }
});

test('timeoutMs on the simulator: cancelled, the child and its group gone', TEST, async () => {
  const run = spawn(...simulate('cancel-me', 1), { timeoutMs: 300 });
  const frames = await collect(run);
  const result = await run.result;
  assert.equal(run.timedOut, true);
  assert.deepEqual([result.verdict, result.exitCode, frames.at(-1).type], ['cancelled', 130, 'cancelled']);
  await assertReaped(run);
});
