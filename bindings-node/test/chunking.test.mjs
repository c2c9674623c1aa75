// Chunking invariance through the Node API: the same bytes fed to `Stream` in any split (one
// byte at a time, fixed sizes, seeded random cuts, cuts inside every multi-byte UTF-8 character
// and inside every escape, between every \r and \n) give exactly the same frames, violations,
// skipped lines, halt, verdict and run as the bytes fed whole.
//
// The inputs: every `stream/` case and `hostile/` stream case of ../../conformance/ (with its
// options and exit code), every `decode/`, `reject/` and `hostile/` line (as a one-line stream and
// as a truncated last line), and `hep simulate` output for every scenario that ends by itself
// (two seeds, both argument renderings, with \r\n line ends and with hostile lines inserted).
// The Rust suite (hep-core/tests/chunking.rs) also cuts small inputs at every position.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { outcome, streamExitCode, streamInput, streamOptions } from './conformance-stream.mjs';
import { CaseError, getBytes, sameJson } from './conformance-support.mjs';
import { simulate } from './supervise-support.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'conformance');
const DEFAULTS = { strict: false, maxLineBytes: 16 * 1024 * 1024 };
// Inputs larger than this are not fed in chunks of fewer than 64 bytes here (the conformance
// runner already feeds every stream case one byte at a time, and the Rust suite every input).
const BYTEWISE_UP_TO = 64 * 1024;
const SINGLE_CUTS = 16;
const RANDOM_SPLITS = 8;
const SCENARIOS = ['chat', 'tools', 'error', 'compaction', 'stuck', 'big-output', 'future'];

/** A seeded generator (mulberry32): `below(n)` is in 0..n. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { below: (n) => Math.floor(next() * Math.max(n, 1)) };
}

/** A stable seed for a name (FNV-1a). */
function seedOf(name) {
  let h = 0x811c9dc5;
  for (const c of Buffer.from(name)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return h;
}

/** `data` cut at ascending positions `cuts`. */
function cut(data, cuts) {
  const bounds = [0, ...cuts.filter((c) => c >= 0 && c <= data.length), data.length];
  return bounds.slice(1).map((end, i) => data.subarray(bounds[i], end));
}

/** Named splits of `data`: `[description, cut positions]`. */
function splits(data, seed) {
  const n = data.length;
  const out = [];
  const range = (from, to, step = 1) => Array.from({ length: Math.max(0, Math.ceil((to - from) / step)) }, (_, i) => from + i * step);
  for (const size of [1, 2, 3, 7, 64, 4096]) {
    if (size >= 64 || n <= BYTEWISE_UP_TO) out.push([`in ${size}-byte chunks`, range(size, n, size)]);
  }
  const random = rng(seed);
  const insideChars = range(1, n).filter((i) => (data[i] & 0xc0) === 0x80);
  const insideEscapes = new Set();
  for (let i = 0; i < n; i++) {
    if (data[i] !== 0x5c) continue;
    const len = data[i + 1] === 0x75 ? 5 : 1;
    for (let c = i + 1; c <= i + len && c < n; c++) insideEscapes.add(c);
  }
  const betweenCrLf = range(1, n).filter((i) => data[i - 1] === 0x0d && data[i] === 0x0a);
  for (const [what, cuts] of [
    ['inside every multi-byte character', insideChars],
    ['inside every escape', [...insideEscapes].sort((a, b) => a - b)],
    ['between every \\r and \\n', betweenCrLf],
  ]) {
    if (cuts.length > 0) out.push([what, cuts]);
    const each = cuts.length <= SINGLE_CUTS ? cuts : Array.from({ length: SINGLE_CUTS }, () => cuts[random.below(cuts.length)]);
    for (const c of each) out.push([`cut once ${what} (at byte ${c})`, [c]]);
  }
  for (let round = 0; round < RANDOM_SPLITS; round++) {
    const cuts = Array.from({ length: 1 + random.below(Math.min(48, Math.max(n, 1))) }, () => random.below(n + 1)).sort((a, b) => a - b);
    out.push([`random cuts #${round} (seed ${seed}): ${JSON.stringify(cuts)}`, cuts]);
  }
  return out;
}

/** Feeds `data` in every split; returns a description of each split whose outcome differs. */
function check(name, data, options, exitCode) {
  const whole = outcome([data], options, exitCode, true);
  const failures = [];
  for (const [how, cuts] of splits(data, seedOf(name))) {
    try {
      sameJson(`fed ${how}, the outcome (vs. fed whole)`, whole, outcome(cut(data, cuts), options, exitCode, true));
    } catch (e) {
      if (!(e instanceof CaseError)) throw e;
      failures.push(`${name}: ${e.message}`);
    }
  }
  return failures;
}

// ---- the conformance vectors ----

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

function conformanceInputs(group) {
  const inputs = [];
  for (const path of files(join(ROOT, group)).filter((p) => p.endsWith('.json')).sort()) {
    const name = `conformance/${relative(ROOT, path)}`;
    const c = JSON.parse(readFileSync(path, 'utf8'));
    if (group === 'stream' || c.form === 'stream') {
      inputs.push([name, streamInput(c), streamOptions(c), streamExitCode(c)]);
    } else {
      const line = getBytes(c, 'line');
      inputs.push([`${name} (as a line)`, Buffer.concat([line, Buffer.from('\n')]), DEFAULTS, 0]);
      inputs.push([`${name} (as a truncated tail)`, line, DEFAULTS, null]);
    }
  }
  return inputs;
}

describe('chunking: the conformance vectors', () => {
  for (const group of ['stream', 'hostile', 'decode', 'reject']) {
    test(`every ${group}/ input gives the same outcome however split`, () => {
      const inputs = conformanceInputs(group);
      assert.ok(inputs.length > 0, `conformance/${group}/ holds no case`);
      const failures = inputs.flatMap((input) => check(...input));
      assert.deepEqual(failures, [], `${failures.length} split(s) change the outcome`);
    });
  }
});

// ---- a realistic stream: `hep simulate` ----

const HOSTILE_LINES = [
  Buffer.from(''),
  Buffer.from('   Compiling agent v1.0 (prose on stdout)'),
  Buffer.concat([Buffer.from('{"type":"message_delta","turn_id":1,"delta":"bad '), Buffer.from([0xc3, 0x28]), Buffer.from(' utf-8"}')]),
  Buffer.from('{"type":"agent_start","turn_id":1}{"type":"cancelled","turn_id":1}'),
  Buffer.from('{"type":"plan_update","turn_id":"x","note":"\\ud83d"}'),
  Buffer.from('\ufeff{"type":"message_delta","turn_id":1,"delta":"bom"}'),
  Buffer.from([0, 0, 0, 0]),
  Buffer.from('{"type":"message_delta","turn_id":1,"delta":"a\\ud83d\\ude00\\u00e9\\\\\\""}'),
];

/** `data` with hostile lines inserted every so often and a tail cut inside a character. */
function withHostileLines(data, seed) {
  const random = rng(seed);
  const parts = [];
  let start = 0;
  while (start < data.length) {
    const nl = data.indexOf(0x0a, start);
    const end = nl < 0 ? data.length : nl + 1;
    if (random.below(7) === 0) parts.push(HOSTILE_LINES[random.below(HOSTILE_LINES.length)], Buffer.from('\n'));
    parts.push(data.subarray(start, end));
    start = end;
  }
  parts.push(Buffer.from('{"type":"message_delta","turn_id":9,"delta":"cut '), Buffer.from([0xe2, 0x82]));
  return Buffer.concat(parts);
}

/** `data` with every `\n` made `\r\n`. */
function withCrlf(data) {
  return Buffer.from(data.toString('latin1').replaceAll('\n', '\r\n'), 'latin1');
}

describe('chunking: hep simulate', () => {
  for (const scenario of SCENARIOS) {
    test(`the ${scenario} scenario gives the same outcome however split`, () => {
      const failures = [];
      for (const seed of [1, 2]) {
        for (const extra of [[], ['--full-args']]) {
          const [command, args] = simulate(scenario);
          const argv = [...args, '--seed', String(seed), ...extra];
          const done = spawnSync(command, argv, { timeout: 60_000, maxBuffer: 64 << 20 });
          const data = done.stdout;
          const code = done.status;
          assert.ok(data.includes('\n'), `${argv.join(' ')}: ${done.stderr}`);
          const name = `hep ${argv.join(' ')}`;
          const whole = outcome([data], DEFAULTS, code, true);
          assert.ok(whole.conforms, `${name}: the simulator's run does not conform: ${JSON.stringify([whole.violations, whole.skipped])}`);
          const hostile = withHostileLines(data, seed);
          failures.push(
            ...check(name, data, DEFAULTS, code),
            ...check(`${name}, \\r\\n line ends`, withCrlf(data), DEFAULTS, code),
            ...check(`${name}, hostile lines`, hostile, DEFAULTS, 137),
            ...check(`${name}, hostile lines, 300-byte lines`, hostile, { ...DEFAULTS, maxLineBytes: 300 }, null),
            ...check(`${name}, hostile lines, strict`, hostile, { ...DEFAULTS, strict: true }, code),
          );
        }
      }
      assert.deepEqual(failures, [], `${failures.length} split(s) change the outcome`);
    });
  }
});

test('the splits cut where they say', () => {
  const data = Buffer.from('a\u00e9\\u00e9\r\n\u{1F600}');
  const named = Object.fromEntries(splits(data, 1));
  assert.deepEqual(named['inside every multi-byte character'], [2, 12, 13, 14]);
  assert.deepEqual(named['inside every escape'], [4, 5, 6, 7, 8]);
  assert.deepEqual(named['between every \\r and \\n'], [10]);
  assert.deepEqual(named['in 1-byte chunks'], Array.from({ length: data.length - 1 }, (_, i) => i + 1));
  assert.deepEqual(cut(Buffer.from('abcdef'), [2, 2, 5]).map(String), ['ab', '', 'cde', 'f']);
});
