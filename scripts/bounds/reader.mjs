// The Node reader of `make bounds`: hep's `Stream` fed the chunks of `process.stdin` (a
// Readable) as they come.
//
// Prints one JSON line: the frames it was handed, the run's frame, line and skipped
// counts, the kinds of the skipped lines kept, the verdict (exit code 0), the seconds from
// the first read to the result, and its own peak RSS in KiB (`VmHWM` of /proc/self/status,
// and `process.resourceUsage().maxRSS`).
//
//   node reader.mjs [--max-line-bytes N]

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Stream } from '../../bindings-node/index.mjs';

/** This process's peak resident set size in KiB (`VmHWM`), or null off Linux. */
function peakRssKib() {
  try {
    const row = fs.readFileSync('/proc/self/status', 'utf8').split('\n').find((r) => r.startsWith('VmHWM:'));
    return row === undefined ? null : Number.parseInt(row.split(/\s+/)[1], 10);
  } catch {
    return null;
  }
}

const { values } = parseArgs({ options: { 'max-line-bytes': { type: 'string' } } });
const options = values['max-line-bytes'] === undefined ? {} : { maxLineBytes: Number(values['max-line-bytes']) };
const start = performance.now();
const stream = new Stream(options);
let frames = 0;
for await (const chunk of process.stdin) frames += stream.feed(chunk).length;
frames += stream.endInput().length;
const result = stream.finish(0);
const seconds = (performance.now() - start) / 1000;
const report = {
  frames,
  result_frames: result.frames,
  lines: result.lines,
  skipped: result.skippedCount,
  skipped_kinds: [...new Set(result.skipped.map((s) => s.kind))].sort(),
  verdict: result.verdict,
  seconds,
  hwm_kib: peakRssKib(),
  maxrss_kib: process.resourceUsage().maxRSS,
};
console.log(JSON.stringify(report));
