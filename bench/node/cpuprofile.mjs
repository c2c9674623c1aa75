// Summarises a V8 CPU profile (`node --cpu-prof`) by self time: the functions (and native
// frames: `(program)` is time in native code the profiler cannot attribute to JS, such as
// the addon, `(garbage collector)` is GC) where the samples landed.
//
//   node --expose-gc --cpu-prof --cpu-prof-dir /tmp/prof bench/node/bench.mjs --only a1. --reps 3
//   node bench/node/cpuprofile.mjs /tmp/prof/*.cpuprofile [--top 25] [--under measure]
//
// `--under NAME` counts only the samples taken inside a call of the function NAME (`measure`:
// the timed runs, without loading the corpus and the checks before timing).

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' }, under: { type: 'string' } }, allowPositionals: true });
if (positionals.length === 0) {
  console.error('usage: node bench/node/cpuprofile.mjs FILE.cpuprofile... [--top N]');
  process.exit(2);
}
for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inside = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) if (byId.get(at).callFrame.functionName === values.under) return true;
    return false;
  };
  const self = new Map(); // "function file:line" -> microseconds
  const deltas = profile.timeDeltas;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (values.under !== undefined && !inside(profile.samples[i])) continue;
    const { callFrame: f } = byId.get(profile.samples[i]);
    const where = f.url ? ` ${path.basename(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}${where}`;
    const dt = deltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  console.log(`${path.basename(file)}: ${(total / 1e3).toFixed(0)} ms sampled`);
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [key, us] of rows) {
    console.log(`  ${(us / 1e3).toFixed(1).padStart(9)} ms ${(100 * us / total).toFixed(1).padStart(5)}%  ${key}`);
  }
}
