'use strict';
// The native addon, as the generated loader (native.cjs, @napi-rs/cli's) finds it for this
// platform, handed the factory of its errors.

const { fromRecord } = require('./errors.js');
const native = require('../native.cjs');

/** A failure record of the addon (JSON) to the `HepError` it throws, its stack starting at the caller. */
function hepError(record) {
  const error = fromRecord(JSON.parse(record));
  Error.captureStackTrace(error, hepError);
  return error;
}

native.registerErrorFactory(hepError);

/** The core's constants (versions, exit codes, grace periods, caps, frame type codes). */
const constants = native.constants();

module.exports = { native, constants };
