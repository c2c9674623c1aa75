// parseLine and encode, HepError, the frames' JSON Schema, and the boundary's robustness: no
// input, however bad, can crash the process; it gives a frame, a HepError, or a
// TypeError/RangeError for a wrong argument.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { HepError, Stream, Writer, argsSummary, cap, encode, jsonSchema, parseLine, sanitize } from 'hep';

const DELTA = '{"type":"message_delta","turn_id":7,"delta":"hé😀"}';

describe('parseLine', () => {
  test('takes a string, a Buffer or any Uint8Array view; a final newline is ignored', () => {
    const want = { type: 'message_delta', turn_id: 7, delta: 'hé😀' };
    const bytes = Buffer.from(`xx${DELTA}\r\nyy`);
    const inputs = [DELTA, `${DELTA}\n`, `${DELTA}\r\n`, Buffer.from(DELTA), new Uint8Array(bytes.buffer, bytes.byteOffset + 2, bytes.length - 4)];
    for (const input of inputs) {
      const frame = parseLine(input);
      assert.deepEqual(frame, want);
      assert.deepEqual([frame.raw, frame.line], [DELTA, 1]);
      assert.deepEqual(Object.keys(frame), ['type', 'turn_id', 'delta']);
    }
  });

  test('errors are HepErrors with code, kind, column and excerpt (no line)', () => {
    const cases = [
      ['', 'HEP_SYNTAX', 1],
      ['[1]', 'HEP_NOT_AN_OBJECT', 1],
      ['{"type":"message_delta","turn_id":1}', 'HEP_MISSING_FIELD', 1],
      ['{"type":"agent_start","turn_id":-1}', 'HEP_OUT_OF_RANGE', 33],
      ['{"type":"agent_start","turn_id":1} x', 'HEP_TRAILING_CHARACTERS', 36],
      [Buffer.from([0x7b, 0xff, 0x7d]), 'HEP_INVALID_UTF8', 2],
    ];
    for (const [line, code, column] of cases) {
      assert.throws(
        () => parseLine(line),
        (e) => e instanceof HepError && e instanceof Error && e.name === 'HepError' && e.code === code && e.kind === code.slice(4).toLowerCase() && e.line === null && e.column === column,
        `${code} for ${String(line)}`,
      );
    }
    const error = (() => {
      try {
        parseLine('{"type":"agent_start","turn_id":true}');
      } catch (e) {
        return e;
      }
    })();
    assert.equal(error.message, 'wrong_type: field `turn_id` of `agent_start` must be an integer, found a boolean (near `tart","turn_id":true}`)');
    assert.match(error.stack, /^HepError: wrong_type/);
    assert.match(error.stack.split('\n')[1], /frames\.js/, 'the stack starts at the call into the addon');
    assert.throws(() => parseLine(42), { name: 'TypeError', message: 'parseLine(line): line must be a string, a Buffer or a Uint8Array, not a number' });
  });
});

describe('encode', () => {
  test('gives the exact line of a frame object, whatever its key order', () => {
    assert.equal(encode({ delta: 'hé😀', turn_id: 7, type: 'message_delta' }), DELTA);
    const done = {
      type: 'turn_done',
      turn_id: 1,
      message: 'm',
      tool_results: [{ text: 't', ok: false, name: 'n', id: 'c' }],
      usage: { cost: -0, output: 2, input: 1 },
      stop_reason: 'stop',
    };
    assert.equal(encode(done), '{"type":"turn_done","turn_id":1,"message":"m","tool_results":[{"id":"c","name":"n","ok":false,"text":"t"}],"usage":{"input":1,"output":2,"cost":-0.0},"stop_reason":"stop"}');
    const liveness = { type: 'tool_liveness', turn_id: 1, id: 'c', name: 'n', action: 'heartbeat', elapsed_ms: 5, output_bytes: null, detail: '' };
    assert.equal(encode(liveness), '{"type":"tool_liveness","turn_id":1,"id":"c","name":"n","action":"heartbeat","elapsed_ms":5}');
  });

  test('an unknown frame is written back as its raw line', () => {
    const raw = '{ "type" : "later", "turn_id": 4, "x": 1.50 }';
    const frame = parseLine(raw);
    assert.deepEqual(frame, { type: 'unknown', frame_type: 'later', turn_id: 4, raw });
    assert.equal(encode(frame), raw);
    assert.equal(encode({ type: 'unknown', frame_type: 'later', raw: '{"type":"later"}' }), '{"type":"later"}');
    assert.throws(() => encode({ type: 'unknown', frame_type: 'agent_start', raw: '{"type":"agent_start","turn_id":1}' }), { code: 'HEP_WRONG_TYPE' });
    assert.throws(() => encode({ type: 'unknown', frame_type: 'later', raw: '{"type":' }), { code: 'HEP_SYNTAX' });
    assert.throws(() => encode({ type: 'unknown', frame_type: 'later' }), TypeError);
  });

  test('a frame object is read by the core decoder, with its error kinds', () => {
    const done = (usage, toolResults = []) => ({ type: 'turn_done', turn_id: 1, message: '', tool_results: toolResults, usage, stop_reason: '' });
    const cases = [
      [{ type: 'message_delta', turn_id: 1 }, 'HEP_MISSING_FIELD', '`message_delta` is missing required field `delta`'],
      [{ type: 'message_delta', turn_id: 1, delta: undefined }, 'HEP_MISSING_FIELD', '`message_delta` is missing required field `delta`'],
      [{ type: 'message_delta', turn_id: '1', delta: '' }, 'HEP_WRONG_TYPE', 'field `turn_id` of `message_delta` must be an integer, found a string'],
      [{ type: 'message_delta', turn_id: 1.5, delta: '' }, 'HEP_WRONG_TYPE', 'field `turn_id` of `message_delta` must be an integer, found a number with a fraction or exponent'],
      [{ type: 'message_delta', turn_id: null, delta: '' }, 'HEP_WRONG_TYPE', 'field `turn_id` of `message_delta` must be an integer, found null'],
      [{ type: 'message_delta', turn_id: 1, delta: 10n }, 'HEP_WRONG_TYPE', 'field `delta` holds a bigint, which JSON cannot hold'],
      [{ type: 'message_delta', turn_id: 1, delta: () => {} }, 'HEP_WRONG_TYPE', 'field `delta` holds a function, which JSON cannot hold'],
      [{ type: 'agent_start', turn_id: -1 }, 'HEP_OUT_OF_RANGE', 'field `turn_id` of `agent_start` must be an integer from 0 to 9007199254740991, found -1'],
      [{ type: 'agent_start', turn_id: 2 ** 53 }, 'HEP_UNENCODABLE', '9007199254740992 is above the largest integer field value 9007199254740991'],
      [{ type: 'agent_start', turn_id: 1e21 }, 'HEP_UNENCODABLE', '1000000000000000000000 is above the largest integer field value 9007199254740991'],
      [{ type: 'agent_start', turn_id: NaN }, 'HEP_UNENCODABLE', 'NaN is not a finite number'],
      [done({}, {}), 'HEP_WRONG_TYPE', 'field `tool_results` of `turn_done` must be an array, found an object'],
      [done({}, [7]), 'HEP_WRONG_TYPE', 'field `tool_results[]` of `turn_done` must be an object, found an integer'],
      [done({ input: 1, output: 1, cost: NaN }), 'HEP_UNENCODABLE', 'NaN is not a finite number'],
      [done({ input: 1, output: 1, cost: -Infinity }), 'HEP_UNENCODABLE', '-Infinity is not a finite number'],
      [done({ input: 1, output: 1 }), 'HEP_MISSING_FIELD', '`usage` is missing required field `cost`'],
      [{ type: 'tool_liveness', turn_id: 1, id: 'c', name: 'n', action: 'heartbeat', elapsed_ms: 1, detail: 5 }, 'HEP_WRONG_TYPE', 'field `detail` of `tool_liveness` must be a string, found an integer'],
      [{ type: 'bogus' }, 'HEP_WRONG_TYPE', "`bogus` is no frame type of v1; a frame of a type v1 does not know is written as the line it was read from"],
      [{}, 'HEP_MISSING_FIELD', '`frame` is missing required field `type`'],
    ];
    for (const [frame, code, message] of cases) {
      assert.throws(
        () => encode(frame),
        (e) => e instanceof HepError && e.code === code && e.kind === code.slice(4).toLowerCase() && e.message === `${e.kind}: ${message}` && e.column === null,
        message,
      );
    }
    // A large cost is a float, not an integer out of range; -0 keeps its sign.
    assert.equal(encode(done({ input: 0, output: 0, cost: 2 ** 60 })), '{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":0,"output":0,"cost":1152921504606847000.0},"stop_reason":""}');
    assert.equal(encode({ type: 'agent_start', turn_id: -0 }), '{"type":"agent_start","turn_id":0}');
    const cycle = { type: 'agent_start', turn_id: 1 };
    cycle.self = cycle;
    assert.throws(() => encode(cycle), TypeError);
    assert.throws(() => encode('{}'), TypeError);
  });
});

describe('errors and the schema', () => {
  test('HepError is an Error whose code follows its kind', () => {
    const error = new HepError('boom', { kind: 'line_too_long', line: 3 });
    assert.ok(error instanceof Error);
    assert.deepEqual([error.name, error.code, error.kind, error.line, error.column, error.excerpt], ['HepError', 'HEP_LINE_TOO_LONG', 'line_too_long', 3, null, '']);
    assert.equal(new HepError('x').code, 'HEP_INTERNAL');
  });

  test('jsonSchema is the schema of the frames (schema/hep-v1.schema.json)', () => {
    const schema = JSON.parse(jsonSchema());
    assert.equal(schema.title, 'HEP v1 frame');
    assert.equal(jsonSchema(), readFileSync(new URL('../../schema/hep-v1.schema.json', import.meta.url), 'utf8'));
  });
});

/** A seeded generator (xorshift32), so that a failure is reproducible. */
function random(seed) {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

describe('no input crashes the process', () => {
  const FRAGMENTS = [DELTA, '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}', '{', '}', '"', '\\u', '\\ud800', '\n', '\r', '\u0000', 'é', '😀', '[', '1e999', '-0', 'null', '{"type":"x"}', '\xff'];

  test('random bytes, in random chunks, to lenient and strict streams and parseLine', () => {
    const next = random(20260101);
    for (let round = 0; round < 300; round++) {
      const parts = Array.from({ length: next(40) }, () => FRAGMENTS[next(FRAGMENTS.length)]);
      const bytes = Buffer.concat(parts.map((p) => (next(4) === 0 ? Buffer.from([next(256), next(256)]) : Buffer.from(p, 'utf8'))));
      for (const strict of [false, true]) {
        const stream = new Stream({ strict, raw: next(2) === 0, maxLineBytes: next(200) });
        let at = 0;
        while (at < bytes.length) {
          const size = 1 + next(20);
          try {
            stream.feed(bytes.subarray(at, at + size));
          } catch (e) {
            assert.ok(e instanceof HepError && Array.isArray(e.frames), `round ${round}: ${e}`);
          }
          at += size;
        }
        const result = stream.finish(next(3) === 0 ? null : next(256));
        assert.ok(['ok', 'failed', 'cancelled', 'incomplete', 'protocol_error'].includes(result.verdict));
        assert.ok(Array.isArray(result.turns));
      }
      try {
        encode(parseLine(bytes));
      } catch (e) {
        assert.ok(e instanceof HepError, `round ${round}: ${e}`);
      }
    }
  });

  test('wrong values anywhere in the API are errors, not crashes', () => {
    const values = [undefined, null, true, 0, -1, 1.5, NaN, Infinity, 2 ** 64, 'x', '', Symbol('s'), 10n, {}, [], () => {}, new Uint8Array(3), { type: 'message_delta', turn_id: {}, delta: [] }];
    const writer = new Writer(() => {}, { fahVersion: '1' });
    const calls = [
      (v) => parseLine(v),
      (v) => encode(v),
      (v) => encode({ type: 'turn_done', turn_id: 1, message: v, tool_results: [v], usage: v, stop_reason: v }),
      (v) => new Stream({ strict: v }),
      (v) => new Stream().feed(v),
      (v) => new Stream().finish(v, v),
      (v) => writer.messageDelta(v),
      (v) => writer.toolStart(v, 'n', v),
      (v) => writer.toolLiveness('c', 'n', 'heartbeat', v, v, v),
      (v) => writer.turnDone(v, [v], { input: v, output: v, cost: v }, v),
      (v) => cap(v, v),
      (v) => argsSummary(v),
      (v) => sanitize(v),
    ];
    for (const call of calls) {
      for (const value of values) {
        try {
          call(value);
        } catch (e) {
          assert.ok(e instanceof HepError || e instanceof TypeError || e instanceof RangeError, `${call} with ${String(value)}: ${e}`);
        }
      }
    }
  });
});
