// The example supervisor (examples/node/supervise.mjs) against a hostile child
// (examples/hostile/emit.sh): every text field it prints, the verdict's reasons, the
// violations and the child's stderr come out with no control character, escape sequence or
// bidi control left raw, and with that text still visible as escapes.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { sanitize } from 'hep';
import { REPO } from './supervise-support.mjs';

const EXAMPLES = join(REPO, 'examples', 'node');
const HOSTILE = join(REPO, 'examples', 'hostile', 'emit.sh');

// The emitter's payload as `sanitize` shows it, and as violation messages quote it.
const SHOWN = String.raw`\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b31m\x9d0;t\x07\x08\x0d\x7f\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\x00|`;
const QUOTED = String.raw`\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]52;c;aGk=\u{7}\u{9b}31m\u{9d}0;t\u{7}\u{8}\r\u{7f}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\0|`;
// Where the example shows each tagged field: the text just before the payload.
const SHOWN_AT = [
  '● HEP v1.HEP:',
  ' · fa FAH:',
  ' · session SESSION:',
  '\nDELTA:',
  '  ⚙ NAME:',
  '(ARGS:',
  '  │ TOOLOUT:',
  '  ⏳ LIVENAME:',
  ' · DETAIL:',
  '  ⚠ n: ACTION:',
  '  ✗ turn 1 failed: ERROR:',
  '  ✓ RESULTNAME:',
  ' done (STOP:',
  'answer      ANSWER:',
];
const QUOTED_AT = ['call "ID:', 'action "ACTION:', 'role is "ROLE:'];
const RAW_DELTA = String.raw`RAW:\x7f\x9b\x9d\u{202e}\u{2066}\u{2069}|`;
const PROSE = String.raw`(near ${'`'}PROSE:\u{202e}\x9b\x7f\x1b[2J\x0d\x08\x07|${'`'})`;
const STDERR = String.raw`STDERR:\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b\x9d\x08\x0d\x7f\u{202e}\u{2066}\x00` + '\ufffd|';

/** C0 controls but `\n` and `\t`, DEL, C1 controls, bidi overrides and isolates. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** `out` as strict UTF-8 (a lone 8-bit C1 byte fails), with no unsafe character. */
function assertSafe(label, out) {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(out);
  const bad = UNSAFE.exec(text);
  const near = bad && sanitize(text.slice(Math.max(0, bad.index - 40), bad.index + 40));
  assert.equal(bad, null, bad && `${label}: raw U+${bad[0].codePointAt(0).toString(16)} at ${bad.index}, in ${near}`);
  return text;
}

before(() => {
  // The example imports `hep` through examples/node/node_modules (a link to this package).
  if (!existsSync(join(EXAMPLES, 'node_modules', 'hep'))) {
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', '--silent'], {
      cwd: EXAMPLES,
      stdio: 'inherit',
    });
  }
});

test('the example shows a hostile stream as visible escapes', () => {
  const done = spawnSync(process.execPath, [join(EXAMPLES, 'supervise.mjs'), '--', 'sh', HOSTILE], { timeout: 60_000 });
  assert.equal(done.status, 0, done.stderr.toString());
  const out = assertSafe('stdout', done.stdout);
  const err = assertSafe('stderr', done.stderr);
  for (const at of SHOWN_AT) assert.ok(out.includes(at + SHOWN), `${JSON.stringify(at)} + payload not shown:\n${out}`);
  for (const at of QUOTED_AT) assert.ok(out.includes(at + QUOTED), `${JSON.stringify(at)} + quoted payload not shown:\n${out}`);
  assert.ok(out.includes(RAW_DELTA), out);
  assert.ok(out.includes(PROSE), out);
  assert.ok(err.includes(STDERR), err);
});

test('sanitize makes terminal escapes visible', () => {
  assert.equal(sanitize('a\u001b[31mred\u0007\n\tb\u202e'), 'a\\x1b[31mred\\x07\n\tb\\u{202e}');
});
