'use strict';
// Terminal-safe text: the core's `sanitize`.

const { native } = require('./addon.js');
const check = require('./check.js');

/** `text` with terminal-driving characters (escapes, bidi overrides) as visible escapes. */
function sanitize(text) {
  return native.sanitize(check.string(text, 'sanitize(text)'));
}

module.exports = { sanitize };
