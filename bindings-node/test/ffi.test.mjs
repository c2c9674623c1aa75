// FFI safety: no panic of the addon reaches JavaScript as anything but a `HepError`. Every
// export runs its body in `guard` (src/boundary.rs), which turns a panic into an internal
// failure (its Rust unit test proves that step) and throws every failure as a `HepError`.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { HepError } from 'hep';

const require = createRequire(import.meta.url);
const { native } = require('../lib/addon.js');
const { framesOf } = require('../lib/frames.js');

/** The start of a run, left open: a tool call in round 1. */
const LIVE = [
  '{"type":"hep_header","hep":"v1","fah":"x","session":"s"}',
  '{"type":"agent_start","turn_id":1}',
  '{"type":"message_start","turn_id":1,"role":"assistant"}',
  '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":""}',
];

const HOSTILE = [
  undefined, null, true, 0, -1, 2 ** 32, -(2 ** 53), 1e308, NaN, Infinity, 10n, '', '\u0000\u001b[31m\u2028', '\ud800',
  'é'.repeat(5000), Buffer.from([0xff, 0xc0, 0x80, 0x0a]), new Uint8Array([0x7b, 0x7d]), [], {}, { type: 'turn_done', turn_id: -1 },
  () => {}, Symbol('s'),
];

/** Every list of up to two hostile arguments, then fixed pseudo-random lists of three to six. */
function* argumentLists() {
  yield [];
  for (const a of HOSTILE) yield [a];
  for (const a of HOSTILE) for (const b of HOSTILE) yield [a, b];
  let seed = 7;
  const pick = () => HOSTILE[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % HOSTILE.length];
  for (let n = 3; n <= 6; n++) for (let i = 0; i < 60; i++) yield Array.from({ length: n }, pick);
}

/**
 * Calls `target` with every argument list; what it throws must be a `HepError` (a failure
 * of the core or of the binding) or napi's refusal of an argument, never the plain
 * `GenericFailure` error napi makes of a panic it catches itself.
 */
function sweep(name, target) {
  let calls = 0;
  for (const args of argumentLists()) {
    calls++;
    try {
      target(...args);
    } catch (error) {
      const ok = error instanceof HepError || (error instanceof Error && error.code !== 'GenericFailure');
      assert.ok(ok, `${name}(${args.map(String).join(', ')}) threw ${error?.code}: ${error?.message}`);
    }
  }
  return calls;
}

describe('FFI safety', () => {
  test('no export lets a panic through, whatever its arguments', () => {
    const functions = Object.entries(native).filter(([name, f]) => typeof f === 'function' && name !== 'registerErrorFactory');
    assert.ok(functions.length > 25, `${functions.length} exports`);
    let calls = 0;
    for (const [name, f] of functions) {
      calls += sweep(name, f);
      if (/^[A-Z]/.test(name)) calls += sweep(`new ${name}`, (...args) => new f(...args));
    }
    assert.ok(calls > 10_000);
  });

  test('no method lets a panic through, whatever its arguments', () => {
    // A live stream: in a round, a tool call open, every line read as a frame.
    const stream = new native.NativeStream(false, 1 << 16, true);
    const [pool, cols] = stream.feed(Buffer.from(`${LIVE.join('\n')}\n`));
    const frames = framesOf(pool, cols, true);
    assert.deepEqual(frames.map((f) => f.type), ['hep_header', 'agent_start', 'message_start', 'tool_start']);
    assert.deepEqual(JSON.parse(stream.reports()), { violations: [], skipped: [] }, 'the live stream skips no line');
    const objects = [stream, new native.NativeStream(true, 1, false), new native.NativeTail(16)];
    for (const object of objects) {
      const proto = Object.getPrototypeOf(object);
      const methods = Object.getOwnPropertyNames(proto).filter(
        (m) => m !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, m).value === 'function',
      );
      assert.ok(methods.length > 0);
      for (const m of methods) sweep(`${proto.constructor.name}.${m}`, (...args) => object[m](...args));
    }
  });

  test('an internal failure is thrown as a HepError with code HEP_INTERNAL', () => {
    // A closed writer id is a failure of the binding's own bookkeeping: the same path
    // (`Failure::Internal`, its record, the factory) a caught panic takes.
    const id = native.writerOpen('1.0', false);
    native.writerClose(id);
    assert.throws(() => native.writerTurnId(id), (error) => {
      assert.ok(error instanceof HepError);
      assert.equal(error.code, 'HEP_INTERNAL');
      assert.equal(error.kind, 'internal');
      assert.equal(error.message, `writer ${id} is closed`);
      assert.equal(error.line, null);
      return true;
    });
  });
});
