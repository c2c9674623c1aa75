// Writer: its targets (a Writable, a function), the lines it returns, tool arguments, texts
// of any size and content, and the errors of wrong arguments.

import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { HepError, Stream, Writer, cap, parseLine } from 'hep';

/** A writer into an array, and the array. */
function collecting(options = { fahVersion: '1.2.3' }) {
  const lines = [];
  return { writer: new Writer((line) => lines.push(line), options), lines };
}

describe('Writer', () => {
  test('a whole run, written to a function: each call returns the line it wrote, the sink gets it with its newline', () => {
    const { writer, lines } = collecting();
    const returned = [
      writer.header('s1'),
      writer.header('s2'),
      writer.agentStart(),
      writer.messageStart(),
      writer.messageDelta('hé 😀 "q" \\ \n'),
      writer.toolStart('c1', 'read', { path: 'a.txt', lines: [1, 2] }),
      writer.toolDelta('c1', 'partial'),
      writer.toolDelta('c1', ''),
      writer.toolLiveness('c1', 'read', 'heartbeat', 5000, 12, 'attempt 2'),
      writer.turnDone('done', [{ id: 'c1', name: 'read', ok: true, text: 'data' }], { input: 1, output: 2, cost: 0.5 }, 'stop'),
    ];
    assert.deepEqual(
      returned.filter((l) => l !== null).map((l) => `${l}\n`),
      lines,
    );
    assert.ok(returned.every((l) => l === null || !l.includes('\n')), 'a returned line has no newline');
    assert.deepEqual(returned.map((l) => l === null), [false, true, false, false, false, false, false, true, false, false]);
    assert.deepEqual(lines.map((l) => l.slice(0, -1)), [
      '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s1"}',
      '{"type":"agent_start","turn_id":1}',
      '{"type":"message_start","turn_id":1,"role":"assistant"}',
      '{"type":"message_delta","turn_id":1,"delta":"hé 😀 \\"q\\" \\\\ \\n"}',
      '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\\"a.txt\\", lines=[1,2]"}',
      '{"type":"tool_delta","turn_id":1,"id":"c1","update":"partial"}',
      '{"type":"tool_liveness","turn_id":1,"id":"c1","name":"read","action":"heartbeat","elapsed_ms":5000,"output_bytes":12,"detail":"attempt 2"}',
      '{"type":"turn_done","turn_id":1,"message":"done","tool_results":[{"id":"c1","name":"read","ok":true,"text":"data"}],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}',
    ]);
    assert.ok(lines.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1));
    const stream = new Stream();
    stream.feed(lines.join(''));
    assert.equal(stream.finish(0).verdict, 'ok');
  });

  test('to a Writable, each line is one write', async () => {
    const out = new PassThrough();
    const writes = [];
    out.on('data', (chunk) => writes.push(chunk.toString('utf8')));
    const writer = new Writer(out, { fahVersion: '9', toolArgs: 'full' });
    writer.header('s');
    writer.turnStart();
    writer.toolStart('c', 'grep', { pattern: 'x', n: 2 });
    writer.cancelled();
    out.end();
    await new Promise((resolve) => out.on('end', resolve));
    assert.deepEqual(writes, [
      '{"type":"hep_header","hep":"v1","fah":"9","session":"s"}\n',
      '{"type":"tool_start","turn_id":1,"id":"c","name":"grep","args_summary":"{\\"pattern\\":\\"x\\",\\"n\\":2}"}\n',
      '{"type":"cancelled","turn_id":1}\n',
    ]);
  });

  test('backpressure: with a slow sink, awaiting `ready` keeps its buffer bounded', async () => {
    const received = [];
    let most = 0;
    // A sink that takes a line every 2 ms and buffers at most 256 bytes before write() says false.
    const sink = new Writable({
      highWaterMark: 256,
      write(chunk, encoding, done) {
        received.push(chunk.toString());
        most = Math.max(most, this.writableLength);
        setTimeout(done, 2);
      },
    });
    let drains = 0;
    sink.on('drain', () => (drains += 1));
    const chunks = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(100, '.'));
    const out = new Writer(sink, { fahVersion: '1.2.3' });
    out.header('s');
    out.agentStart();
    // START writer-ready
    for (const chunk of chunks) {
      out.messageDelta(chunk);
      await out.ready; // at once, or at the sink's 'drain' once its write() returned false
    }
    // END writer-ready
    assert.ok(drains > 5, `write() never returned false (${drains} drains)`);
    assert.ok(most <= 256 + 200, `the sink buffered ${most} bytes`);
    await new Promise((resolve) => sink.end(resolve));
    assert.equal(received.length, 52);
    assert.equal(received.at(-1), `{"type":"message_delta","turn_id":1,"delta":"${chunks.at(-1)}"}\n`);

    // Without awaiting, the buffer grows with every line: that is what `ready` is for.
    const hasty = new Writable({ highWaterMark: 256, write: (chunk, encoding, done) => setTimeout(done, 2) });
    const unbounded = new Writer(hasty, { fahVersion: '1.2.3' });
    for (const chunk of chunks) unbounded.messageDelta(chunk);
    assert.ok(hasty.writableLength > 4000);
    assert.equal(await Promise.race([unbounded.ready.then(() => 'drained'), Promise.resolve('pending')]), 'pending');
    hasty.destroy();
  });

  test('ready rejects if the sink closes before it drains; a function sink is always ready', async () => {
    const sink = new Writable({ highWaterMark: 1, write: () => {} }); // never done
    const writer = new Writer(sink, { fahVersion: '1.2.3' });
    writer.header('s');
    const ready = writer.ready;
    sink.destroy();
    await assert.rejects(ready, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const { writer: toList } = collecting();
    toList.header('s');
    assert.equal(await toList.ready, undefined);
  });

  test('turn ids: turnStart opens silently, terminals close, compactions reuse', () => {
    const { writer, lines } = collecting();
    assert.equal(writer.turnId, 0);
    assert.equal(writer.turnStart(), null);
    assert.equal(writer.turnId, 1);
    writer.turnError('boom', false);
    writer.compactionStart();
    writer.compactionEnd(4200);
    assert.equal(writer.turnId, 2);
    writer.messageStart('user');
    assert.deepEqual(lines.map((l) => parseLine(l)), [
      { type: 'turn_error', turn_id: 1, error: 'boom', fatal: false },
      { type: 'compaction_start', turn_id: 2 },
      { type: 'compaction_end', turn_id: 2, tokens_freed: 4200 },
    ]);
  });

  test('a call that writes nothing opens no turn: another role, an empty tool update', () => {
    const { writer, lines } = collecting();
    writer.agentStart();
    writer.turnDone('hi', [], { input: 1, output: 2, cost: 0.5 }, 'stop');
    assert.equal(writer.turnId, 1);
    assert.equal(writer.messageStart('user'), null);
    assert.equal(writer.toolDelta('c1', ''), null);
    assert.equal(writer.messageStart('toolResult'), null);
    assert.equal(writer.turnId, 1, 'no turn was opened by a call that wrote nothing');
    // With no turn open, compaction_end reuses the last id; the next round is turn 2.
    assert.equal(parseLine(writer.compactionEnd(5)).turn_id, 1);
    assert.equal(parseLine(writer.messageDelta('next')).turn_id, 2);
    assert.deepEqual(lines.map((l) => parseLine(l).type), ['agent_start', 'turn_done', 'compaction_end', 'message_delta']);
  });

  test('tool arguments keep their key order, as an object or as JSON text', () => {
    const { writer } = collecting();
    const summary = (args) => parseLine(writer.toolStart('c', 'n', args)).args_summary;
    assert.equal(summary({ z: 1, a: 'x"y', f: 1.5, nested: { b: [true, null] } }), 'z=1, a="x\\"y", f=1.5, nested={"b":[true,null]}');
    assert.equal(summary('{"z":1,"a":2,"z2":1.0}'), 'z=1, a=2, z2=1.0');
    assert.equal(summary({}), '');
    const long = summary({ text: 'x'.repeat(200) });
    assert.equal(long, `text="${'x'.repeat(94)}...`);
  });

  test('a value holding NaN or an infinity is [unserializable], as the reference writes it', () => {
    const { writer } = collecting();
    const full = collecting({ fahVersion: '1.2.3', toolArgs: 'full' }).writer;
    const summary = (args) => parseLine(writer.toolStart('c', 'n', args)).args_summary;
    const whole = (args) => parseLine(full.toolStart('c', 'n', args)).args_summary;
    const args = { x: NaN, y: [1, Infinity], z: 'ok' };
    assert.equal(summary(args), 'x=[unserializable], y=[unserializable], z="ok"');
    assert.equal(whole(args), '[unserializable]');
    // Anywhere inside a value, -Infinity too; the other values as JSON.stringify writes them.
    const nested = { a: { b: [{ c: -Infinity }] }, n: null, s: 'null', k: [null, 1.5] };
    assert.equal(summary(nested), 'a=[unserializable], n=null, s="null", k=[null,1.5]');
    assert.equal(whole(nested), '[unserializable]');
    // A plain null stays null, in both modes.
    assert.equal(summary({ n: null, m: [null] }), 'n=null, m=[null]');
    assert.equal(whole({ n: null, m: [null] }), '{"n":null,"m":[null]}');
    // JSON.stringify's rules hold: undefined and function values are left out, keys come in
    // Object.keys order (integer keys first), toJSON is applied (with the member's key).
    const odd = { b: NaN, u: undefined, f() {}, 2: 'two', d: new Date(0), t: { toJSON: (key) => (key === 't' ? Infinity : 0) } };
    assert.equal(summary(odd), '2="two", b=[unserializable], d="1970-01-01T00:00:00.000Z", t=[unserializable]');
    assert.equal(summary({ u: undefined, x: NaN }), 'x=[unserializable]');
    assert.equal(summary({ boxed: new Number(NaN) }), 'boxed=[unserializable]');
    // As JSON text, a number past the double range is the same thing.
    assert.equal(summary('{"x":1e400,"y":-1e400,"z":"ok"}'), 'x=[unserializable], y=[unserializable], z="ok"');
  });

  test('tool result texts are capped at 2000 UTF-16 units', () => {
    const { writer } = collecting();
    const line = writer.turnDone('', [{ id: 'c', name: 'n', ok: false, text: 'y'.repeat(2500) }], { input: 0, output: 0, cost: 0 }, 'stop');
    assert.equal(parseLine(line).tool_results[0].text, `${'y'.repeat(2000)}…(+500 chars)`);
  });

  test('a capped text is the core cap of the whole text, whatever falls at the cut', () => {
    const { writer } = collecting();
    const y = (n) => 'y'.repeat(n);
    const texts = [
      y(2000), y(2001), `${y(1999)}😀`, `${y(1999)}😀z`, `${y(1998)}😀z`, `${y(1999)}\ud800z`, `${y(1999)}\udc00z`,
      `${y(1999)}\ud800\ud800z`, `${'中'.repeat(2001)}`, `${'😀'.repeat(1500)}`, `${y(10)}\ud800`, y(50000),
    ];
    for (const text of texts) {
      const line = writer.turnDone('', [{ id: 'c', name: 'n', ok: true, text }, { id: 'd', name: 'm', ok: false, text: 'short' }], { input: 0, output: 0, cost: 0 }, 'stop');
      const results = parseLine(line).tool_results;
      assert.equal(results[0].text, cap(text, 2000), `a text of ${text.length} units`);
      assert.deepEqual(results[1], { id: 'd', name: 'm', ok: false, text: 'short' });
    }
  });

  test('texts of any length and content cross intact (lone surrogates become U+FFFD)', () => {
    const { writer } = collecting();
    const texts = ['', 'a', 'é', '😀', 'x'.repeat(255), 'x'.repeat(256), 'é'.repeat(511), '😀'.repeat(300), `${'中'.repeat(5000)}z`, 'line\u2028sep\u007f\u0001'];
    for (const text of texts) {
      assert.equal(parseLine(writer.messageDelta(text)).delta, text, `a text of ${text.length} units`);
      assert.equal(parseLine(writer.toolDelta(text, `${text}!`)).id, text);
    }
    assert.equal(parseLine(writer.messageDelta('a\ud800b\udc00')).delta, 'a\ufffdb\ufffd');
    assert.equal(writer.messageDelta('\u0001'), '{"type":"message_delta","turn_id":1,"delta":"\\u0001"}');
  });

  test('values the protocol cannot carry are HepErrors (HEP_UNENCODABLE, HEP_TOO_DEEP, HEP_SYNTAX)', () => {
    const { writer, lines } = collecting();
    assert.throws(() => writer.compactionEnd(2 ** 53), (e) => e instanceof HepError && e.code === 'HEP_UNENCODABLE' && /9007199254740991/.test(e.message));
    assert.throws(() => writer.turnDone('', [], { input: 0, output: 0, cost: NaN }, 'stop'), { code: 'HEP_UNENCODABLE' });
    assert.throws(() => writer.turnDone('', [], { input: 0, output: 0, cost: Infinity }, 'stop'), { code: 'HEP_UNENCODABLE' });
    let deep = {};
    for (let i = 0; i < 70; i++) deep = { d: deep };
    assert.throws(() => writer.toolStart('c', 'n', deep), { code: 'HEP_TOO_DEEP' });
    assert.throws(() => writer.toolStart('c', 'n', '{"a":'), { code: 'HEP_SYNTAX' });
    assert.throws(() => writer.toolStart('c', 'n', '[1]'), { code: 'HEP_NOT_AN_OBJECT' });
    assert.deepEqual(lines, [], 'nothing is written by a failed call');
    assert.equal(parseLine(writer.compactionEnd(2 ** 53 - 1)).tokens_freed, 2 ** 53 - 1);
  });

  test('wrong arguments are TypeErrors or RangeErrors naming them', () => {
    const { writer } = collecting();
    const cases = [
      [() => new Writer(42, { fahVersion: '1' }), TypeError, 'Writer(out): out must be a Writable or a function taking each line, not a number'],
      [() => new Writer(() => {}), TypeError, 'Writer(out, options): options must be an object, not undefined'],
      [() => new Writer(() => {}, {}), TypeError, 'Writer(out, options): fahVersion must be a string, not undefined'],
      [() => new Writer(() => {}, { fahVersion: '1', toolArgs: 'all' }), RangeError, "Writer(out, options): toolArgs must be 'summary' or 'full', not all"],
      [() => writer.messageDelta(5), TypeError, 'Writer.messageDelta(text) must be a string, not a number'],
      [() => writer.header(null), TypeError, 'Writer.header(session) must be a string, not null'],
      [() => writer.toolStart('c', 'n', [1]), TypeError, 'Writer.toolStart(args) must be an object, not an array'],
      [() => writer.toolStart('c', 'n', { big: 1n }), TypeError, 'Do not know how to serialize a BigInt'],
      [() => writer.toolLiveness('c', 'n', 'nap', 1), RangeError, 'Writer.toolLiveness(action): action must be one of heartbeat, cancel_retry, background_convert, escalate, advisory, not nap'],
      [() => writer.toolLiveness('c', 'n', 'heartbeat', -1), RangeError, 'Writer.toolLiveness(elapsedMs) must be a non-negative integer, not -1'],
      [() => writer.toolLiveness('c', 'n', 'heartbeat', 1, 1.5), RangeError, 'Writer.toolLiveness(outputBytes) must be a non-negative integer, not 1.5'],
      [() => writer.turnDone('m', {}, { input: 0, output: 0, cost: 0 }, 's'), TypeError, 'Writer.turnDone(toolResults): toolResults must be an array, not an object (Object)'],
      [() => writer.turnDone('m', [{ id: 'c', name: 'n', ok: 1, text: '' }], { input: 0, output: 0, cost: 0 }, 's'), TypeError, 'Writer.turnDone(toolResults[0]).ok must be a boolean, not a number'],
      [() => writer.turnDone('m', [], { input: '1', output: 0, cost: 0 }, 's'), TypeError, 'Writer.turnDone(usage.input) must be a number, not a string'],
      [() => writer.turnError('e', 'yes'), TypeError, 'Writer.turnError(fatal) must be a boolean, not a string'],
      [() => writer.compactionEnd(1.5), RangeError, 'Writer.compactionEnd(tokensFreed) must be a non-negative integer, not 1.5'],
    ];
    for (const [call, type, message] of cases) assert.throws(call, (e) => e instanceof type && e.message === message, message);
    const circular = {};
    circular.self = circular;
    assert.throws(() => writer.toolStart('c', 'n', circular), TypeError);
    assert.equal(writer.turnId, 0, 'no failed call opened a turn');
  });

  test('writers are independent', () => {
    const writers = Array.from({ length: 50 }, (_, i) => collecting({ fahVersion: String(i) }));
    writers.forEach(({ writer }, i) => {
      writer.header(`s${i}`);
      for (let k = 0; k <= i % 3; k++) writer.turnError('e', false);
    });
    writers.forEach(({ writer, lines }, i) => {
      assert.equal(writer.turnId, (i % 3) + 1);
      assert.equal(parseLine(lines[0]).fah, String(i));
    });
  });
});
