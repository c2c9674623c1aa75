// Helpers of the supervision tests: the children to run, process inspection, a watchdog
// (the twin of bindings-python/tests/supervise_support.py).

import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = join(HERE, '..', '..');
export const EMIT = join(HERE, 'emitters', 'emit.mjs');
export const WATCHDOG_MS = 15_000;
export const LEAK_WATCHDOG_MS = 8_000;
export const STDIO = ['detach', 'inherit'];

export const HEADER = '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}';
export const START = '{"type":"agent_start","turn_id":1}';
// Two whole lines, half of a third, then the shell kills itself with SIGKILL.
export const KILLED_MID_LINE = [
  'sh',
  ['-c', `printf '%s\\n' '${HEADER}' '${START}'; printf '%s' '{"type":"message_del'; kill -9 $$`],
];

/** The `hep` binary: $HEP_BIN, else target/debug/hep, built by `cargo build` if missing. */
export function hepBin() {
  if (process.env.HEP_BIN) return process.env.HEP_BIN;
  const local = join(REPO, 'target', 'debug', 'hep');
  try {
    accessSync(local, constants.X_OK);
  } catch {
    execFileSync('cargo', ['build', '-q', '-p', 'hep-cli'], { cwd: REPO, stdio: 'inherit' });
  }
  return local;
}

/** `[command, args]` of `hep simulate` for a scenario, at a speed (0: no delays). */
export function simulate(scenario, speed = '0') {
  return [hepBin(), ['simulate', '--scenario', scenario, '--speed', String(speed), '--color', 'never']];
}

/** `[command, args]` of the test emitter in one of its modes (see emitters/emit.mjs). */
export function emit(mode, arg = '', stdio = 'detach') {
  return [process.execPath, [EMIT, mode, String(arg), stdio]];
}

// ---- process inspection (Linux /proc) ----

/** state, ppid, pgrp, ... of a process, or null when it is gone (reaped). */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Running (a zombie, dead but not yet reaped by its parent, counts as gone). */
export function alive(pid) {
  const fields = stat(pid);
  return fields !== null && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** Exists at all, a zombie included: false once its parent has reaped it. */
export function exists(pid) {
  return stat(pid) !== null;
}

export function groupMembers(pgid) {
  const members = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = stat(Number(name));
    if (fields !== null && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') {
      members.push(Number(name));
    }
  }
  return members;
}

export async function eventually(check, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

export async function readPid(path) {
  if (!(await eventually(() => existsSync(path), 10_000))) throw new Error(`the emitter never wrote ${path}`);
  return Number(readFileSync(path, 'utf8'));
}

/** Fails unless the group is empty and none of `pids` runs, within a few seconds. */
export async function assertNoProcessLeft(pgid, ...pids) {
  const gone = () => groupMembers(pgid).length === 0 && !pids.some(alive);
  if (!(await eventually(gone))) {
    throw new Error(
      `processes left behind: group ${pgid} still holds ${groupMembers(pgid)}; alive: ${pids.filter(alive)}`,
    );
  }
}

/** Kills the child's process group if the test still waits after `ms`; `fired` says whether it did. */
export function watchdog(pid, ms = WATCHDOG_MS) {
  const dog = {
    fired: false,
    stop: () => clearTimeout(timer),
  };
  const timer = setTimeout(() => {
    dog.fired = true;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, ms);
  return dog;
}

/** Every frame left in `run`. */
export async function collect(run) {
  const frames = [];
  for await (const frame of run) frames.push(frame);
  return frames;
}

/** The frames of `run` up to and including the first one `until` accepts. */
export async function takeUntil(run, until) {
  const seen = [];
  for await (const frame of run) {
    seen.push(frame);
    if (until(frame)) break;
  }
  return seen;
}

export const types = (frames) => frames.map((f) => f.type);

// ---- misbehaving children (faults.test.mjs; the twins of supervise_support.py's) ----
//
// Each is an `sh -c` script: it writes its frames only once its traps are set, so a test
// that has read a frame knows how the child will take a signal. Every wait of theirs is
// bounded (about 30 s): a test that goes wrong fails, it never hangs.

export const DONE =
  '{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],' +
  '"usage":{"input":1,"output":1,"cost":0},"stop_reason":"stop"}';
export const CANCELLED = '{"type":"cancelled","turn_id":1}';
const WAIT_FOR_FLAG = 'i=0; while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done';
const FOREVER = 'i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done';
const lines = (...all) => `printf '%s\\n' ${all.map((l) => `'${l}'`).join(' ')}`;

/** `[command, args]` of `sh -c script sh ...args`. */
export const sh = (script, ...args) => ['sh', ['-c', script, 'sh', ...args.map(String)]];

/** Writes a whole turn, closes stdout, waits for `flag`, writes to stderr and exits 0. */
export const closesStdout = (flag) =>
  sh(
    `${lines(HEADER, START, DONE)}; exec 1>&-; echo 'stdout closed' >&2; ${WAIT_FOR_FLAG}; ` +
      "echo 'exiting after the flag' >&2; exit 0",
    flag,
  );

/** Writes the start of a turn, closes stdout and keeps running; SIGINT makes it exit 130. */
export const CLOSES_STDOUT_THEN_HANGS = sh(
  `trap 'echo got SIGINT >&2; exit 130' INT; ${lines(HEADER, START)}; exec 1>&-; ${FOREVER}; exit 3`,
);

/** Ignores SIGINT; SIGTERM makes it write `cancelled` and exit 130. */
export const ONLY_SIGTERM_STOPS = sh(
  `stop() { ${lines(CANCELLED)}; exit 130; }; trap '' INT; trap stop TERM; ${lines(HEADER, START)}; ${FOREVER}; exit 3`,
);

/** Ignores SIGINT and SIGTERM. */
export const STUBBORN = sh(`trap '' INT TERM; ${lines(HEADER, START)}; ${FOREVER}; exit 3`);

/**
 * Children that end without a terminal frame:
 * `[name, [command, args], exit code, verdict, violation codes]`.
 */
export const NO_TERMINAL = [
  ['exit 0 after agent_start', sh(`${lines(HEADER, START)}; exit 0`), 0, 'incomplete', ['unterminated_turn']],
  ['exit 3 after agent_start', sh(`${lines(HEADER, START)}; exit 3`), 3, 'incomplete', ['unterminated_turn']],
  // A run that ended before agent_start is no cut stream, but exit 0 needs a turn_done.
  [
    'exit 0 after the header',
    sh(`${lines(HEADER)}; exit 0`),
    0,
    'protocol_error',
    ['ended_before_agent_start', 'exit_code_mismatch'],
  ],
  ['exit 0 without output', sh('exit 0'), 0, 'incomplete', ['empty_stream']],
];

/**
 * Starts a background `sleep` in its group and another in a session of its own (`setsid`),
 * both holding its stdout and stderr, writes their pids to `pidfiles`.group and
 * `pidfiles`.session, writes a turn start; then `end` ('done': `turn_done`, exit 0;
 * 'cancel': waits, SIGINT makes it write `cancelled` and exit 130).
 */
export function escapes(pidfiles, end) {
  const escapee = 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60';
  const waitSession = 'i=0; while [ ! -e "$1.session" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done';
  const tail = end === 'done' ? `${lines(DONE)}; exit 0` : `${FOREVER}; exit 3`;
  return sh(
    `stop() { ${lines(CANCELLED)}; exit 130; }; trap stop INT; sleep 60 & echo $! > "$1.group"; ` +
      `setsid sh -c '${escapee}' sh "$1.session" & ${waitSession}; ${lines(HEADER, START)}; ${tail}`,
    pidfiles,
  );
}

/**
 * A Node child writing `frames` numbered deltas of `pad` bytes as fast as the pipes take
 * them, each with a line of `pad` bytes to stderr, then `turn_done` (and `stderr end`).
 */
export function flood(frames, pad) {
  const script = `
    const { writeSync } = require('node:fs');
    const pad = 'x'.repeat(${pad});
    const write = (fd, text) => { for (let b = Buffer.from(text); b.length > 0; ) {
      try { b = b.subarray(writeSync(fd, b)); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } };
    write(1, ${JSON.stringify(`${HEADER}\n${START}\n{"type":"message_start","turn_id":1,"role":"assistant"}\n`)});
    for (let i = 0; i < ${frames}; i++) {
      const n = String(i).padStart(8, '0');
      write(1, '{"type":"message_delta","turn_id":1,"delta":"' + n + ' ' + pad + '"}\\n');
      write(2, 'stderr ' + n + ' ' + pad + '\\n');
    }
    write(2, 'stderr end\\n');
    write(1, ${JSON.stringify(`${DONE}\n`)});
  `;
  return [process.execPath, ['-e', script]];
}
