// The corpora, as the Rust generator (`hep-bench --dump-corpus DIR`) writes them: the same
// seeds and code as the Rust and Python benches, so all three measure the very same bytes.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const PROFILES = ['delta-heavy', 'tool-heavy'];

/** A failed check or workload: the bench stops rather than report a failure's speed. */
export class Failure extends Error {}

/** Has the Rust generator write its corpora under `directory`. */
export function dumpCorpora(root, directory, scale) {
  const cargo = process.env.CARGO || 'cargo';
  const args = ['run', '--release', '--quiet', '-p', 'hep-bench', '--', '--dump-corpus', directory,
    '--scale', String(scale)];
  console.log(`corpus: ${cargo} ${args.slice(0, 6).join(' ')} --dump-corpus DIR --scale ${scale}`);
  const done = spawnSync(cargo, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (done.error) throw new Failure(`dumping the corpus failed: ${done.error.message}`);
  if (done.status !== 0) {
    throw new Failure(`dumping the corpus failed (${done.status}):\n${done.stderr}${done.stdout}`);
  }
}

/** One dumped corpus: each stream's bytes, plus the writer inputs its frames lack. */
export class Corpus {
  constructor(directory) {
    const manifest = JSON.parse(fs.readFileSync(path.join(directory, 'corpus.json'), 'utf8'));
    this.name = manifest.name;
    this.scale = manifest.scale;
    this.streams = []; // Buffer per stream
    this.inputs = []; // per stream, the parsed lines of its .inputs.jsonl
    for (let index = 0; index < manifest.streams; index++) {
      const stem = path.join(directory, `stream-${String(index).padStart(4, '0')}`);
      this.streams.push(fs.readFileSync(`${stem}.jsonl`));
      const inputs = fs.readFileSync(`${stem}.inputs.jsonl`, 'utf8').split('\n').filter((line) => line !== '');
      this.inputs.push(inputs.map((line) => JSON.parse(line)));
    }
    this.bytes = this.streams.reduce((sum, s) => sum + s.length, 0);
    this.counts = this.streams.map(countLines); // lines (frames) per stream
    this.frames = this.counts.reduce((sum, n) => sum + n, 0);
    if (this.frames !== manifest.frames || this.bytes !== manifest.bytes) {
      throw new Failure(`${directory}: files hold ${this.frames} frames / ${this.bytes} bytes, `
        + `the manifest says ${manifest.frames} / ${manifest.bytes}`);
    }
    for (const [index, data] of this.streams.entries()) {
      if (data.length === 0 || data[data.length - 1] !== 0x0a) {
        throw new Failure(`${this.name} stream ${index} does not end with a newline`);
      }
    }
  }
}

function countLines(data) {
  let n = 0;
  for (let at = data.indexOf(0x0a); at !== -1; at = data.indexOf(0x0a, at + 1)) n++;
  return n;
}
