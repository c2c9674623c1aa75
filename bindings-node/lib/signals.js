'use strict';
// The exit code of a process a signal killed, as the core computes it (128 + the number).

const os = require('node:os');
const { native } = require('./addon.js');
const check = require('./check.js');

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

module.exports = { exitCodeForSignal };
