'use strict';
// hep: HEP v1, the Harness Event Protocol, for Node.
//
// The protocol (parsing, validation, encoding, bounds, verdicts) is hep-core, in Rust, through
// a native addon; this package adds JavaScript types and Node I/O: `Stream` and `read` to
// read, `Writer` to write, `spawn` to supervise a harness (a driver of the core's
// `Supervisor`, which is public too, for drivers of one's own).

const { HepError } = require('./lib/errors.js');
const { parseLine, encode } = require('./lib/frames.js');
const { Stream } = require('./lib/stream.js');
const { Writer } = require('./lib/writer.js');
const core = require('./lib/core.js');
const { spawn, Run } = require('./lib/process.js');
const { Supervisor } = require('./lib/supervisor.js');
const { read } = require('./lib/read.js');

module.exports = {
  VERSION: core.VERSION,
  PROTOCOL_VERSION: core.PROTOCOL_VERSION,
  EXIT_OK: core.EXIT_OK,
  EXIT_FAILED: core.EXIT_FAILED,
  EXIT_CANCELLED: core.EXIT_CANCELLED,
  INTERRUPT_GRACE_MS: core.INTERRUPT_GRACE_MS,
  TERMINATE_GRACE_MS: core.TERMINATE_GRACE_MS,
  STDERR_TAIL_BYTES: core.STDERR_TAIL_BYTES,
  DRAIN_AFTER_EXIT_MS: core.DRAIN_AFTER_EXIT_MS,
  MAX_STDERR_LINE: core.MAX_STDERR_LINE,
  PAUSE_AT_BYTES: core.PAUSE_AT_BYTES,
  MIN_DROP_AT_BYTES: core.MIN_DROP_AT_BYTES,
  TOOL_RESULT_CAP: core.TOOL_RESULT_CAP,
  MAX_LINE_BYTES: core.MAX_LINE_BYTES,
  HepError,
  parseLine,
  encode,
  Stream,
  Writer,
  Tail: core.Tail,
  exitCodeForSignal: core.exitCodeForSignal,
  sanitize: core.sanitize,
  jsonSchema: core.jsonSchema,
  cap: core.cap,
  utf16Len: core.utf16Len,
  argsSummary: core.argsSummary,
  argsFull: core.argsFull,
  spawn,
  Run,
  Supervisor,
  read,
};
