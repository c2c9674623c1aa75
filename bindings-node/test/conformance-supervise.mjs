// `supervise/`: a timeline of what a supervised child did, fed to the public `Supervisor` on
// a simulated clock (milliseconds), and what it must order and conclude. The runner
// algorithm of conformance/README.md, the same as hep-core/tests/conformance/supervise.rs.

import { Supervisor } from 'hep';
import { CaseError, get, getList, getStr, getUint, sameJson, show, text } from './conformance-support.mjs';

// Keys a case may hold (any other is refused: a misspelt key must not pass unnoticed).
const CASE_KEYS = ['description', 'options', 'consume', 'steps', 'expect'];
// The case's option names, and the Supervisor's.
const OPTIONS = {
  timeout_ms: 'timeoutMs',
  idle_timeout_ms: 'idleTimeoutMs',
  interrupt_grace_ms: 'interruptGraceMs',
  terminate_grace_ms: 'terminateGraceMs',
  drain_ms: 'drainMs',
  stderr_tail_bytes: 'stderrTailBytes',
  max_stderr_line: 'maxStderrLine',
  pause_at_bytes: 'pauseAtBytes',
  strict: 'strict',
  max_reports: 'maxReports',
};
const STEP_KEYS = ['at', 'stdout', 'stderr', 'cancel', 'grace_ms', 'exit', 'close', 'consume', 'consumer'];
const EXPECT_KEYS = ['actions', 'stderr_lines', 'frames', 'finished_at', 'result'];
const RESULT_KEYS = [
  'verdict',
  'exit_code',
  'reasons',
  'conforms',
  'timed_out',
  'cancelled_by',
  'signals',
  'stderr_tail',
  'stderr_dropped',
  'notices_dropped',
  'duration_ms',
];

function keysKnown(what, value, known) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CaseError(`${what} must be an object`);
  const unknown = Object.keys(value).find((k) => !known.includes(k));
  if (unknown !== undefined) throw new CaseError(`unknown key \`${unknown}\` in ${what}`);
}

/** `key` of `obj` in milliseconds, or null when absent or null. */
function ms(obj, key) {
  return obj[key] === undefined || obj[key] === null ? null : getUint(obj, key);
}

function options(c) {
  const given = c.options ?? {};
  keysKnown('`options`', given, Object.keys(OPTIONS));
  const o = {};
  for (const [key, name] of Object.entries(OPTIONS)) {
    if (key === 'strict') {
      if (given.strict !== undefined && typeof given.strict !== 'boolean') throw new CaseError('`options.strict` must be a boolean');
      o.strict = given.strict ?? false;
    } else if (key === 'max_reports') {
      if (given.max_reports !== undefined) o.limits = { maxReports: getUint(given, key) };
    } else if (given[key] !== undefined && given[key] !== null) {
      o[name] = getUint(given, key);
    }
  }
  return o;
}

/** An action of the Supervisor in the case's spelling, at `at`. */
function actionJson(at, a) {
  if (a.kind !== 'signal') return { at, action: a.kind };
  const next = a.next === null ? null : { signal: a.next.signal, after_ms: a.next.afterMs };
  return { at, action: 'signal', signal: a.signal, reason: a.reason, next };
}

/** What the run produced, on the simulated clock. */
class Seen {
  actions = [];
  stderrLines = [];
  frames = [];
  finishedAt = null;

  events(events) {
    for (const e of events) if (e.kind === 'frame') this.frames.push(e.frame.type === 'unknown' ? e.frame.frame.type : e.frame.type);
  }

  /** Takes the actions, stderr lines and (with `auto`) events, one at a time, at `at`. */
  collect(sup, at, auto) {
    for (let a = sup.pollAction(); a !== null; a = sup.pollAction()) this.actions.push(actionJson(at, a));
    for (let line = sup.pollStderr(); line !== null; line = sup.pollStderr()) this.stderrLines.push(line);
    if (auto) {
      for (let events = sup.pollEvents(1); events.length > 0; events = sup.pollEvents(1)) {
        this.events(events);
        for (let a = sup.pollAction(); a !== null; a = sup.pollAction()) this.actions.push(actionJson(at, a));
      }
    }
    if (sup.finished && this.finishedAt === null) this.finishedAt = at;
  }
}

function apply(sup, seen, step, now) {
  let did = 0;
  if (Object.hasOwn(step, 'stdout')) {
    sup.stdout(now, text(get(step, 'stdout')));
    did += 1;
  }
  if (Object.hasOwn(step, 'stderr')) {
    sup.stderr(now, text(get(step, 'stderr')));
    did += 1;
  }
  if (Object.hasOwn(step, 'cancel')) {
    const reason = getStr(step, 'cancel');
    if (!['user', 'timeout', 'idle'].includes(reason)) throw new CaseError(`unknown cancel reason \`${reason}\``);
    sup.cancel(now, reason, ms(step, 'grace_ms'));
    did += 1;
  } else if (Object.hasOwn(step, 'grace_ms')) {
    throw new CaseError('`grace_ms` belongs to a `cancel` step');
  }
  if (step.exit === 'unknown') {
    sup.exited(now, null, null);
    did += 1;
  } else if (Object.hasOwn(step, 'exit')) {
    const exit = step.exit;
    keysKnown('`exit`', exit, ['code', 'signal']);
    const int = (key) => (Number.isInteger(exit[key]) ? exit[key] : null);
    const [code, signal] = [int('code'), int('signal')];
    if ((code === null) === (signal === null) || Object.keys(exit).length !== 1) {
      throw new CaseError(`\`exit\` needs one integer \`code\` or \`signal\`: ${show(exit)}`);
    }
    sup.exited(now, code, signal);
    did += 1;
  }
  if (Object.hasOwn(step, 'close')) {
    const which = getStr(step, 'close');
    if (!['stdout', 'stderr', 'both'].includes(which)) throw new CaseError(`\`close\` must be stdout, stderr or both, not \`${which}\``);
    if (which === 'stdout' || which === 'both') sup.stdoutClosed(now);
    if (which === 'stderr' || which === 'both') sup.stderrClosed(now);
    did += 1;
  }
  if (Object.hasOwn(step, 'consumer')) {
    const consumer = getStr(step, 'consumer');
    if (!['attached', 'detached'].includes(consumer)) throw new CaseError(`\`consumer\` must be attached or detached, not \`${consumer}\``);
    sup.setConsumer(now, consumer === 'attached');
    did += 1;
  }
  if (Object.hasOwn(step, 'consume')) {
    seen.events(sup.pollEvents(getUint(step, 'consume')));
    did += 1;
  }
  if (did !== 1) throw new CaseError(`a step does exactly one thing; this one does ${did}: ${show(step)}`);
}

export function runSupervise(c) {
  keysKnown('the case', c, CASE_KEYS);
  const consume = c.consume ?? 'auto';
  if (consume !== 'auto' && consume !== 'manual') throw new CaseError('`consume` must be "auto" or "manual"');
  const auto = consume === 'auto';
  const sup = new Supervisor(0, options(c));
  const seen = new Seen();
  let clock = 0;
  getList(c, 'steps').forEach((step, i) => {
    try {
      keysKnown(`steps[${i}]`, step, STEP_KEYS);
      const at = getUint(step, 'at');
      if (at < clock) throw new CaseError(`\`at\` ${at} is before the previous step's ${clock}`);
      for (let due = sup.deadline(); due !== null && due <= at; due = sup.deadline()) {
        clock = Math.max(clock, due); // a deadline before the clock means: tick now
        sup.tick(clock);
        seen.collect(sup, clock, auto);
      }
      clock = at;
      apply(sup, seen, step, at);
      seen.collect(sup, at, auto);
    } catch (e) {
      if (e instanceof CaseError) throw new CaseError(`steps[${i}]: ${e.message}`);
      throw e;
    }
  });
  for (let due = sup.deadline(); !sup.finished && due !== null; due = sup.deadline()) {
    clock = Math.max(clock, due);
    sup.tick(clock);
    seen.collect(sup, clock, auto);
  }
  seen.events(sup.pollEvents());
  check(c, sup, seen);
}

function check(c, sup, seen) {
  const expect = get(c, 'expect');
  keysKnown('`expect`', expect, EXPECT_KEYS);
  const problems = [];
  const compare = (what, want, got) => {
    if (want === undefined) return;
    try {
      sameJson(what, want, got);
    } catch (e) {
      if (!(e instanceof CaseError)) throw e;
      problems.push(e.message);
    }
  };
  compare('actions', expect.actions, seen.actions);
  compare('stderr_lines', expect.stderr_lines, seen.stderrLines);
  compare('frames', expect.frames, seen.frames);
  compare('finished_at', expect.finished_at, seen.finishedAt);
  if (expect.result !== undefined) {
    keysKnown('`expect.result`', expect.result, RESULT_KEYS);
    const result = sup.result();
    if (result === null) throw new CaseError('the run never finished (no result), though `expect.result` is given');
    const s = result.supervision;
    if (s === null) throw new CaseError('a supervised result has no `supervision`');
    const got = {
      verdict: result.verdict,
      exit_code: result.exitCode,
      reasons: result.reasons,
      conforms: result.conforms,
      timed_out: s.timedOut,
      cancelled_by: s.cancelledBy,
      signals: s.signals.map((x) => ({ at_ms: x.atMs, signal: x.signal })),
      stderr_tail: s.stderrTail,
      stderr_dropped: s.stderrDropped,
      notices_dropped: s.noticesDropped,
      duration_ms: s.durationMs,
    };
    for (const [key, want] of Object.entries(expect.result)) compare(`result.${key}`, want, got[key]);
  }
  if (problems.length > 0) throw new CaseError(problems.join('\n'));
}
