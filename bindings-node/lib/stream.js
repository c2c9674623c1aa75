'use strict';
// `Stream`: bytes in, frames out. The core frames, decodes, validates and reduces; each
// `feed` crosses into it once and gets back every frame the chunk completes in one batch.

const { native, constants } = require('./addon.js');
const { fromRecord } = require('./errors.js');
const { framesOf } = require('./frames.js');
const { runResult, violation } = require('./result.js');
const check = require('./check.js');

/** The error of a stream used after `finish`. */
function finished(method) {
  const error = new Error(`Stream.${method}(): the stream is finished (finish() was called)`);
  error.code = 'ERR_INVALID_STATE';
  return error;
}

/** The `limits` option's keys: the core's `Limits`, in camelCase. */
const LIMITS = [
  'maxTurns',
  'maxTextBytes',
  'maxToolOutputBytes',
  'maxToolsPerTurn',
  'maxFollowups',
  'maxReports',
  'maxRetainedBytes',
  'maxTrackedCalls',
  'maxCompactionsPerTurn',
];

/**
 * The `limits` option (`what` names it in errors), checked: undefined, or an object of known
 * limits, each a non-negative safe integer (a TypeError or RangeError otherwise). Returns the
 * given limits as a fresh object, or undefined (the core's defaults).
 */
function checkLimits(limits, what) {
  if (limits === undefined) return undefined;
  check.object(limits, what);
  const given = {};
  for (const [key, value] of Object.entries(limits)) {
    if (!LIMITS.includes(key)) throw new TypeError(`${what}: unknown limit ${key} (the limits are ${LIMITS.join(', ')})`);
    if (value === undefined) continue;
    check.number(value, `${what}.${key}`);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${what}.${key} must be a non-negative safe integer, not ${value}`);
    }
    given[key] = value;
  }
  return given;
}

/** A live HEP v1 stream reader. */
class Stream {
  #native;
  #raw;
  #halted = null;
  #finished = false;

  /**
   * Options: `strict` (throw at the first error violation or unreadable line), `maxLineBytes`
   * (longest line; longer ones are skipped), `raw` (give each frame non-enumerable `raw`
   * and `line` properties), `limits` (what the stream keeps at most: `maxTurns`,
   * `maxTextBytes`, `maxToolOutputBytes`, `maxToolsPerTurn`, `maxFollowups`, `maxReports`,
   * `maxRetainedBytes`, `maxTrackedCalls`, `maxCompactionsPerTurn`, each defaulting to the
   * core's cap; what a cap leaves out is counted in the result).
   */
  constructor(options = {}) {
    check.object(options, 'Stream(options): options');
    const { strict = false, maxLineBytes = constants.maxLineBytes, raw = false } = options;
    check.boolean(strict, 'Stream(options): strict');
    check.count(maxLineBytes, 'Stream(options): maxLineBytes');
    check.boolean(raw, 'Stream(options): raw');
    const limits = checkLimits(options.limits, 'Stream(options): limits');
    this.#native = new native.NativeStream(strict, maxLineBytes, raw, limits);
    this.#raw = raw;
  }

  /** Feeds a chunk (bytes, or text as UTF-8); returns the frames it completes. */
  feed(chunk) {
    if (this.#finished) throw finished('feed');
    let batch;
    if (chunk instanceof Uint8Array) batch = this.#native.feed(chunk);
    else if (typeof chunk === 'string') batch = this.#native.feedText(chunk);
    else throw new TypeError(`Stream.feed(chunk): chunk must be a Buffer, a Uint8Array or a string, not ${check.describe(chunk)}`);
    return this.#take(batch);
  }

  /** Marks the end of input; a partial last line is reported as skipped (`truncated`). */
  endInput() {
    if (this.#finished) throw finished('endInput');
    return this.#take(this.#native.endInput());
  }

  /**
   * Ends the stream with the harness's exit code (null when unknown) and returns the
   * `RunResult`, which carries `stderrTail` as given. The stream refuses further use.
   */
  finish(exitCode = null, stderrTail = null) {
    if (this.#finished) throw finished('finish');
    if (exitCode !== null) {
      check.number(exitCode, 'Stream.finish(exitCode)');
      if (!Number.isInteger(exitCode) || exitCode < -(2 ** 31) || exitCode >= 2 ** 31) {
        throw new RangeError(`Stream.finish(exitCode): exitCode must be a 32-bit integer or null, not ${exitCode}`);
      }
    }
    if (stderrTail !== null) check.string(stderrTail, 'Stream.finish(stderrTail)');
    this.#finished = true;
    // Ends the input first (if not yet), so a truncated last line is among `skipped`.
    this.#halt(this.#native.endInput()[2]);
    const finishedNative = this.#native;
    const turns = () => JSON.parse(finishedNative.turns());
    return runResult(JSON.parse(finishedNative.finish(exitCode)), turns, stderrTail);
  }

  /**
   * The violations found so far, the first 1000 (after `finish`, those of the result,
   * end-of-stream ones included).
   */
  get violations() {
    return JSON.parse(this.#native.reports()).violations.map(violation);
  }

  /** The lines skipped so far (the first 1000), as `HepError`s. */
  get skipped() {
    return JSON.parse(this.#native.reports()).skipped.map(fromRecord);
  }

  /** The error that halted the stream, or null. */
  get halted() {
    return this.#halted;
  }

  /** The frames of a batch; a halt is thrown, with the frames before it as `frames`. */
  #take([pool, cols, halted]) {
    const frames = framesOf(pool, cols, this.#raw);
    if (this.#halt(halted)) {
      this.#halted.frames = frames;
      throw this.#halted;
    }
    return frames;
  }

  /** Keeps the halt of a batch (the JSON of its record, or null); true when it halted. */
  #halt(halted) {
    if (halted === null) return false;
    this.#halted = fromRecord(JSON.parse(halted));
    return true;
  }
}

module.exports = { Stream, checkLimits };
