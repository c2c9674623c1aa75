// Packaging: `npm pack` the package, install the tarball into a fresh project (offline: it has
// no runtime dependency), and use it there through `require` and `import`.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const LINE = '{"type":"message_delta","turn_id":1,"delta":"hé"}';

describe('the packed package', () => {
  let dir;
  let packed;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hep-pack-'));
    const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
    [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], PACKAGE));
    const project = join(dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), '{"name": "consumer", "version": "1.0.0", "private": true}\n');
    npm(['install', '--offline', join(dir, packed.filename)], project);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('holds the entry points, the JavaScript, the types and the addon for this platform, and nothing else', () => {
    const files = packed.files.map((f) => f.path).sort();
    const addons = files.filter((f) => /^hep\.[a-z0-9-]+\.node$/.test(f));
    assert.equal(addons.length, 1, `one addon: ${addons}`);
    for (const f of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'frames.d.ts', 'lib/native.js', 'lib/batch.js', 'lib/stream.js', 'lib/writer.js', 'lib/process.js', 'lib/read.js']) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    const stray = files.filter((f) => !/^(package\.json|index\.(js|mjs|d\.ts)|frames\.d\.ts|lib\/[a-z]+\.js|hep\.[a-z0-9-]+\.node|README\.md)$/.test(f));
    assert.deepEqual(stray, []);
  });

  const run = (args) => execFileSync(process.execPath, args, { cwd: join(dir, 'project'), encoding: 'utf8' }).trim();

  test('require("hep") works in the project', () => {
    const script = `
      const hep = require('hep');
      const frame = hep.parseLine(${JSON.stringify(LINE)});
      const lines = [];
      const writer = new hep.Writer((l) => lines.push(l), { fahVersion: '1' });
      writer.messageDelta('hé');
      console.log(JSON.stringify([frame, hep.encode(frame), lines, require.resolve('hep').includes('node_modules')]));`;
    assert.deepEqual(JSON.parse(run(['-e', script])), [
      { type: 'message_delta', turn_id: 1, delta: 'hé' },
      LINE,
      [`${LINE}\n`],
      true,
    ]);
  });

  test('import("hep") gives the same objects, as named and default exports', () => {
    const script = `
      import hep, { parseLine, Stream, spawn, read, HepError } from 'hep';
      import { createRequire } from 'node:module';
      const cjs = createRequire(import.meta.url)('hep');
      const same = Object.keys(cjs).every((k) => hep[k] === cjs[k]) && parseLine === cjs.parseLine && Stream === cjs.Stream;
      const frames = new Stream().feed(${JSON.stringify(`${LINE}\n`)});
      let code = null;
      try { parseLine('{'); } catch (e) { code = e instanceof HepError ? e.code : 'not a HepError'; }
      console.log(JSON.stringify([same, Object.keys(cjs).length, frames, code, typeof spawn, typeof read]));`;
    const [same, count, frames, code, spawnType, readType] = JSON.parse(run(['--input-type=module', '-e', script]));
    assert.equal(same, true);
    assert.ok(count >= 25);
    assert.deepEqual(frames, [{ type: 'message_delta', turn_id: 1, delta: 'hé' }]);
    assert.deepEqual([code, spawnType, readType], ['HEP_SYNTAX', 'function', 'function']);
  });
});
