'use strict';
// hep: HEP v1, the Harness Event Protocol, for Node.
//
// The protocol (parsing, validation, encoding, bounds, verdicts) is hep-core, in Rust, through
// a native addon; this package adds JavaScript types and Node I/O: `Stream` and `read` to
// read, `Writer` to write, `spawn` to supervise a harness (a driver of the core's
// `Supervisor`, which is public too, for drivers of one's own).

const constants = require('./lib/constants.js');
const { HepError } = require('./lib/errors.js');
const { parseLine, encode, jsonSchema } = require('./lib/frames.js');
const { Stream } = require('./lib/stream.js');
const { Writer } = require('./lib/writer.js');
const { Tail } = require('./lib/tail.js');
const { exitCodeForSignal } = require('./lib/signals.js');
const { sanitize } = require('./lib/sanitize.js');
const { cap, utf16Len, argsSummary, argsFull } = require('./lib/bounds.js');
const { spawn, Run } = require('./lib/process.js');
const { Supervisor } = require('./lib/supervisor.js');
const { read } = require('./lib/read.js');

module.exports = {
  ...constants,
  HepError,
  parseLine,
  encode,
  Stream,
  Writer,
  Tail,
  exitCodeForSignal,
  sanitize,
  jsonSchema,
  cap,
  utf16Len,
  argsSummary,
  argsFull,
  spawn,
  Run,
  Supervisor,
  read,
};
