// Reading: `Stream` (bytes in, frames out: chunking, inside multibyte UTF-8 too, the raw
// option, strict mode, errors with their code and position, the run result, use after
// finish) and `read()` (the frames of a saved stream, from a path or a Readable); and the
// reading and writing snippets of docs/node.md (the `// START name` regions), run here so
// the doc shows code that runs.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { HepError, MAX_LINE_BYTES, Stream, Writer, encode, parseLine, read } from 'hep';

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
function feedAll(chunks, options = {}, exitCode = 0) {
  const stream = new Stream(options);
  const frames = chunks.flatMap((c) => stream.feed(c));
  frames.push(...stream.endInput());
  return { frames, result: stream.finish(exitCode), stream };
}

describe('Stream', () => {
  test('frames are plain objects in the canonical form, whole or split at every byte', () => {
    const whole = feedAll([BYTES]).frames;
    assert.equal(whole.length, RUN.length);
    whole.forEach((frame, i) => {
      assert.equal(Object.getPrototypeOf(frame), Object.prototype);
      assert.deepEqual(frame, JSON.parse(encode(frame)));
      assert.equal(encode(frame), RUN[i]);
    });
    assert.deepEqual(whole[3], { type: 'message_delta', turn_id: 1, delta: 'é😀 ok' });
    // Every split point of the stream, including inside the two- and four-byte characters.
    for (let at = 0; at <= BYTES.length; at++) {
      assert.deepEqual(feedAll([BYTES.subarray(0, at), BYTES.subarray(at)]).frames, whole, `split at byte ${at}`);
    }
    const bytewise = Array.from(BYTES, (b) => Uint8Array.of(b));
    assert.deepEqual(feedAll(bytewise).frames, whole);
    assert.deepEqual(feedAll([BYTES.toString('utf8')]).frames, whole, 'fed as text');
  });

  test('raw: true gives each frame non-enumerable raw and line; the default gives neither', () => {
    const text = `${HEADER}\r\n\n{ "type" : "agent_start", "turn_id" : 1 }\n`;
    const { frames } = feedAll([text], { raw: true });
    assert.deepEqual(frames.map((f) => [f.line, f.raw]), [
      [1, HEADER],
      [3, '{ "type" : "agent_start", "turn_id" : 1 }'],
    ]);
    assert.deepEqual(Object.keys(frames[1]), ['type', 'turn_id']);
    assert.equal(JSON.stringify(frames[1]), '{"type":"agent_start","turn_id":1}');
    const plain = feedAll([text]).frames;
    assert.ok(!('raw' in plain[0]) && !('line' in plain[0]));
    assert.deepEqual(plain, frames);
  });

  test('unknown frame types come as {type: "unknown", frame_type, turn_id, raw}', () => {
    const line = '{"type":"progress","turn_id":1,"percent":50,"nested":{"a":[1,null]}}';
    const noTurn = '{"type":"progress","turn_id":-1}';
    for (const raw of [true, false]) {
      const { frames, result } = feedAll([`${HEADER}\n${line}\n${noTurn}\n`], { raw });
      assert.deepEqual(frames[1], { type: 'unknown', frame_type: 'progress', turn_id: 1, raw: line });
      assert.deepEqual(Object.keys(frames[2]), ['type', 'frame_type', 'raw'], 'no turn_id when the frame has no valid one');
      assert.deepEqual(frames[2], { type: 'unknown', frame_type: 'progress', raw: noTurn });
      assert.equal(frames[1].line, raw ? 2 : undefined);
      assert.equal(encode(frames[1]), line);
      assert.equal(result.frames, 3);
    }
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
    const { result } = feedAll([BYTES], {}, 0);
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
    const failed = feedAll([`${HEADER}\n{"type":"agent_start","turn_id":1}\n{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}\n`], {}, 1);
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

// ---- read() ----

let tmp;
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hep-read-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A two-round run written with the Writer: its lines, each with its newline. */
function sample() {
  const lines = [];
  const w = new Writer((line) => lines.push(line), { fahVersion: '1.2.3' });
  w.header('read-1');
  w.agentStart();
  w.messageStart('assistant');
  w.messageDelta('Looking — “ünïcödé” 😀 ');
  w.toolStart('c1', 'read', { path: 'notes.txt' });
  w.toolDelta('c1', 'line one\n');
  w.turnDone('Looking', [{ id: 'c1', name: 'read', ok: true, text: 'line one' }], { input: 10, output: 2, cost: 0.5 }, 'toolUse');
  w.messageStart('assistant');
  w.messageDelta('All done.');
  w.turnDone('All done.', [], { input: 12, output: 3, cost: 0.25 }, 'stop');
  return lines;
}

let serial = 0;
function saved(text) {
  const path = join(tmp, `stream-${++serial}.hep`);
  writeFileSync(path, text);
  return path;
}

async function all(frames) {
  const out = [];
  for await (const frame of frames) out.push(frame);
  return out;
}

/** Splits `bytes` into chunks of `size` bytes (cutting lines and UTF-8 characters anywhere). */
function* pieces(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const types = (frames) => frames.map((f) => f.type);

describe('read', () => {
  test('from a path: the frames of the file', async () => {
    const text = sample().join('');
    const frames = await all(read(saved(text)));
    assert.deepEqual(frames, new Stream().feed(text));
    assert.equal(frames.length, 10);
    assert.equal(frames.at(-1).message, 'All done.');
  });

  test('from a file URL', async () => {
    const frames = await all(read(pathToFileURL(saved(sample().join('')))));
    assert.equal(frames.length, 10);
  });

  test('from a Readable of bytes cut anywhere, and of text', async () => {
    const bytes = Buffer.from(sample().join(''));
    const expected = new Stream().feed(bytes);
    for (const size of [1, 7, 64, 1 << 16]) {
      assert.deepEqual(await all(read(Readable.from(pieces(bytes, size)))), expected, `chunks of ${size}`);
    }
    const text = createReadStream(saved(bytes)).setEncoding('utf8');
    assert.deepEqual(await all(read(text)), expected);
  });

  test('frames arrive as the Readable delivers them', async () => {
    const input = new PassThrough();
    const frames = read(input)[Symbol.asyncIterator]();
    const lines = sample();
    input.write(lines[0]);
    assert.equal((await frames.next()).value.type, 'hep_header'); // before the input ends
    input.end(lines.slice(1).join(''));
    assert.equal((await all({ [Symbol.asyncIterator]: () => frames })).length, 9);
  });

  test('a truncated last line is skipped in lenient mode', async () => {
    const lines = sample();
    const cut = lines.slice(0, 4).join('') + lines[4].slice(0, 20);
    assert.deepEqual(types(await all(read(saved(cut)))), ['hep_header', 'agent_start', 'message_start', 'message_delta']);
  });

  test('a truncated last line throws HEP_TRUNCATED in strict mode, after the frames before it', async () => {
    const lines = sample();
    const path = saved(lines.slice(0, 4).join('') + lines[4].slice(0, 20));
    const seen = [];
    await assert.rejects(
      async () => {
        for await (const frame of read(path, { strict: true })) seen.push(frame);
      },
      (error) => {
        assert.ok(error instanceof HepError);
        assert.equal(error.code, 'HEP_TRUNCATED');
        assert.equal(error.line, 5);
        return true;
      },
    );
    assert.equal(seen.length, 4);
  });

  test('strict mode throws at a malformed line; lenient mode skips it', async () => {
    const lines = sample();
    const text = [...lines.slice(0, 3), 'not json\n', ...lines.slice(3)].join('');
    const seen = [];
    await assert.rejects(
      async () => {
        for await (const frame of read(Readable.from([Buffer.from(text)]), { strict: true })) seen.push(frame);
      },
      { code: 'HEP_SYNTAX', line: 4 },
    );
    assert.deepEqual(types(seen), ['hep_header', 'agent_start', 'message_start']);
    assert.equal((await all(read(saved(text)))).length, 10);
  });

  test('raw: each frame keeps its line and line number', async () => {
    const lines = sample();
    const frames = await all(read(saved(lines.join('')), { raw: true }));
    assert.equal(frames[3].line, 4);
    assert.equal(frames[3].raw, lines[3].trimEnd());
  });

  test('a missing file rejects with the fs error', async () => {
    await assert.rejects(all(read(join(tmp, 'missing.hep'))), { code: 'ENOENT' });
  });

  test('a source that is neither a path nor a Readable is a TypeError', async () => {
    await assert.rejects(all(read(42)), TypeError);
    await assert.rejects(all(read(null)), TypeError);
  });
});

// ---- the snippets of docs/node.md about reading and writing ----

/** A stand-in for `console` whose `log` keeps the lines (the snippets print). */
function quiet() {
  const lines = [];
  return { lines, log: (...parts) => lines.push(parts.join(' ')) };
}

describe('docs', () => {
  test('parseLine and narrowing on type', () => {
    const console = quiet();
    // START parse
    const frame = parseLine('{"type":"message_delta","turn_id":1,"delta":"hi"}');
    switch (frame.type) {
      case 'message_delta': // in TypeScript, frame is a MessageDelta here
        console.log(`turn ${frame.turn_id}: ${frame.delta}`);
        break;
      case 'tool_start':
        console.log(`tool ${frame.name}(${frame.args_summary})`);
        break;
      case 'turn_done':
        console.log(`${frame.usage.input} in / ${frame.usage.output} out`);
        break;
      case 'unknown': // a frame type from a newer emitter: its line is frame.raw
        console.log(`ignoring ${frame.frame_type}`);
        break;
    }
    // END parse
    assert.deepEqual(console.lines, ['turn 1: hi']);
    const future = parseLine('{"type":"progress_bar","turn_id":1,"percent":40}');
    assert.equal(future.type, 'unknown');
    assert.deepEqual(future, { type: 'unknown', frame_type: 'progress_bar', turn_id: 1, raw: '{"type":"progress_bar","turn_id":1,"percent":40}' });
  });

  test('a Stream fed chunk by chunk', () => {
    const console = quiet();
    const bytes = Buffer.from(sample().join(''));
    const chunks = [...pieces(bytes, 50)];
    // START stream
    const stream = new Stream();
    for (const chunk of chunks) {
      // bytes as they arrive, cut anywhere
      for (const frame of stream.feed(chunk)) console.log(frame.type);
    }
    stream.endInput(); // a partial last line is reported as skipped
    for (const v of stream.violations) console.log(`line ${v.line}: ${v.code}: ${v.message}`);
    for (const s of stream.skipped) console.log(`skipped line ${s.line}: ${s.kind}`);
    const result = stream.finish(0); // the harness's exit code, when known
    // END stream
    assert.equal(console.lines.length, 10);
    assert.equal(result.verdict, 'ok');
    assert.equal(result.answer, 'All done.');
  });

  test('a strict Stream', () => {
    const console = quiet();
    const lines = sample();
    const data = [...lines.slice(0, 3), 'not json\n', ...lines.slice(3)].join('');
    // START strict
    const stream = new Stream({ strict: true });
    let frames;
    try {
      frames = stream.feed(data);
    } catch (error) {
      if (!(error instanceof HepError)) throw error;
      console.log(`stopped at line ${error.line}: ${error.code}`); // e.g. HEP_SYNTAX
      frames = error.frames; // what the chunk delivered before the stream stopped
    }
    // END strict
    assert.deepEqual(console.lines, ['stopped at line 4: HEP_SYNTAX']);
    assert.equal(frames.length, 3);
    assert.equal(stream.finish(0).verdict, 'protocol_error');
  });

  test('read a saved stream', async () => {
    const path = saved(sample().join(''));
    const deltas = [];
    // START read
    for await (const frame of read(path)) {
      // a path, or any Readable such as process.stdin
      if (frame.type === 'message_delta') deltas.push(frame.delta);
    }
    // END read
    assert.deepEqual(deltas, ['Looking — “ünïcödé” 😀 ', 'All done.']);
  });

  test('errors carry a code, a kind and a position', () => {
    const console = quiet();
    const codes = [];
    // START errors
    for (const line of ['{"type":"agent_start"}', '{"type":"agent_start","turn_id":-1}', 'not json']) {
      try {
        parseLine(line);
      } catch (error) {
        if (!(error instanceof HepError)) throw error;
        console.log(error.code, error.kind, error.line, error.column, error.message);
        codes.push(error.code);
      }
    }
    // END errors
    assert.deepEqual(codes, ['HEP_MISSING_FIELD', 'HEP_OUT_OF_RANGE', 'HEP_SYNTAX']);
  });

  test('Writer targets: a function or a Writable', async () => {
    // START writer-targets
    const lines = [];
    const toList = new Writer((line) => lines.push(line), { fahVersion: '1.2.3' }); // given each line
    const sink = new PassThrough(); // any Writable: process.stdout, a file, a socket
    const toWritable = new Writer(sink, { fahVersion: '1.2.3', toolArgs: 'full' });
    for (const w of [toList, toWritable]) {
      w.header('abc');
      w.agentStart();
      w.messageDelta('hel"lo\n');
      w.toolStart('c1', 'read', { path: 'notes.txt' });
      const result = { id: 'c1', name: 'read', ok: true, text: 'data' };
      w.turnDone('done reading', [result], { input: 12, output: 34, cost: 0.5 }, 'stop');
    }
    // END writer-targets
    sink.end();
    const written = (await sink.toArray()).join('');
    assert.equal(lines.length, 5);
    assert.equal(lines[4], '{"type":"turn_done","turn_id":1,"message":"done reading","tool_results":[{"id":"c1","name":"read","ok":true,"text":"data"}],"usage":{"input":12,"output":34,"cost":0.5},"stop_reason":"stop"}\n');
    assert.equal(written.split('\n')[3], '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"{\\"path\\":\\"notes.txt\\"}"}');
  });
});
