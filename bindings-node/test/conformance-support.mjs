// Shared by the conformance runner's modules: reading case fields and notations (see
// conformance/README.md), frames in canonical form, and comparison with readable differences.

import { HepError, encode, parseLine } from 'hep';

/** What differs between a case and the library (or what is wrong with the case). */
export class CaseError extends Error {}

// ---- fields and notations ----

export function get(obj, key) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || !Object.hasOwn(obj, key)) {
    throw new CaseError(`missing field \`${key}\``);
  }
  return obj[key];
}

export function getStr(obj, key) {
  const value = get(obj, key);
  if (typeof value !== 'string') throw new CaseError(`field \`${key}\` must be a string`);
  return value;
}

export function getUint(obj, key) {
  const value = get(obj, key);
  if (!Number.isSafeInteger(value) || value < 0) throw new CaseError(`field \`${key}\` must be a non-negative integer`);
  return value;
}

export function getBool(obj, key) {
  const value = get(obj, key);
  if (typeof value !== 'boolean') throw new CaseError(`field \`${key}\` must be a boolean`);
  return value;
}

export function getList(obj, key) {
  const value = get(obj, key);
  if (!Array.isArray(value)) throw new CaseError(`field \`${key}\` must be an array`);
  return value;
}

/** The *text* notation: a string, `{"repeat": S, "count": N}`, or an array of texts. */
export function text(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(text).join('');
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 2) {
    if (!Object.hasOwn(value, 'repeat')) throw new CaseError('a text object needs `repeat`');
    if (!Number.isSafeInteger(value.count) || value.count < 0) throw new CaseError('a text object needs an integer `count`');
    return text(value.repeat).repeat(value.count);
  }
  throw new CaseError(`not a text: ${show(value)}`);
}

export function getText(obj, key) {
  try {
    return text(get(obj, key));
  } catch (e) {
    if (e instanceof CaseError) throw new CaseError(`field \`${key}\`: ${e.message}`);
    throw e;
  }
}

/** The *bytes* notation: `key` (a text, as UTF-8) or `key_base64`, exactly one. */
export function getBytes(obj, key) {
  const b64 = `${key}_base64`;
  const has = (k) => Object.hasOwn(obj, k);
  if (has(key) && has(b64)) throw new CaseError(`give \`${key}\` or \`${b64}\`, not both`);
  if (has(key)) {
    const value = getText(obj, key);
    if (!value.isWellFormed()) throw new CaseError(`field \`${key}\` is not valid Unicode text`);
    return Buffer.from(value, 'utf8');
  }
  if (has(b64)) {
    const value = obj[b64];
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
      throw new CaseError(`field \`${b64}\` is not standard base64`);
    }
    return Buffer.from(value, 'base64');
  }
  throw new CaseError(`missing field \`${key}\` (or \`${b64}\`)`);
}

// ---- frames ----

export function parse(line, what) {
  try {
    return parseLine(line);
  } catch (e) {
    if (e instanceof HepError) throw new CaseError(`the library cannot decode ${what}: ${e.message}`);
    throw e;
  }
}

export function encoded(frame) {
  try {
    return encode(frame);
  } catch (e) {
    if (e instanceof HepError) throw new CaseError(`the library cannot encode ${show(frame)}: ${e.message}`);
    throw e;
  }
}

/**
 * The canonical form of a frame: the JSON object of the library's own encoding. The frame
 * object itself must be that form too; an unknown frame (`{type: 'unknown', frame_type,
 * turn_id, raw}`) must be encoded as its `raw` line, and name that line's type (and its
 * turn id, when it gives one).
 */
export function canonical(frame) {
  const line = encoded(frame);
  let form;
  try {
    form = JSON.parse(line);
  } catch (e) {
    throw new CaseError(`the encoding \`${line}\` is not JSON: ${e.message}`);
  }
  if (frame.type !== 'unknown') {
    sameJson('the frame object (against its canonical form)', form, frame);
    return form;
  }
  const keys = Object.keys(frame);
  const want = Object.hasOwn(frame, 'turn_id') ? ['type', 'frame_type', 'turn_id', 'raw'] : ['type', 'frame_type', 'raw'];
  if (show(keys) !== show(want)) throw new CaseError(`an unknown frame's keys are ${show(keys)}, not ${show(want)}`);
  sameText("an unknown frame's encoding (against its `raw`)", frame.raw, line);
  sameJson("an unknown frame's `frame_type` (against its line's type)", form.type, frame.frame_type);
  if (Object.hasOwn(frame, 'turn_id')) sameJson("an unknown frame's `turn_id` (against its line's)", form.turn_id, frame.turn_id);
  return form;
}

/** The wire type of a frame (an unknown frame's own type). */
export function wireType(frame) {
  return frame.type === 'unknown' ? frame.frame_type : frame.type;
}

// ---- comparison ----

export function show(value, limit = 400) {
  let shown;
  try {
    shown = JSON.stringify(value);
  } catch {
    shown = String(value);
  }
  if (shown === undefined) shown = String(value);
  return shown.length <= limit ? shown : `${shown.slice(0, limit)} …(${shown.length - limit} more chars)`;
}

const isNumber = (v) => typeof v === 'number';
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * JSON equality: same keys (order ignored), numbers by value (`0` equals `-0`), a boolean
 * never equals a number; null for none.
 */
export function firstDifference(path, expected, got) {
  if (isObject(expected) && isObject(got)) {
    for (const [key, ev] of Object.entries(expected)) {
      if (!Object.hasOwn(got, key)) return `${path}.${key}: expected ${show(ev)}, got nothing`;
      const d = firstDifference(`${path}.${key}`, ev, got[key]);
      if (d) return d;
    }
    for (const [key, gv] of Object.entries(got)) {
      if (!Object.hasOwn(expected, key)) return `${path}.${key}: expected nothing, got ${show(gv)}`;
    }
    return null;
  }
  if (Array.isArray(expected) && Array.isArray(got)) {
    for (let i = 0; i < Math.min(expected.length, got.length); i++) {
      const d = firstDifference(`${path}[${i}]`, expected[i], got[i]);
      if (d) return d;
    }
    return expected.length === got.length ? null : `${path}: expected ${expected.length} items, got ${got.length}`;
  }
  if (isNumber(expected) && isNumber(got)) return expected === got ? null : `${path}: expected ${show(expected)}, got ${show(got)}`;
  const sameKind = typeof expected === typeof got && Array.isArray(expected) === Array.isArray(got);
  if (sameKind && expected === got) return null;
  return `${path}: expected ${show(expected)}, got ${show(got)}`;
}

export function sameJson(what, expected, got) {
  const d = firstDifference('$', expected, got);
  if (d === null) return;
  if (!isObject(expected) && !Array.isArray(expected)) throw new CaseError(`${what}: ${d.startsWith('$: ') ? d.slice(3) : d}`);
  throw new CaseError(`${what} differs at ${d}\n  expected: ${show(expected)}\n  got:      ${show(got)}`);
}

export function sameText(what, expected, got) {
  if (expected === got) return;
  if (typeof got !== 'string') throw new CaseError(`${what}: expected the string ${show(expected)}, got ${show(got)}`);
  let at = 0;
  while (at < Math.min(expected.length, got.length) && expected[at] === got[at]) at++;
  const start = Math.max(0, at - 60);
  throw new CaseError(
    `${what} differs at character ${at} (of ${expected.length} expected, ${got.length} got)\n` +
      `  expected: ${JSON.stringify(expected.slice(start, at + 140))}\n` +
      `  got:      ${JSON.stringify(got.slice(start, at + 140))}`,
  );
}

/** The error kinds a single line can be refused with (`reject/`). */
export const LINE_ERROR_KINDS = [
  'syntax',
  'invalid_utf8',
  'trailing_characters',
  'not_an_object',
  'missing_field',
  'duplicate_field',
  'wrong_type',
  'out_of_range',
  'too_deep',
];

/** Every error kind of the core: the line kinds, then those of a stream or a writer. */
export const ERROR_KINDS = [...LINE_ERROR_KINDS, 'line_too_long', 'truncated', 'unsupported_version', 'violation', 'unencodable', 'io'];
