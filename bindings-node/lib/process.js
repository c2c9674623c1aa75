'use strict';
// Supervising a harness: `spawn(command, args, options)` returns a `Run`, a thin driver of
// the core's `Supervisor` (lib/supervisor.js), which holds the whole policy: the cancel
// ladder, the timeout and idle timeout, the drain after the exit, stderr lines and tail,
// backpressure and the verdict. This file only does Node I/O: it spawns the child in its
// own process group, feeds whatever its pipes deliver ('data' events) with the time,
// carries out the actions (signals to the group, pausing stdout, closing the pipes), wakes
// the supervisor at its deadline with a timer, reports the exit, tells it whether a loop is
// taking the frames (the consumer is attached only while one is in progress: a run whose
// user only awaits the result is never paused), and hands frames and stderr lines over.
// Nothing polls: every step follows an event of the child or a timer.

const childProcess = require('node:child_process');
const { EventEmitter } = require('node:events');
const check = require('./check.js');
const { requireSupervision } = require('./platform.js');
const { Supervisor } = require('./supervisor.js');
const exit = require('./exit.js');

// Options of ours, never passed on to child_process.spawn (`signal` and `timeout` there
// would kill the child alone, without its group and without the escalation).
const OWN = new Set(['strict', 'raw', 'maxLineBytes', 'limits', 'signal', 'stdin', 'cancelOnBreak']);
const TIMES = ['timeoutMs', 'idleTimeoutMs', 'interruptGraceMs', 'terminateGraceMs'];
const FORBIDDEN = ['stdio', 'detached', 'timeout', 'killSignal'];
const BATCH = 256; // events a loop takes from the supervisor at a time
const MAX_TIMER_MS = 2 ** 31 - 1; // the longest Node timer: a longer one fires at once
const now = () => performance.now();
const asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');

/** Signals the child's whole process group; a group already gone is not an error. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (error.code !== 'ESRCH' && error.code !== 'EPERM') throw error;
  }
}

/** The option `name`, a number of milliseconds up to the longest Node timer (or undefined). */
function milliseconds(value, name) {
  if (value === undefined) return undefined;
  const what = `spawn(options): ${name}`;
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number of milliseconds, not ${check.describe(value)}`);
  if (!(value >= 0 && value <= MAX_TIMER_MS)) {
    throw new RangeError(`${what} must be a number of milliseconds from 0 to ${MAX_TIMER_MS} (the longest Node timer), not ${value}`);
  }
  return value;
}

/** A running harness: `for await (const frame of run)`, `await run.result`, `await run.cancel()`. */
class Run extends EventEmitter {
  #child;
  #sup;
  #reports; // run.stream
  #frames = []; // taken from the supervisor for the loops, from #head on
  #head = 0;
  #pending = false; // events may wait in the supervisor (an input came since it was emptied)
  #paused = false; // stdout is paused for the loops (the supervisor's last word on it)
  #waiters = [];
  #error = null; // what iteration throws once the frames before it are taken
  #exited;
  #onExit;
  #gone = false; // the exit is known (or the child never started)
  #result;
  #settle;
  #timer = null;
  #due = null;
  #loops = 0; // loops in progress: the consumer is attached while there is one
  #signal = null;
  #onAbort = null;
  #cancelOnBreak;

  constructor(command, args = [], options = {}) {
    super();
    requireSupervision('spawn()');
    if (!Array.isArray(args)) throw new TypeError('args must be an array of strings');
    for (const name of FORBIDDEN) {
      if (options[name] !== undefined) throw new TypeError(`spawn(): the option ${name} is set by hep and cannot be given`);
    }
    const { strict, raw, maxLineBytes, limits, signal, stdin = 'ignore', cancelOnBreak = false } = options;
    this.#cancelOnBreak = check.boolean(cancelOnBreak, 'spawn(options): cancelOnBreak');
    const supervision = { strict, raw, maxLineBytes, limits };
    for (const name of TIMES) supervision[name] = milliseconds(options[name], name);
    if (signal != null && (typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
      throw new TypeError('spawn(): signal must be an AbortSignal');
    }
    const sup = new Supervisor(now(), supervision, 'spawn(options)');
    sup.setConsumer(now(), false); // nobody iterates yet
    this.#sup = sup;
    this.#reports = Object.freeze({
      get violations() {
        return sup.violations;
      },
      get skipped() {
        return sup.skipped;
      },
      get halted() {
        return sup.halted;
      },
    });
    this.#result = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.#result.catch(() => {}); // a rejection nobody awaits is not an unhandled rejection
    this.#exited = new Promise((resolve) => {
      this.#onExit = () => {
        this.#gone = true;
        resolve();
      };
    });

    const popen = {};
    for (const [key, value] of Object.entries(options)) if (!OWN.has(key) && !TIMES.includes(key)) popen[key] = value;
    const child = childProcess.spawn(command, args, { ...popen, stdio: [stdin, 'pipe', 'pipe'], detached: true });
    this.#child = child;
    child.stdout.on('data', (chunk) => this.#input((t) => this.#sup.stdout(t, chunk)));
    child.stderr.on('data', (chunk) => this.#input((t) => this.#sup.stderr(t, chunk)));
    child.stdout.on('close', () => this.#closed((t) => this.#sup.stdoutClosed(t)));
    child.stderr.on('close', () => this.#closed((t) => this.#sup.stderrClosed(t)));
    child.stdout.on('error', () => {}); // a failed read ends in 'close' too
    child.stderr.on('error', () => {});
    child.on('exit', (code, sig) => this.#exit(code, sig));
    child.on('error', (error) => {
      if (child.pid !== undefined) return; // not a spawn failure (hep never uses child.kill)
      this.#error = error;
      this.#onExit();
      child.stdout.destroy();
      child.stderr.destroy();
      this.#settle.reject(error);
      this.#end();
    });
    if (child.pid === undefined) return;
    exit.track(this, () => signalGroup(child.pid, 'SIGKILL'));
    if (signal != null) {
      this.#signal = signal;
      this.#onAbort = () => this.cancel();
      if (signal.aborted) this.cancel();
      else signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    this.#pump(); // arms the timer of timeoutMs and idleTimeoutMs
  }

  /** The child's process id, which is also its process group id (undefined if it failed to start). */
  get pid() {
    return this.#child.pid;
  }

  /** The child's stdin when spawned with `stdin: 'pipe'`, else null. */
  get stdin() {
    return this.#child.stdin;
  }

  /** The violations, skipped lines and halt of the stream so far. */
  get stream() {
    return this.#reports;
  }

  /** Whether `timeoutMs` ran out and cancelled the run. */
  get timedOut() {
    return this.#sup.timedOut;
  }

  /** Who cancelled the run ('user', 'timeout' or 'idle') once a cancel has started, else null. */
  get cancelledBy() {
    return this.#sup.cancelledBy;
  }

  /** Resolves to the `RunResult` once the child is reaped and its pipes are closed or drained. */
  get result() {
    return this.#result;
  }

  /**
   * SIGINT to the child's group, then SIGTERM and SIGKILL after the grace periods while it
   * runs; a further call takes the next step at once. Resolves once the child has exited.
   */
  cancel() {
    if (this.#child.pid !== undefined && this.#settle !== null) this.#input((t) => this.#sup.cancel(t, 'user'));
    return this.#exited;
  }

  /** `await using run = spawn(...)`: cancels the run if it still goes, and waits for its end. */
  async [asyncDispose]() {
    this.#cancelUnlessUnderWay();
    await this.#result.catch(() => {});
  }

  /** Starts a cancel, but never hurries one under way (as a further `cancel()` would). */
  #cancelUnlessUnderWay() {
    if (!this.#sup.cancelling) this.cancel();
  }

  /**
   * A pipe closed. If something else reaped the child (libuv then never reports its exit),
   * the pipes close and the child is gone: the run ends with an unknown exit status. Checked
   * after the I/O callbacks of this turn, where libuv reports the exits it reaped.
   */
  #closed(input) {
    this.#input(input);
    if (this.#gone) return;
    setImmediate(() => {
      if (this.#gone || this.#child.pid === undefined) return;
      try {
        process.kill(this.#child.pid, 0);
      } catch (error) {
        if (error.code === 'ESRCH') this.#exit(null, null);
      }
    });
  }

  /** The child exited with `code` or was killed by `sig` (neither: it is gone, how is unknown). */
  #exit(code, sig) {
    this.#onExit();
    this.#input((t) => this.#sup.exited(t, code, sig));
  }

  /** Tells the supervisor what happened (`input` gets the time), then does what it says. */
  #input(input) {
    this.#pending = true;
    input(now());
    this.#pump();
  }

  #pump() {
    const sup = this.#sup;
    for (let action = sup.pollAction(); action !== null; action = sup.pollAction()) this.#act(action);
    for (let line = sup.pollStderr(); line !== null; line = sup.pollStderr()) this.emit('stderr', line);
    this.#wake();
    this.#arm();
    if (sup.finished && this.#settle !== null) {
      this.#settle.resolve(sup.result());
      this.#end();
    }
  }

  #act(action) {
    const { pid, stdout, stderr } = this.#child;
    switch (action.kind) {
      case 'signal':
        signalGroup(pid, action.signal);
        break;
      case 'kill_group':
        signalGroup(pid, 'SIGKILL');
        break;
      case 'pause_stdout':
        this.#paused = true;
        stdout.pause();
        break;
      case 'resume_stdout':
        this.#paused = false;
        stdout.resume();
        break;
      case 'close_pipes':
        stdout.destroy();
        stderr.destroy();
        break;
    }
  }

  /** A loop starts (+1) or ends (-1): the consumer is attached while one is in progress. */
  #loop(change) {
    this.#loops += change;
    if (this.#loops === (change > 0 ? 1 : 0)) this.#input((t) => this.#sup.setConsumer(t, this.#loops > 0));
  }

  /** Wakes the supervisor at its deadline. */
  #arm() {
    const due = this.#settle === null || this.#child.pid === undefined ? null : this.#sup.deadline();
    if (due === this.#due) return;
    clearTimeout(this.#timer);
    this.#due = due;
    this.#timer = null;
    if (due === null) return;
    const wait = Math.max(0, due - now());
    this.#timer = setTimeout(() => {
      this.#due = null;
      this.#input((t) => this.#sup.tick(wait <= MAX_TIMER_MS ? Math.max(t, due) : t));
    }, Math.min(wait, MAX_TIMER_MS));
  }

  /** The result is settled: nothing more to wake or watch. */
  #end() {
    this.#settle = null;
    this.#arm();
    this.#signal?.removeEventListener('abort', this.#onAbort);
    exit.untrack(this);
    this.#wake();
  }

  #wake() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #next() {
    for (;;) {
      if (this.#head < this.#frames.length) {
        const frame = this.#frames[this.#head];
        this.#frames[this.#head++] = undefined;
        return { value: frame, done: false };
      }
      // Events come only from inputs, each followed by #pump: none wait until the next one.
      const events = this.#pending ? this.#sup.pollEvents(BATCH) : [];
      if (events.length < BATCH) this.#pending = false;
      if (events.length > 0) {
        this.#frames = [];
        this.#head = 0;
        for (const event of events) {
          if (event.kind === 'frame') this.#frames.push(event.frame);
          else if (event.kind === 'halted') this.#error = event.error;
        }
        // Taking events changes nothing else unless stdout is paused (then it may resume).
        if (this.#paused) this.#pump();
        continue;
      }
      if (this.#error !== null) throw this.#error;
      // (a child that failed to start ends with its error instead)
      if (!this.#sup.stdoutOpen && this.#child.pid !== undefined) return { value: undefined, done: true };
      await new Promise((resolve) => this.#waiters.push(resolve));
    }
  }

  /**
   * Each frame as soon as its line is complete. Leaving a loop early does not stop the run
   * unless `cancelOnBreak` is set: a later loop goes on from the next frame.
   */
  [Symbol.asyncIterator]() {
    let active = true;
    this.#loop(+1);
    const leave = () => {
      if (!active) return false;
      active = false;
      this.#loop(-1); // nobody takes events: read on (the supervisor bounds what waits)
      return true;
    };
    return {
      next: async () => {
        try {
          const step = await this.#next();
          if (step.done) leave();
          return step;
        } catch (error) {
          leave();
          throw error;
        }
      },
      return: async () => {
        if (leave() && this.#cancelOnBreak) this.#cancelUnlessUnderWay();
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
