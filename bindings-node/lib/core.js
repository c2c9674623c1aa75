'use strict';
// What the package takes from the core besides streams and writers: its constants, the
// bounded stderr `Tail`, signal exit codes, bounds, terminal sanitising and the schema.

const os = require('node:os');
const { native, constants } = require('./native.js');
const check = require('./check.js');
const { argsText } = require('./args.js');

const VERSION = constants.version;
const PROTOCOL_VERSION = constants.protocolVersion;
const EXIT_OK = constants.exitOk;
const EXIT_FAILED = constants.exitFailed;
const EXIT_CANCELLED = constants.exitCancelled;
const INTERRUPT_GRACE_MS = constants.interruptGraceMs;
const TERMINATE_GRACE_MS = constants.terminateGraceMs;
const STDERR_TAIL_BYTES = constants.stderrTailBytes;
const DRAIN_AFTER_EXIT_MS = constants.drainAfterExitMs;
const MAX_STDERR_LINE = constants.maxStderrLine;
const PAUSE_AT_BYTES = constants.pauseAtBytes;
const MIN_DROP_AT_BYTES = constants.minDropAtBytes;
const TOOL_RESULT_CAP = constants.toolResultCap;
const MAX_LINE_BYTES = constants.maxLineBytes;

/** The last `cap` bytes of a byte stream (a child's stderr). */
class Tail {
  #native;

  constructor(cap = STDERR_TAIL_BYTES) {
    this.#native = new native.NativeTail(check.count(cap, 'Tail(cap)'));
  }

  /** Appends a chunk (bytes, or text as UTF-8), forgetting the oldest bytes beyond the cap. */
  push(chunk) {
    if (typeof chunk === 'string') chunk = Buffer.from(chunk);
    else if (!(chunk instanceof Uint8Array)) {
      throw new TypeError(`Tail.push(chunk): chunk must be a Buffer, a Uint8Array or a string, not ${check.describe(chunk)}`);
    }
    this.#native.push(chunk);
  }

  /** The kept bytes as text (a character cut at the start as U+FFFD). */
  text() {
    return this.#native.text();
  }

  /** How many bytes were forgotten. */
  get dropped() {
    return this.#native.dropped;
  }
}

/** The exit code of a process killed by `signal` (a name such as 'SIGINT', or its number). */
function exitCodeForSignal(signal) {
  let number = signal;
  if (typeof signal === 'string') {
    number = os.constants.signals[signal];
    if (number === undefined) throw new RangeError(`exitCodeForSignal(signal): no signal is named ${signal}`);
  } else if (typeof signal !== 'number') {
    throw new TypeError(`exitCodeForSignal(signal): signal must be a signal name or number, not ${check.describe(signal)}`);
  }
  if (!Number.isInteger(number) || number < 1 || number > 127) {
    throw new RangeError(`exitCodeForSignal(signal): ${signal} is no signal number`);
  }
  return native.exitCodeForSignal(number);
}

/** `text` with terminal-driving characters (escapes, bidi overrides) as visible escapes. */
function sanitize(text) {
  return native.sanitize(check.string(text, 'sanitize(text)'));
}

/** The JSON Schema (draft 2020-12) of the frames, as text. */
function jsonSchema() {
  return native.jsonSchema();
}

/** `text` cut to `limit` UTF-16 units plus `…(+N chars)` when longer. */
function cap(text, limit) {
  return native.cap(check.string(text, 'cap(text)'), check.count(limit, 'cap(limit)'));
}

/** The length of `text` in UTF-16 code units, the protocol's "characters". */
function utf16Len(text) {
  return native.utf16Len(check.string(text, 'utf16Len(text)'));
}

/**
 * Summary-mode `args_summary`: `key=<json>` joined with `, `, cut at 100 units plus `...`; a
 * value holding a non-finite number is `key=[unserializable]`.
 */
function argsSummary(args) {
  return native.argsSummary(argsText(args, 'argsSummary(args)'));
}

/**
 * Full-mode `args_summary` (`events=full`): the arguments' JSON, capped at 4000 units;
 * `[unserializable]` when a value holds a non-finite number.
 */
function argsFull(args) {
  return native.argsFull(argsText(args, 'argsFull(args)'));
}

module.exports = {
  VERSION,
  PROTOCOL_VERSION,
  EXIT_OK,
  EXIT_FAILED,
  EXIT_CANCELLED,
  INTERRUPT_GRACE_MS,
  TERMINATE_GRACE_MS,
  STDERR_TAIL_BYTES,
  DRAIN_AFTER_EXIT_MS,
  MAX_STDERR_LINE,
  PAUSE_AT_BYTES,
  MIN_DROP_AT_BYTES,
  TOOL_RESULT_CAP,
  MAX_LINE_BYTES,
  Tail,
  exitCodeForSignal,
  sanitize,
  jsonSchema,
  cap,
  utf16Len,
  argsSummary,
  argsFull,
};
