// What the package takes from the core besides streams and writers: its constants, the
// stderr Tail, signal exit codes, bounds, sanitising and the schema.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import * as hep from 'hep';

describe('the core constants and helpers', () => {
  test('constants are the core policy', () => {
    assert.deepEqual(
      [hep.PROTOCOL_VERSION, hep.EXIT_OK, hep.EXIT_FAILED, hep.EXIT_CANCELLED, hep.INTERRUPT_GRACE_MS, hep.TERMINATE_GRACE_MS, hep.STDERR_TAIL_BYTES, hep.TOOL_RESULT_CAP],
      ['v1', 0, 1, 130, 12_000, 2000, 65536, 2000],
    );
    assert.deepEqual(
      [hep.DRAIN_AFTER_EXIT_MS, hep.MAX_STDERR_LINE, hep.PAUSE_AT_BYTES, hep.MIN_DROP_AT_BYTES],
      [2000, 16384, 1 << 20, 1 << 20],
    );
    // The interrupt grace outlasts the reference's 10 s settle plus its drain and exit.
    assert.ok(hep.INTERRUPT_GRACE_MS > 10_000);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const workspace = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
    assert.equal(hep.VERSION, pkg.version);
    assert.equal(`version = "${hep.VERSION}"`, workspace.match(/^version = ".*"$/m)[0], 'package.json and the workspace agree');
  });

  test('exitCodeForSignal takes a name or a number', () => {
    assert.equal(hep.exitCodeForSignal('SIGINT'), 130);
    assert.equal(hep.exitCodeForSignal(2), 130);
    assert.equal(hep.exitCodeForSignal('SIGKILL'), 137);
    assert.equal(hep.exitCodeForSignal(15), 143);
    assert.throws(() => hep.exitCodeForSignal('SIGNOPE'), RangeError);
    assert.throws(() => hep.exitCodeForSignal(0), RangeError);
    assert.throws(() => hep.exitCodeForSignal(null), TypeError);
  });

  test('Tail keeps the last bytes and counts the dropped ones', () => {
    const tail = new hep.Tail(5);
    tail.push(Buffer.from('abc'));
    tail.push('defg');
    assert.deepEqual([tail.text(), tail.dropped], ['cdefg', 2]);
    tail.push(new Uint8Array([0xc3, 0xa9, 0x21]));
    assert.deepEqual([tail.text(), tail.dropped], ['fgé!', 5]);
    tail.push(Buffer.from('xxxxé'));
    assert.deepEqual([tail.text(), tail.dropped], ['xxxé', 11]);
    const cut = new hep.Tail(5);
    cut.push('ééé');
    assert.deepEqual([cut.text(), cut.dropped], ['\ufffdéé', 1], 'a character cut at the start is U+FFFD');
    assert.equal(new hep.Tail().text(), '');
    assert.throws(() => tail.push(5), TypeError);
    assert.throws(() => new hep.Tail(-1), RangeError);
  });

  test('bounds: cap, utf16Len, argsSummary and argsFull (objects or JSON text)', () => {
    assert.equal(hep.cap('abcdef', 4), 'abcd…(+2 chars)');
    assert.equal(hep.cap('ab😀cd', 3), 'ab…(+4 chars)');
    assert.equal(hep.utf16Len('aé€😀'), 5);
    assert.equal(hep.argsSummary({ path: 'a.txt', n: 2 }), 'path="a.txt", n=2');
    assert.equal(hep.argsSummary('{"f":1.0}'), 'f=1.0');
    assert.equal(hep.argsFull({ a: [1, { b: null }] }), '{"a":[1,{"b":null}]}');
    assert.throws(() => hep.argsSummary('{'), { code: 'HEP_SYNTAX', column: 2 });
    assert.throws(() => hep.argsSummary({ toJSON: () => undefined }), {
      name: 'TypeError',
      message: 'argsSummary(args) must serialize to a JSON object, but JSON.stringify gives undefined',
    });
    assert.throws(() => hep.argsFull('"x"'), { code: 'HEP_NOT_AN_OBJECT' });
    assert.throws(() => hep.argsSummary([]), TypeError);
    assert.throws(() => hep.cap('x', -1), RangeError);
  });

  test('argsSummary and argsFull: a value holding NaN or an infinity is [unserializable]', () => {
    assert.equal(hep.argsSummary({ x: NaN, y: [1, Infinity], z: 'ok' }), 'x=[unserializable], y=[unserializable], z="ok"');
    assert.equal(hep.argsFull({ x: NaN, y: [1, Infinity], z: 'ok' }), '[unserializable]');
    assert.equal(hep.argsSummary({ deep: { a: [{ b: -Infinity }] }, n: null }), 'deep=[unserializable], n=null');
    assert.equal(hep.argsFull({ deep: { a: [{ b: -Infinity }] }, n: null }), '[unserializable]');
    assert.equal(hep.argsSummary({ n: null, u: undefined, f() {}, s: 'null' }), 'n=null, s="null"');
    assert.equal(hep.argsFull({ n: null, u: undefined, f() {}, s: 'null' }), '{"n":null,"s":"null"}');
    assert.equal(hep.argsSummary({ b: -Infinity, 1: null }), '1=null, b=[unserializable]');
    // A toJSON is asked what it gives: a Date with a null beside it stays as it is.
    assert.equal(hep.argsSummary({ d: new Date(0), n: null }), 'd="1970-01-01T00:00:00.000Z", n=null');
    assert.equal(hep.argsSummary({ t: { toJSON: () => [NaN] }, n: null }), 't=[unserializable], n=null');
    // The same arguments as JSON text, with numbers past the double range.
    assert.equal(hep.argsSummary('{"x":1e400,"y":[1,-1e400],"z":"ok"}'), 'x=[unserializable], y=[unserializable], z="ok"');
    assert.equal(hep.argsFull('{"x":1e400}'), '[unserializable]');
  });

  test('sanitize makes terminal escapes visible; jsonSchema is the schema', () => {
    assert.equal(hep.sanitize('a\u001b[31mred\u0007\n\tb\u202e'), 'a\\x1b[31mred\\x07\n\tb\\u{202e}');
    const schema = JSON.parse(hep.jsonSchema());
    assert.equal(schema.title, 'HEP v1 frame');
    assert.equal(hep.jsonSchema(), readFileSync(new URL('../../schema/hep-v1.schema.json', import.meta.url), 'utf8'));
  });

  test('HepError is an Error whose code follows its kind', () => {
    const error = new hep.HepError('boom', { kind: 'line_too_long', line: 3 });
    assert.ok(error instanceof Error);
    assert.deepEqual([error.name, error.code, error.kind, error.line, error.column, error.excerpt], ['HepError', 'HEP_LINE_TOO_LONG', 'line_too_long', 3, null, '']);
    assert.equal(new hep.HepError('x').code, 'HEP_INTERNAL');
  });
});
