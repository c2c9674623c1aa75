// Packaging, the napi-rs way: the main package `hep` holds the JavaScript, the types and the
// generated loader (native.cjs), and each platform's addon is a package of its own
// (npm/<platform>/, made by `napi create-npm-dirs`) that the release lists as an optional
// dependency of `hep` (`napi pre-publish`; scripts/release-check/node.sh proves that route
// against a registry on loopback). Here: `npm pack` both for this platform, install the two
// tarballs into a fresh project (offline: no runtime dependency), and use the package there
// through `require`, `import` and the npm page's first example; the generated files (the
// loader, the platform packages) are what the napi-rs CLI writes today.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NapiCli } from '@napi-rs/cli';
import { HEADER, LOADER, PACKAGE, loaderText } from '../scripts/loader.mjs';
import { REPO, hepBin } from './supervise-support.mjs';

const LINE = '{"type":"message_delta","turn_id":1,"delta":"hé"}';
/** The addon built here, `hep.<platform>.node`, and napi-rs's name of its platform. */
const ADDON = readdirSync(PACKAGE).find((f) => /^hep\.[a-z0-9-]+\.node$/.test(f));
const PLATFORM = ADDON.split('.')[1];

describe('the packed packages', () => {
  let dir;
  let main;
  let native;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hep-pack-'));
    const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
    const pack = (cwd) => JSON.parse(npm(['pack', '--json', '--pack-destination', dir], cwd))[0];
    main = pack(PACKAGE);
    // What the release does for each platform (`napi artifacts`): its addon into its package.
    const platform = join(dir, PLATFORM);
    cpSync(join(PACKAGE, 'npm', PLATFORM), platform, { recursive: true });
    cpSync(join(PACKAGE, ADDON), join(platform, ADDON));
    execFileSync(process.execPath, [join(PACKAGE, 'scripts', 'licenses.mjs'), platform]);
    native = pack(platform);
    const project = join(dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), '{"name": "consumer", "version": "1.0.0", "private": true}\n');
    npm(['install', '--offline', join(dir, main.filename), join(dir, native.filename)], project);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('hep holds the entry points, the JavaScript, the types, the loader, its README and licenses, and no addon', () => {
    const files = main.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'LICENSE', 'index.js', 'index.mjs', 'index.d.ts', 'frames.d.ts', LOADER]) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    for (const f of ['addon', 'batch', 'platform', 'process', 'read', 'stream', 'writer']) assert.ok(files.includes(`lib/${f}.js`), `lib/${f}.js is packed`);
    const stray = files.filter((f) => !/^(package\.json|README\.md|LICENSE|index\.(js|mjs|d\.ts)|frames\.d\.ts|native\.cjs|lib\/[a-z]+\.js)$/.test(f));
    assert.deepEqual(stray, []);
    assert.equal(main.name, 'hep');
  });

  test('both carry the two license texts, as the repository has them', () => {
    const text = readFileSync(join(dir, 'project', 'node_modules', 'hep', 'LICENSE'), 'utf8');
    for (const file of ['LICENSE-MIT', 'LICENSE-APACHE']) assert.ok(text.includes(readFileSync(join(REPO, file), 'utf8').trimEnd()), file);
    assert.equal(readFileSync(join(dir, 'project', 'node_modules', `hep-${PLATFORM}`, 'LICENSE'), 'utf8'), text);
  });

  test(`hep-${PLATFORM} holds the addon, its README and licenses, and nothing else`, () => {
    assert.deepEqual(native.files.map((f) => f.path).sort(), ['LICENSE', 'README.md', ADDON, 'package.json'].sort());
    assert.deepEqual([native.name, native.version], [`hep-${PLATFORM}`, main.version]);
  });

  const run = (args, env = {}) =>
    execFileSync(process.execPath, args, { cwd: join(dir, 'project'), encoding: 'utf8', env: { ...process.env, ...env } }).trim();

  test('require("hep") works in the project, with the addon of the platform package', () => {
    const script = `
      const hep = require('hep');
      const frame = hep.parseLine(${JSON.stringify(LINE)});
      const lines = [];
      const writer = new hep.Writer((l) => lines.push(l), { fahVersion: '1' });
      writer.messageDelta('hé');
      const addons = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
      console.log(JSON.stringify([frame, hep.encode(frame), lines, require.resolve('hep').includes('node_modules'), addons]));`;
    const [frame, encoded, lines, installed, addons] = JSON.parse(run(['-e', script]));
    assert.deepEqual([frame, encoded, lines, installed], [{ type: 'message_delta', turn_id: 1, delta: 'hé' }, LINE, [`${LINE}\n`], true]);
    assert.deepEqual(addons, [join(dir, 'project', 'node_modules', `hep-${PLATFORM}`, ADDON)]);
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

  test("the npm page's first example runs in the project: the simulator's text, then verdict ok", () => {
    cpSync(join(REPO, 'examples', 'node', 'first.mjs'), join(dir, 'project', 'first.mjs'));
    const out = run(['first.mjs'], { HEP_BIN: hepBin() });
    assert.match(out, /^First, a quick look at the notes/);
    assert.match(out, /\nverdict: ok, exit code 0$/);
  });
});

describe('the generated files', () => {
  test(`${LOADER} is the loader @napi-rs/cli generates for this package (else: npm run loader)`, async () => {
    const committed = readFileSync(join(PACKAGE, LOADER), 'utf8');
    assert.ok(committed.startsWith(HEADER), `${LOADER} says it is generated in its first line`);
    assert.ok(committed === (await loaderText()), `${LOADER} is stale: run \`npm run loader\` in bindings-node`);
  });

  test('the loader tells musl from glibc by /usr/bin/ldd, never calling process.report.getReport here (docs/node.md)', { skip: process.platform !== 'linux' }, () => {
    const script = `
      process.report.getReport = () => { throw new Error('process.report.getReport() was called'); };
      console.log(typeof require(${JSON.stringify(join(PACKAGE, LOADER))}).NativeStream);`;
    assert.equal(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim(), 'function');
  });

  test('npm/<platform>/ are what `napi create-npm-dirs` writes from package.json', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'hep-npm-dirs-'));
    try {
      cpSync(join(PACKAGE, 'package.json'), join(scratch, 'package.json'));
      await new NapiCli().createNpmDirs({ cwd: scratch });
      const tracked = (root) =>
        readdirSync(root, { recursive: true })
          .filter((f) => /^[a-z0-9-]+\/(package\.json|README\.md)$/.test(f))
          .sort()
          .map((f) => [f, readFileSync(join(root, f), 'utf8')]);
      const expected = tracked(join(scratch, 'npm'));
      assert.equal(expected.length, 2 * JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).napi.targets.length);
      assert.deepEqual(tracked(join(PACKAGE, 'npm')), expected, 'stale: run `npx napi create-npm-dirs` in bindings-node');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test("the README's example is tested code (examples/node/first.mjs)", () => {
    execFileSync(process.execPath, [join(REPO, 'examples', 'node', 'check_docs.mjs'), join(PACKAGE, 'README.md')], { encoding: 'utf8' });
  });
});
