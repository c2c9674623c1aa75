'use strict';
// The protocol's bounds on text, the core's: a capped text, the UTF-16 length (the
// protocol's "characters"), and the two renderings of tool arguments.

const { native } = require('./addon.js');
const check = require('./check.js');
const { argsText } = require('./args.js');

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

module.exports = { cap, utf16Len, argsSummary, argsFull };
