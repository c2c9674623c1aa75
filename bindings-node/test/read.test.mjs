// `read()`: frames of a saved stream from a path or a Readable; and the reading and
// writing snippets of docs/node.md (the `// START name` regions), run here so the doc
// shows code that runs.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { HepError, Stream, Writer, parseLine, read } from 'hep';

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
      case 'unknown': // a frame type from a newer emitter: its object is frame.frame
        console.log(`ignoring ${frame.frame.type}`);
        break;
    }
    // END parse
    assert.deepEqual(console.lines, ['turn 1: hi']);
    const future = parseLine('{"type":"progress_bar","turn_id":1,"percent":40}');
    assert.equal(future.type, 'unknown');
    assert.equal(future.frame.type, 'progress_bar');
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
