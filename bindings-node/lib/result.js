'use strict';
// The run result and the records it holds, as plain objects with camelCase keys, converted
// from the core's serialization (`hep watch --json` prints the same data in snake_case).

/** A breach of a consumer guarantee; `line` is 0 for end-of-stream checks. */
function violation(v) {
  return { code: v.code, severity: v.severity, line: v.line, turnId: v.turn_id, message: v.message };
}

/** A line that could not be read (or the error that halted the stream). */
function skippedLine(e) {
  return {
    kind: e.kind,
    line: e.line === 0 ? null : e.line,
    column: e.column === 0 ? null : e.column,
    message: e.message,
    excerpt: e.excerpt,
  };
}

function liveness(l) {
  return { action: l.action, elapsedMs: l.elapsed_ms, outputBytes: l.output_bytes, detail: l.detail };
}

function toolCall(c) {
  return {
    id: c.id,
    name: c.name,
    argsSummary: c.args_summary,
    status: c.status,
    output: c.output,
    outputDropped: c.output_dropped,
    result: c.result,
    lastLiveness: c.last_liveness === null ? null : liveness(c.last_liveness),
    followups: c.followups.map(liveness),
    followupsDropped: c.followups_dropped,
  };
}

function turn(t) {
  return {
    turnId: t.turn_id,
    text: t.text,
    textDropped: t.text_dropped,
    tools: t.tools.map(toolCall),
    toolsDropped: t.tools_dropped,
    end: t.end,
    message: t.message,
    usage: t.usage,
    stopReason: t.stop_reason,
    error: t.error,
    compactions: t.compactions,
    compactionsDropped: t.compactions_dropped,
    bytesDropped: t.bytes_dropped,
  };
}

/**
 * Defines `key` on `object` as an enumerable property computed by `compute` when first read
 * (then kept as a plain data property), so that the bulk of a result costs nothing unread.
 */
function lazy(object, key, compute) {
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = compute();
      Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(value) {
      Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
}

/** The supervision report of a supervised run (the core's `Supervision`), or null. */
function supervision(s) {
  if (s === null || s === undefined) return null;
  return {
    timedOut: s.timed_out,
    cancelledBy: s.cancelled_by,
    signals: s.signals.map((x) => ({ atMs: x.at_ms, signal: x.signal })),
    stderrTail: s.stderr_tail,
    stderrDropped: s.stderr_dropped,
    noticesDropped: s.notices_dropped,
    durationMs: s.duration_ms,
  };
}

/**
 * The `RunResult` of the core's result `s` (its summary, parsed) with the stderr tail given
 * (a supervised result's `supervision` gives its own).
 * `turns` and `toolCalls` are converted from `coreTurns()` (the core's turns, parsed) when
 * first read: the bulk of a result, they cost nothing when unread.
 */
function runResult(s, coreTurns, stderrTail) {
  const result = {
    verdict: s.verdict,
    reasons: s.reasons,
    exitCode: s.exit_code,
    conforms: s.conforms,
    answer: s.answer,
    usage: s.usage,
    turns: null,
    turnsDropped: s.turns_dropped,
    toolCalls: null,
    violations: s.violations.map(violation),
    violationCount: s.violation_count,
    skipped: s.skipped.map(skippedLine),
    skippedCount: s.skipped_count,
    untrackedCalls: s.untracked_calls,
    halted: s.halted === null ? null : skippedLine(s.halted),
    frames: s.frames,
    lines: s.lines,
    session: s.header === null ? null : s.header.session,
    fah: s.header === null ? null : s.header.fah,
    lastTerminal: s.last_terminal,
    compactions: s.compactions,
    tokensFreed: s.tokens_freed,
    stderrTail: s.supervision ? s.supervision.stderr_tail : stderrTail,
    supervision: supervision(s.supervision),
  };
  lazy(result, 'turns', () => coreTurns().map(turn));
  lazy(result, 'toolCalls', () => result.turns.flatMap((t) => t.tools));
  return result;
}

module.exports = { runResult, violation, skippedLine };
