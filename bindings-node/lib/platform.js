'use strict';
// Where supervising works. `spawn` runs a harness in a process group of its own and signals
// the group (POSIX); Windows has neither, so there it refuses with an error naming the
// platform. Reading, validating and writing use no process and work on every platform.

/** The platforms (`process.platform`) without process groups and POSIX signals. */
const UNSUPERVISED = new Set(['win32']);

/**
 * Throws an Error with code `ERR_HEP_UNSUPPORTED_PLATFORM` when `platform` (default: this
 * process's) cannot supervise a child; `what` names the caller in the message.
 */
function requireSupervision(what, platform = process.platform) {
  if (!UNSUPERVISED.has(platform)) return;
  const error = new Error(
    `hep: ${what} is not supported on this platform (${platform}): supervising a harness needs ` +
      'process groups and POSIX signals (Linux, macOS); reading and writing HEP work everywhere',
  );
  error.code = 'ERR_HEP_UNSUPPORTED_PLATFORM';
  error.platform = platform;
  throw error;
}

module.exports = { requireSupervision };
