'use strict';
// Supervising a harness: `spawn(command, args, options)` returns a `Run`.
//
// The child gets its own process group. Its stdout is fed to a `Stream` chunk by chunk,
// and each frame is handed over as soon as its line is complete; its stderr is kept as a
// bounded `Tail`. `cancel()` sends SIGINT to the group, then SIGTERM and SIGKILL after the
// core's grace periods. When the child exits, anything it left in its group is killed (no
// orphans), and its pipes are read only as far as they hold what it wrote: a process that
// left the group (setsid) and keeps them open cannot keep the run waiting. While a loop is
// in progress, reading pauses when too many frames wait, so a flood costs bounded memory.
// Parsing, validation, verdicts, grace periods, exit codes and the tail's bound all come
// from the core; this file only does Node I/O.

const childProcess = require('node:child_process');
const fs = require('node:fs');
const check = require('./check.js');
const { Stream, checkLimits } = require('./stream.js');
const {
  Tail,
  INTERRUPT_GRACE_MS,
  TERMINATE_GRACE_MS,
  STDERR_TAIL_BYTES,
  exitCodeForSignal,
} = require('./core.js');

// Options of ours, never passed on to child_process.spawn (`signal` and `timeout` there
// would kill the child alone, without its group and without the escalation).
const OWN = new Set([
  'strict', 'raw', 'maxLineBytes', 'limits', 'signal', 'timeoutMs', 'interruptGraceMs', 'terminateGraceMs', 'stdin',
]);
const FORBIDDEN = ['stdio', 'detached', 'timeout', 'killSignal'];

// Frames waiting for a loop in progress: past HIGH, stdout is no longer read (the child
// waits on a full pipe) until the loop has taken them down to LOW.
const QUEUE_HIGH = 4096;
const QUEUE_LOW = 1024;
const CHUNK = 64 << 10;

/** Signals the child's whole process group; a group already gone is not an error. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (error.code !== 'ESRCH' && error.code !== 'EPERM') throw error;
  }
}

/** Process groups of runs still going, killed if this Node process exits under them. */
const live = new Set();
function killLiveGroups() {
  for (const pid of live) signalGroup(pid, 'SIGKILL');
}
function track(pid) {
  if (live.size === 0) process.on('exit', killLiveGroups);
  live.add(pid);
}
function untrack(pid) {
  if (live.delete(pid) && live.size === 0) process.removeListener('exit', killLiveGroups);
}

/**
 * Reads what `socket` (a pipe from the child) holds right now, its buffer then its file
 * descriptor until it would block, hands each chunk to `use`, and destroys it.
 */
function drainAndClose(socket, use) {
  if (socket.destroyed) return;
  for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) use(chunk);
  const fd = socket._handle?.fd;
  if (Number.isInteger(fd) && fd >= 0) {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      let n;
      try {
        n = fs.readSync(fd, buffer, 0, CHUNK, null);
      } catch {
        break; // EAGAIN: nothing more was written
      }
      if (n === 0) break;
      use(Buffer.from(buffer.subarray(0, n)));
    }
  }
  socket.destroy();
}

/** A first-in first-out queue of frames with O(1) take. */
class FrameQueue {
  #items = [];
  #head = 0;

  get length() {
    return this.#items.length - this.#head;
  }

  push(frames) {
    for (const frame of frames) this.#items.push(frame);
  }

  take() {
    const frame = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return frame;
  }
}

// The longest delay of a Node timer: a longer one fires at once (TimeoutOverflowWarning).
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The option `name` (a delay in milliseconds: a grace period or `timeoutMs`), or `fallback`
 * when it is not given. Another type is a TypeError, a number out of range a RangeError.
 */
function milliseconds(value, fallback, name) {
  if (value === undefined) return fallback;
  const what = `spawn(options): ${name}`;
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number of milliseconds, not ${check.describe(value)}`);
  if (!(value >= 0 && value <= MAX_TIMER_MS)) {
    throw new RangeError(`${what} must be a number of milliseconds from 0 to ${MAX_TIMER_MS} (the longest Node timer), not ${value}`);
  }
  return value;
}

/** A running harness: `for await (const frame of run)`, `await run.result`, `await run.cancel()`. */
class Run {
  #child;
  #stream;
  #tail = new Tail(STDERR_TAIL_BYTES);
  #frames = new FrameQueue();
  #waiters = [];
  #error = null; // the error iteration throws once the frames before it are taken
  #halted = false; // stdout is drained but no longer fed (a stream error stopped it)
  #eof = false; // every frame of stdout is in the queue
  #exit = null; // { code, signal } once the child has exited
  #exited;
  #onExit;
  #outClosed = false;
  #errClosed = false;
  #spawnError = null;
  #result;
  #settle;
  #cancelling = null;
  #timedOut = false;
  #timer = null;
  #signal = null;
  #onAbort = null;
  #interruptGraceMs;
  #terminateGraceMs;
  #loops = 0; // loops in progress, which get backpressure
  #paused = false; // stdout is not read until the loops take frames

  constructor(command, args = [], options = {}) {
    if (!Array.isArray(args)) throw new TypeError('args must be an array of strings');
    for (const name of FORBIDDEN) {
      if (options[name] !== undefined) throw new TypeError(`spawn(): the option ${name} is set by hep and cannot be given`);
    }
    const { strict = false, raw = false, maxLineBytes, signal, timeoutMs, stdin = 'ignore' } = options;
    // The grace periods are the core's unless given (see INTERRUPT_GRACE_MS for why 12 s).
    this.#interruptGraceMs = milliseconds(options.interruptGraceMs, INTERRUPT_GRACE_MS, 'interruptGraceMs');
    this.#terminateGraceMs = milliseconds(options.terminateGraceMs, TERMINATE_GRACE_MS, 'terminateGraceMs');
    milliseconds(timeoutMs, undefined, 'timeoutMs');
    if (signal != null && (typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
      throw new TypeError('spawn(): signal must be an AbortSignal');
    }
    const streamOptions = { strict, raw, limits: checkLimits(options.limits, 'spawn(options): limits') };
    if (maxLineBytes !== undefined) streamOptions.maxLineBytes = maxLineBytes;
    this.#stream = new Stream(streamOptions);

    const result = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    result.catch(() => {}); // a rejection nobody awaits is not an unhandled rejection
    this.#result = result;
    this.#exited = new Promise((resolve) => {
      this.#onExit = resolve;
    });

    const popen = {};
    for (const [key, value] of Object.entries(options)) if (!OWN.has(key)) popen[key] = value;
    this.#child = childProcess.spawn(command, args, {
      ...popen,
      stdio: [stdin, 'pipe', 'pipe'],
      detached: true, // its own process group, so cancel reaches everything it started
    });
    const child = this.#child;
    if (child.pid !== undefined) track(child.pid);

    child.stdout.on('data', (chunk) => this.#feed(chunk));
    child.stdout.on('close', () => {
      this.#take(() => this.#stream.endInput());
      this.#eof = true;
      this.#outClosed = true;
      this.#wake();
      this.#settleIfDone();
    });
    child.stderr.on('data', (chunk) => this.#tail.push(chunk));
    child.stderr.on('close', () => {
      this.#errClosed = true;
      this.#settleIfDone();
    });
    child.stdout.on('error', () => {}); // a failed read ends in 'close' too
    child.stderr.on('error', () => {});
    child.on('error', (error) => {
      if (child.pid !== undefined) return; // not a spawn failure (hep never uses child.kill)
      this.#spawnError = error;
      this.#exit = { code: null, signal: null };
      this.#onExit();
      child.stdout.destroy();
      child.stderr.destroy();
      this.#settleIfDone();
    });
    child.on('exit', (code, sig) => {
      if (this.#exit !== null) return;
      this.#exit = { code, signal: sig };
      // Whatever the child left in its group could hold stdout open: kill it now.
      signalGroup(child.pid, 'SIGKILL');
      // Everything the child wrote is in its pipes by now: read that much and stop.
      drainAndClose(child.stdout, (chunk) => this.#feed(chunk));
      drainAndClose(child.stderr, (chunk) => this.#tail.push(chunk));
      this.#onExit();
      this.#settleIfDone();
    });

    // Cancels nobody awaits: the run's result tells how they ended.
    const cancelUnawaited = () => this.cancel().catch(() => {});
    if (signal != null) {
      if (signal.aborted) {
        cancelUnawaited();
      } else {
        this.#signal = signal;
        this.#onAbort = cancelUnawaited;
        signal.addEventListener('abort', this.#onAbort, { once: true });
      }
    }
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => {
        this.#timedOut = true;
        cancelUnawaited();
      }, timeoutMs);
    }
  }

  /** The child's process id, which is also its process group id (undefined if it failed to start). */
  get pid() {
    return this.#child.pid;
  }

  /** The child's stdin when spawned with `stdin: 'pipe'`, else null. */
  get stdin() {
    return this.#child.stdin;
  }

  /** The `Stream` being fed (its `violations` and `skipped` so far). */
  get stream() {
    return this.#stream;
  }

  /** Whether `timeoutMs` ran out and cancelled the run. */
  get timedOut() {
    return this.#timedOut;
  }

  /** Resolves to the `RunResult` once stdout and stderr are closed and the child is reaped. */
  get result() {
    return this.#result;
  }

  /**
   * SIGINT to the child's group; SIGTERM if it still runs after the interrupt grace, SIGKILL
   * after the terminate grace. Resolves once the child has exited. Frames written meanwhile
   * (such as `cancelled`) stay available to iteration. Calling it again returns the same promise.
   */
  cancel() {
    this.#resume(); // the child must be able to write its `cancelled`
    if (this.#cancelling === null) this.#cancelling = this.#escalate();
    return this.#cancelling;
  }

  async #escalate() {
    const steps = [['SIGINT', this.#interruptGraceMs], ['SIGTERM', this.#terminateGraceMs], ['SIGKILL', null]];
    for (const [sig, grace] of steps) {
      if (this.#exit !== null || this.#child.pid === undefined) break;
      signalGroup(this.#child.pid, sig);
      if (grace === null) break;
      if (await this.#exitWithin(grace)) return;
    }
    await this.#exited;
  }

  /** Whether the child exits within `ms`; leaves no timer behind. */
  #exitWithin(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.#exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #feed(chunk) {
    this.#take(() => this.#stream.feed(chunk));
    if (this.#loops > 0 && this.#frames.length >= QUEUE_HIGH && this.#cancelling === null && !this.#paused) {
      this.#paused = true;
      this.#child.stdout.pause();
    }
  }

  #resume() {
    if (!this.#paused) return;
    this.#paused = false;
    this.#child.stdout.resume();
  }

  /** Feeds the stream (`step` is a feed or endInput call) and queues the frames it completes. */
  #take(step) {
    if (this.#halted) return;
    try {
      this.#frames.push(step());
    } catch (error) {
      // Strict mode (or an unsupported version): the frames before the error come first.
      if (Array.isArray(error.frames)) this.#frames.push(error.frames);
      this.#error = error;
      this.#halted = true; // keep draining stdout so the child never blocks on a full pipe
    }
    this.#wake();
  }

  #wake() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #settleIfDone() {
    if (this.#exit === null || !this.#outClosed || !this.#errClosed || this.#settle === null) return;
    const { resolve, reject } = this.#settle;
    this.#settle = null;
    clearTimeout(this.#timer);
    if (this.#signal !== null) this.#signal.removeEventListener('abort', this.#onAbort);
    if (this.#child.pid !== undefined) untrack(this.#child.pid);
    if (this.#spawnError !== null) {
      this.#error ??= this.#spawnError;
      this.#wake();
      reject(this.#spawnError);
      return;
    }
    const { code, signal } = this.#exit;
    const exitCode = code !== null ? code : exitCodeForSignal(signal);
    try {
      resolve(this.#stream.finish(exitCode, this.#tail.text()));
    } catch (error) {
      reject(error);
    }
  }

  async #next() {
    for (;;) {
      if (this.#frames.length > 0) {
        const frame = this.#frames.take();
        if (this.#frames.length <= QUEUE_LOW) this.#resume();
        return { value: frame, done: false };
      }
      if (this.#error !== null) throw this.#error;
      if (this.#eof) {
        if (this.#child.pid === undefined) {
          await this.#exited; // a spawn failure surfaces after 'error'
          throw this.#spawnError;
        }
        return { value: undefined, done: true };
      }
      await new Promise((resolve) => this.#waiters.push(resolve));
    }
  }

  /**
   * Each frame as soon as its line is complete. Leaving a loop early does not stop the run:
   * a later loop goes on from the next frame (call `cancel()` to stop the child).
   */
  [Symbol.asyncIterator]() {
    let active = true;
    this.#loops += 1;
    const leave = () => {
      if (!active) return;
      active = false;
      this.#loops -= 1;
      if (this.#loops === 0) this.#resume(); // nobody takes frames: read on, keep them
    };
    const next = async () => {
      try {
        const step = await this.#next();
        if (step.done) leave();
        return step;
      } catch (error) {
        leave();
        throw error;
      }
    };
    return {
      next,
      return: async () => {
        leave();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

/** Starts `command` with `args` (a HEP emitter) and returns the `Run` supervising it. */
function spawn(command, args = [], options = {}) {
  return new Run(command, args, options);
}

module.exports = { spawn, Run };
