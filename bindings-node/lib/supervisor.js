'use strict';
// `Supervisor`: hep-core's supervision policy (`hep_core::supervise::Supervisor`), a state
// machine without I/O, for people who write their own driver (`spawn` is one: see
// lib/process.js). It is told what happened and when, in milliseconds on any monotonic
// clock (`performance.now()`), and answers with actions for the driver, events and stderr
// lines for the user, its next deadline and, at the end, the `RunResult`. This file only
// converts: the policy (cancel ladder, timeouts, drain, backpressure, verdict) is the core's.

const os = require('node:os');
const { native, constants } = require('./addon.js');
const { fromRecord } = require('./errors.js');
const { framesOf } = require('./frames.js');
const { runResult, violation } = require('./result.js');
const { checkLimits } = require('./stream.js');
const check = require('./check.js');

const REASONS = ['user', 'timeout', 'idle'];
const TIMES = ['timeoutMs', 'idleTimeoutMs', 'interruptGraceMs', 'terminateGraceMs', 'drainMs'];
const SIZES = ['maxLineBytes', 'stderrTailBytes', 'maxStderrLine', 'pauseAtBytes'];
const KEYS = ['strict', 'raw', 'limits', ...TIMES, ...SIZES];

/** A time in milliseconds: a finite non-negative number. */
function ms(value, what) {
  check.number(value, what);
  if (!(value >= 0 && value < Infinity)) throw new RangeError(`${what} must be a finite non-negative number of milliseconds, not ${value}`);
  return value;
}

/** The options, checked, as the addon takes them (`what` names them in errors). */
function config(options, what) {
  check.object(options, what);
  for (const key of Object.keys(options)) {
    if (!KEYS.includes(key)) throw new TypeError(`${what}: unknown option ${key} (the options are ${KEYS.join(', ')})`);
  }
  const { strict = false, raw = false } = options;
  const given = {
    strict: check.boolean(strict, `${what}: strict`),
    raw: check.boolean(raw, `${what}: raw`),
    maxLineBytes: check.count(options.maxLineBytes ?? constants.maxLineBytes, `${what}: maxLineBytes`),
    limits: checkLimits(options.limits, `${what}: limits`),
  };
  for (const key of TIMES) given[key] = check.optional(options[key], undefined, ms, `${what}: ${key}`);
  for (const key of SIZES.slice(1)) given[key] = check.optional(options[key], undefined, check.count, `${what}: ${key}`);
  return given;
}

/** An action of the addon as a plain object. */
function action(a) {
  if (a.kind !== 'signal') return { kind: a.kind };
  const next = a.nextSignal == null ? null : { signal: a.nextSignal, afterMs: a.nextAfterMs };
  return { kind: 'signal', signal: a.signal, reason: a.reason, next };
}

/** The events of a batch of the addon, in order. */
function eventsOf([pool, cols, halted, reports], raw) {
  const frames = framesOf(pool, cols, raw);
  const events = [];
  let at = 0;
  for (const r of reports === null ? [] : JSON.parse(reports)) {
    while (at < r.at) events.push({ kind: 'frame', frame: frames[at++] });
    if (r.kind === 'violation') events.push({ kind: 'violation', violation: violation(r.violation) });
    else events.push({ kind: 'skipped', error: fromRecord(r.skipped) });
  }
  while (at < frames.length) events.push({ kind: 'frame', frame: frames[at++] });
  if (halted !== null) events.push({ kind: 'halted', error: fromRecord(JSON.parse(halted)) });
  return events;
}

/** The signal number of `signal` (a name such as 'SIGKILL', or a number). */
function signalNumber(signal, what) {
  const number = typeof signal === 'string' ? os.constants.signals[signal] : signal;
  if (!Number.isInteger(number) || number < 1 || number > 127) {
    throw new RangeError(`${what} must be a signal name or number, not ${check.describe(signal)} ${String(signal)}`);
  }
  return number;
}

/**
 * The supervision of one child process, without I/O. Each input takes the time it
 * happened (`nowMs`); after any input, carry out every `pollAction()`, hand over
 * `pollEvents()` and `pollStderr()`, and call `tick()` at `deadline()`.
 */
class Supervisor {
  #native;
  #raw;
  #result = null;

  /**
   * A supervisor for a child started at `nowMs`. Options (each optional, default the
   * core's): `strict`, `raw`, `maxLineBytes`, `limits` (as for `Stream`), `timeoutMs`,
   * `idleTimeoutMs`, `interruptGraceMs`, `terminateGraceMs`, `drainMs`, `stderrTailBytes`,
   * `maxStderrLine`, `pauseAtBytes`.
   */
  constructor(nowMs, options = {}, what = 'Supervisor(options)') {
    ms(nowMs, 'Supervisor(nowMs)');
    const given = config(options, what);
    this.#native = new native.NativeSupervisor(given, nowMs);
    this.#raw = given.raw;
  }

  /** Bytes (or text, as UTF-8) the child wrote on stdout. */
  stdout(nowMs, chunk) {
    this.#write('stdout', nowMs, chunk);
  }

  /** Bytes (or text, as UTF-8) the child wrote on stderr. */
  stderr(nowMs, chunk) {
    this.#write('stderr', nowMs, chunk);
  }

  #write(pipe, nowMs, chunk) {
    ms(nowMs, `Supervisor.${pipe}(nowMs)`);
    if (chunk instanceof Uint8Array) this.#native[pipe](nowMs, chunk);
    else if (typeof chunk === 'string') this.#native[`${pipe}Text`](nowMs, chunk);
    else throw new TypeError(`Supervisor.${pipe}(chunk): chunk must be a Buffer, a Uint8Array or a string, not ${check.describe(chunk)}`);
  }

  /** The child's stdout reached its end (or failed). */
  stdoutClosed(nowMs) {
    this.#native.stdoutClosed(ms(nowMs, 'Supervisor.stdoutClosed(nowMs)'));
  }

  /** The child's stderr reached its end (or failed). */
  stderrClosed(nowMs) {
    this.#native.stderrClosed(ms(nowMs, 'Supervisor.stderrClosed(nowMs)'));
  }

  /**
   * The child exited with `code`, or a signal (a name or number) killed it: the arguments
   * of a ChildProcess's 'exit' event. With neither, the child is gone but how it ended is
   * unknown (something else reaped it): the run is judged without an exit code.
   */
  exited(nowMs, code = null, signal = null) {
    ms(nowMs, 'Supervisor.exited(nowMs)');
    const none = (value) => value === null || value === undefined;
    if (!none(code)) {
      if (!Number.isInteger(code) || code < -(2 ** 31) || code >= 2 ** 31) {
        throw new RangeError(`Supervisor.exited(code): code must be a 32-bit integer, not ${String(code)}`);
      }
      if (!none(signal)) throw new TypeError('Supervisor.exited(): give a code or a signal, not both');
      this.#native.exited(nowMs, code, null);
    } else {
      this.#native.exited(nowMs, null, none(signal) ? null : signalNumber(signal, 'Supervisor.exited(signal)'));
    }
  }

  /**
   * Asks for the run to be cancelled (`reason`: 'user', 'timeout' or 'idle'). The first
   * request starts the cancel ladder (with `interruptGraceMs` instead of the option's, when
   * given); a later one from the user takes the next step at once.
   */
  cancel(nowMs, reason = 'user', interruptGraceMs = null) {
    ms(nowMs, 'Supervisor.cancel(nowMs)');
    if (!REASONS.includes(reason)) throw new RangeError(`Supervisor.cancel(reason): reason must be one of ${REASONS.join(', ')}, not ${String(reason)}`);
    const grace = check.optional(interruptGraceMs, null, ms, 'Supervisor.cancel(interruptGraceMs)');
    this.#native.cancel(nowMs, reason, grace);
  }

  /**
   * Says whether someone takes the events as they come (`attached`, the default). Detach
   * while nobody does (the user only awaits the result): stdout is then never paused, and
   * events wait up to `dropAtBytes`. Attach while someone iterates.
   */
  setConsumer(nowMs, attached) {
    ms(nowMs, 'Supervisor.setConsumer(nowMs)');
    this.#native.setConsumer(nowMs, check.boolean(attached, 'Supervisor.setConsumer(attached)'));
  }

  /**
   * Handles every deadline up to `nowMs` (call it when `deadline()` is reached, with the
   * current time: a deadline in the past means "tick now").
   */
  tick(nowMs) {
    this.#native.tick(ms(nowMs, 'Supervisor.tick(nowMs)'));
  }

  /**
   * When to call `tick` next, in milliseconds on the same clock, or null. A deadline at or
   * before the latest time told means: tick now.
   */
  deadline() {
    return this.#native.deadline() ?? null;
  }

  /** The next thing the driver must do, or null. */
  pollAction() {
    const next = this.#native.pollAction();
    return next == null ? null : action(next);
  }

  /**
   * The events waiting (at most `max`), in order: frames, violations, skipped lines and
   * the halt. Taking them may resume stdout: look at the actions after.
   */
  pollEvents(max = Infinity) {
    if (max !== Infinity) check.count(max, 'Supervisor.pollEvents(max)');
    return eventsOf(this.#native.pollEvents(max), this.#raw);
  }

  /** The next complete stderr line (without its line end), or null. */
  pollStderr() {
    return this.#native.pollStderr() ?? null;
  }

  /** Whether stdout is paused for the consumer (more than `pauseAtBytes` of events wait). */
  get paused() {
    return this.#native.paused;
  }

  /** Who cancelled the run ('user', 'timeout' or 'idle') once a cancel has started, else null. */
  get cancelledBy() {
    return this.#native.cancelledBy ?? null;
  }

  /** Whether a cancel has started and the child has not exited yet. */
  get cancelling() {
    return this.#native.cancelling;
  }

  /** Whether the timeout ran out and cancelled the run. */
  get timedOut() {
    return this.#native.timedOut;
  }

  /**
   * Whether stdout is still open: false once it reached its end (or the drain closed it),
   * when no event comes after the ones waiting.
   */
  get stdoutOpen() {
    return this.#native.stdoutOpen;
  }

  /**
   * Bytes of waiting events (or, in their own queue, stderr lines) past which further ones
   * are counted in `supervision.noticesDropped` instead of kept: 16 × `pauseAtBytes`, at
   * least `MIN_DROP_AT_BYTES`.
   */
  get dropAtBytes() {
    return this.#native.dropAtBytes;
  }

  /** Whether the result is known (events and stderr lines may still wait). */
  get finished() {
    return this.#native.finished;
  }

  /** The violations found so far (after the end, the result's). */
  get violations() {
    return JSON.parse(this.#native.reports()).violations.map(violation);
  }

  /** The lines skipped so far, as `HepError`s. */
  get skipped() {
    return JSON.parse(this.#native.reports()).skipped.map(fromRecord);
  }

  /** The error that halted the stream (strict mode, or a refused version), or null. */
  get halted() {
    const { halted } = JSON.parse(this.#native.reports());
    return halted === null ? null : fromRecord(halted);
  }

  /** The `RunResult` (with `supervision`), once finished; else null. The same object each call. */
  result() {
    if (this.#result === null && this.#native.finished) {
      const finished = this.#native;
      this.#result = runResult(JSON.parse(finished.result()), () => JSON.parse(finished.turns()), null);
    }
    return this.#result;
  }
}

module.exports = { Supervisor };
