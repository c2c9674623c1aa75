'use strict';
// No orphans: while runs go on, the end of this Node process cancels them.
//
// - `process.exit()`, the end of the event loop or an uncaught exception: the 'exit' hook
//   can only run synchronous code, so it takes the cancel's last step at once, SIGKILL to
//   each run's process group.
// - SIGINT, SIGTERM or SIGHUP that the program does not handle itself (no other listener):
//   Node would die at once and leave the children running. Instead each run is cancelled
//   (SIGINT to its group, then the ladder; the same signal again takes the next step at
//   once), and once every run has ended Node dies of that signal as it would have.
//   A program with its own listener decides for itself (examples/node/supervise.mjs
//   cancels its run), and the 'exit' hook still covers a `process.exit()` there.
//
// Node's spawn runs no code between fork and exec, so a child cannot be given
// PR_SET_PDEATHSIG: if Node itself is SIGKILLed, its runs outlive it (docs/node.md).

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Runs still going: run -> kill (SIGKILL to its group). */
const live = new Map();
let dying = null;

function onExit() {
  for (const kill of live.values()) kill();
}

function onSignal(signal) {
  if (process.listenerCount(signal) > 1) return; // the program handles it
  const runs = [...live.keys()];
  for (const run of runs) run.cancel(); // a repeated signal escalates
  dying ??= Promise.allSettled(runs.map((run) => run.result)).then(() => {
    uninstall();
    onExit(); // runs started meanwhile: no 'exit' event follows a death by signal
    process.kill(process.pid, signal);
  });
}

function install() {
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall() {
  process.removeListener('exit', onExit);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
}

/** Watches over `run` (its `cancel()` and `result`) until `untrack`; `kill` kills its group at once. */
function track(run, kill) {
  if (live.size === 0) install();
  live.set(run, kill);
}

function untrack(run) {
  if (live.delete(run) && live.size === 0) uninstall();
}

module.exports = { track, untrack };
