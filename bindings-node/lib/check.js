'use strict';
// Argument checks of the public API: a wrong JavaScript type is a TypeError, a number out of
// its range a RangeError, each naming the argument. What the protocol says about a value is
// the core's to check.

/** How a message names the type of `value`. */
function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function string(value, what) {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string, not ${describe(value)}`);
  return value;
}

function boolean(value, what) {
  if (typeof value !== 'boolean') throw new TypeError(`${what} must be a boolean, not ${describe(value)}`);
  return value;
}

function number(value, what) {
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number, not ${describe(value)}`);
  return value;
}

/** A non-negative integer (a JavaScript number: exact up to 2^53 - 1). */
function count(value, what) {
  number(value, what);
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative integer, not ${value}`);
  }
  return value;
}

/** A plain object (not null, not an array). */
function object(value, what) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${what} must be an object, not ${describe(value)}`);
  }
  return value;
}

/** `value`, or `fallback` when it is undefined or null. */
function optional(value, fallback, check, what) {
  return value === undefined || value === null ? fallback : check(value, what);
}

module.exports = { describe, string, boolean, number, count, object, optional };
