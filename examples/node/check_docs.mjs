// Checks that every JavaScript snippet of docs/node.md is tested code.
//
// Each ```js (or ```ts) block of the doc must be tagged with a `<!-- snippet: NAME -->`
// line just above its opening fence, and its text must be exactly the region between
// `// START NAME` and `// END NAME` in examples/node/*.mjs or bindings-node/test/*.mjs
// (dedented, marker lines of nested regions left out). Those files run in `make test`, so
// the doc shows code that runs.
//
//     node examples/node/check_docs.mjs [DOC]
//
// Exit 0 when every snippet matches; 1 with both texts per mismatch otherwise.

import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DOC = join(REPO, 'docs', 'node.md');
const SOURCES = [join(REPO, 'examples', 'node'), join(REPO, 'bindings-node', 'test')];
const LANGUAGES = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);

const MARKER = /^\s*\/\/ (START|END) ([\w.-]+)\s*$/;
const TAG = /^<!-- snippet: ([\w.-]+) -->\s*$/;
const FENCE = /^(```+|~~~+)(.*)$/;

/** Removes the indentation common to every non-blank line, and blank lines at both ends. */
function dedent(lines) {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => l.match(/^ */)[0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return lines
    .map((l) => (l.trim() === '' ? '' : l.slice(cut)))
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/** Every `// START name` ... `// END name` region: name -> { text, where }. */
function regions(errors) {
  const found = new Map();
  for (const folder of SOURCES) {
    const files = readdirSync(folder).filter((f) => f.endsWith('.mjs')).sort();
    for (const file of files) {
      const where = relative(REPO, join(folder, file));
      const open = new Map(); // name -> { line, body }
      readFileSync(join(folder, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const number = index + 1;
          const marker = MARKER.exec(line);
          if (marker === null) {
            for (const region of open.values()) region.body.push(line);
            return;
          }
          const [, kind, name] = marker;
          if (kind === 'START') {
            if (open.has(name) || found.has(name)) errors.push(`${where}:${number}: region '${name}' started twice`);
            open.set(name, { line: number, body: [] });
          } else if (!open.has(name)) {
            errors.push(`${where}:${number}: \`// END ${name}\` without its START`);
          } else {
            found.set(name, { text: dedent(open.get(name).body), where: `${where}:${number}` });
            open.delete(name);
          }
        });
      for (const [name, region] of open) errors.push(`${where}:${region.line}: region '${name}' is never ended`);
    }
  }
  return found;
}

/** Every js/ts block of the doc: { name, text, line }. */
function snippets(doc, name, errors) {
  const lines = readFileSync(doc, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]);
    if (fence === null) continue;
    const [, ticks, info] = fence;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !(lines[i].startsWith(ticks) && lines[i].trim() === ticks); i++) body.push(lines[i]);
    if (i === lines.length) errors.push(`${name}:${start + 1}: code block is never closed`);
    if (!LANGUAGES.has(info.trim().split(/\s+/)[0])) continue;
    const tag = start > 0 ? TAG.exec(lines[start - 1]) : null;
    if (tag === null) {
      errors.push(`${name}:${start + 1}: code block without a \`<!-- snippet: NAME -->\` line above`);
      continue;
    }
    blocks.push({ name: tag[1], text: body.join('\n').replace(/^\n+|\n+$/g, ''), line: start + 1 });
  }
  return blocks;
}

/** The first lines where `doc` departs from `expected`: `-` the tested code, `+` the doc. */
function diff(expected, doc) {
  const a = expected.split('\n');
  const b = doc.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const shown = (lines, mark) => lines.slice(i, i + 3).map((l) => `${mark} ${l}`);
  return [`  at line ${i + 1} of the snippet:`, ...shown(a, '-'), ...shown(b, '+')].join('\n');
}

function main(argv) {
  const doc = argv[0] ?? DOC;
  const docName = relative(REPO, doc).startsWith('..') ? doc : relative(REPO, doc);
  const errors = [];
  const found = regions(errors);
  const blocks = snippets(doc, docName, errors);
  for (const { name, text, line } of blocks) {
    const region = found.get(name);
    if (region === undefined) {
      errors.push(`${docName}:${line}: snippet '${name}' has no \`// START ${name}\` region`);
    } else if (text !== region.text) {
      errors.push(`${docName}:${line}: snippet '${name}' differs from its region in ${region.where}\n${diff(region.text, text)}`);
    }
  }
  for (const error of errors) console.error(error);
  if (errors.length > 0) {
    console.error(`check_docs: ${errors.length} problem(s) in ${docName}`);
    return 1;
  }
  const shown = new Set(blocks.map((b) => b.name));
  const unused = [...found.keys()].filter((n) => !shown.has(n)).sort();
  const note = unused.length > 0 ? ` (regions not shown: ${unused.join(', ')})` : '';
  console.log(`check_docs: ${blocks.length} snippets of ${docName} match the tested code${note}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
