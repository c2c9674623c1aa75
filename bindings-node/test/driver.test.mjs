// What `spawn`, the driver of the core's Supervisor, adds for its users, on real children:
// cancel keeps reading, the idle timeout, live stderr lines, a second cancel escalating,
// `cancelOnBreak`, `await using` (Symbol.asyncDispose), and no orphans when the supervising
// Node process goes away (exit, an uncaught exception, a signal it does not handle). The
// `// START name` regions are snippets of docs/node.md.

import assert from 'node:assert/strict';
import { execFileSync, spawn as spawnChild } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { PAUSE_AT_BYTES, sanitize, spawn } from 'hep';
import {
  CANCELLED,
  DONE,
  HEADER,
  REPO,
  START,
  WATCHDOG_MS,
  alive,
  assertNoProcessLeft,
  collect,
  emit,
  eventually,
  exists,
  readPid,
  sh,
  simulate,
  takeUntil,
  types,
  watchdog,
} from './supervise-support.mjs';

const TEST = { timeout: 30_000 };
const PACKAGE = join(REPO, 'bindings-node');
let tmp;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hep-driver-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
const tmpPath = (name) => join(tmp, `${name}-${++serial}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const signalsOf = (result) => result.supervision.signals.map((s) => s.signal);

/** A stand-in for `console` whose `log` and `error` keep the lines (the doc snippets print). */
function quiet() {
  const lines = [];
  const keep = (...parts) => lines.push(parts.join(' '));
  return { lines, log: keep, error: keep };
}

// ---- cancel keeps reading ----

describe('cancel keeps reading', () => {
  test('a child blocked on a full pipe (the loop stuck) still writes cancelled: verdict cancelled on SIGINT alone', TEST, async () => {
    const run = spawn(...emit('flood'));
    const dog = watchdog(run.pid);
    const started = performance.now();
    let result = null;
    let stuck = 0;
    for await (const frame of run) {
      stuck += 1;
      if (frame.type !== 'message_delta') continue;
      // The loop takes no frame for a while: past 1 MiB waiting, the supervisor stops
      // reading, and the child blocks on its full pipe. Then the cancel, from inside the loop.
      await sleep(500);
      await run.cancel();
      result = await run.result;
      break;
    }
    const rest = await collect(run);
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.exitCode, result.conforms], ['cancelled', 130, true], result.reasons.join('; '));
    assert.deepEqual(signalsOf(result), ['SIGINT'], 'the child needed more than SIGINT');
    assert.ok(performance.now() - started < 5_000);
    assert.equal(rest.at(-1).type, 'cancelled');
    assert.equal(result.supervision.noticesDropped, 0);
    // Reading had paused: the child wrote little more than the pause threshold (1 MiB of 1 KB deltas).
    const wrote = Number(/wrote (\d+) deltas/.exec(result.stderrTail)[1]);
    assert.equal(stuck + rest.length, wrote + 4, 'every frame was delivered');
    assert.ok(wrote < 4000, `${wrote} deltas: stdout was not paused`);
  });

  test('a flooding child nobody iterates: verdict cancelled on SIGINT alone, memory bounded', TEST, async () => {
    const run = spawn(...emit('flood'));
    const dog = watchdog(run.pid);
    await once(run, 'stderr'); // "flooding": its SIGINT handler is set
    await sleep(500);
    await run.cancel();
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.exitCode, signalsOf(result)], ['cancelled', 130, ['SIGINT']], result.reasons.join('; '));
    assert.equal(result.lastTerminal, 'cancelled');
    // What waits for a later loop is bounded (16 MiB of events); the rest is counted.
    const wrote = Number(/wrote (\d+) deltas/.exec(result.stderrTail)[1]);
    const kept = (await collect(run)).length;
    assert.equal(kept + result.supervision.noticesDropped, wrote + 4);
    assert.ok(kept < 20_000, `${kept} frames waited`);
  });
});

// ---- who takes the frames: the consumer is attached only while a loop is in progress ----

describe('the consumer', () => {
  /** `[command, args]` of a child that writes `bytes` of deltas at once (`cat` of a file), then `wrote all` on stderr. */
  function bulk(bytes) {
    const file = tmpPath('bulk.hep');
    const delta = (i) => `{"type":"message_delta","turn_id":1,"delta":"${String(i).padStart(8, '0')} ${'x'.repeat(1000)}"}`;
    const count = Math.ceil(bytes / delta(0).length);
    const lines = [HEADER, START, '{"type":"message_start","turn_id":1,"role":"assistant"}'];
    for (let i = 0; i < count; i++) lines.push(delta(i));
    lines.push(DONE);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return { child: sh('cat "$1"; echo wrote all >&2', file), lines: lines.length };
  }

  test('a run whose user only awaits the result reads on past the pause threshold: it finishes, every frame kept', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child);
    const dog = watchdog(run.pid);
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired, 'the run was held up: stdout paused though nobody iterates');
    assert.deepEqual([result.verdict, result.lines, result.supervision.noticesDropped], ['ok', lines, 0]);
    assert.equal((await collect(run)).length, lines, 'the frames waited for a later loop');
  });

  test('a loop left early (no cancelOnBreak) with more than the pause threshold waiting: reading goes on', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child);
    const dog = watchdog(run.pid);
    let wroteAll = false;
    run.on('stderr', (line) => {
      wroteAll ||= line === 'wrote all';
    });
    let taken = 0;
    for await (const frame of run) {
      taken += 1;
      if (frame.type !== 'message_delta') continue;
      await sleep(300); // the loop in progress holds the child up (stdout paused)...
      break;
    }
    assert.equal(wroteAll, false, 'stdout was not paused while the loop was in progress');
    const result = await run.result; // ...and once it is left, nobody is: the run ends
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.supervision.noticesDropped], ['ok', 0]);
    assert.equal(taken + (await collect(run)).length, lines);
  });

  test('the idle clock stops while a slow loop holds stdout paused: no idle cancel', TEST, async () => {
    const { child, lines } = bulk(4 * PAUSE_AT_BYTES);
    const run = spawn(...child, { idleTimeoutMs: 800 });
    const dog = watchdog(run.pid);
    let wroteAllAt = null;
    run.on('stderr', (line) => {
      if (line === 'wrote all') wroteAllAt = performance.now();
    });
    let count = 0;
    let slept = null;
    for await (const frame of run) {
      count += 1;
      if (frame.type === 'message_delta' && slept === null) {
        await sleep(2000); // longer than the idle timeout without a frame read: the child is held up, not idle
        slept = performance.now();
      }
    }
    const result = await run.result;
    dog.stop();
    assert.ok(!dog.fired);
    assert.deepEqual([result.verdict, result.supervision.cancelledBy, run.cancelledBy], ['ok', null, null], result.reasons.join('; '));
    assert.equal(count, lines);
    assert.ok(wroteAllAt > slept, 'stdout was never paused: the test proves nothing');
  });
});

describe('a cancel under way is not hurried', () => {
  test('await using (Symbol.asyncDispose) after cancel(): SIGTERM only after the interrupt grace', TEST, async () => {
    const run = spawn(...emit('deaf'), { interruptGraceMs: 600 }); // ignores SIGINT; SIGTERM ends it
    await takeUntil(run, (f) => f.type === 'message_delta');
    run.cancel();
    assert.equal(run.cancelledBy, 'user');
    await run[Symbol.asyncDispose]();
    const result = await run.result;
    const [int, term] = result.supervision.signals;
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM']);
    assert.ok(term.atMs - int.atMs >= 600, JSON.stringify(result.supervision.signals));
  });

  test('cancelOnBreak after cancel() inside the loop: SIGTERM only after the interrupt grace', TEST, async () => {
    const run = spawn(...emit('deaf'), { interruptGraceMs: 600, cancelOnBreak: true });
    for await (const frame of run) {
      if (frame.type !== 'message_delta') continue;
      run.cancel();
      break;
    }
    const result = await run.result;
    const [int, term] = result.supervision.signals;
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM']);
    assert.ok(term.atMs - int.atMs >= 600, JSON.stringify(result.supervision.signals));
  });
});

describe('an exit nobody reports', () => {
  test('something else reaped the child (libuv never reports it): once the pipes close, the run ends without an exit code', TEST, async () => {
    // The child closes both pipes and lives on; `process.kill(pid, 0)` is made to say it is
    // gone, as it would be had another waitpid() taken it.
    const run = spawn(...sh(`printf '%s\\n' '${HEADER}' '${START}'; exec >&- 2>&-; sleep 10`));
    const dog = watchdog(run.pid);
    const kill = process.kill;
    process.kill = (pid, signal) => {
      if (pid === run.pid && signal === 0) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
      return kill.call(process, pid, signal);
    };
    try {
      const result = await run.result;
      await run.cancel(); // resolved: the child is gone
      assert.deepEqual([result.verdict, result.exitCode, result.supervision.signals], ['incomplete', null, []]);
    } finally {
      process.kill = kill;
      dog.stop();
    }
    assert.ok(!dog.fired);
    // The run's end killed its group (a reaped child leaves nothing behind there).
    assert.ok(await eventually(() => !alive(run.pid)));
  });
});

// ---- the idle timeout ----

describe('idleTimeoutMs', () => {
  // Writes a turn start and then only stderr, every 50 ms; SIGINT: `cancelled`, exit 130.
  const silent = sh(
    `stop() { printf '%s\\n' '${CANCELLED}'; exit 130; }; trap stop INT; printf '%s\\n' '${HEADER}' '${START}'; ` +
      'i=0; while [ $i -lt 600 ]; do echo still here >&2; sleep 0.05; i=$((i+1)); done; exit 3',
  );

  test('a run with no frame for that long is cancelled (stderr does not count): cancelled by idle', TEST, async () => {
    const [command, args] = silent;
    const console = quiet();
    // START idle
    const run = spawn(command, args, { idleTimeoutMs: 400 }); // no frame for 0.4 s: cancel
    const result = await run.result;
    console.log(result.verdict, result.supervision.cancelledBy); // "cancelled" "idle"
    console.log(result.reasons[0]); // "the supervisor cancelled the run: idle for 0.4 s: no frame"
    // END idle
    assert.deepEqual(console.lines, ['cancelled idle', 'the supervisor cancelled the run: idle for 0.4 s: no frame']);
    assert.equal(result.exitCode, 130);
    assert.equal(result.lastTerminal, 'cancelled');
    assert.equal(result.supervision.timedOut, false);
    assert.equal(run.timedOut, false);
    assert.ok(result.supervision.signals[0].atMs >= 400, `${result.supervision.signals[0].atMs} ms`);
    assert.match(result.stderrTail, /still here/);
  });

  test('frames keep a run alive: the simulator at speed 1 (a frame at least every 0.6 s) is never idle for 2 s', TEST, async () => {
    const run = spawn(...simulate('tools', 1), { idleTimeoutMs: 2000 });
    const result = await run.result;
    assert.deepEqual([result.verdict, result.supervision.cancelledBy], ['ok', null]);
  });

  test('timeoutMs and idleTimeoutMs: whichever comes first cancels, named in the result', TEST, async () => {
    const run = spawn(...silent, { idleTimeoutMs: 5000, timeoutMs: 300 });
    const result = await run.result;
    assert.deepEqual([result.verdict, result.supervision.cancelledBy, result.supervision.timedOut], ['cancelled', 'timeout', true]);
    assert.equal(result.reasons[0], 'the supervisor cancelled the run: timed out after 0.3 s');
    assert.equal(run.timedOut, true);
  });

  test('idleTimeoutMs is checked as the other times', () => {
    assert.throws(() => spawn('true', [], { idleTimeoutMs: -1 }), RangeError);
    assert.throws(() => spawn('true', [], { idleTimeoutMs: '5s' }), TypeError);
  });
});

// ---- live stderr ----

describe('live stderr', () => {
  test("each stderr line is a 'stderr' event as it comes, while the child runs", TEST, async () => {
    const flag = tmpPath('flag');
    const [command, args] = emit('wait', flag);
    const console = quiet();
    // START stderr
    const run = spawn(command, args);
    run.on('stderr', (line) => console.error(`harness: ${sanitize(line)}`)); // each line as it comes
    // END stderr
    const dog = watchdog(run.pid);
    assert.ok(await eventually(() => console.lines.length > 0));
    assert.ok(alive(run.pid), 'the line came only at the end');
    assert.deepEqual(console.lines, ['harness: emitter wait: first delta written']);
    writeFileSync(flag, '');
    const result = await run.result;
    dog.stop();
    assert.deepEqual(console.lines, ['harness: emitter wait: first delta written', 'harness: emitter wait: finished']);
    assert.equal(result.stderrTail, 'emitter wait: first delta written\nemitter wait: finished\n');
  });

  test("events.on(run, 'stderr') iterates the lines; a last line without newline comes at the end", TEST, async () => {
    const run = spawn('sh', ['-c', "echo one >&2; sleep 0.1; printf 'two\\r\\nthree' >&2"]);
    const lines = [];
    const stop = new AbortController();
    run.result.then(() => stop.abort());
    try {
      const { on } = await import('node:events');
      for await (const [line] of on(run, 'stderr', { signal: stop.signal })) lines.push(line);
    } catch (error) {
      if (error.name !== 'AbortError') throw error;
    }
    assert.deepEqual(lines, ['one', 'two', 'three']);
  });
});

// ---- the second cancel, cancelOnBreak ----

describe('cancel', () => {
  test('a second cancel() takes the next step at once: SIGTERM, then SIGKILL', TEST, async () => {
    const run = spawn(...emit('stubborn')); // ignores SIGINT and SIGTERM
    await takeUntil(run, (f) => f.type === 'message_delta');
    const started = performance.now();
    run.cancel(); // SIGINT
    run.cancel(); // SIGTERM at once
    await run.cancel(); // SIGKILL at once
    const result = await run.result;
    assert.ok(performance.now() - started < 2_000);
    assert.deepEqual(signalsOf(result), ['SIGINT', 'SIGTERM', 'SIGKILL']);
    assert.deepEqual([result.verdict, result.exitCode], ['incomplete', 137]);
  });

  test('cancelOnBreak: leaving a loop early cancels the child', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const [command, args] = emit('hang', pidfile);
    // START cancel-on-break
    const run = spawn(command, args, { cancelOnBreak: true });
    for await (const frame of run) {
      if (frame.type === 'message_delta') break; // cancels: SIGINT to its group, ...
    }
    const { verdict } = await run.result; // "cancelled"
    // END cancel-on-break
    assert.equal(verdict, 'cancelled');
    assert.deepEqual(types(await collect(run)), ['cancelled']);
    await assertNoProcessLeft(run.pid, await readPid(pidfile));
  });

  test('without cancelOnBreak, a loop left early leaves the run going', TEST, async () => {
    const flag = tmpPath('flag');
    const run = spawn(...emit('wait', flag));
    await takeUntil(run, (f) => f.type === 'message_delta');
    await sleep(100);
    assert.ok(alive(run.pid));
    writeFileSync(flag, '');
    assert.equal((await run.result).verdict, 'ok');
  });

  test('a loop that throws also counts as leaving early', TEST, async () => {
    const run = spawn(...emit('hang', tmpPath('sleeper.pid')), { cancelOnBreak: true });
    await assert.rejects(async () => {
      for await (const frame of run) if (frame.type === 'message_delta') throw new Error('the consumer failed');
    }, /the consumer failed/);
    assert.equal((await run.result).verdict, 'cancelled');
  });
});

// ---- await using ----

describe('Symbol.asyncDispose', () => {
  test('run[Symbol.asyncDispose]() cancels the run and waits for its end', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const run = spawn(...emit('hang', pidfile));
    await takeUntil(run, (f) => f.type === 'message_delta');
    await run[Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose')]();
    assert.ok(!exists(run.pid), 'not reaped when dispose resolved');
    assert.equal((await run.result).verdict, 'cancelled');
    await assertNoProcessLeft(run.pid, await readPid(pidfile));
    await run[Symbol.asyncDispose](); // once it has ended, nothing more
  });

  test('await using (TypeScript, compiled for Node 20): the run is cancelled when the block is left', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const source = `
      import { spawn, type Run } from 'hep';
      const [command, args] = JSON.parse(process.argv[1]!) as [string, string[]];
      let kept: Run | undefined;
      {
        // START await-using
        await using run = spawn(command, args);
        for await (const frame of run) {
          if (frame.type === 'message_delta') break; // leaving the block cancels the run and waits for it
        }
        // END await-using
        kept = run;
      }
      const result = await kept.result; // settled already
      console.log(JSON.stringify({ pid: kept.pid, verdict: result.verdict }));
    `;
    const ts = createRequire(join(PACKAGE, 'package.json'))('typescript');
    const { outputText, diagnostics } = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      reportDiagnostics: true,
    });
    assert.deepEqual(diagnostics, []);
    assert.ok(!outputText.includes('await using'), 'TypeScript left `await using` for Node 20 to parse');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', outputText, JSON.stringify(emit('hang', pidfile))], {
      cwd: PACKAGE,
      timeout: WATCHDOG_MS,
    });
    const { pid, verdict } = JSON.parse(out.toString());
    assert.equal(verdict, 'cancelled');
    await assertNoProcessLeft(pid, await readPid(pidfile));
  });
});

// ---- no orphans when the supervising process goes away ----

describe('no orphans when Node goes away', () => {
  /** Starts a Node script that spawns `emit('hang')`, prints the child's pid, then does `then`. */
  function supervisor(pidfile, then) {
    const [command, args] = emit('hang', pidfile);
    const script = `
      import { spawn } from 'hep';
      import { existsSync } from 'node:fs';
      const run = spawn(${JSON.stringify(command)}, ${JSON.stringify(args)});
      while (!existsSync(${JSON.stringify(pidfile)})) await new Promise((r) => setTimeout(r, 10));
      console.log(run.pid);
      ${then}
    `;
    return spawnChild(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** The pid the script prints, its exit code and signal, its stderr. */
  async function outcome(child, signal = null) {
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => {
      out += b;
      if (signal !== null && out.includes('\n')) child.kill(signal);
    });
    child.stderr.on('data', (b) => (err += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), WATCHDOG_MS);
    const [code, sig] = await once(child, 'exit');
    clearTimeout(timer);
    return { pid: Number(out.trim().split('\n')[0]), code, signal: sig, err };
  }

  test('an uncaught exception: the run is killed with its group', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const { pid, code, err } = await outcome(supervisor(pidfile, "throw new Error('the supervisor failed');"));
    assert.equal(code, 1);
    assert.match(err, /the supervisor failed/);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  test('an unhandled rejection: the same', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const { pid, code } = await outcome(supervisor(pidfile, "Promise.reject(new Error('nobody catches this'));"));
    assert.equal(code, 1);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    test(`${signal} that the program does not handle: the run is cancelled (its cancelled frame written), then Node dies of ${signal}`, TEST, async () => {
      const pidfile = tmpPath('sleeper.pid');
      const then = `
        run.result.then((r) => console.error('result', r.verdict, r.exitCode, r.lastTerminal));
        setInterval(() => {}, 1000); // would run forever
      `;
      const { pid, code, signal: died, err } = await outcome(supervisor(pidfile, then), signal);
      assert.deepEqual([code, died], [null, signal]);
      assert.match(err, /result cancelled 130 cancelled/);
      await assertNoProcessLeft(pid, pid, await readPid(pidfile));
    });
  }

  test('a program that handles the signal itself decides (here: it exits, and the exit hook kills the run)', TEST, async () => {
    const pidfile = tmpPath('sleeper.pid');
    const then = `
      process.on('SIGTERM', () => { console.error('handled'); process.exit(7); });
      setInterval(() => {}, 1000);
    `;
    const { pid, code, err } = await outcome(supervisor(pidfile, then), 'SIGTERM');
    assert.equal(code, 7);
    assert.match(err, /handled/);
    await assertNoProcessLeft(pid, pid, await readPid(pidfile));
  });

  test('Node SIGKILLed: no hook can run, the run outlives it; under setpriv --pdeathsig the child dies with Node', TEST, async (t) => {
    try {
      execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    } catch {
      t.skip('no setpriv (util-linux) here');
      return;
    }
    const script = `
      import { spawn } from 'hep';
      const [command, args] = JSON.parse(process.argv[1]);
      const plain = spawn(command, args);
      // START pdeathsig
      const run = spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]); // Linux: dies with Node
      // END pdeathsig
      console.log(plain.pid, run.pid);
      setInterval(() => {}, 1000);
    `;
    const child = spawnChild(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(['sleep', ['20']])], {
      cwd: PACKAGE,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(child.stdout, 'data');
    const [plain, guarded] = line.toString().trim().split(' ').map(Number);
    try {
      assert.ok(alive(plain) && alive(guarded));
      child.kill('SIGKILL');
      await once(child, 'exit');
      assert.ok(await eventually(() => !alive(guarded)), 'the child under setpriv outlived Node');
      await sleep(200);
      assert.ok(alive(plain), 'expected the documented limit: without PR_SET_PDEATHSIG the child outlives a SIGKILLed Node');
    } finally {
      for (const pid of [plain, guarded]) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  test('a finished run leaves no listener behind', TEST, async () => {
    const before = ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e));
    const run = spawn(...simulate('chat'));
    assert.deepEqual(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e)),
      before.map((n) => n + 1),
    );
    await run.result;
    assert.deepEqual(
      ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((e) => process.listenerCount(e)),
      before,
    );
  });
});
