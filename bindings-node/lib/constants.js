'use strict';
// The core's constants: versions, exit codes, the supervision's times and sizes, the
// protocol's caps.

const { constants } = require('./addon.js');

module.exports = {
  VERSION: constants.version,
  PROTOCOL_VERSION: constants.protocolVersion,
  EXIT_OK: constants.exitOk,
  EXIT_FAILED: constants.exitFailed,
  EXIT_CANCELLED: constants.exitCancelled,
  INTERRUPT_GRACE_MS: constants.interruptGraceMs,
  TERMINATE_GRACE_MS: constants.terminateGraceMs,
  STDERR_TAIL_BYTES: constants.stderrTailBytes,
  DRAIN_AFTER_EXIT_MS: constants.drainAfterExitMs,
  MAX_STDERR_LINE: constants.maxStderrLine,
  PAUSE_AT_BYTES: constants.pauseAtBytes,
  MIN_DROP_AT_BYTES: constants.minDropAtBytes,
  TOOL_RESULT_CAP: constants.toolResultCap,
  MAX_LINE_BYTES: constants.maxLineBytes,
};
