// The Node bench: the `hep` package (napi-rs over hep-core) against what a Node user would
// otherwise write.
//
// It reads the same seeded corpora as the Rust bench (`hep-bench`), dumped by the Rust
// generator itself (`cargo run --release -p hep-bench -- --dump-corpus DIR`), and measures,
// in one process, side by side:
//
//   a. `new hep.Stream().feed(chunk)` over 64 KiB Buffer chunks + `finish(0)`: split,
//      decode, validate, reduce, every frame a JS object in the returned arrays (plus
//      variants: `{ raw: true }`, the whole stream in one call, every field read);
//   b. 64 KiB chunks through a StringDecoder, split on '\n', `JSON.parse` per line and a
//      JavaScript checker of the consumer guarantees (bench/node/check.mjs);
//   c. `hep.Writer` replaying every frame of the corpus into a callback, against
//      `JSON.stringify(frame) + '\n'` of the frames as plain objects.
//
// Every workload is checked before anything is timed, and every timed run must report the
// expected frame count: the bench stops rather than report the speed of a failure.
//
// Run: `make bench-node`, or `node --expose-gc bench/node/bench.mjs --help`.
// See the "Node" section of bench/README.md for what each row measures and the results.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';

import { checkerRefusesBadStreams, Invalid, linesOf, parseStream } from './check.mjs';
import { Corpus, dumpCorpora, Failure, PROFILES } from './corpus.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// The package directory: the workspace's bindings-node/ unless HEP_NODE_PACKAGE names another.
const PACKAGE = path.resolve(process.env.HEP_NODE_PACKAGE || path.join(ROOT, 'bindings-node'));
const CHUNK = 64 * 1024;
const FAH = '1.2.3';

// ---------------------------------------------------------------------------------------
// The package, loaded only when a chosen case needs it
// ---------------------------------------------------------------------------------------

function loadHep() {
  const require = createRequire(import.meta.url);
  try {
    return require(path.join(PACKAGE, 'index.js'));
  } catch (error) {
    throw new Failure(`cannot load the hep package from ${PACKAGE} (build it with \`make node-env\`): `
      + `${error.message}`);
  }
}

// ---------------------------------------------------------------------------------------
// a. hep.Stream
// ---------------------------------------------------------------------------------------

/** What every stream of the corpus must come out as: ok, conforming, every line a frame. */
function checkResult(corpus, index, result, frames, lines) {
  const clean = result.conforms === true && result.violationCount === 0 && result.skippedCount === 0;
  const counted = frames === lines && result.lines === lines && result.frames === lines;
  const exited = result.exitCode === 0 && result.halted === null;
  if (result.verdict !== 'ok' || !clean || !counted || !exited) {
    throw new Failure(`${corpus.name} stream ${index}: verdict ${result.verdict} (conforms ${result.conforms}, `
      + `${result.violationCount} violations, ${result.skippedCount} skipped, ${frames} frames delivered, `
      + `run.frames ${result.frames}, ${result.lines} lines, exit code ${result.exitCode}, `
      + `halted ${result.halted}, expected ${lines}): ${JSON.stringify(result.reasons ?? result.violations)}`);
  }
}

/**
 * A fresh `hep.Stream(options)` per stream, fed `chunk`-byte Buffer slices (or the whole
 * stream in one call when `chunk` is null), then `endInput()` and `finish(0)`, whose result
 * is checked. With `touch`, every field of every frame is read once.
 */
function hepStream(hep, corpus, chunk, options, touch = false) {
  let total = 0;
  let sum = 0;
  const { streams, counts } = corpus;
  for (let index = 0; index < streams.length; index++) {
    const data = streams[index];
    const stream = options === null ? new hep.Stream() : new hep.Stream(options);
    let frames = 0;
    const step = chunk ?? data.length;
    for (let start = 0; start < data.length; start += step) {
      const got = stream.feed(start === 0 && step >= data.length ? data : data.subarray(start, start + step));
      frames += got.length;
      if (touch) for (let i = 0; i < got.length; i++) sum += fieldsOf(got[i]);
    }
    frames += stream.endInput().length;
    const result = stream.finish(0);
    checkResult(corpus, index, result, frames, counts[index]);
    total += frames;
  }
  touched = sum;
  return total;
}

let touched = 0; // the last sum of `fieldsOf` over a pass (so the reads cannot be skipped)

/** Reads `type` and every field of a frame once, folding them into a number. */
function fieldsOf(f) {
  switch (f.type) {
    case 'message_delta': return f.turn_id + f.delta.length;
    case 'tool_delta': return f.turn_id + f.id.length + f.update.length;
    case 'tool_start': return f.turn_id + f.id.length + f.name.length + f.args_summary.length;
    case 'tool_liveness':
      return f.turn_id + f.id.length + f.name.length + f.action.length + f.elapsed_ms + (f.output_bytes ?? 0)
        + (f.detail ?? '').length;
    case 'turn_done': {
      const u = f.usage;
      let n = f.turn_id + f.message.length + f.stop_reason.length + u.input + u.output + u.cost;
      for (const r of f.tool_results) n += r.id.length + r.name.length + (r.ok ? 1 : 0) + r.text.length;
      return n;
    }
    case 'message_start': return f.turn_id + f.role.length;
    case 'hep_header': return f.hep.length + f.fah.length + f.session.length;
    case 'turn_error': return f.turn_id + f.error.length + (f.fatal ? 1 : 0);
    case 'compaction_end': return f.turn_id + f.tokens_freed;
    default: return f.turn_id; // agent_start, cancelled, compaction_start
  }
}

// ---------------------------------------------------------------------------------------
// b. 64 KiB chunks + StringDecoder + split + JSON.parse (+ the JavaScript checker)
// ---------------------------------------------------------------------------------------

function jsonCheck(corpus, check) {
  let total = 0;
  for (const [index, data] of corpus.streams.entries()) {
    try {
      total += parseStream(data, CHUNK, check);
    } catch (error) {
      if (error instanceof Invalid || error instanceof SyntaxError) {
        throw new Failure(`${corpus.name} stream ${index}: ${error.message}`);
      }
      throw error;
    }
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// c. Writing: hep.Writer replaying the corpus, JSON.stringify of the frames as objects
// ---------------------------------------------------------------------------------------

const HEADER = 0;
const AGENT_START = 1;
const MESSAGE_START = 2;
const MESSAGE_DELTA = 3;
const TOOL_START = 4;
const TOOL_DELTA = 5;
const TOOL_LIVENESS = 6;
const TURN_DONE = 7;
const TURN_ERROR = 8;
const CANCELLED = 9;
const COMPACTION_START = 10;
const COMPACTION_END = 11;

/**
 * Per stream, the Writer calls that reproduce it, built from its frames (`JSON.parse` of
 * each line) plus the writer inputs the frames cannot hold: each `tool_start`'s argument
 * object (its `args_summary` is cut at 100 characters) and each `turn_done`'s uncapped
 * result texts. Also the frames themselves, as plain objects, for `JSON.stringify`.
 */
class Replay {
  constructor(corpus) {
    this.streams = []; // { mode, calls: [op, ...args][] }
    this.objects = []; // per stream, the frames as plain objects
    this.argsAsText = 0; // tool_start arguments passed as JSON text (see below)
    this.toolStarts = 0;
    for (const [index, data] of corpus.streams.entries()) {
      const inputs = corpus.inputs[index];
      const mode = inputs[0].tool_args;
      if (mode !== 'summary' && mode !== 'full') throw new Failure(`${corpus.name} stream ${index}: args mode ${mode}`);
      // A tool call's arguments as the object a harness would pass, unless JSON.parse loses
      // something `JSON.stringify` cannot give back (the generator writes `65536.0`, which a
      // JS number holds as 65536): those go as their JSON text, which `toolStart` also takes.
      const args = inputs.filter((i) => 'tool_start' in i).map((i) => {
        const object = JSON.parse(i.tool_start);
        if (JSON.stringify(object) === i.tool_start) return object;
        this.argsAsText++;
        return i.tool_start;
      }).values();
      const texts = inputs.filter((i) => 'turn_done' in i).map((i) => i.turn_done).values();
      const next = (it) => {
        const { value, done } = it.next();
        if (done) throw new Failure(`${corpus.name} stream ${index}: writer inputs run out`);
        return value;
      };
      const objects = linesOf(data.toString('utf8')).map((line) => JSON.parse(line));
      const calls = objects.map((f) => {
        switch (f.type) {
          case 'message_delta': return [MESSAGE_DELTA, f.delta];
          case 'tool_delta': return [TOOL_DELTA, f.id, f.update];
          case 'tool_start': this.toolStarts++; return [TOOL_START, f.id, f.name, next(args)];
          case 'tool_liveness': return [TOOL_LIVENESS, f.id, f.name, f.action, f.elapsed_ms, f.output_bytes, f.detail];
          case 'turn_done': {
            const full = next(texts);
            if (full.length !== f.tool_results.length) {
              throw new Failure(`${corpus.name} stream ${index}: turn_done inputs do not match ${JSON.stringify(f)}`);
            }
            const results = f.tool_results.map((r, i) => ({ id: r.id, name: r.name, ok: r.ok, text: full[i] }));
            const usage = { input: f.usage.input, output: f.usage.output, cost: f.usage.cost };
            return [TURN_DONE, f.message, results, usage, f.stop_reason];
          }
          case 'message_start': return [MESSAGE_START, f.role];
          case 'hep_header':
            if (f.fah !== FAH) throw new Failure(`${corpus.name} stream ${index}: unexpected fah ${f.fah}`);
            return [HEADER, f.session];
          case 'agent_start': return [AGENT_START];
          case 'turn_error': return [TURN_ERROR, f.error, f.fatal];
          case 'cancelled': return [CANCELLED];
          case 'compaction_start': return [COMPACTION_START];
          case 'compaction_end': return [COMPACTION_END, f.tokens_freed];
          default: throw new Failure(`${corpus.name} stream ${index}: no Writer call for ${JSON.stringify(f)}`);
        }
      });
      if (!args.next().done || !texts.next().done) throw new Failure(`${corpus.name} stream ${index}: writer inputs left over`);
      this.streams.push({ mode, calls });
      this.objects.push(objects);
    }
  }
}

/** c1. A fresh `hep.Writer` per stream into a callback pushing each line to an array. */
function hepWriter(hep, replay) {
  let frames = 0;
  const out = [];
  for (const { mode, calls } of replay.streams) {
    const lines = [];
    const w = new hep.Writer((line) => { lines.push(line); }, { fahVersion: FAH, toolArgs: mode });
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i];
      switch (c[0]) {
        case MESSAGE_DELTA: w.messageDelta(c[1]); break;
        case TOOL_DELTA: w.toolDelta(c[1], c[2]); break;
        case TOOL_START: w.toolStart(c[1], c[2], c[3]); break;
        case TOOL_LIVENESS: w.toolLiveness(c[1], c[2], c[3], c[4], c[5], c[6]); break;
        case TURN_DONE: w.turnDone(c[1], c[2], c[3], c[4]); break;
        case MESSAGE_START: w.messageStart(c[1]); break;
        case HEADER: w.header(c[1]); break;
        case AGENT_START: w.agentStart(); break;
        case TURN_ERROR: w.turnError(c[1], c[2]); break;
        case CANCELLED: w.cancelled(); break;
        case COMPACTION_START: w.compactionStart(); break;
        case COMPACTION_END: w.compactionEnd(c[1]); break;
        default: throw new Failure(`unknown replay op ${c[0]}`);
      }
    }
    frames += lines.length;
    out.push(lines);
  }
  return { frames, out };
}

/** c2. `JSON.stringify(frame) + '\n'` per frame object, pushed to an array. */
function jsonStringify(replay) {
  let frames = 0;
  const out = [];
  for (const objects of replay.objects) {
    const lines = [];
    for (let i = 0; i < objects.length; i++) lines.push(JSON.stringify(objects[i]) + '\n');
    frames += lines.length;
    out.push(lines);
  }
  return { frames, out };
}

// ---------------------------------------------------------------------------------------
// Cases, checks before timing
// ---------------------------------------------------------------------------------------

const A_CHUNK = 'a1. hep.Stream.feed(64 KiB Buffer) + finish(0)';
const A_RAW = 'a2. a1 with { raw: true }';
const A_WHOLE = 'a3. hep.Stream.feed(whole stream) + finish(0)';
const A_TOUCH = 'a4. a1 + every field of every frame read once';
const B_CHECK = 'b1. 64K StringDecoder+split, JSON.parse + JS check';
const B_PARSE = 'b2. b1 without the check (JSON.parse only)';
const C_WRITER = 'c1. hep.Writer replay -> callback array.push';
const C_STRINGIFY = 'c2. JSON.stringify(frame) + "\\n" -> array.push';

/** (label, hep row, alternative row, target, aim) */
const RATIOS = [
  ['Stream.feed(64K) / JSON.parse + check', A_CHUNK, B_CHECK, 1.0, 1.5],
  ['Stream.feed(64K, raw) / JSON.parse + check', A_RAW, B_CHECK, null, null],
  ['Stream.feed(whole) / JSON.parse + check', A_WHOLE, B_CHECK, null, null],
  ['Stream.feed(64K) + read fields / JSON.parse + check', A_TOUCH, B_CHECK, null, null],
  ['Stream.feed(64K) / JSON.parse only (no check)', A_CHUNK, B_PARSE, null, null],
  ['Writer (callback) / JSON.stringify', C_WRITER, C_STRINGIFY, 1.0, null],
];

const make = ([name, run]) => ({ name, run, wall: [], cpu: [] });

/** The reading cases: their inputs are the corpus's bytes only. */
function readingCases(hep, corpus) {
  return [
    [A_CHUNK, () => hepStream(hep, corpus, CHUNK, null)],
    [A_RAW, () => hepStream(hep, corpus, CHUNK, { raw: true })],
    [A_WHOLE, () => hepStream(hep, corpus, null, null)],
    [A_TOUCH, () => hepStream(hep, corpus, CHUNK, null, true)],
    [B_CHECK, () => jsonCheck(corpus, true)],
    [B_PARSE, () => jsonCheck(corpus, false)],
  ].map(make);
}

/** The writing cases: their inputs are the prepared calls and frame objects. */
function writingCases(hep, replay) {
  return [
    [C_WRITER, () => hepWriter(hep, replay).frames],
    [C_STRINGIFY, () => jsonStringify(replay).frames],
  ].map(make);
}

/** `--only` picks the cases whose name contains one of its comma-separated parts. */
const picked = (args, name) => args.only === undefined || args.only.split(',').some((part) => name.includes(part));

const needsHep = (name) => name.startsWith('a') || name === C_WRITER;

/**
 * Makes the numbers mean something: hep's frames equal `JSON.parse` of their lines (and
 * carry them as `raw`), the checker refuses broken streams, every method reads the corpus's
 * frame count, the Writer reproduces the corpus byte for byte. Returns a line of findings.
 */
function precheck(hep, corpus, replay, names) {
  const n = corpus.frames;
  const found = [];
  if (hep !== null) {
    let withRaw = 0;
    for (const [index, data] of corpus.streams.entries()) {
      const stream = new hep.Stream({ raw: true });
      const frames = [...stream.feed(data), ...stream.endInput()];
      const objects = replay.objects[index];
      const lines = linesOf(data.toString('utf8'));
      if (frames.length !== lines.length) {
        throw new Failure(`${corpus.name} stream ${index}: ${frames.length} frames from ${lines.length} lines`);
      }
      for (let i = 0; i < lines.length; i++) {
        const frame = frames[i];
        if (!isDeepStrictEqual({ ...frame }, objects[i])) {
          throw new Failure(`${corpus.name} stream ${index} line ${i + 1}: hep reads ${JSON.stringify(frame)} `
            + `where JSON.parse reads ${lines[i]}`);
        }
        if (frame.raw !== lines[i] || frame.line !== i + 1) {
          throw new Failure(`${corpus.name} stream ${index} line ${i + 1}: the frame's raw ${JSON.stringify(frame.raw)} `
            + `or line ${frame.line} differs from\n${lines[i]}`);
        }
        for (const key of ['raw', 'line']) {
          if (Object.getOwnPropertyDescriptor(frame, key)?.enumerable !== false) {
            throw new Failure(`${corpus.name} stream ${index}: ${key} is not a non-enumerable own property of a frame`);
          }
        }
        if (typeof hep.encode === 'function' && hep.encode(frame) !== lines[i]) {
          throw new Failure(`${corpus.name} stream ${index} line ${i + 1}: hep.encode differs from the line`);
        }
        withRaw++;
      }
    }
    found.push(`hep's ${withRaw} frames deep-equal JSON.parse of their lines, carry them as raw (and their number `
      + `as line)${typeof hep.encode === 'function' ? ' and re-encode to them' : ''}`);
  }
  found.push(`the JS checker refuses ${checkerRefusesBadStreams(corpus.streams[0], CHUNK)} broken variants of a stream`);

  const counts = {};
  for (const c of [...readingCases(hep, corpus), ...writingCases(hep, replay)]) {
    if (names.has(c.name)) counts[c.name] = c.run();
  }
  if (names.has(A_TOUCH)) {
    hepStream(hep, corpus, CHUNK, null, true);
    const fromHep = touched;
    let fromJson = 0;
    for (const objects of replay.objects) for (const o of objects) fromJson += fieldsOf(o);
    if (fromHep !== fromJson) throw new Failure(`${corpus.name}: fields read from hep frames sum to ${fromHep}, from JSON.parse to ${fromJson}`);
  }
  if (names.has(C_WRITER)) {
    const { out } = hepWriter(hep, replay);
    for (const [index, lines] of out.entries()) {
      if (!Buffer.from(lines.join(''), 'utf8').equals(corpus.streams[index])) {
        const want = linesOf(corpus.streams[index].toString('utf8'));
        const at = lines.findIndex((line, i) => line !== `${want[i]}\n`);
        throw new Failure(`${corpus.name} stream ${index}: hep.Writer's replay differs from the corpus at line `
          + `${at + 1}:\n  wrote ${JSON.stringify(lines[at])}\n  want  ${JSON.stringify(want[at])}`);
      }
    }
    found.push(`hep.Writer replays the corpus byte for byte (tool_start args as objects, `
      + `${replay.argsAsText}/${replay.toolStarts} as JSON text)`);
  }
  if (names.has(C_STRINGIFY)) {
    const { out } = jsonStringify(replay);
    let identical = 0;
    for (const [index, lines] of out.entries()) {
      const want = linesOf(corpus.streams[index].toString('utf8'));
      for (let i = 0; i < lines.length; i++) if (lines[i] === `${want[i]}\n`) identical++;
    }
    found.push(`JSON.stringify reproduces ${identical}/${n} lines`);
  }
  const bad = Object.entries(counts).filter(([, v]) => v !== n);
  if (bad.length > 0) throw new Failure(`${corpus.name}: frame counts differ from the corpus's ${n}: ${JSON.stringify(bad)}`);
  let capped = 0;
  for (const objects of replay.objects) {
    for (const f of objects) {
      if (f.type === 'turn_done') for (const r of f.tool_results) if (r.text.endsWith(' chars)') && r.text.includes('…(+')) capped++;
    }
  }
  found.push(`every chosen method reads ${n} frames${hep !== null ? ' and every stream is ok/conforming' : ''}`);
  found.push(`${capped} tool results over the cap`);
  return `checks: ${found.join('; ')}`;
}

// ---------------------------------------------------------------------------------------
// Timing and report
// ---------------------------------------------------------------------------------------

const gc = globalThis.gc ?? null;

function median(values) {
  const ordered = [...values].sort((x, y) => x - y);
  return ordered[Math.floor(ordered.length / 2)];
}

/** A seeded shuffle (SplitMix32-style PRNG), so that the order of every round is reproducible. */
function shuffled(items, seed) {
  const out = [...items];
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Each case `warmup` times untimed, then `reps` timed rounds, round-robin over the cases
 * (so drift in machine load hits every case alike). Every timed round runs the cases in a
 * different (seeded) order: a run inherits the V8 heap the previous run left (how much of
 * it is committed, how large the young generation has grown), which in a fixed order would
 * always favour or penalise the same case. Each run is timed in wall time
 * (`process.hrtime.bigint`, what the ratios use) and in process CPU time
 * (`process.cpuUsage`, which also counts V8's GC and compiler threads). Before each run,
 * untimed: a full collection (with --expose-gc), then one turn of the event loop, where
 * Node runs the finalizers of the native objects that collection found dead (napi defers
 * them to the loop; a bench that never yields would keep every `Stream`'s Rust memory).
 */
async function measure(cases, frames, warmup, reps) {
  for (let rep = 0; rep < warmup + reps; rep++) {
    for (const c of rep < warmup ? cases : shuffled(cases, 0x6e6f6465 + rep)) {
      if (gc !== null) gc();
      await new Promise((resolve) => setImmediate(resolve));
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const done = c.run();
      const t1 = process.hrtime.bigint();
      const cpu = process.cpuUsage(cpu0);
      if (done !== frames) throw new Failure(`${c.name}: handled ${done} frames, expected ${frames}`);
      if (rep >= warmup) {
        c.wall.push(Number(t1 - t0) / 1e6);
        c.cpu.push((cpu.user + cpu.system) / 1e3);
      }
    }
  }
}

function table(title, cases, base, corpus) {
  const baseCase = cases.find((c) => c.name === base);
  console.log(`\n${title}`);
  console.log(`  ${'case'.padEnd(52)} ${'ms'.padStart(8)} ${'MB/s'.padStart(7)} ${'kframes/s'.padStart(9)} `
    + `${'min..max ms'.padStart(12)} ${'cpu ms'.padStart(8)} ${'hep/row'.padStart(8)}`);
  for (const c of cases) {
    const ms = median(c.wall);
    const spread = `${Math.min(...c.wall).toFixed(0)}..${Math.max(...c.wall).toFixed(0)}`;
    const ratio = baseCase ? `${(ms / median(baseCase.wall)).toFixed(2)}x` : '-';
    console.log(`  ${c.name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ${(corpus.bytes / 1e3 / ms).toFixed(1).padStart(7)} `
      + `${(corpus.frames / ms).toFixed(0).padStart(9)} ${spread.padStart(12)} ${median(c.cpu).toFixed(1).padStart(8)} `
      + `${ratio.padStart(8)}`);
  }
}

async function benchCorpus(hep, corpus, args) {
  console.log(`\ncorpus ${corpus.name.padEnd(12)} ${(corpus.bytes / 1e6).toFixed(1).padStart(7)} MB  `
    + `${String(corpus.streams.length).padStart(3)} streams  ${String(corpus.frames).padStart(9)} frames  `
    + `${(corpus.bytes / corpus.frames).toFixed(0).padStart(5)} B/frame  (scale ${corpus.scale})`);
  let replay = new Replay(corpus);
  const chosen = (c) => picked(args, c.name) && (hep !== null || !needsHep(c.name));
  const reading = readingCases(hep, corpus).filter(chosen);
  let writing = writingCases(hep, replay).filter(chosen);
  console.log(`  ${precheck(hep, corpus, replay, new Set([...reading, ...writing].map((c) => c.name)))}`);
  // Each group runs with only its own inputs alive: the readers without the writers'
  // prepared frames (a larger live heap makes every major GC slower), then the writers.
  const names = writing.map((c) => c.name);
  replay = null;
  writing = null;
  await measure(reading, corpus.frames, args.warmup, args.reps);
  if (names.length > 0) {
    replay = new Replay(corpus);
    writing = writingCases(hep, replay).filter((c) => names.includes(c.name));
    await measure(writing, corpus.frames, args.warmup, args.reps);
  } else {
    writing = [];
  }
  const cases = [...reading, ...writing];
  const busy = Math.max(...cases.map((c) => median(c.cpu) / median(c.wall)));
  if (busy > 1.15) {
    console.log(`  note: CPU time exceeded wall time by up to ${(100 * (busy - 1)).toFixed(0)}%: V8's GC and compiler `
      + 'threads ran alongside (the ratios use wall time)');
  }
  const waited = Math.max(...cases.map((c) => median(c.wall) / median(c.cpu)));
  if (waited > 1.15) {
    console.log(`  note: wall time exceeded CPU time by up to ${(100 * (waited - 1)).toFixed(0)}%: other processes `
      + 'took the CPU (the machine is busy; compare min..max)');
  }
  if (reading.length > 0) table(`${corpus.name} — reading`, reading, A_CHUNK, corpus);
  if (writing.length > 0) table(`${corpus.name} — writing`, writing, C_WRITER, corpus);
  const times = new Map(cases.map((c) => [c.name, median(c.wall)]));
  const cpuTimes = new Map(cases.map((c) => [c.name, median(c.cpu)]));
  console.log('  ratios (hep speed / alternative speed = alternative time / hep time), wall (cpu):');
  const verdicts = [];
  for (const [label, fast, slow, target, aim] of RATIOS) {
    if (!times.has(fast) || !times.has(slow)) continue;
    const ratio = times.get(slow) / times.get(fast);
    const cpu = cpuTimes.get(slow) / cpuTimes.get(fast);
    let verdict = '';
    if (target !== null) {
      verdict = `target >= ${target.toFixed(1)}x: ${ratio >= target ? 'MET' : 'MISSED'}`;
      if (aim !== null) verdict += ` (aim ${aim.toFixed(1)}x: ${ratio >= aim ? 'reached' : 'not reached'})`;
      verdicts.push({ label: `${corpus.name}: ${label}`, ratio, cpu, target, aim });
    }
    console.log(`  ${label.padEnd(52)} ${ratio.toFixed(2).padStart(6)}x (${cpu.toFixed(2)}x)   ${verdict}`);
  }
  return verdicts;
}

const USAGE = `usage: node --expose-gc bench/node/bench.mjs [options]
  --reps N          timed runs per case (median reported; default 7)
  --warmup N        untimed runs per case first (default 1)
  --scale X         corpus size (streams x scale) when dumping one, as hep-bench (default 1.0)
  --corpus NAME     only this corpus (${PROFILES.join(', ')})
  --corpus-dir DIR  read a corpus dumped earlier by \`hep-bench --dump-corpus DIR\` instead of dumping one
  --only TEXT,...    only the cases whose name contains one of these (e.g. "a1.,b1.")
Profile one case: node --cpu-prof --cpu-prof-dir DIR bench/node/bench.mjs --only "a1." --reps 3`;

function options() {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', default: '7' },
      warmup: { type: 'string', default: '1' },
      scale: { type: 'string', default: '1.0' },
      corpus: { type: 'string' },
      'corpus-dir': { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name, min) => {
    const v = Number(values[name]);
    if (!Number.isFinite(v) || v < min) throw new Failure(`--${name}: expected a number >= ${min}, got ${values[name]}`);
    return v;
  };
  if (values.corpus !== undefined && !PROFILES.includes(values.corpus)) {
    throw new Failure(`--corpus: expected one of ${PROFILES.join(', ')}, got ${values.corpus}`);
  }
  return {
    reps: Math.max(1, Math.floor(number('reps', 1))),
    warmup: Math.floor(number('warmup', 0)),
    scale: number('scale', 0),
    corpus: values.corpus,
    corpusDir: values['corpus-dir'],
    only: values.only,
  };
}

async function main() {
  const args = options();
  const wanted = [A_CHUNK, A_RAW, A_WHOLE, A_TOUCH, B_CHECK, B_PARSE, C_WRITER, C_STRINGIFY]
    .filter((name) => picked(args, name));
  if (wanted.length === 0) throw new Failure(`--only ${args.only}: no case matches`);
  const hep = wanted.some(needsHep) ? loadHep() : null;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`hep-bench (Node): ${args.warmup} warm-up + ${args.reps} timed runs per case (median reported), `
    + `${os.cpus().length} cores (${cpu})`);
  let version = '';
  if (hep !== null) {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
    const native = fs.readdirSync(PACKAGE).filter((f) => f.endsWith('.node')).join(', ');
    version = `, hep ${pkg.version} (${native})`;
  }
  console.log(`Node ${process.version} (V8 ${process.versions.v8})${version}; `
    + `${gc !== null ? 'a full GC runs (untimed) before each run' : 'no --expose-gc: no GC between runs'}`);
  console.log('MB = 10^6 bytes of the corpus (read by the parsers, written by the writers); frames = lines');
  console.log('times are wall-clock medians (process.hrtime.bigint); cpu ms = process CPU time, all threads; '
    + 'hep/row = row time / hep time (> 1.00x: hep is faster)');
  let corpora;
  let tmp = null;
  try {
    let directory = args.corpusDir;
    if (directory === undefined) {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hep-bench-corpus-'));
      directory = tmp;
      dumpCorpora(ROOT, directory, args.scale);
    }
    corpora = PROFILES.filter((name) => args.corpus === undefined || args.corpus === name)
      .map((name) => new Corpus(path.join(directory, name)));
  } finally {
    if (tmp !== null) fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (hep === null) console.log('(hep not loaded: only the alternative rows run)');
  const verdicts = [];
  for (const corpus of corpora) verdicts.push(...(await benchCorpus(hep, corpus, args)));
  if (verdicts.length > 0) {
    console.log('\nsummary (wall-time ratio; CPU-time ratio in parentheses)');
    for (const { label, ratio, cpu, target, aim } of verdicts) {
      const aimed = aim === null ? '' : `, aim ${aim.toFixed(1)}x ${ratio >= aim ? 'reached' : 'not reached'}`;
      console.log(`  ${label.padEnd(60)} ${ratio.toFixed(2).padStart(6)}x (${cpu.toFixed(2)}x)  `
        + `(target >= ${target.toFixed(1)}x${aimed}) ${ratio >= target ? 'MET' : 'MISSED'}`);
    }
  }
}

try {
  await main();
} catch (error) {
  if (error instanceof Failure) {
    console.error(`\nhep-bench (Node): FAILED: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
