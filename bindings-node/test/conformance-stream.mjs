// The `stream/` cases: whole streams fed three ways (and, when the input is UTF-8, as text and
// without `raw`), each outcome checked against `expect`; `hostile/` stream cases and the
// chunking tests share the machinery.

import { HepError, Stream } from 'hep';
import { CaseError, canonical, get, getBytes, getList, sameJson, show, text, wireType } from './conformance-support.mjs';

export const EXPECT_KEYS = [
  'frames',
  'violations',
  'skipped',
  'halted',
  'verdict',
  'reasons',
  'conforms',
  'answer',
  'usage',
  'turns',
  'violation_count',
  'skipped_count',
  'untracked_calls',
  'turns_dropped',
];

export function runStream(c) {
  checkExpect(get(c, 'expect'), observe(c));
}

/**
 * Reads a stream case's input, options and exit code, feeds the input whole, one byte at a time,
 * in 7-byte chunks, without `raw` and (when it is UTF-8) as text: the outcomes must agree. Returns
 * the outcome.
 */
export function observe(c) {
  const data = streamInput(c);
  const options = streamOptions(c);
  const exitCode = streamExitCode(c);
  const whole = outcome([data], options, exitCode, true);
  for (const [how, size] of [['one byte at a time', 1], ['in 7-byte chunks', 7]]) {
    sameJson(`fed ${how}, the outcome (vs. fed whole)`, whole, outcome(pieces(data, size), options, exitCode, true));
  }
  const noLines = (o) => ({ ...o, frames: o.frames.map(({ line, ...rest }) => rest) });
  sameJson('fed without `raw`, the outcome (vs. with it)', noLines(whole), outcome([data], options, exitCode, false));
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let asText = null;
  try {
    asText = utf8.decode(data);
  } catch {
    // Not UTF-8: fed as bytes only.
  }
  if (asText !== null) sameJson('fed as text, the outcome (vs. fed as bytes)', whole, outcome([asText], options, exitCode, true));
  return whole;
}

/** Checks every key of `expect` against the outcome `whole`. */
export function checkExpect(expect, whole) {
  if (expect === null || typeof expect !== 'object' || Array.isArray(expect)) throw new CaseError('`expect` must be an object');
  if (Object.keys(expect).length === 0) throw new CaseError('`expect` checks nothing');
  const failures = [];
  for (const [key, want] of Object.entries(expect)) {
    try {
      if (!EXPECT_KEYS.includes(key)) throw new CaseError(`unknown \`expect\` key \`${key}\``);
      const got = whole[key];
      if (key !== 'reasons' && Array.isArray(want) && Array.isArray(got)) entries(key, want, got);
      else sameJson(`\`${key}\``, want, got);
    } catch (e) {
      if (!(e instanceof CaseError)) throw e;
      failures.push(e.message);
    }
  }
  if (failures.length > 0) throw new CaseError(failures.join('\n'));
}

/** `exit_code`: an integer, or null / absent (unknown). */
export function streamExitCode(c) {
  const exitCode = c.exit_code ?? null;
  if (exitCode !== null && !Number.isInteger(exitCode)) throw new CaseError('`exit_code` must be an integer or null');
  return exitCode;
}

/** `data` cut into chunks of `size` bytes. */
export function pieces(data, size) {
  return Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size));
}

/** `input_lines` (each followed by `\n`), or `input` / `input_base64` as given. */
export function streamInput(c) {
  const hasBytes = Object.hasOwn(c, 'input') || Object.hasOwn(c, 'input_base64');
  if (!Object.hasOwn(c, 'input_lines')) return getBytes(c, 'input');
  if (hasBytes) throw new CaseError('give `input_lines` or `input`/`input_base64`, not both');
  return Buffer.concat(
    getList(c, 'input_lines').map((line) => {
      try {
        return Buffer.from(`${text(line)}\n`, 'utf8');
      } catch (e) {
        if (e instanceof CaseError) throw new CaseError(`\`input_lines\`: ${e.message}`);
        throw e;
      }
    }),
  );
}

export function streamOptions(c) {
  const options = { strict: false, maxLineBytes: 16 * 1024 * 1024 };
  const given = c.options;
  if (given === undefined || given === null) return options;
  if (typeof given !== 'object' || Array.isArray(given)) throw new CaseError('`options` must be an object');
  for (const [key, value] of Object.entries(given)) {
    if (key === 'strict') {
      if (typeof value !== 'boolean') throw new CaseError('`options.strict` must be a boolean');
      options.strict = value;
    } else if (key === 'max_line_length') {
      if (!Number.isSafeInteger(value) || value < 0) throw new CaseError('`options.max_line_length` must be an integer');
      options.maxLineBytes = value;
    } else if (key === 'limits') {
      options.limits = streamLimits(value);
    } else {
      throw new CaseError(`unknown option \`${key}\``);
    }
  }
  return options;
}

/**
 * `options.limits` (the core's names) as the `limits` option (camelCase), checked by the public
 * API itself: an unknown limit or a value that is no count fails the case.
 */
export function streamLimits(given) {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw new CaseError('`options.limits` must be an object');
  const limits = Object.fromEntries(Object.entries(given).map(([key, value]) => [key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), value]));
  try {
    new Stream({ limits });
  } catch (e) {
    throw new CaseError(`\`options.limits\`: ${e.message}`);
  }
  return limits;
}

/** Each listed entry must match the actual one key by key (`tools` entries likewise). */
function entries(path, want, got) {
  for (let i = 0; i < Math.min(want.length, got.length); i++) {
    const at = `${path}[${i}]`;
    const w = want[i];
    if (w === null || typeof w !== 'object' || Array.isArray(w)) throw new CaseError(`\`${at}\` must be an object`);
    for (const [key, wv] of Object.entries(w)) {
      if (!Object.hasOwn(got[i], key)) throw new CaseError(`\`${at}.${key}\` is no key a runner knows`);
      const gv = got[i][key];
      if (key === 'tools' && Array.isArray(wv) && Array.isArray(gv)) entries(`${at}.tools`, wv, gv);
      else sameJson(`\`${at}.${key}\``, wv, gv);
    }
  }
  if (want.length !== got.length) throw new CaseError(`\`${path}\` has ${got.length} entries instead of ${want.length}: ${show(got)}`);
}

/**
 * Everything a case can check, as JSON data (the format's snake_case), after feeding `chunks`
 * to a fresh `Stream` and finishing it with `exitCode`.
 */
export function outcome(chunks, options, exitCode, raw) {
  const stream = new Stream({ ...options, raw });
  const frames = [];
  const raised = [];
  const take = (step) => {
    let got;
    try {
      got = step();
    } catch (e) {
      if (!(e instanceof HepError)) throw e;
      // A halt (strict mode, or an unsupported version in any mode) is thrown with the
      // frames that came before it in that call.
      raised.push(e);
      got = e.frames;
    }
    for (const frame of got) {
      let form;
      try {
        form = canonical(frame);
      } catch (e) {
        if (!(e instanceof CaseError)) throw e;
        form = `<no canonical form: ${e.message}>`;
      }
      const entry = { type: wireType(frame), frame: form };
      frames.push(raw ? { line: frame.line, ...entry } : entry);
    }
  };
  for (const chunk of chunks) take(() => stream.feed(chunk));
  take(() => stream.endInput());
  const result = stream.finish(exitCode);
  const halted = result.halted === null ? null : { kind: result.halted.kind, line: result.halted.line ?? 0 };
  if (raised.length > 1) throw new CaseError(`feeding raised ${raised.length} errors; a stream halts once: ${raised.map((e) => e.message)}`);
  if (raised.length === 1) {
    const e = raised[0];
    if (show(halted) !== show({ kind: e.kind, line: e.line ?? 0 }) || e.code !== `HEP_${e.kind.toUpperCase()}`) {
      throw new CaseError(`feeding raised ${e.code} (${e.message}) but the result's halt is ${show(halted)}`);
    }
    if (stream.halted !== e) throw new CaseError('`stream.halted` is not the error feeding raised');
  }
  const skippedErrors = stream.skipped.map((e) => ({ line: e.line ?? 0, kind: e.kind, code: e.code, isHepError: e instanceof HepError }));
  const skippedRecords = result.skipped.map((s) => ({ line: s.line ?? 0, kind: s.kind, code: `HEP_${s.kind.toUpperCase()}`, isHepError: true }));
  sameJson('`stream.skipped` (against the result\'s)', skippedRecords, skippedErrors);
  sameJson('`stream.violations` (against the result\'s)', result.violations, stream.violations);
  const usage = (u) => (u === null ? null : { input: u.input, output: u.output, cost: u.cost });
  return {
    frames,
    violations: result.violations.map((v) => ({ code: v.code, severity: v.severity, line: v.line, turn_id: v.turnId })),
    skipped: result.skipped.map((s) => ({ line: s.line ?? 0, kind: s.kind })),
    halted,
    verdict: result.verdict,
    reasons: result.reasons,
    conforms: result.conforms,
    answer: result.answer,
    usage: usage(result.usage),
    violation_count: result.violationCount,
    skipped_count: result.skippedCount,
    untracked_calls: result.untrackedCalls,
    turns_dropped: result.turnsDropped,
    turns: result.turns.map((t) => ({
      turn_id: t.turnId,
      text: t.text,
      text_dropped: t.textDropped,
      end: t.end,
      message: t.message,
      error: t.error,
      stop_reason: t.stopReason,
      usage: usage(t.usage),
      compactions: t.compactions,
      compactions_dropped: t.compactionsDropped,
      bytes_dropped: t.bytesDropped,
      tools_dropped: t.toolsDropped,
      tools: t.tools.map((c) => ({
        id: c.id,
        name: c.name,
        args_summary: c.argsSummary,
        status: c.status,
        output: c.output,
        output_dropped: c.outputDropped,
        result: c.result,
        followups: c.followups.map((f) => f.action),
        followups_dropped: c.followupsDropped,
      })),
    })),
  };
}
