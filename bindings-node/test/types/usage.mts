// The type test of index.d.ts (compiled with `tsc --noEmit --strict`, never run): what a
// user writes type-checks, and each `@ts-expect-error` line proves a wrong use is refused.

import {
  HepError,
  INTERRUPT_GRACE_MS,
  MIN_DROP_AT_BYTES,
  PAUSE_AT_BYTES,
  TERMINATE_GRACE_MS,
  type CancelReason,
  Stream,
  Writer,
  encode,
  parseLine,
  read,
  spawn,
  Supervisor,
  type Frame,
  type LivenessAction,
  type SupervisorAction,
  type SupervisorEvent,
  type Supervision,
  type RunResult,
  type Turn,
  type ToolCall,
  type UnknownFrame,
  type Violation,
} from 'hep';

// ---- frames narrow on `type`, the unknown variant included ----

function describe(frame: Frame): string {
  switch (frame.type) {
    case 'hep_header':
      return `${frame.hep} ${frame.fah} ${frame.session}`;
    case 'message_delta':
      return frame.delta.toUpperCase() + frame.turn_id.toFixed(0);
    case 'tool_liveness': {
      const bytes: number | undefined = frame.output_bytes;
      const detail: string | undefined = frame.detail;
      return `${frame.action} ${frame.elapsed_ms} ${bytes ?? 0} ${detail ?? ''}`;
    }
    case 'turn_done': {
      const ok: boolean | undefined = frame.tool_results[0]?.ok;
      return `${frame.message} ${frame.usage.cost} ${frame.stop_reason} ${ok}`;
    }
    case 'turn_error':
      return frame.fatal ? frame.error : '';
    case 'unknown': {
      const own: string = frame.frame_type;
      const turn: number | undefined = frame.turn_id;
      const line: string = frame.raw;
      // @ts-expect-error an unknown frame's other fields are in its line, not on it
      frame.percent;
      return `${own} ${turn ?? ''} ${line}`;
    }
    case 'agent_start':
    case 'message_start':
    case 'tool_start':
    case 'tool_delta':
    case 'cancelled':
    case 'compaction_start':
    case 'compaction_end':
      // @ts-expect-error only message_delta has a delta
      return frame.delta;
    default: {
      const never: never = frame;
      return never;
    }
  }
}

// @ts-expect-error a frame type v1 does not name is not a Frame
const bogus: Frame = { type: 'progress', turn_id: 1 };
const unknown: UnknownFrame = { type: 'unknown', frame_type: 'progress', raw: '{"type":"progress","percent":50}' };
// @ts-expect-error an unknown frame carries its line
const lineless: UnknownFrame = { type: 'unknown', frame_type: 'progress' };
const line: string = encode(unknown);
// @ts-expect-error encode takes a frame, not a line
encode('{"type":"cancelled","turn_id":1}');

const parsed = parseLine(Buffer.from(line));
const raw: string = parsed.raw;
const lineNumber: number = parsed.line;
// @ts-expect-error raw is read-only
parsed.raw = 'x';
describe(parsed);

// ---- streams and results ----

const stream = new Stream({ strict: true, maxLineBytes: 1 << 20, raw: true });
const frames: Frame[] = stream.feed(new Uint8Array([10]));
const withLine: number | undefined = stream.feed('x')[0]?.line;
// @ts-expect-error without `raw: true` a frame carries no line
new Stream({ strict: true }).feed('x')[0]?.line;
stream.feed('text');
// @ts-expect-error a chunk is bytes or text
stream.feed(42);
// @ts-expect-error options are named
new Stream({ strictly: true });
new Stream({ limits: { maxTurns: 2, maxTrackedCalls: 0 } });
read('run.hep', { limits: { maxReports: 10 } });
spawn('agent', [], { limits: { maxRetainedBytes: 1 << 20 } });
// @ts-expect-error limits are the core's, in camelCase
new Stream({ limits: { max_turns: 2 } });
// @ts-expect-error a limit is a number
new Stream({ limits: { maxTurns: '2' } });
const violations: Violation[] = stream.violations;
const betweenRounds: boolean = violations.some((v) => v.code === 'cancelled_between_rounds' && v.severity === 'warning');
const skipped: HepError[] = stream.skipped;
const halted: HepError | null = stream.halted;
const result: RunResult = stream.finish(0, 'stderr');
stream.finish();
stream.finish(null, null);
// @ts-expect-error the exit code is a number
stream.finish('0');

const verdict: 'ok' | 'failed' | 'cancelled' | 'incomplete' | 'protocol_error' = result.verdict;
const answer: string | null = result.answer;
const turns: Turn[] = result.turns;
const calls: ToolCall[] = result.toolCalls;
const exitCode: number | null = result.exitCode;
const tail: string | null = result.stderrTail;
const cost: number = result.usage.cost;
const status: 'running' | 'ok' | 'failed' | undefined = calls[0]?.status;
const turnId: number | undefined = turns[0]?.turnId;
// @ts-expect-error results are camelCase
result.exit_code;
// @ts-expect-error a verdict is one of five
const wrongVerdict: RunResult['verdict'] = 'fine';

// ---- errors ----

try {
  parseLine('{');
} catch (e) {
  if (e instanceof HepError) {
    const code: `HEP_${string}` = e.code;
    const where: [number | null, number | null, string] = [e.line, e.column, e.excerpt];
    // @ts-expect-error codes are the known ones
    const other: typeof e.code = 'HEP_NOPE';
    void [code, where, other];
  }
}

// ---- the writer ----

const writer = new Writer(process.stdout, { fahVersion: '1.2.3' });
new Writer((l: string) => l.length, { fahVersion: '1', toolArgs: 'full' });
// @ts-expect-error toolArgs is 'summary' or 'full'
new Writer(process.stdout, { fahVersion: '1', toolArgs: 'all' });
// @ts-expect-error fahVersion is required
new Writer(process.stdout, {});
const written: string | null = writer.header('session');
writer.agentStart();
const none: null = writer.turnStart();
writer.messageStart();
writer.messageDelta('hi');
writer.toolStart('c1', 'read', { path: 'a.txt' });
writer.toolStart('c1', 'read', '{"path":"a.txt"}');
writer.toolDelta('c1', 'partial');
writer.toolLiveness('c1', 'read', 'heartbeat', 5000);
writer.toolLiveness('c1', 'read', 'cancel_retry', 5000, 12, 'detail');
// @ts-expect-error actions are v1's
writer.toolLiveness('c1', 'read', 'nap', 5000);
writer.turnDone('done', [{ id: 'c1', name: 'read', ok: true, text: 'data' }], { input: 1, output: 2, cost: 0.5 }, 'stop');
// @ts-expect-error a tool result says whether it is ok
writer.turnDone('done', [{ id: 'c1', name: 'read', text: 'data' }], { input: 1, output: 2, cost: 0.5 }, 'stop');
// @ts-expect-error usage needs its cost
writer.turnDone('done', [], { input: 1, output: 2 }, 'stop');
writer.turnError('boom');
writer.turnError('boom', false);
writer.cancelled();
writer.compactionStart();
writer.compactionEnd(4200);
// @ts-expect-error tokens are a number
writer.compactionEnd('4200');
const turn: number = writer.turnId;
// @ts-expect-error the turn id is read-only
writer.turnId = 3;

// ---- reading and supervising ----

async function supervise(): Promise<RunResult> {
  for await (const frame of read('run.jsonl', { strict: true })) describe(frame);
  const run = spawn('hep', ['simulate'], { signal: AbortSignal.timeout(1000), cwd: '/tmp', raw: true });
  for await (const frame of run) describe(frame);
  const who: CancelReason | null = run.cancelledBy;
  void who;
  await run.cancel();
  // @ts-expect-error hep sets stdio itself
  spawn('hep', [], { stdio: 'inherit' });
  // The grace periods of a cancel default to the core's; a run can shorten them.
  const graces: [number, number] = [INTERRUPT_GRACE_MS, TERMINATE_GRACE_MS];
  spawn('fa', ['--output', 'events', '-p', 'hi'], { interruptGraceMs: graces[0] / 2, terminateGraceMs: 500, timeoutMs: 60_000 });
  // @ts-expect-error a grace period is a number of milliseconds
  spawn('fa', [], { interruptGraceMs: '12s' });
  return run.result;
}

// ---- liveness actions are v1's union ----

function heartbeat(frame: Frame): LivenessAction | null {
  if (frame.type !== 'tool_liveness') return null;
  switch (frame.action) {
    case 'heartbeat':
    case 'cancel_retry':
    case 'background_convert':
    case 'escalate':
    case 'advisory':
      return frame.action;
    default: {
      const never: never = frame.action;
      return never;
    }
  }
}
// @ts-expect-error an action v1 does not name
const nap: LivenessAction = 'nap';

// ---- the run as a driver's user sees it: events, disposal, options ----

async function driven(): Promise<void> {
  const run = spawn('fa', ['-p', 'hi'], { idleTimeoutMs: 300_000, cancelOnBreak: true });
  run.on('stderr', (line) => line.toUpperCase());
  run.once('stderr', (line) => line.length);
  run.on('anything', (...args: unknown[]) => args);
  const reports: [Violation[], HepError[], HepError | null] = [run.stream.violations, run.stream.skipped, run.stream.halted];
  // @ts-expect-error a run's stream is not fed by the user
  run.stream.feed('x');
  {
    await using disposed = spawn('fa', [], { cancelOnBreak: false });
    for await (const frame of disposed) if (frame.type === 'tool_start') break;
  }
  const s: Supervision | null = (await run.result).supervision;
  const who: 'user' | 'timeout' | 'idle' | null | undefined = s?.cancelledBy;
  const at: number | undefined = s?.signals[0]?.atMs;
  // @ts-expect-error idleTimeoutMs is milliseconds
  spawn('fa', [], { idleTimeoutMs: '5m' });
  // @ts-expect-error cancelOnBreak is a boolean
  spawn('fa', [], { cancelOnBreak: 'yes' });
  await writer.ready;
  void [reports, who, at];
}

// ---- the Supervisor, for a driver of one's own ----

function drive(): RunResult | null {
  const sup = new Supervisor(performance.now(), { timeoutMs: 60_000, idleTimeoutMs: null, strict: true, limits: { maxTurns: 5 } });
  sup.stdout(performance.now(), Buffer.from('{}\n'));
  sup.stderr(performance.now(), 'warning\n');
  sup.exited(performance.now(), null, 'SIGKILL');
  sup.exited(performance.now(), 0);
  sup.exited(performance.now(), null, null); // gone, how unknown
  sup.setConsumer(performance.now(), false);
  // @ts-expect-error attached or not is a boolean
  sup.setConsumer(performance.now(), 'detached');
  sup.cancel(performance.now());
  sup.cancel(performance.now(), 'idle', 500);
  // @ts-expect-error the reasons are user, timeout and idle
  sup.cancel(performance.now(), 'bored');
  // @ts-expect-error options are named
  new Supervisor(0, { timeout: 5 });
  // @ts-expect-error the time comes first
  new Supervisor({ timeoutMs: 5 });
  for (let action = sup.pollAction(); action !== null; action = sup.pollAction()) {
    switch (action.kind) {
      case 'signal': {
        const name: 'SIGINT' | 'SIGTERM' | 'SIGKILL' = action.signal;
        const after: number | undefined = action.next?.afterMs;
        void [name, after, action.reason];
        break;
      }
      case 'kill_group':
      case 'pause_stdout':
      case 'resume_stdout':
      case 'close_pipes':
        // @ts-expect-error only a signal step has a signal
        void action.signal;
        break;
      default: {
        const never: never = action;
        void never;
      }
    }
  }
  const events: SupervisorEvent[] = sup.pollEvents(64);
  for (const event of events) {
    if (event.kind === 'frame') describe(event.frame);
    else if (event.kind === 'violation') void event.violation.code;
    else void event.error.code;
  }
  const raw = new Supervisor(0, { raw: true }).pollEvents();
  const rawLine: number | undefined = raw[0]?.kind === 'frame' ? raw[0].frame.line : undefined;
  const line: string | null = sup.pollStderr();
  const due: number | null = sup.deadline();
  const flags: [boolean, boolean, boolean, boolean, boolean] = [sup.paused, sup.finished, sup.cancelling, sup.timedOut, sup.stdoutOpen];
  const by: CancelReason | null = sup.cancelledBy;
  const drop: number = sup.dropAtBytes;
  const rule: boolean = drop === Math.max(16 * PAUSE_AT_BYTES, MIN_DROP_AT_BYTES);
  // @ts-expect-error the getters are read-only
  sup.cancelling = true;
  void [by, rule];
  const action: SupervisorAction | null = sup.pollAction();
  sup.tick(due ?? 0);
  void [rawLine, line, flags, action];
  return sup.result();
}

void [heartbeat, nap, driven, drive];
void [bogus, betweenRounds, withLine, raw, lineNumber, frames, violations, skipped, halted, verdict, answer, exitCode, tail, cost, status, turnId, wrongVerdict, written, none, turn, supervise];
