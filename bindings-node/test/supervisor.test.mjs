// The public `Supervisor` (hep-core's supervision policy without I/O): a driver of one's
// own written with it (the snippet of docs/node.md, run on real children), its events in
// order, and its argument checks. The policy itself is pinned by conformance/supervise/
// (conformance.test.mjs runs those through this class).

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
import { describe, test } from 'node:test';
import { HepError, MIN_DROP_AT_BYTES, PAUSE_AT_BYTES } from 'hep';
import { STUBBORN, simulate } from './supervise-support.mjs';

const TEST = { timeout: 30_000 };
const HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';

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
    sup.stdout(1, `${HEADER}{"type":"agent_start","turn_id":2}\nnot json\n{"type":"agent_start","turn_id":1}\n`);
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
    strict.stdout(1, `${HEADER}not json\n${HEADER}`);
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
    sup.stdout(1001, Buffer.from(`${HEADER}{"type":"agent_start","turn_id":1}\n`));
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
    sup.stdout(1, `${HEADER}{"type":"agent_start","turn_id":1}\n{"type":"message_start","turn_id":1,"role":"assistant"}\n`);
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
    sup.stdout(1, `${HEADER}{"type":"agent_start","turn_id":1}\n`);
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
