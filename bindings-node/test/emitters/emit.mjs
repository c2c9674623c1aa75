// A tiny HEP emitter built on the package's `Writer`, for the supervision tests
// (the twin of bindings-python/tests/emitters/emit.py).
//
//     emit.mjs wait FLAG        one round; after the first delta, waits for FLAG to exist
//     emit.mjs stderr NBYTES    one round, after writing NBYTES of numbered lines to stderr
//     emit.mjs garbage          a round with a malformed line in it
//     emit.mjs orphan PIDFILE [STDIO]   one round, leaving a `sleep` in its process group
//     emit.mjs hang PIDFILE [STDIO]     starts a `sleep` in its group, then waits; SIGINT: `cancelled`, 130
//     emit.mjs stubborn         ignores SIGINT and SIGTERM, waits forever
//     emit.mjs deaf             ignores SIGINT only, waits forever (SIGTERM ends it)
//
// The `sleep` ignores SIGINT and SIGTERM and outlives any test. STDIO is `detach` (default:
// its stdout and stderr are /dev/null) or `inherit` (it holds the child's stdout and stderr
// pipes open, as a background tool process of a real harness would).
//
// Every wait of the emitter is bounded (WAIT_LIMIT_MS): a test that goes wrong fails, it never hangs.

import { spawn } from 'node:child_process';
import { existsSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writer } from 'hep';

const WAIT_LIMIT_MS = 30_000;
const USAGE = { input: 3, output: 5, cost: 0.25 };

const [mode, arg = '', stdio = 'detach'] = process.argv.slice(2);
// `node --test test/` loads every module under test/, this one included: without a mode,
// it does nothing.
if (mode === undefined) process.exit(0);
// Each line goes out with one synchronous write: nothing waits in a buffer.
const w = new Writer((line) => writeSync(1, line), { fahVersion: '9.9.9' });
const note = (text) => writeSync(2, `emitter ${mode}: ${text}\n`);

/** Waits until `check()` holds, or the wait limit passes; whether it held. */
async function until(check) {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/**
 * Starts a grandchild in this process group that ignores SIGINT and SIGTERM (only the
 * supervisor's final SIGKILL to the group ends it); returns once it ignores them (it
 * writes its pid to `pidfile` then).
 */
async function startSleeper(pidfile) {
  const script = 'trap "" INT TERM; echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300';
  const out = stdio === 'inherit' ? 'inherit' : 'ignore';
  const sleeper = spawn('sh', ['-c', script, 'sh', pidfile], { stdio: ['ignore', out, out] });
  sleeper.unref(); // this emitter does not wait for it
  await until(() => existsSync(pidfile));
}

async function main() {
  let cancelled = false;
  w.header(`emit-${mode}`);
  if (mode === 'stubborn' || mode === 'deaf') process.on('SIGINT', () => {});
  if (mode === 'stubborn') process.on('SIGTERM', () => {});
  if (mode === 'hang') {
    process.on('SIGINT', () => {
      cancelled = true;
    });
    await startSleeper(arg);
  }
  w.agentStart();
  w.messageStart('assistant');
  if (mode === 'stderr') {
    let n = Number(arg);
    for (let i = 0; n > 0; i++) {
      const line = `stderr line ${i}\n`.slice(0, n);
      writeSync(2, line);
      n -= line.length;
    }
    writeSync(2, 'LAST STDERR LINE\n');
  }
  if (mode === 'garbage') writeSync(1, 'this is not json\n');
  w.messageDelta('waiting');
  note('first delta written');
  if (mode === 'wait' && !(await until(() => existsSync(arg)))) {
    w.turnError('the flag never came', true);
    return 1;
  }
  if (mode === 'hang') {
    await until(() => cancelled);
    w.cancelled();
    return 130;
  }
  if (mode === 'stubborn' || mode === 'deaf') {
    await sleep(WAIT_LIMIT_MS);
    return 3;
  }
  if (mode === 'orphan') await startSleeper(arg);
  w.messageDelta(' done');
  w.turnDone('waiting done', [], USAGE, 'stop');
  note('finished');
  return 0;
}

process.exit(await main());
