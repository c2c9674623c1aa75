// The core's bounds come through: on text (`cap`, `utf16Len`, the two renderings of tool
// arguments), and the state caps (the `limits` option of `Stream`, `read` and `spawn`, the
// counts of what each cap left out, and the stream's report cap).

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import * as hep from 'hep';
import { Stream, read, spawn } from 'hep';
import { CaseError } from './conformance-support.mjs';
import { streamLimits } from './conformance-stream.mjs';

const HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}';
const DONE =
  '{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],"usage":{"input":1,"output":1,"cost":0.0},"stop_reason":"stop"}';

/** One round holding `body`, ended by `turn_done` unless `open`. */
function oneRound(body, open = false) {
  return [HEADER, '{"type":"agent_start","turn_id":1}', ...body, ...(open ? [] : [DONE])].map((l) => `${l}\n`).join('');
}

/** Ten calls started, then a delta for a call never started. */
const TEN_CALLS = [
  ...Array.from({ length: 10 }, (_, i) => `{"type":"tool_start","turn_id":1,"id":"c${i}","name":"sh","args_summary":""}`),
  '{"type":"tool_delta","turn_id":1,"id":"stray","update":"x"}',
];

/** `n` rounds, each with its text `r<id>` and a `turn_done`. */
function rounds(n) {
  const lines = [HEADER, '{"type":"agent_start","turn_id":1}'];
  for (let i = 1; i <= n; i++) {
    lines.push(`{"type":"message_delta","turn_id":${i},"delta":"r${i}"}`, DONE.replace('"turn_id":1', `"turn_id":${i}`));
  }
  return lines.map((l) => `${l}\n`).join('');
}

function feedAll(text, options) {
  const stream = new Stream(options);
  stream.feed(text);
  return stream.finish(0);
}

describe('state caps', () => {
  test('untracked calls are counted and the verdict holds', () => {
    const capped = feedAll(oneRound(TEN_CALLS), { limits: { maxTrackedCalls: 4 } });
    assert.equal(capped.untrackedCalls, 6);
    assert.equal(capped.violationCount, 0);
    const roomy = feedAll(oneRound(TEN_CALLS));
    assert.equal(roomy.untrackedCalls, 0);
    assert.deepEqual(roomy.violations.map((v) => v.code), ['unknown_tool_call']);
    assert.deepEqual([capped.verdict, roomy.verdict], ['ok', 'ok']);
  });

  test('compactions and follow-ups past their caps are counted', () => {
    const compaction = ['{"type":"compaction_start","turn_id":1}', '{"type":"compaction_end","turn_id":1,"tokens_freed":5}'];
    const liveness = '{"type":"tool_liveness","turn_id":1,"id":"c0","name":"sh","action":"advisory","elapsed_ms":1}';
    const body = [...Array(7).fill(compaction).flat(), TEN_CALLS[0], ...Array(40).fill(liveness)];
    const result = feedAll(oneRound(body), { limits: { maxCompactionsPerTurn: 3 } });
    const [turn] = result.turns;
    assert.deepEqual([turn.compactions, turn.compactionsDropped, turn.bytesDropped], [[5, 5, 5], 4, 0]);
    assert.deepEqual([result.compactions, result.tokensFreed], [7, 35]);
    assert.deepEqual([turn.tools[0].followups.length, turn.tools[0].followupsDropped], [32, 8]);
  });

  test('maxTurns keeps the last turns through Stream, read and spawn', async () => {
    const limits = { maxTurns: 2 };
    const result = feedAll(rounds(5), { limits });
    assert.deepEqual(result.turns.map((t) => [t.turnId, t.text]), [[4, 'r4'], [5, 'r5']]);
    assert.deepEqual([result.turnsDropped, result.usage.input, result.verdict], [3, 5, 'ok']);
    assert.equal(feedAll(rounds(5)).turnsDropped, 0);

    // `read` yields every frame whatever the limits: they cap the state kept, not the frames.
    const frames = [];
    for await (const frame of read(Readable.from([rounds(5)]), { limits })) frames.push(frame);
    assert.equal(frames.length, 12);

    const run = spawn(process.execPath, ['-e', `process.stdout.write(${JSON.stringify(rounds(5))})`], { limits: { maxTurns: 1 } });
    const spawned = await run.result;
    assert.deepEqual([spawned.turns.map((t) => t.turnId), spawned.turnsDropped, spawned.verdict], [[5], 4, 'ok']);
  });

  test('a bad limit is refused naming it', async () => {
    const refusals = [
      [{ maxTurns: -1 }, RangeError, 'Stream(options): limits.maxTurns must be a non-negative safe integer, not -1'],
      [{ maxReports: 1.5 }, RangeError, 'Stream(options): limits.maxReports must be a non-negative safe integer, not 1.5'],
      [{ maxFollowups: 2 ** 53 }, RangeError, `Stream(options): limits.maxFollowups must be a non-negative safe integer, not ${2 ** 53}`],
      [{ maxTrackedCalls: '4' }, TypeError, 'Stream(options): limits.maxTrackedCalls must be a number, not a string'],
      [{ max_turns: 2 }, TypeError, /^Stream\(options\): limits: unknown limit max_turns \(the limits are maxTurns, /],
      [[2], TypeError, 'Stream(options): limits must be an object, not an array'],
    ];
    for (const [limits, type, message] of refusals) {
      assert.throws(() => new Stream({ limits }), (e) => e instanceof type && (typeof message === 'string' ? e.message === message : message.test(e.message)));
    }
    await assert.rejects(read(Readable.from([rounds(1)]), { limits: { maxTurns: -1 } }).next(), {
      name: 'RangeError',
      message: 'read(options): limits.maxTurns must be a non-negative safe integer, not -1',
    });
    // spawn refuses before any child is started.
    assert.throws(() => spawn('/nonexistent/agent', [], { limits: { maxTurn: 1 } }), {
      name: 'TypeError',
      message: /^spawn\(options\): limits: unknown limit maxTurn/,
    });
  });

  test('the conformance runner refuses an unknown or bad limit', () => {
    assert.deepEqual(streamLimits({ max_turns: 2, max_tracked_calls: 0 }), { maxTurns: 2, maxTrackedCalls: 0 });
    assert.throws(() => streamLimits({ max_turn: 2 }), (e) => e instanceof CaseError && /unknown limit maxTurn/.test(e.message));
    assert.throws(() => streamLimits({ max_turns: -2 }), (e) => e instanceof CaseError && /limits.maxTurns must be a non-negative/.test(e.message));
  });

  test('the stream keeps at most 1000 violations and skipped lines', () => {
    const stream = new Stream();
    stream.feed(oneRound(Array(1500).fill('{"type":"message_start","turn_id":1,"role":"user"}\nnot json'), true));
    assert.deepEqual([stream.violations.length, stream.skipped.length], [1000, 1000]);
    const result = stream.finish(0);
    assert.deepEqual([result.violations.length, result.violationCount], [1000, 1501]);
    assert.deepEqual([result.skipped.length, result.skippedCount], [1000, 1500]);
  });
});

describe('text bounds', () => {
  test('cap, utf16Len, argsSummary and argsFull (objects or JSON text)', () => {
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
});
