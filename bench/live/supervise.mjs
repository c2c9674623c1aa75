// The Node supervisor of `make bench-live` (bench/live/run.sh runs it; see the "Live
// latency and many runs" section of bench/README.md), on the npm package's `spawn`.
//
//   node supervise.mjs latency --frames N -- CHILD [ARGS...]
//   node supervise.mjs many --runs R --expect F -- CMD [ARGS...]
//
// `latency` runs the child once and, for each timed frame (a `message_delta` or
// `tool_delta` whose text starts with the CLOCK_MONOTONIC time it was written, see
// rust/child.rs; `process.hrtime.bigint()` reads the same clock), records how long after
// its writing the `for await` loop got it. `many` runs R copies of CMD at once, reading
// every frame's type, and reports the wall time, the process's CPU time
// (`process.cpuUsage()`), the frames delivered, the peak of its thread count
// (/proc/self/status, sampled every 5 ms) and how many runs ended with verdict ok and F
// frames. Each prints one JSON line for live.py.
import fs from 'node:fs';
import { spawn } from '../../bindings-node/index.mjs';

const USAGE = 'usage: supervise.mjs latency --frames N -- CHILD... | many --runs R --expect F -- CMD...';

/** The time a timed frame was written, from the start of its text (or undefined). */
function sentNs(frame) {
  const text = frame.type === 'message_delta' ? frame.delta : frame.type === 'tool_delta' ? frame.update : undefined;
  return text === undefined ? undefined : BigInt(text.slice(0, text.indexOf(' ')));
}

async function latency(command, frames) {
  const latencies = [];
  const run = spawn(command[0], command.slice(1));
  for await (const frame of run) {
    const now = process.hrtime.bigint();
    const sent = sentNs(frame);
    if (sent !== undefined) latencies.push(Number(now - sent));
  }
  const { verdict } = await run.result;
  console.log(JSON.stringify({ verdict, expected: frames, bad: 0, latencies_ns: latencies }));
}

function threads() {
  const match = /^Threads:\s+(\d+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  if (!match) throw new Error('/proc/self/status has no Threads line');
  return Number(match[1]);
}

async function many(command, runs, expect) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let frames = 0;
  let ok = 0;
  let peak = threads();
  const sampler = setInterval(() => (peak = Math.max(peak, threads())), 5);
  const one = async () => {
    let seen = 0;
    const run = spawn(command[0], command.slice(1));
    for await (const frame of run) {
      if (frame.type !== undefined) seen += 1; // what a supervisor does with a frame: look at it
    }
    const { verdict } = await run.result;
    frames += seen;
    if (verdict === 'ok' && seen === expect) ok += 1;
  };
  await Promise.all(Array.from({ length: runs }, one));
  clearInterval(sampler);
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuS = (used.user + used.system) / 1e6;
  peak = Math.max(peak, threads());
  console.log(JSON.stringify({ runs, ok, frames, wall_s: +wall.toFixed(3), cpu_s: +cpuS.toFixed(4), peak_threads: peak }));
}

const args = process.argv.slice(2);
const split = args.indexOf('--');
if (split < 0 || split === args.length - 1) {
  console.error(USAGE);
  process.exit(2);
}
const head = args.slice(0, split).join(' ');
const command = args.slice(split + 1);
let match;
if ((match = /^latency --frames (\d+)$/.exec(head))) await latency(command, Number(match[1]));
else if ((match = /^many --runs (\d+) --expect (\d+)$/.exec(head))) await many(command, Number(match[1]), Number(match[2]));
else {
  console.error(`unknown arguments ${head} (${USAGE})`);
  process.exit(2);
}
