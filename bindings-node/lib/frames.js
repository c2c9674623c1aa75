'use strict';
// One frame at a time: `parseLine` (a line to its frame), `encode` (a frame to its exact
// line) and the frames' JSON Schema; and `framesOf`, the frames of the addon's batches
// (lib/batch.js, generated from hep-core's frame model), once the addon is known to write
// the layout it reads.
//
// A frame is a plain object with the wire's field names. A frame of a type v1 does not know
// is `{type: 'unknown', frame_type, turn_id, raw}` (`turn_id` when it has a valid one),
// so that `switch (frame.type)` narrows.

const { native, constants } = require('./addon.js');
const { HepError } = require('./errors.js');
const { FRAME_TYPES, LAYOUT, framesOf } = require('./batch.js');
const check = require('./check.js');

if (constants.frameTypes.join() !== FRAME_TYPES.join() || constants.batchLayout !== LAYOUT) {
  throw new Error(
    `hep: the native addon writes frames as ${constants.batchLayout}, this package reads ${LAYOUT}: rebuild the addon`,
  );
}

/**
 * One line (without its newline; a final `\n` or `\r\n` is ignored) to its frame, which
 * carries the line as non-enumerable `raw` and `line` (1). Throws a `HepError`.
 */
function parseLine(line) {
  let batch;
  if (typeof line === 'string') batch = native.parseLineText(line);
  else if (line instanceof Uint8Array) batch = native.parseLine(line);
  else throw new TypeError(`parseLine(line): line must be a string, a Buffer or a Uint8Array, not ${check.describe(line)}`);
  return framesOf(batch[0], batch[1], true)[0];
}

/** The `HepError` of kind `kind`, its message written as the core writes its errors'. */
function refused(kind, message) {
  return new HepError(`${kind}: ${message}`, { kind });
}

/**
 * `value` as JSON text for the core's decoder, which reads it as it reads a line: an object's
 * own enumerable keys in order (those holding `undefined` left out), an integer with all its
 * digits (so that the decoder, not an exponent, judges its range), -0 as `-0` (a cost keeps
 * its sign). What JSON cannot hold is refused here: a non-finite number as the core's encoder
 * refuses it (`unencodable`), a bigint, a function or a symbol as a value of the wrong type.
 * `ancestors` are the objects `value` is inside (a cycle is a TypeError, as in
 * `JSON.stringify`).
 */
function frameJson(value, key, ancestors) {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw refused('unencodable', `${value} is not a finite number`);
      if (Object.is(value, -0)) return '-0';
      return Number.isInteger(value) ? BigInt(value).toString() : String(value);
    case 'undefined':
      return 'null'; // in an array, as JSON.stringify writes it (an object leaves it out)
    case 'object':
      break;
    default:
      throw refused('wrong_type', `field \`${key}\` holds a ${typeof value}, which JSON cannot hold`);
  }
  if (value === null) return 'null';
  if (ancestors.includes(value)) throw new TypeError(`encode(frame): field \`${key}\` holds a cycle`);
  ancestors.push(value);
  let text;
  if (Array.isArray(value)) {
    text = `[${Array.from(value, (item) => frameJson(item, `${key}[]`, ancestors)).join(',')}]`;
  } else {
    const members = [];
    for (const name of Object.keys(value)) {
      const member = value[name];
      if (member !== undefined) members.push(`${JSON.stringify(name)}:${frameJson(member, name, ancestors)}`);
    }
    text = `{${members.join(',')}}`;
  }
  ancestors.pop();
  return text;
}

/**
 * The exact line the reference emitter writes for `frame` (no newline). The core's decoder
 * reads the object as it reads a line (the same error kinds: `missing_field`, `wrong_type`,
 * `out_of_range` for a negative integer) and its encoder writes it (`unencodable` for an
 * integer above 2^53 - 1 or a non-finite number). An unknown frame is written back as its
 * line, `raw`.
 */
function encode(frame) {
  check.object(frame, 'encode(frame): frame');
  if (frame.type !== 'unknown') return native.encode(frameJson(frame, 'frame', []));
  check.string(frame.raw, "encode(frame): an unknown frame's `raw` (its line)");
  return native.encodeUnknown(frame.raw);
}

/** The JSON Schema (draft 2020-12) of the frames, as text. */
function jsonSchema() {
  return native.jsonSchema();
}

module.exports = { framesOf, parseLine, encode, jsonSchema };
