// The conformance vectors of ../../conformance/, run through the package's public API.
//
// Same semantics as the Rust runner (hep-core/tests/conformance/) and the Python one: one test
// per case file (named by its path below conformance/), and a test per folder that fails
// when the folder holds no case. A case with an unknown `op`, `call`, option or `expect` key
// fails, and so does a stray file no runner would read.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HepError, Writer, argsFull, argsSummary, cap, parseLine, utf16Len } from 'hep';
import {
  LINE_ERROR_KINDS,
  CaseError,
  canonical,
  encoded,
  firstDifference,
  get,
  getBool,
  getBytes,
  getList,
  getStr,
  getText,
  getUint,
  parse,
  sameJson,
  sameText,
  show,
  text,
} from './conformance-support.mjs';
import { runStream } from './conformance-stream.mjs';
import { runHostile } from './conformance-hostile.mjs';
import { runSupervise } from './conformance-supervise.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'conformance');
const GROUPS = ['encode', 'decode', 'reject', 'bounds', 'writer', 'stream', 'hostile', 'supervise'];

/** Every file below `dir`, recursively. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function caseFiles(group, root = ROOT) {
  const folder = join(root, group);
  let isDir = false;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    // missing: no cases
  }
  return isDir ? files(folder).filter((p) => p.endsWith('.json')).sort() : [];
}

/** One case: a JSON object with a non-empty `description`. */
function load(path) {
  let c;
  try {
    c = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CaseError(`not JSON: ${e.message}`);
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new CaseError('a case must be a JSON object');
  if (typeof c.description !== 'string' || c.description.trim() === '') {
    throw new CaseError('a case needs a non-empty string `description`');
  }
  return c;
}

// ---- encode/, decode/, reject/ ----

/** `frame` (serialized by JSON.stringify, decoded, encoded) must give `line` exactly, and `line` must decode to the same frame. */
function runEncode(c) {
  const serialized = JSON.stringify(get(c, 'frame'));
  const line = getStr(c, 'line');
  const frame = parse(serialized, `\`frame\` ${serialized}`);
  sameText('the encoding of `frame`', line, encoded(frame));
  const back = parse(line, '`line`');
  sameJson('`line` decodes to another frame than `frame`:', canonical(frame), canonical(back));
}

/** `line` must decode to `frame` (canonical form) and, when given, encode to `encoded`. */
function runDecode(c) {
  const line = getBytes(c, 'line');
  let frame;
  try {
    frame = parseLine(line);
  } catch (e) {
    if (e instanceof HepError) throw new CaseError(`must decode, but is rejected: ${e.message}`);
    throw e;
  }
  sameJson('the decoded frame', get(c, 'frame'), canonical(frame));
  if (frame.line !== 1 || frame.raw !== line.toString('utf8').replace(/\r?\n$/, '')) {
    throw new CaseError(`the frame's line is ${show(frame.line)} ${show(frame.raw)}, not 1 and the line`);
  }
  if (Object.hasOwn(c, 'encoded')) sameText('the encoding of the decoded frame', getStr(c, 'encoded'), encoded(frame));
}

/** `line` must be rejected with `error.kind` (and `error.column` when given), as a HepError with the matching code. */
function runReject(c) {
  const line = getBytes(c, 'line');
  const error = get(c, 'error');
  const kind = getStr(error, 'kind');
  if (!LINE_ERROR_KINDS.includes(kind)) throw new CaseError(`\`error.kind\` \`${kind}\` is no ErrorKind name`);
  let err = null;
  let frame;
  try {
    frame = parseLine(line);
  } catch (e) {
    err = e;
  }
  if (err === null) throw new CaseError(`must be rejected with \`${kind}\`, but decodes to ${show(frame)}`);
  if (!(err instanceof HepError)) throw new CaseError(`rejected with ${err} instead of a HepError`);
  if (err.kind !== kind) throw new CaseError(`rejected with kind \`${err.kind}\` instead of \`${kind}\`: ${err.message}`);
  if (err.code !== `HEP_${kind.toUpperCase()}`) throw new CaseError(`rejected with code ${err.code} for kind ${kind}`);
  if (Object.hasOwn(error, 'column')) {
    const column = getUint(error, 'column');
    if (err.column !== column) throw new CaseError(`rejected at column ${err.column} instead of ${column}: ${err.message}`);
  }
}

// ---- bounds/ ----

function runBounds(c) {
  const op = getStr(c, 'op');
  const ops = {
    cap: () => cap(getText(c, 'text'), getUint(c, 'limit')),
    args_summary: () => argsSummary(getText(c, 'args')),
    args_full: () => argsFull(getText(c, 'args')),
    utf16_len: () => utf16Len(getText(c, 'text')),
  };
  if (!Object.hasOwn(ops, op)) throw new CaseError(`unknown op \`${op}\``);
  let got;
  try {
    got = ops[op]();
  } catch (e) {
    if (e instanceof HepError) throw new CaseError(`\`${op}\` fails: ${e.message}`);
    throw e;
  }
  if (op === 'utf16_len') {
    const want = getUint(c, 'expected');
    if (got !== want) throw new CaseError(`utf16_len is ${show(got)} instead of ${want}`);
    return;
  }
  let expected;
  try {
    expected = text(get(c, 'expected'));
  } catch (e) {
    if (e instanceof CaseError) throw new CaseError(`field \`expected\`: ${e.message}`);
    throw e;
  }
  sameText(`\`${op}\``, expected, got);
}

// ---- writer/ ----

function runWriter(c) {
  const mode = c.args_mode ?? 'summary';
  if (mode !== 'summary' && mode !== 'full') throw new CaseError('`args_mode` must be "summary" or "full"');
  const calls = getList(c, 'calls');
  // The Writer takes the harness version in its constructor (the case's top-level `fah`).
  const written = [];
  const writer = new Writer((line) => written.push(line), { fahVersion: getStr(c, 'fah'), toolArgs: mode });
  const lines = [];
  calls.forEach((call, i) => {
    let name;
    try {
      name = getStr(call, 'call');
    } catch (e) {
      throw new CaseError(`calls[${i}]: ${e.message}`);
    }
    const before = written.length;
    let returned;
    try {
      returned = apply(writer, name, call);
    } catch (e) {
      if (e instanceof CaseError) throw new CaseError(`calls[${i}] \`${name}\`: ${e.message}`);
      throw new CaseError(`calls[${i}] \`${name}\`: the writer fails: ${e.name}: ${e.message}`);
    }
    // The sink gets the line and its newline; the method returns the line alone.
    const fresh = written.slice(before);
    sameJson(`calls[${i}] \`${name}\` wrote ${show(fresh)} but returned ${show(returned)}:`, returned === null ? [] : [`${returned}\n`], fresh);
    if (returned !== null) {
      if (returned.includes('\n')) throw new CaseError(`calls[${i}] \`${name}\` returned a line holding a newline: ${show(returned)}`);
      lines.push(returned);
    }
  });
  const expected = getList(c, 'lines');
  if (!expected.every((l) => typeof l === 'string')) throw new CaseError('`lines` must hold strings');
  for (let i = 0; i < Math.min(expected.length, lines.length); i++) sameText(`line ${i + 1}`, expected[i], lines[i]);
  if (expected.length !== lines.length) {
    throw new CaseError(`the calls emit ${lines.length} lines instead of ${expected.length}; unexpected extra lines: ${show(lines.slice(expected.length))}`);
  }
  if (Object.hasOwn(c, 'turn_id')) {
    const want = getUint(c, 'turn_id');
    if (writer.turnId !== want) throw new CaseError(`current turn id is ${writer.turnId} instead of ${want}`);
  }
}

const optional = (call, key, getter) => (call[key] === undefined || call[key] === null ? null : getter(call, key));

/** Makes one call through `Writer`, returning the line it says it wrote (without its newline). */
function apply(w, name, call) {
  switch (name) {
    case 'header':
      return w.header(getStr(call, 'session'));
    case 'agent_start':
      return w.agentStart();
    case 'turn_start': {
      const returned = w.turnStart();
      if (returned !== null) throw new CaseError(`turn_start returned ${show(returned)}`);
      return null;
    }
    case 'cancelled':
      return w.cancelled();
    case 'compaction_start':
      return w.compactionStart();
    case 'message_start':
      return w.messageStart(getStr(call, 'role'));
    case 'message_delta':
      return w.messageDelta(getText(call, 'delta'));
    case 'tool_start':
      // The JSON text of the arguments, as the core reads it: key order and number spelling kept.
      return w.toolStart(getStr(call, 'id'), getStr(call, 'name'), getText(call, 'args'));
    case 'tool_delta':
      return w.toolDelta(getStr(call, 'id'), getText(call, 'update'));
    case 'liveness':
      return w.toolLiveness(
        getStr(call, 'id'),
        getStr(call, 'name'),
        getStr(call, 'action'),
        getUint(call, 'elapsed_ms'),
        optional(call, 'output_bytes', getUint),
        optional(call, 'detail', getStr),
      );
    case 'turn_done': {
      const results = getList(call, 'tool_results').map((r) => {
        try {
          return { id: getStr(r, 'id'), name: getStr(r, 'name'), ok: getBool(r, 'ok'), text: getText(r, 'text') };
        } catch (e) {
          throw new CaseError(`\`tool_results\`: ${e.message}`);
        }
      });
      const u = get(call, 'usage');
      const cost = get(u, 'cost');
      if (typeof cost !== 'number') throw new CaseError('`usage.cost` must be a number');
      const usage = { input: getUint(u, 'input'), output: getUint(u, 'output'), cost };
      return w.turnDone(getText(call, 'message'), results, usage, getStr(call, 'stop_reason'));
    }
    case 'turn_error':
      return w.turnError(getStr(call, 'error'), getBool(call, 'fatal'));
    case 'compaction_end':
      return w.compactionEnd(getUint(call, 'tokens_freed'));
    default:
      throw new CaseError(`unknown call \`${name}\``);
  }
}

const RUNNERS = {
  encode: runEncode,
  decode: runDecode,
  reject: runReject,
  bounds: runBounds,
  writer: runWriter,
  stream: runStream,
  hostile: runHostile,
  supervise: runSupervise,
};

// ---- the cases ----

for (const group of GROUPS) {
  describe(`conformance/${group}`, () => {
    test('the folder holds cases', () => {
      assert.ok(caseFiles(group).length > 0, `conformance/${group}/ holds no case: an empty folder proves nothing`);
    });
    for (const path of caseFiles(group)) {
      test(relative(ROOT, path), () => {
        try {
          RUNNERS[group](load(path));
        } catch (e) {
          if (!(e instanceof CaseError)) throw e;
          assert.fail(`conformance/${relative(ROOT, path)}:\n    ${e.message.replaceAll('\n', '\n    ')}`);
        }
      });
    }
  });
}

test('conformance/ holds the README and the eight folders, and folders hold only cases and notes', () => {
  const problems = [];
  for (const entry of readdirSync(ROOT, { withFileTypes: true })) {
    const known = entry.isDirectory() ? GROUPS.includes(entry.name) : entry.name === 'README.md';
    if (!known) problems.push(`conformance/${entry.name}: unknown group or stray file (no runner reads it)`);
  }
  for (const group of GROUPS) {
    for (const path of files(join(ROOT, group))) {
      if (!path.endsWith('.json') && !path.endsWith('.md')) problems.push(`conformance/${relative(ROOT, path)}: not a .json case, so it never runs`);
    }
  }
  assert.deepEqual(problems, []);
});

// ---- the runner itself: it must fail on what it cannot check ----

describe('the conformance runner', () => {
  const first = (group) => load(caseFiles(group)[0]);
  const mutations = [
    ['bounds', (c) => Object.assign(c, { op: 'cap_everything' }), 'unknown op `cap_everything`'],
    ['writer', (c) => c.calls.push({ call: 'tool_finish' }), 'unknown call `tool_finish`'],
    ['stream', (c) => Object.assign(c.expect, { exit_status: 0 }), 'unknown `expect` key `exit_status`'],
    ['stream', (c) => Object.assign(c, { options: { strictly: true } }), 'unknown option `strictly`'],
    ['stream', (c) => Object.assign(c, { expect: {} }), '`expect` checks nothing'],
    ['stream', (c) => Object.assign(c.expect, { verdict: 'nonsense' }), 'expected "nonsense"'],
    ['reject', (c) => Object.assign(c.error, { kind: 'bogus' }), '`error.kind` `bogus` is no ErrorKind name'],
    ['decode', (c) => Object.assign(c.frame, { extra: 1 }), '$.extra: expected 1, got nothing'],
    ['encode', (c) => Object.assign(c, { line: `${c.line} ` }), 'the encoding of `frame` differs'],
    ['writer', (c) => c.lines.push('{}'), 'lines instead of'],
    ['writer', (c) => delete c.fah, 'missing field `fah`'],
    ['supervise', (c) => Object.assign(c, { clock: 'simulated' }), 'unknown key `clock` in the case'],
    ['supervise', (c) => Object.assign(c, { options: { timeout: 5 } }), 'unknown key `timeout` in `options`'],
    ['supervise', (c) => c.steps.push({ at: 1e9, sleep: 5 }), 'unknown key `sleep` in steps['],
    ['supervise', (c) => c.steps.push({ at: 1e9, exit: { code: 0, core: true } }), 'unknown key `core` in `exit`'],
    ['supervise', (c) => Object.assign(c.expect, { signals: [] }), 'unknown key `signals` in `expect`'],
    ['supervise', (c) => Object.assign(c.expect, { result: { verdict: 'ok', exit: 0 } }), 'unknown key `exit` in `expect.result`'],
    ['supervise', (c) => Object.assign(c, { consume: 'lazy' }), '`consume` must be "auto" or "manual"'],
    ['supervise', (c) => c.steps.push({ at: 0, stdout: '' }), 'is before the previous step'],
    ['supervise', (c) => c.steps.push({ at: 1e9, stdout: '', stderr: '' }), 'a step does exactly one thing'],
    ['supervise', (c) => Object.assign(c.expect, { finished_at: -1 }), 'finished_at'],
    ['supervise', (c) => Object.assign(c.expect, { actions: [] }), 'actions'],
  ];
  for (const [group, mutate, complaint] of mutations) {
    test(`refuses a ${group} case it cannot check: ${complaint}`, () => {
      const c = first(group);
      mutate(c);
      assert.throws(() => RUNNERS[group](c), (e) => e instanceof CaseError && e.message.includes(complaint));
    });
  }

  const hostile = [
    ['turn-id-2-pow-53', (c) => Object.assign(c, { form: 'table' }), 'unknown hostile case `form` `table`'],
    ['turn-id-2-pow-53', (c) => Object.assign(c, { outcome: 'maybe' }), 'unknown `outcome` `maybe`'],
    ['turn-id-2-pow-53', (c) => Object.assign(c.allowed[0], { outcome: 'ignore' }), 'unknown allowed `outcome` `ignore`'],
    ['turn-id-2-pow-53', (c) => Object.assign(c.allowed[1], { note: 'x' }), 'unknown key `note` in an allowed outcome'],
    ['turn-id-2-pow-53', (c) => Object.assign(c, { chosen: 1 }), 'is allowed[0], not the chosen allowed[1]'],
    ['turn-id-2-pow-53', (c) => Object.assign(c, { chosen: 5 }), '`chosen` 5 is no index of `allowed`'],
    ['turn-id-2-pow-53', (c) => Object.assign(c, { allowed: [] }), '`allowed` lists no outcome'],
    ['turn-id-2-pow-53', (c) => delete c.why, 'needs a non-empty string `why`'],
    ['turn-id-2-pow-53', (c) => c.allowed.shift(), 'none of the allowed ones'],
    ['turn-id-fraction', (c) => Object.assign(c, { frame: {} }), 'key `frame` does not belong'],
    ['turn-id-fraction', (c) => Object.assign(c, { input: 'x' }), 'key `input` does not belong'],
    ['turn-id-fraction', (c) => delete c.topic, 'missing field `topic`'],
    ['empty-line', (c) => Object.assign(c, { line: '{}\n{}' }), 'cannot hold `\\n`'],
    ['empty-line', (c) => Object.assign(c, { line: '{}\r' }), 'cannot end in `\\r`'],
    ['crlf-line-ends', (c) => delete c.expect.violations, 'must pin `violations`'],
    ['crlf-line-ends', (c) => Object.assign(c, { outcome: 'reject' }), 'must not conform'],
    ['crlf-line-ends', (c) => Object.assign(c, { error: { kind: 'syntax' } }), 'key `error` does not belong'],
    ['bom-before-the-header', (c) => Object.assign(c.allowed[1], { exit_status: 0 }), 'unknown `expect` key `exit_status`'],
  ];
  for (const [name, mutate, complaint] of hostile) {
    test(`refuses a hostile case it cannot check (${name}): ${complaint}`, () => {
      const c = load(join(ROOT, 'hostile', `${name}.json`));
      mutate(c);
      assert.throws(() => runHostile(c), (e) => e instanceof CaseError && e.message.includes(complaint));
    });
  }

  test("a writer case's `fah` is the header's; a stream case's `reasons` are checked exactly, in order", () => {
    const header = load(join(ROOT, 'writer', 'readme-example-single-round.json'));
    assert.ok(header.lines[0].includes(`"fah":${JSON.stringify(header.fah)}`), 'the case writes a header');
    header.fah = `${header.fah}-other`;
    assert.throws(() => runWriter(header), (e) => e instanceof CaseError && e.message.includes('line 1 differs'));
    const path = join(ROOT, 'stream', 'reference', 'signal-between-rounds.json');
    const reasons = load(path).expect.reasons;
    assert.ok(reasons.length > 0, 'the case pins reasons');
    for (const changed of [[...reasons, 'another reason'], [], [`${reasons[0]}.`, ...reasons.slice(1)]]) {
      const c = load(path);
      c.expect.reasons = changed;
      assert.throws(() => runStream(c), (e) => e instanceof CaseError && e.message.includes('`reasons`'), show(changed));
    }
  });

  test('JSON equality is strict about types', () => {
    assert.equal(firstDifference('$', { a: 0 }, { a: -0 }), null);
    assert.notEqual(firstDifference('$', { a: 1 }, { a: true }), null);
    assert.notEqual(firstDifference('$', { a: null }, { a: 0 }), null);
    assert.notEqual(firstDifference('$', [1, 2], [1]), null);
    assert.notEqual(firstDifference('$', { a: 1 }, { a: 1, b: 2 }), null);
    assert.notEqual(firstDifference('$', { a: [] }, { a: {} }), null);
    assert.equal(firstDifference('$', 'x', 'x'), null);
  });

  test('cases in subfolders run too (stream/reference/, stream/limits/)', () => {
    const stream = caseFiles('stream').map((p) => relative(join(ROOT, 'stream'), p));
    for (const sub of ['reference', 'limits']) {
      const own = readdirSync(join(ROOT, 'stream', sub)).filter((f) => f.endsWith('.json'));
      assert.ok(own.length > 0, `conformance/stream/${sub}/ holds no case`);
      for (const file of own) assert.ok(stream.includes(join(sub, file)), `stream/${sub}/${file} is not run`);
    }
  });

  test('unknown keys of a case are notes (the `reference` of a writer or stream case)', () => {
    const noted = [
      ['writer', 'tool-args-unserializable-summary.json'],
      ['writer', 'message-start-non-assistant-opens-no-turn.json'],
      ['stream', join('reference', 'signal-between-rounds.json')],
      ['bounds', 'args-full-unserializable.json'],
    ];
    for (const [group, name] of noted) {
      const c = load(join(ROOT, group, name));
      c.reference ??= 'a note';
      c.see_also = ['another note'];
      RUNNERS[group](c);
    }
  });

  test('an empty or missing folder holds no case', () => {
    assert.deepEqual(caseFiles('stream', join(ROOT, 'no-such-folder')), []);
  });
});
