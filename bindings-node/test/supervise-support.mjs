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
