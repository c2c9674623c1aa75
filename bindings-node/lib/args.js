'use strict';
// Tool-call arguments as the JSON text the core reads (`hep_core::parse_args`): an object
// is serialized as `JSON.stringify` serializes it (its keys in `Object.keys` order, values
// that are undefined, functions or symbols left out, `toJSON` applied), except that a value
// holding a non-finite number (NaN, Infinity, -Infinity, anywhere inside it) is written as
// the number `1e400`, past the double range: the core reads it as a value JSON cannot write
// and renders it as the reference does (`[unserializable]`). `JSON.stringify` would write
// `null`, which the core would render as `null`.

const check = require('./check.js');

/** Stands, at the top level of the text, for a value holding a non-finite number. */
const UNSERIALIZABLE = '1e400';

/** Whether `value` is a number JSON cannot write (a Number object too). */
function isNonFinite(value) {
  return (typeof value === 'number' || value instanceof Number) && !Number.isFinite(Number(value));
}

/** `value` as `JSON.stringify` writes it, and whether it holds a non-finite number. */
function stringify(value) {
  let holds = false;
  // A replacer that changes nothing: it sees every value, after `toJSON`, as it is written.
  const text = JSON.stringify(value, (key, v) => {
    if (isNonFinite(v)) holds = true;
    return v;
  });
  return [text, holds];
}

/**
 * Whether `value` may hold a number JSON cannot write: true for a non-finite number inside
 * it, and for a `toJSON` or a Number object (whose value only `JSON.stringify` tells); false
 * means it holds none. A walk is a tenth of the cost of a `JSON.stringify` with a replacer.
 * `value` is one that `JSON.stringify` has just written, so it holds no cycle.
 */
function mayHoldNonFinite(value) {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  if (typeof value.toJSON === 'function' || value instanceof Number) return true;
  if (Array.isArray(value)) return value.some(mayHoldNonFinite);
  for (const key of Object.keys(value)) if (mayHoldNonFinite(value[key])) return true;
  return false;
}

/** Whether `JSON.stringify` writes `value` as an object, member by member. */
function isObjectLike(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return !(value instanceof Number || value instanceof String || value instanceof Boolean);
}

/**
 * `text` (what `JSON.stringify(args)` wrote, holding `null` somewhere) with `1e400` in place
 * of each top-level value that holds a non-finite number; `text` itself when there is none.
 */
function marked(args, text) {
  const root = typeof args.toJSON === 'function' ? args.toJSON('') : args;
  if (!isObjectLike(root)) return text; // not written as an object: the core refuses it anyway
  const members = [];
  let found = false;
  for (const key of Object.keys(root)) {
    // `{"key":value}` as JSON.stringify writes that member (toJSON called with its key), or
    // `{}` when it leaves the member out.
    const [member, holds] = stringify({ [key]: root[key] });
    if (member === '{}') continue;
    if (holds) {
      found = true;
      members.push(`${JSON.stringify(key)}:${UNSERIALIZABLE}`);
    } else {
      members.push(member.slice(1, -1));
    }
  }
  return found ? `{${members.join(',')}}` : text;
}

/**
 * Tool arguments (an object, or the JSON text of one, passed as it is) as JSON text, key
 * order kept. A non-finite number turns into `null` in `JSON.stringify`'s text; only when
 * the text holds `null` is the object looked at again (a walk, then, when that finds one,
 * member by member), so the common case costs one `JSON.stringify` and one search.
 */
function argsText(args, what) {
  if (typeof args === 'string') return args;
  const text = JSON.stringify(check.object(args, what));
  if (typeof text !== 'string') {
    // Its toJSON gave undefined, a function or a symbol.
    throw new TypeError(`${what} must serialize to a JSON object, but JSON.stringify gives ${String(text)}`);
  }
  return text.includes('null') && mayHoldNonFinite(args) ? marked(args, text) : text;
}

module.exports = { argsText };
