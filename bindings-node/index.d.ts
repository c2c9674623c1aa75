// Types of `hep`: HEP v1, the Harness Event Protocol, for Node.
//
// Frames are plain objects with the protocol's field names; `Frame` is a discriminated union
// on `type`, so `switch (frame.type)` narrows. Their types (`frames.d.ts`) are generated
// from hep-core's frame model (`make codegen`) and re-exported here. A frame of a type v1
// does not know is `{ type: 'unknown', frame_type, turn_id, raw }`.

/// <reference types="node" />

import type { SpawnOptions as ChildSpawnOptions } from 'node:child_process';
import type { Writable } from 'node:stream';
import { EventEmitter } from 'node:events';
import type { Frame, LivenessAction, Usage } from './frames';

export * from './frames';

// ---- frames ----

/**
 * The original line of a frame from `parseLine`, or from a `Stream` with `raw: true`:
 * non-enumerable properties (absent otherwise).
 */
export interface Line {
  /** The line as read, without its newline. */
  readonly raw: string;
  /** Its 1-based line number in the stream (1 for `parseLine`). */
  readonly line: number;
}

/** A frame carrying its original line. */
export type FrameWithLine = Frame & Line;

// ---- errors ----

/** Error kinds of the core (`kind`), and `internal` for a failure of the binding itself. */
export type ErrorKind =
  | 'syntax'
  | 'invalid_utf8'
  | 'trailing_characters'
  | 'not_an_object'
  | 'missing_field'
  | 'duplicate_field'
  | 'wrong_type'
  | 'out_of_range'
  | 'too_deep'
  | 'line_too_long'
  | 'truncated'
  | 'unsupported_version'
  | 'violation'
  | 'unencodable'
  | 'io'
  | 'internal';

/** `HEP_` and the kind in capitals. */
export type ErrorCode = `HEP_${Uppercase<ErrorKind>}`;

/** Any error of hep; `code` names it (`HEP_WRONG_TYPE`, `HEP_LINE_TOO_LONG`, ...). */
export class HepError extends Error {
  constructor(
    message: string,
    details?: { kind?: ErrorKind; line?: number | null; column?: number | null; excerpt?: string; cause?: unknown },
  );
  readonly name: 'HepError';
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  /** 1-based line, or null when the error is not tied to one. */
  readonly line: number | null;
  /** 1-based byte column within the line, or null when unknown. */
  readonly column: number | null;
  /** A short excerpt of the input around the error (may be empty). */
  readonly excerpt: string;
  /** On an error thrown by `Stream.feed`/`endInput`: the frames that came before it in that call. */
  frames?: Frame[];
}

// ---- reading ----

/** A breach of a consumer guarantee of the protocol. */
export interface Violation {
  /**
   * A stable snake_case code, e.g. `turn_id_skipped` (an error) or `cancelled_between_rounds`
   * (a warning: one of the reference harness's own paths). conformance/README.md lists them.
   */
  code: string;
  severity: 'error' | 'warning';
  /** The offending frame's line; 0 for end-of-stream checks. */
  line: number;
  turnId: number | null;
  message: string;
}

/** A line that could not be read, or the error that halted the stream. */
export interface SkippedLine {
  kind: ErrorKind;
  line: number | null;
  column: number | null;
  message: string;
  excerpt: string;
}

/** One `tool_liveness` report. */
export interface Liveness {
  /** As `ToolLiveness.action`. */
  action: LivenessAction;
  elapsedMs: number;
  outputBytes: number | null;
  detail: string | null;
}

/** A tool call as a supervisor mirrors it. */
export interface ToolCall {
  id: string;
  name: string;
  /** `tool_start.args_summary` (empty when the call was only seen in `tool_results`). */
  argsSummary: string;
  status: 'running' | 'ok' | 'failed';
  /** Partial output from `tool_delta` frames (the first 64 KiB). */
  output: string;
  outputDropped: number;
  /** The result text from `turn_done`. */
  result: string | null;
  lastLiveness: Liveness | null;
  /** Stuck-call follow-ups (every action but `heartbeat`), oldest first (the first 32). */
  followups: Liveness[];
  /** Follow-ups beyond the kept ones. */
  followupsDropped: number;
}

/** One round as a supervisor mirrors it. */
export interface Turn {
  turnId: number;
  /** Assistant text assembled from `message_delta` frames (the first 1 MiB). */
  text: string;
  textDropped: number;
  tools: ToolCall[];
  toolsDropped: number;
  end: 'turn_done' | 'turn_error' | 'cancelled' | null;
  message: string | null;
  usage: Usage | null;
  stopReason: string | null;
  error: string | null;
  /** `tokens_freed` of each compaction that ended in this round (the first `maxCompactionsPerTurn`). */
  compactions: number[];
  /** Compactions of this round beyond the kept ones. */
  compactionsDropped: number;
  /**
   * Bytes of this round's other text (tool ids, names and arguments, results, liveness
   * reports, message, stop reason, error) not kept because the round alone held the
   * reducer's 64 MiB budget.
   */
  bytesDropped: number;
}

/** How a run ended, all things considered. */
export type Verdict = 'ok' | 'failed' | 'cancelled' | 'incomplete' | 'protocol_error';

/**
 * Everything known at the end of a run: a plain object. `turns` and `toolCalls` are
 * converted from the core when first read.
 */
export interface RunResult {
  verdict: Verdict;
  /** The findings that decided the verdict, most important first. */
  reasons: string[];
  /** The exit code the verdict was given with (null when unknown). */
  exitCode: number | null;
  /** No error-severity violation, no skipped line, not halted. */
  conforms: boolean;
  /** The user-visible answer: the last terminal frame's message, if it is a `turn_done`. */
  answer: string | null;
  /** Totals over every `turn_done`. */
  usage: Usage;
  /** The kept turns, oldest first. */
  turns: Turn[];
  turnsDropped: number;
  /** Every kept tool call, in order. */
  toolCalls: ToolCall[];
  /** The kept violations (see `violationCount`). */
  violations: Violation[];
  violationCount: number;
  /** The kept unreadable lines (see `skippedCount`). */
  skipped: SkippedLine[];
  skippedCount: number;
  /**
   * `tool_start`s whose id was not remembered because their round already held
   * `maxTrackedCalls` ids (in such a round, `unknown_tool_call` is not reported).
   */
  untrackedCalls: number;
  /** The error that stopped the stream (strict mode, or a refused protocol version). */
  halted: SkippedLine | null;
  /** Frames read. */
  frames: number;
  /** Lines read, complete or skipped. */
  lines: number;
  /** The header's session id. */
  session: string | null;
  /** The header's emitter version. */
  fah: string | null;
  lastTerminal: 'turn_done' | 'turn_error' | 'cancelled' | null;
  compactions: number;
  tokensFreed: number;
  /** The end of the child's stderr (supervised runs; as given to `finish` otherwise). */
  stderrTail: string | null;
  /** How the supervision went (`spawn` and `Supervisor` results; null from a `Stream`). */
  supervision: Supervision | null;
}

/** How a supervised run went, besides what its stream says. */
export interface Supervision {
  /** The timeout ran out and cancelled the run. */
  timedOut: boolean;
  /** Who cancelled the run (null when nobody did). */
  cancelledBy: CancelReason | null;
  /** The signals the cancel sent to the child's group, in order, with the milliseconds since the start. */
  signals: { atMs: number; signal: SupervisionSignal }[];
  /** The end of the child's stderr (at most `stderrTailBytes`). */
  stderrTail: string;
  /** Bytes of stderr before the tail, not kept. */
  stderrDropped: number;
  /**
   * Events and stderr lines not handed over because the consumer fell far behind (more
   * than the drop threshold waiting, 16 × `pauseAtBytes` and at least `MIN_DROP_AT_BYTES`:
   * 16 MiB by default; nobody iterating, or a flood during a cancel or the drain); the
   * result still counts what the events said.
   */
  noticesDropped: number;
  /** Milliseconds from the start to the end of the run. */
  durationMs: number;
}

export interface StreamOptions {
  /** Throw at the first error violation or unreadable line (default false: report and go on). */
  strict?: boolean;
  /** Longest line in bytes; longer ones are skipped (default `MAX_LINE_BYTES`, 16 MiB). */
  maxLineBytes?: number;
  /** Give each frame non-enumerable `raw` and `line` properties (default false: they cost). */
  raw?: boolean;
  /** What the stream keeps at most (default: the core's caps). */
  limits?: StreamLimits;
}

/**
 * What a `Stream` keeps at most (the `limits` option). Each limit is optional (default: the
 * core's cap) and a non-negative safe integer; what a cap leaves out is counted in the result.
 */
export interface StreamLimits {
  /** Most recent turns kept (default 1000); older ones are counted in `RunResult.turnsDropped`. */
  maxTurns?: number;
  /** Bytes of assistant text kept per turn (default 1 MiB); the rest is counted in `Turn.textDropped`. */
  maxTextBytes?: number;
  /** Bytes of `tool_delta` output kept per call (default 64 KiB); the rest is counted in `ToolCall.outputDropped`. */
  maxToolOutputBytes?: number;
  /** Tool calls kept per turn (default 1000); later starts are counted in `Turn.toolsDropped`. */
  maxToolsPerTurn?: number;
  /** Stuck-call follow-ups kept per call (default 32); later ones are counted in `ToolCall.followupsDropped`. */
  maxFollowups?: number;
  /** Violations, and skipped lines, kept (default 1000 each); all are counted in `violationCount` and `skippedCount`. */
  maxReports?: number;
  /**
   * Text bytes kept over all turns (default 64 MiB): past it the oldest turns are dropped
   * (`turnsDropped`) and the current turn's text is cut (`Turn.bytesDropped` and the other counts).
   */
  maxRetainedBytes?: number;
  /**
   * Tool-call ids remembered per round for the `unknown_tool_call` check (default 4096);
   * `tool_start`s past it are counted in `RunResult.untrackedCalls`.
   */
  maxTrackedCalls?: number;
  /** Compactions kept per turn (default 1000); later ones are counted in `Turn.compactionsDropped`. */
  maxCompactionsPerTurn?: number;
}

/** The frames of a stream: with `raw: true`, each carries its line. */
export type StreamFrame<Raw extends boolean> = Raw extends true ? FrameWithLine : Frame;

/** A live HEP v1 stream reader: bytes in, frames out, validated and reduced by the core. */
export class Stream<Raw extends boolean = false> {
  constructor(options?: StreamOptions & { raw?: Raw });
  /**
   * Feeds a chunk (bytes, or text as UTF-8); returns the frames it completes. Throws a
   * `HepError` (with `frames`) when the stream halts: strict mode, or a refused version.
   */
  feed(chunk: Buffer | Uint8Array | string): StreamFrame<Raw>[];
  /** Marks the end of input; a partial last line is reported as skipped (`truncated`). */
  endInput(): StreamFrame<Raw>[];
  /** Ends the stream with the harness's exit code; the stream refuses further use. */
  finish(exitCode?: number | null, stderrTail?: string | null): RunResult;
  /** Violations found so far (after `finish`, every kept one). */
  readonly violations: Violation[];
  /** Lines skipped so far. */
  readonly skipped: HepError[];
  /** The error that halted the stream, or null. */
  readonly halted: HepError | null;
}

/** One line (a final `\n` or `\r\n` is ignored) to its frame, with its `raw` line. */
export function parseLine(line: string | Buffer | Uint8Array): FrameWithLine;

/**
 * The exact line the reference emitter writes for `frame` (no newline). The core's decoder
 * reads the object as it reads a line (`HEP_MISSING_FIELD`, `HEP_WRONG_TYPE`,
 * `HEP_OUT_OF_RANGE` for a negative integer); an integer above 2^53 - 1 or a non-finite
 * number is `HEP_UNENCODABLE`. An unknown frame is written back as its `raw` line.
 */
export function encode(frame: Frame): string;

/** The frames of a saved stream: a path or a Readable of bytes or text. */
export function read(source: string | URL | NodeJS.ReadableStream | AsyncIterable<Buffer | Uint8Array | string>, options?: StreamOptions): AsyncGenerator<Frame, void, undefined>;

// ---- writing ----

/** One tool result as the harness has it (the writer caps its text). */
export interface ToolOutcome {
  id: string;
  name: string;
  ok: boolean;
  text: string;
}

export interface WriterOptions {
  /** The emitter version the header names. */
  fahVersion: string;
  /** 'summary' (`key=value` arguments, the default) or 'full' (their JSON). */
  toolArgs?: 'summary' | 'full';
}

/**
 * Writes byte-exact HEP lines (the core's emitter: turn ids, header once, bounds). Each method
 * returns the line it wrote, without its newline (which the writer writes to the sink after
 * it), or null when the protocol writes nothing.
 */
export class Writer {
  /** `out`: a Writable (`out.write(line + '\n')`) or a function called with each line and its `\n`. */
  constructor(out: Writable | { write(line: string): unknown } | ((line: string) => unknown), options: WriterOptions);
  /** The open turn's id, else the last allocated one (0 before any). */
  readonly turnId: number;
  /**
   * Resolves once the sink can take more: at once, unless a Writable's last `write`
   * returned false (its buffer is full), then at its 'drain'; rejects if it closes before.
   * `await writer.ready` after each frame honours the sink's backpressure.
   */
  readonly ready: Promise<void>;
  header(session: string): string | null;
  agentStart(): string | null;
  /** Opens a turn if none is open; writes nothing. */
  turnStart(): null;
  messageStart(role?: string): string | null;
  messageDelta(text: string): string | null;
  /**
   * `args`: an object (serialized as `JSON.stringify` does, key order kept), or the JSON text
   * of one (its key order and number spelling kept as they are). A value holding `NaN` or an
   * infinity (anywhere inside it) is one JSON cannot write: the summary shows it as
   * `key=[unserializable]` and full mode writes `[unserializable]` for the whole object, as
   * the reference does (where `JSON.stringify` would write `null`).
   */
  toolStart(id: string, name: string, args: Record<string, unknown> | string): string | null;
  toolDelta(id: string, update: string): string | null;
  toolLiveness(
    id: string,
    name: string,
    action: LivenessAction,
    elapsedMs: number,
    outputBytes?: number | null,
    detail?: string | null,
  ): string | null;
  turnDone(message: string, toolResults: ToolOutcome[], usage: Usage, stopReason: string): string | null;
  turnError(error: string, fatal?: boolean): string | null;
  cancelled(): string | null;
  compactionStart(): string | null;
  compactionEnd(tokensFreed: number): string | null;
}

// ---- supervising ----

/** Options of `spawn`: the stream's, hep's own, and `child_process.spawn`'s but those hep sets. */
export interface SpawnOptions
  extends StreamOptions,
    Omit<ChildSpawnOptions, 'stdio' | 'detached' | 'timeout' | 'killSignal' | 'signal'> {
  /** Cancels the run when aborted. */
  signal?: AbortSignal;
  /** Cancels the run after this many milliseconds (0 to 2**31 - 1, the longest Node timer). */
  timeoutMs?: number;
  /**
   * Cancels the run when the child has written no frame for this many milliseconds (any
   * frame counts, `tool_liveness` heartbeats included; stderr does not). The result's
   * `reasons[0]` says "idle for N s" and `supervision.cancelledBy` is `'idle'`. From 0 to
   * 2**31 - 1, checked as `timeoutMs`.
   */
  idleTimeoutMs?: number;
  /**
   * After SIGINT, how many milliseconds before SIGTERM (default `INTERRUPT_GRACE_MS`, 12 s:
   * the reference's 10 s settle plus its drain and exit). Shorten it only for a harness that
   * is known to exit sooner: SIGTERM cuts the reference's settle short (exit 143). From 0 to
   * 2**31 - 1; another type is a TypeError, a number out of range a RangeError.
   */
  interruptGraceMs?: number;
  /**
   * After SIGTERM, how many milliseconds before SIGKILL (default `TERMINATE_GRACE_MS`, 2 s).
   * From 0 to 2**31 - 1, checked as `interruptGraceMs`.
   */
  terminateGraceMs?: number;
  /** Leaving a `for await` loop early (`break`, `return`, a throw) cancels the run (default false). */
  cancelOnBreak?: boolean;
  /** The child's stdin (default 'ignore'). */
  stdin?: 'ignore' | 'pipe' | 'inherit';
}

/** What a `Stream` or a run has found so far. */
export interface StreamReports {
  /** Violations found so far. */
  readonly violations: Violation[];
  /** Lines skipped so far. */
  readonly skipped: HepError[];
  /** The error that halted the stream, or null. */
  readonly halted: HepError | null;
}

/**
 * A running harness: `for await (const frame of run)`, `await run.result`, `await
 * run.cancel()`, `run.on('stderr', line => ...)`, `await using run = spawn(...)`.
 */
export class Run extends EventEmitter implements AsyncIterable<Frame>, AsyncDisposable {
  constructor(command: string, args?: readonly string[], options?: SpawnOptions);
  /** The child's process id (and process group id); undefined if it failed to start. */
  readonly pid: number | undefined;
  /** The child's stdin when spawned with `stdin: 'pipe'`, else null. */
  readonly stdin: Writable | null;
  /** The violations, skipped lines and halt of its stdout stream so far. */
  readonly stream: StreamReports;
  /** Whether `timeoutMs` ran out and cancelled the run. */
  readonly timedOut: boolean;
  /** Who cancelled the run once a cancel has started (the user, `timeoutMs` or `idleTimeoutMs`), else null. */
  readonly cancelledBy: CancelReason | null;
  /** Resolves once the child is reaped and its pipes are closed (or drained for 2 s after its exit). */
  readonly result: Promise<RunResult>;
  /**
   * SIGINT to the child's group; SIGTERM if it still runs after `interruptGraceMs` (default
   * 12 s), SIGKILL after `terminateGraceMs` more (default 2 s). A further call takes the
   * next step at once. Resolves once the child has exited.
   */
  cancel(): Promise<void>;
  /** Each frame as soon as its line is complete. */
  [Symbol.asyncIterator](): AsyncIterator<Frame>;
  /** `await using`: cancels the run if it still goes, and resolves once it has ended. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Each line of the child's stderr (without its line end) as soon as it is complete. */
  on(event: 'stderr', listener: (line: string) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'stderr', listener: (line: string) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
  addListener(event: 'stderr', listener: (line: string) => void): this;
  addListener(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * Starts a harness in its own process group and reads its stdout as HEP. Where there are no
 * process groups and POSIX signals (Windows) it throws an `Error` with the code
 * `ERR_HEP_UNSUPPORTED_PLATFORM`, naming the platform.
 */
export function spawn(command: string, args?: readonly string[], options?: SpawnOptions): Run;

// ---- the supervision policy, for your own driver ----

/** Why a run is cancelled. */
export type CancelReason = 'user' | 'timeout' | 'idle';

/** A signal the supervision sends to the child's process group. */
export type SupervisionSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/** Options of a `Supervisor`: each optional, default the core's. */
export interface SupervisorOptions extends StreamOptions {
  /** The longest the run may take, in milliseconds; past it, the run is cancelled (reason `timeout`). */
  timeoutMs?: number | null;
  /**
   * The longest the child may go without writing a frame (any frame, `tool_liveness`
   * heartbeats included; stderr does not count), in milliseconds; past it, the run is
   * cancelled (reason `idle`, and `reasons[0]` says "idle for N s").
   */
  idleTimeoutMs?: number | null;
  /** After SIGINT, the wait before SIGTERM (default `INTERRUPT_GRACE_MS`). */
  interruptGraceMs?: number;
  /** After SIGTERM, the wait before SIGKILL (default `TERMINATE_GRACE_MS`). */
  terminateGraceMs?: number;
  /** After the child exits, how long its pipes are still read (default 2000). */
  drainMs?: number;
  /** Bytes of stderr kept for the result (default `STDERR_TAIL_BYTES`). */
  stderrTailBytes?: number;
  /** The longest stderr line handed over, in bytes (default 16 KiB); a longer one is cut. */
  maxStderrLine?: number;
  /**
   * Bytes of events waiting for the consumer above which stdout is paused (default
   * `PAUSE_AT_BYTES`, 1 MiB); resumed at half. Past 16 × `pauseAtBytes` (at least
   * `MIN_DROP_AT_BYTES`) waiting, events are counted instead of kept (`dropAtBytes`).
   */
  pauseAtBytes?: number;
}

/** What the driver must do: `switch (action.kind)` narrows. */
export type SupervisorAction =
  | {
      /** Send `signal` to the child's process group (a step of a cancel). */
      kind: 'signal';
      signal: SupervisionSignal;
      reason: CancelReason;
      /** The step that follows if the child has not exited `afterMs` later (null after SIGKILL). */
      next: { signal: SupervisionSignal; afterMs: number } | null;
    }
  /** The child exited: SIGKILL its process group, so that nothing it left there outlives it. */
  | { kind: 'kill_group' }
  /** Stop reading stdout: the consumer is behind (the child will block on a full pipe). */
  | { kind: 'pause_stdout' }
  /** Read stdout again. */
  | { kind: 'resume_stdout' }
  /** The drain after the exit is over: stop reading and close both pipes. */
  | { kind: 'close_pipes' };

/** An event of the child's stdout stream, in order: `switch (event.kind)` narrows. */
export type SupervisorEvent<Raw extends boolean = false> =
  | { kind: 'frame'; frame: StreamFrame<Raw> }
  | { kind: 'violation'; violation: Violation }
  /** A line that could not be read (reading goes on at the next line). */
  | { kind: 'skipped'; error: HepError }
  /** The error that stopped the stream (strict mode, or a refused version); nothing follows. */
  | { kind: 'halted'; error: HepError };

/**
 * hep-core's supervision policy as a state machine without I/O, for writing your own driver
 * (`spawn` is one). Tell it what happened and when, in milliseconds on one monotonic clock
 * (`performance.now()`); after each input carry out every `pollAction()`, hand over
 * `pollEvents()` and `pollStderr()`, and call `tick()` at `deadline()`. It owns the cancel
 * ladder, the timeouts, the drain after the exit, stderr lines and tail, backpressure and
 * the verdict: the same code as `spawn`, the `hep` command and the Python and Swift drivers.
 */
export class Supervisor<Raw extends boolean = false> {
  /** A supervisor for a child started at `nowMs`. */
  constructor(nowMs: number, options?: SupervisorOptions & { raw?: Raw });
  /** Bytes (or text, as UTF-8) the child wrote on stdout. */
  stdout(nowMs: number, chunk: Buffer | Uint8Array | string): void;
  /** Bytes (or text, as UTF-8) the child wrote on stderr. */
  stderr(nowMs: number, chunk: Buffer | Uint8Array | string): void;
  /** The child's stdout reached its end (or failed). */
  stdoutClosed(nowMs: number): void;
  /** The child's stderr reached its end (or failed). */
  stderrClosed(nowMs: number): void;
  /**
   * The child exited with `code`, or `signal` killed it: the arguments of a ChildProcess's
   * 'exit' event. With neither, the child is gone but how it ended is unknown (something
   * else reaped it): the run is judged without an exit code.
   */
  exited(nowMs: number, code?: number | null, signal?: NodeJS.Signals | number | null): void;
  /**
   * Asks for the run to be cancelled: the first request starts the ladder (SIGINT, SIGTERM
   * after the interrupt grace, or `interruptGraceMs` when given, SIGKILL after the terminate
   * grace); a later one from the user takes the next step at once, a timeout or idleness
   * never hurries one under way.
   */
  cancel(nowMs: number, reason?: CancelReason, interruptGraceMs?: number | null): void;
  /**
   * Whether someone takes the events as they come (`attached`, the default). Detach while
   * nobody does (the user only awaits the result): stdout is then never paused (detaching
   * resumes it), and events wait up to `dropAtBytes`. Attach while someone iterates.
   */
  setConsumer(nowMs: number, attached: boolean): void;
  /** Handles every deadline up to `nowMs` (the current time, even when the deadline has passed). */
  tick(nowMs: number): void;
  /**
   * When to call `tick` next (milliseconds on the same clock), or null. A deadline at or
   * before the latest time told means: tick now, with the current time.
   */
  deadline(): number | null;
  /** The next thing the driver must do, or null. */
  pollAction(): SupervisorAction | null;
  /**
   * The events waiting (at most `max`), in order, in one call. Taking them may resume
   * stdout: look at the actions after. Frames carry `raw` and `line` with `raw: true`.
   */
  pollEvents(max?: number): SupervisorEvent<Raw>[];
  /** The next complete stderr line (without its line end), or null; stderr lines never wait behind events. */
  pollStderr(): string | null;
  /** Whether stdout is paused for the consumer. */
  readonly paused: boolean;
  /** Who cancelled the run, once a cancel has started; else null. */
  readonly cancelledBy: CancelReason | null;
  /** Whether a cancel has started and the child has not exited yet (a further user cancel would hurry it). */
  readonly cancelling: boolean;
  /** Whether the timeout ran out and cancelled the run. */
  readonly timedOut: boolean;
  /** Whether stdout is still open: false once it reached its end or the drain closed it (no event comes after those waiting). */
  readonly stdoutOpen: boolean;
  /** Waiting bytes past which events (and, in their own queue, stderr lines) are counted instead of kept: 16 × `pauseAtBytes`, at least `MIN_DROP_AT_BYTES`. */
  readonly dropAtBytes: number;
  /** Whether the result is known (events and stderr lines may still wait). */
  readonly finished: boolean;
  /** Violations found so far (after the end, the result's). */
  readonly violations: Violation[];
  /** Lines skipped so far. */
  readonly skipped: HepError[];
  /** The error that halted the stream, or null. */
  readonly halted: HepError | null;
  /** The result, with `supervision`, once the child has exited and its pipes are closed or drained; else null. */
  result(): RunResult | null;
}

// ---- the core's constants and helpers ----

/** The package version. */
export const VERSION: string;
/** `hep_header.hep` of the protocol this library speaks: `"v1"`. */
export const PROTOCOL_VERSION: string;
export const EXIT_OK: number;
export const EXIT_FAILED: number;
export const EXIT_CANCELLED: number;
/**
 * After SIGINT, how long `cancel()` lets a harness settle, write what it has and exit before
 * SIGTERM: 12000 (the core's `INTERRUPT_GRACE`). On SIGINT the reference harness aborts the
 * run if it is streaming, waits up to 10 s for the run to settle (the partial transcript
 * saved, `cancelled` written), drains its stdout and exits 130; SIGTERM during that wait
 * makes it exit 143 at once, losing what it had not written. So the grace is that 10 s
 * settle plus 2 s for the drain and the exit.
 */
export const INTERRUPT_GRACE_MS: number;
/**
 * After SIGTERM, how long before SIGKILL: 2000 (the core's `TERMINATE_GRACE`). A harness
 * that outlived the interrupt grace is stuck; SIGTERM gives it a last short chance to exit
 * on its own before SIGKILL, which no process can ignore.
 */
export const TERMINATE_GRACE_MS: number;
/** Bytes of a child's stderr kept. */
export const STDERR_TAIL_BYTES: number;
/** After the child exits, how long its pipes are still read: 2000 (the core's `DRAIN_AFTER_EXIT`). */
export const DRAIN_AFTER_EXIT_MS: number;
/** The longest stderr line handed over, in bytes (a longer one is cut): 16384. */
export const MAX_STDERR_LINE: number;
/** Bytes of events waiting for a loop above which stdout is paused (resumed at half): 1 MiB. */
export const PAUSE_AT_BYTES: number;
/** The least drop threshold (1 MiB): past max(16 × `pauseAtBytes`, this) waiting, events are counted, not kept. */
export const MIN_DROP_AT_BYTES: number;
/** Cap on `tool_results[].text`, in UTF-16 code units. */
export const TOOL_RESULT_CAP: number;
/** The default longest line, in bytes. */
export const MAX_LINE_BYTES: number;

/** The last `cap` bytes of a byte stream (a child's stderr). */
export class Tail {
  constructor(cap?: number);
  push(chunk: Buffer | Uint8Array | string): void;
  /** The kept bytes as text (a character cut at the start as U+FFFD). */
  text(): string;
  /** Bytes forgotten so far. */
  readonly dropped: number;
}

/** The exit code of a process killed by `signal` (`'SIGINT'` or `2` give 130). */
export function exitCodeForSignal(signal: NodeJS.Signals | number): number;
/** `text` with terminal-driving characters as visible escapes. */
export function sanitize(text: string): string;
/** The JSON Schema (draft 2020-12) of the frames, as text. */
export function jsonSchema(): string;
/** `text` cut to `limit` UTF-16 units plus `…(+N chars)` when longer. */
export function cap(text: string, limit: number): string;
/** Length of `text` in UTF-16 code units. */
export function utf16Len(text: string): number;
/**
 * Summary-mode `args_summary` of an argument object (or the JSON text of one): `key=<JSON>`
 * joined with `, `, a value holding `NaN` or an infinity as `key=[unserializable]`.
 */
export function argsSummary(args: Record<string, unknown> | string): string;
/**
 * Full-mode `args_summary` of an argument object (or the JSON text of one): its JSON, or
 * `[unserializable]` when a value holds `NaN` or an infinity.
 */
export function argsFull(args: Record<string, unknown> | string): string;
