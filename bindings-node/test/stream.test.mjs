// Stream: chunking (inside multibyte UTF-8 too), the raw option, strict mode, errors with
// their code and position, the run result, and use after finish.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HepError, MAX_LINE_BYTES, Stream, encode } from 'hep';

const HEADER = '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s1"}';
const RUN = [
  HEADER,
  '{"type":"agent_start","turn_id":1}',
  '{"type":"message_start","turn_id":1,"role":"assistant"}',
  '{"type":"message_delta","turn_id":1,"delta":"é😀 ok"}',
  '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\\"a\\""}',
  '{"type":"tool_delta","turn_id":1,"id":"c1","update":"partial"}',
  '{"type":"turn_done","turn_id":1,"message":"é😀 ok","tool_results":[{"id":"c1","name":"read","ok":true,"text":"data"}],"usage":{"input":3,"output":4,"cost":0.25},"stop_reason":"stop"}',
];
const BYTES = Buffer.from(RUN.map((l) => `${l}\n`).join(''));

/** Every frame the stream gives for `chunks`, and its result. */
function read(chunks, options = {}, exitCode = 0) {
  const stream = new Stream(options);
  const frames = chunks.flatMap((c) => stream.feed(c));
  frames.push(...stream.endInput());
  return { frames, result: stream.finish(exitCode), stream };
}

describe('Stream', () => {
  test('frames are plain objects in the canonical form, whole or split at every byte', () => {
    const whole = read([BYTES]).frames;
    assert.equal(whole.length, RUN.length);
    whole.forEach((frame, i) => {
      assert.equal(Object.getPrototypeOf(frame), Object.prototype);
      assert.deepEqual(frame, JSON.parse(encode(frame)));
      assert.equal(encode(frame), RUN[i]);
    });
    assert.deepEqual(whole[3], { type: 'message_delta', turn_id: 1, delta: 'é😀 ok' });
    // Every split point of the stream, including inside the two- and four-byte characters.
    for (let at = 0; at <= BYTES.length; at++) {
      assert.deepEqual(read([BYTES.subarray(0, at), BYTES.subarray(at)]).frames, whole, `split at byte ${at}`);
    }
    const bytewise = Array.from(BYTES, (b) => Uint8Array.of(b));
    assert.deepEqual(read(bytewise).frames, whole);
    assert.deepEqual(read([BYTES.toString('utf8')]).frames, whole, 'fed as text');
  });

  test('raw: true gives each frame non-enumerable raw and line; the default gives neither', () => {
    const text = `${HEADER}\r\n\n{ "type" : "agent_start", "turn_id" : 1 }\n`;
    const { frames } = read([text], { raw: true });
    assert.deepEqual(frames.map((f) => [f.line, f.raw]), [
      [1, HEADER],
      [3, '{ "type" : "agent_start", "turn_id" : 1 }'],
    ]);
    assert.deepEqual(Object.keys(frames[1]), ['type', 'turn_id']);
    assert.equal(JSON.stringify(frames[1]), '{"type":"agent_start","turn_id":1}');
    const plain = read([text]).frames;
    assert.ok(!('raw' in plain[0]) && !('line' in plain[0]));
    assert.deepEqual(plain, frames);
  });

  test('unknown frame types come as {type: "unknown", frame}', () => {
    const line = '{"type":"progress","turn_id":1,"percent":50,"nested":{"a":[1,null]}}';
    const { frames, result } = read([`${HEADER}\n${line}\n`], { raw: true });
    assert.deepEqual(frames[1], { type: 'unknown', frame: { type: 'progress', turn_id: 1, percent: 50, nested: { a: [1, null] } } });
    assert.equal(frames[1].raw, line);
    assert.equal(encode(frames[1]), line);
    assert.equal(result.frames, 2);
  });

  test('a lenient stream reports unreadable lines as HepErrors with code, line, column and excerpt, and goes on', () => {
    const lines = [HEADER, '{"type":"agent_start","turn_id":"1"}', 'not json', '{"type":"agent_start","turn_id":1}'];
    const stream = new Stream();
    const frames = stream.feed(`${lines.join('\n')}\n`);
    assert.deepEqual(frames.map((f) => f.type), ['hep_header', 'agent_start']);
    const [wrong, syntax] = stream.skipped;
    assert.ok(wrong instanceof HepError && syntax instanceof HepError);
    assert.deepEqual([wrong.code, wrong.kind, wrong.line, wrong.column], ['HEP_WRONG_TYPE', 'wrong_type', 2, 33]);
    assert.equal(
      wrong.message,
      'line 2, column 33: wrong_type: field `turn_id` of `agent_start` must be an integer, found a string (near `tart","turn_id":"1"}`)',
    );
    assert.equal(wrong.excerpt, 'tart","turn_id":"1"}');
    assert.deepEqual([syntax.code, syntax.line, syntax.column, syntax.excerpt], ['HEP_SYNTAX', 3, 1, 'not json']);
    assert.equal(stream.halted, null);
    const result = stream.finish(null);
    assert.equal(result.verdict, 'protocol_error');
    assert.deepEqual(result.skipped.map((s) => [s.kind, s.line, s.column]), [['wrong_type', 2, 33], ['syntax', 3, 1]]);
    assert.equal(result.skippedCount, 2);
  });

  test('strict mode throws at the first breach, with the frames before it in that call', () => {
    const stream = new Stream({ strict: true });
    assert.equal(stream.feed(`${HEADER}\n`).length, 1);
    let error;
    try {
      stream.feed('{"type":"agent_start","turn_id":1}\n{"type":"message_delta","turn_id":1,"delta":"a"}\n{"bad"\n{"type":"agent_start","turn_id":1}\n');
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof HepError);
    assert.deepEqual([error.code, error.kind, error.line, error.column], ['HEP_SYNTAX', 'syntax', 4, 7]);
    assert.deepEqual(error.frames.map((f) => f.type), ['agent_start', 'message_delta']);
    assert.equal(stream.halted, error);
    assert.deepEqual(stream.feed(`${HEADER}\n`), [], 'a halted stream reads no more');
    const result = stream.finish(0);
    assert.equal(result.verdict, 'protocol_error');
    assert.deepEqual(result.halted, { kind: 'syntax', line: 4, column: 7, message: error.message.replace(/^.*syntax: | \(near.*$/g, ''), excerpt: '{"bad"' });
  });

  test('strict mode throws a protocol violation (HEP_VIOLATION) after the frame that caused it', () => {
    const stream = new Stream({ strict: true });
    assert.throws(
      () => stream.feed(`${HEADER}\n{"type":"agent_start","turn_id":2}\n`),
      (e) => {
        assert.deepEqual([e.code, e.kind, e.line, e.column], ['HEP_VIOLATION', 'violation', 2, null]);
        assert.match(e.message, /first_turn_id_not_one/);
        assert.deepEqual(e.frames.map((f) => f.type), ['hep_header', 'agent_start']);
        return true;
      },
    );
    assert.deepEqual(stream.violations.map((v) => [v.code, v.severity, v.line, v.turnId]), [['first_turn_id_not_one', 'error', 2, 2]]);
  });

  test('a refused protocol version halts even a lenient stream', () => {
    const stream = new Stream();
    assert.throws(() => stream.feed('{"type":"hep_header","hep":"v2","fah":"1","session":"s"}\n'), { code: 'HEP_UNSUPPORTED_VERSION', line: 1 });
    assert.equal(stream.finish(0).verdict, 'protocol_error');
  });

  test('a truncated last line is skipped by endInput, and thrown by it in strict mode', () => {
    const lenient = new Stream();
    lenient.feed(`${HEADER}\n{"type":"agent_start"`);
    assert.deepEqual(lenient.endInput(), []);
    assert.deepEqual(lenient.skipped.map((e) => [e.code, e.line]), [['HEP_TRUNCATED', 2]]);
    assert.equal(lenient.finish(null).verdict, 'incomplete');
    const strict = new Stream({ strict: true });
    strict.feed(`${HEADER}\n{"type":"agent_start"`);
    assert.throws(() => strict.endInput(), (e) => e.code === 'HEP_TRUNCATED' && e.frames.length === 0);
    // finish ends the input itself when endInput was not called.
    const unended = new Stream();
    unended.feed(`${HEADER}\n{"type"`);
    const result = unended.finish(null);
    assert.deepEqual(result.skipped.map((s) => s.kind), ['truncated']);
    assert.deepEqual(unended.skipped.map((e) => e.code), ['HEP_TRUNCATED']);
  });

  test('maxLineBytes skips longer lines (HEP_LINE_TOO_LONG) and reads on', () => {
    const stream = new Stream({ maxLineBytes: 70 });
    const frames = stream.feed(`${HEADER}\n{"type":"message_delta","turn_id":1,"delta":"${'x'.repeat(100)}"}\n{"type":"agent_start","turn_id":1}\n`);
    assert.deepEqual(frames.map((f) => f.type), ['hep_header', 'agent_start']);
    assert.deepEqual(stream.skipped.map((e) => [e.code, e.line]), [['HEP_LINE_TOO_LONG', 2]]);
    assert.equal(MAX_LINE_BYTES, 16 * 1024 * 1024);
  });

  test('the run result: verdict, answer, turns, tool calls, usage, exit code, stderr tail', () => {
    const { result } = read([BYTES], {}, 0);
    assert.equal(result.verdict, 'ok');
    assert.deepEqual(result.reasons, ['turn 1 finished with turn_done']);
    assert.equal(result.conforms, true);
    assert.equal(result.exitCode, 0);
    assert.equal(result.answer, 'é😀 ok');
    assert.deepEqual(result.usage, { input: 3, output: 4, cost: 0.25 });
    assert.deepEqual([result.session, result.fah, result.lastTerminal], ['s1', '1.2.3', 'turn_done']);
    assert.deepEqual([result.frames, result.lines, result.violationCount, result.skippedCount], [7, 7, 0, 0]);
    assert.equal(result.stderrTail, null);
    const [turn] = result.turns;
    assert.deepEqual(
      { ...turn, tools: turn.tools.length },
      {
        turnId: 1,
        text: 'é😀 ok',
        textDropped: 0,
        tools: 1,
        toolsDropped: 0,
        end: 'turn_done',
        message: 'é😀 ok',
        usage: { input: 3, output: 4, cost: 0.25 },
        stopReason: 'stop',
        error: null,
        compactions: [],
        compactionsDropped: 0,
        bytesDropped: 0,
      },
    );
    assert.deepEqual(result.toolCalls, [
      {
        id: 'c1',
        name: 'read',
        argsSummary: 'path="a"',
        status: 'ok',
        output: 'partial',
        outputDropped: 0,
        result: 'data',
        lastLiveness: null,
        followups: [],
        followupsDropped: 0,
      },
    ]);
    assert.equal(result.toolCalls[0], result.turns[0].tools[0]);
    // A plain object: JSON and spreading see every field, turns included.
    assert.deepEqual(JSON.parse(JSON.stringify(result)).turns[0].turnId, 1);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    const failed = read([`${HEADER}\n{"type":"agent_start","turn_id":1}\n{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}\n`], {}, 1);
    assert.deepEqual([failed.result.verdict, failed.result.answer], ['failed', null]);
    const stream = new Stream();
    stream.feed(BYTES);
    const killed = stream.finish(137, 'Traceback: boom\n');
    assert.deepEqual([killed.verdict, killed.exitCode, killed.stderrTail], ['incomplete', 137, 'Traceback: boom\n']);
    assert.deepEqual(killed.violations.map((v) => [v.code, v.severity, v.line, v.turnId]), [['unexpected_exit_code', 'warning', 0, 1]]);
  });

  test('a finished stream refuses further use; its findings stay readable', () => {
    const stream = new Stream();
    stream.feed(`${HEADER}\n`);
    stream.finish(null);
    for (const use of [() => stream.finish(0), () => stream.feed('x'), () => stream.endInput()]) {
      assert.throws(use, (e) => e.code === 'ERR_INVALID_STATE' && /the stream is finished/.test(e.message));
    }
    // A header alone: the run ended before agent_start (a warning; exit code unknown).
    assert.deepEqual(stream.violations.map((v) => [v.code, v.severity]), [['ended_before_agent_start', 'warning']]);
  });

  test('wrong arguments are TypeErrors and RangeErrors naming them', () => {
    assert.throws(() => new Stream({ strict: 'yes' }), { name: 'TypeError', message: 'Stream(options): strict must be a boolean, not a string' });
    assert.throws(() => new Stream({ maxLineBytes: -1 }), { name: 'RangeError', message: /maxLineBytes must be a non-negative integer/ });
    assert.throws(() => new Stream(null), TypeError);
    const stream = new Stream();
    assert.throws(() => stream.feed(42), { name: 'TypeError', message: /chunk must be a Buffer, a Uint8Array or a string, not a number/ });
    assert.throws(() => stream.finish(1.5), RangeError);
    assert.throws(() => stream.finish(0, 7), TypeError);
    assert.equal(stream.finish(0).exitCode, 0);
  });
});
