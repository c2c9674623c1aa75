'use strict';
// `Writer`: byte-exact HEP lines from the core's emitter (turn ids, header once, bounds),
// each written with its newline to a Writable (`out.write(line + '\n')`) or handed so to a
// function; each method returns its line without the newline (docs/api.md).
// When the Writable's `write` returns false (its buffer is full), `ready` is a promise of
// its 'drain': `await writer.ready` between frames keeps a slow sink's buffer bounded.

const { native, constants } = require('./addon.js');
const { argsText } = require('./args.js');
const check = require('./check.js');

const ACTIONS = constants.livenessActions;

// The addon's writer functions, looked up once (each call is on the hot path).
const {
  writerAgentStart,
  writerCancelled,
  writerClose,
  writerCompactionEnd,
  writerCompactionStart,
  writerHeader,
  writerMessageDelta,
  writerMessageStart,
  writerOpen,
  writerToolDelta,
  writerToolLiveness,
  writerToolStart,
  writerTurnDone,
  writerTurnError,
  writerTurnId,
  writerTurnStart,
} = native;

/** Closes the native writer of each `Writer` that is garbage-collected. */
const closer = new FinalizationRegistry((id) => writerClose(id));

/** One `turnDone` tool result, checked: `{id, name, ok, text}`. */
function toolResult(r, index) {
  const what = `Writer.turnDone(toolResults[${index}])`;
  check.object(r, what);
  return {
    id: check.string(r.id, `${what}.id`),
    name: check.string(r.name, `${what}.name`),
    ok: check.boolean(r.ok, `${what}.ok`),
    text: check.string(r.text, `${what}.text`),
  };
}

/**
 * Writes HEP lines. Every method returns the line it wrote (without its `\n`, which the
 * writer writes to the sink after it), or null when the protocol says the call writes
 * nothing. A value the protocol cannot carry throws a
 * `HepError`; an argument of the wrong type a TypeError (a number out of range a RangeError).
 */
class Writer {
  #id;
  #out;
  #ready = null; // while the sink's buffer is full: the promise of its 'drain'

  /**
   * `out`: a Writable (each line is `out.write(line + '\n')`) or a function called with each
   * line and its `\n`.
   * Options: `fahVersion` (the emitter version the header names) and `toolArgs`: 'summary'
   * (arguments rendered as `key=value`, the default) or 'full' (their JSON).
   */
  constructor(out, options) {
    if (typeof out === 'function') this.#out = out;
    else if (out !== null && typeof out === 'object' && typeof out.write === 'function') {
      this.#out = (line) => {
        if (out.write(line) === false && this.#ready === null && typeof out.once === 'function') this.#wait(out);
      };
    } else {
      throw new TypeError(`Writer(out): out must be a Writable or a function taking each line, not ${check.describe(out)}`);
    }
    check.object(options, 'Writer(out, options): options');
    const { fahVersion, toolArgs = 'summary' } = options;
    check.string(fahVersion, 'Writer(out, options): fahVersion');
    if (toolArgs !== 'summary' && toolArgs !== 'full') {
      throw new RangeError(`Writer(out, options): toolArgs must be 'summary' or 'full', not ${String(toolArgs)}`);
    }
    this.#id = writerOpen(fahVersion, toolArgs === 'full');
    closer.register(this, this.#id);
  }

  /** Waits for `sink` to drain; the promise rejects if it closes first. */
  #wait(sink) {
    this.#ready = new Promise((resolve, reject) => {
      const done = () => {
        sink.removeListener('drain', onDrain);
        sink.removeListener('close', onClose);
        this.#ready = null;
      };
      const onDrain = () => {
        done();
        resolve();
      };
      const onClose = () => {
        done();
        const error = new Error('Writer: the sink closed before it drained');
        error.code = 'ERR_STREAM_PREMATURE_CLOSE';
        reject(sink.errored ?? error);
      };
      sink.once('drain', onDrain);
      sink.once('close', onClose);
    });
    this.#ready.catch(() => {}); // a rejection nobody awaits is not an unhandled rejection
  }

  /**
   * Resolves once the sink can take more: at once, unless a Writable's last `write`
   * returned false (its buffer is full), then at its 'drain'. Rejects if the sink closes
   * before it drains. `await writer.ready` after each frame honours backpressure.
   */
  get ready() {
    return this.#ready ?? Promise.resolve();
  }

  /** The open turn's id, else the last allocated one (0 before any). */
  get turnId() {
    return writerTurnId(this.#id);
  }

  #put(line) {
    if (line !== null) this.#out(`${line}\n`);
    return line;
  }

  /** `hep_header`, written once; later calls write nothing. */
  header(session) {
    return this.#put(writerHeader(this.#id, check.string(session, 'Writer.header(session)')));
  }

  /** `agent_start` (only the first call writes); opens a turn. */
  agentStart() {
    return this.#put(writerAgentStart(this.#id));
  }

  /** Opens a turn if none is open; writes nothing (returns null). */
  turnStart() {
    writerTurnStart(this.#id);
    return null;
  }

  /** `message_start`, written only for the assistant role. */
  messageStart(role = 'assistant') {
    return this.#put(writerMessageStart(this.#id, check.string(role, 'Writer.messageStart(role)')));
  }

  /** `message_delta` with a chunk of assistant text. */
  messageDelta(text) {
    return this.#put(writerMessageDelta(this.#id, check.string(text, 'Writer.messageDelta(text)')));
  }

  /**
   * `tool_start`; `args` is an object (serialized as JSON.stringify does, key order kept,
   * except that a value holding NaN or an infinity is one JSON cannot write, rendered
   * `[unserializable]` as the reference does) or the JSON text of one (its key order and
   * number spelling kept).
   */
  toolStart(id, name, args) {
    check.string(id, 'Writer.toolStart(id)');
    check.string(name, 'Writer.toolStart(name)');
    return this.#put(writerToolStart(this.#id, id, name, argsText(args, 'Writer.toolStart(args)')));
  }

  /** `tool_delta` with partial tool output; an empty update writes nothing. */
  toolDelta(id, update) {
    check.string(id, 'Writer.toolDelta(id)');
    return this.#put(writerToolDelta(this.#id, id, check.string(update, 'Writer.toolDelta(update)')));
  }

  /** `tool_liveness`: a heartbeat or a stuck-call follow-up; an empty detail is omitted. */
  toolLiveness(id, name, action, elapsedMs, outputBytes = null, detail = null) {
    check.string(id, 'Writer.toolLiveness(id)');
    check.string(name, 'Writer.toolLiveness(name)');
    check.string(action, 'Writer.toolLiveness(action)');
    if (!ACTIONS.includes(action)) {
      throw new RangeError(`Writer.toolLiveness(action): action must be one of ${ACTIONS.join(', ')}, not ${action}`);
    }
    check.count(elapsedMs, 'Writer.toolLiveness(elapsedMs)');
    const bytes = check.optional(outputBytes, null, check.count, 'Writer.toolLiveness(outputBytes)');
    const text = check.optional(detail, null, check.string, 'Writer.toolLiveness(detail)');
    return this.#put(writerToolLiveness(this.#id, id, name, action, elapsedMs, bytes, text));
  }

  /**
   * `turn_done`, closing the turn: `toolResults` are `{id, name, ok, text}` (texts capped at
   * 2000 UTF-16 units), `usage` is `{input, output, cost}`.
   */
  turnDone(message, toolResults, usage, stopReason) {
    check.string(message, 'Writer.turnDone(message)');
    if (!Array.isArray(toolResults)) {
      throw new TypeError(`Writer.turnDone(toolResults): toolResults must be an array, not ${check.describe(toolResults)}`);
    }
    const n = toolResults.length;
    const ids = new Array(n);
    const names = new Array(n);
    const oks = new Array(n);
    const texts = new Array(n);
    for (let i = 0; i < n; i++) {
      const r = toolResult(toolResults[i], i);
      ids[i] = r.id;
      names[i] = r.name;
      oks[i] = r.ok;
      texts[i] = r.text;
    }
    check.object(usage, 'Writer.turnDone(usage)');
    const input = check.count(usage.input, 'Writer.turnDone(usage.input)');
    const output = check.count(usage.output, 'Writer.turnDone(usage.output)');
    const cost = check.number(usage.cost, 'Writer.turnDone(usage.cost)');
    check.string(stopReason, 'Writer.turnDone(stopReason)');
    return this.#put(writerTurnDone(this.#id, message, ids, names, oks, texts, input, output, cost, stopReason));
  }

  /** `turn_error`, closing the turn. */
  turnError(error, fatal = true) {
    check.string(error, 'Writer.turnError(error)');
    return this.#put(writerTurnError(this.#id, error, check.boolean(fatal, 'Writer.turnError(fatal)')));
  }

  /** `cancelled`, closing the turn. */
  cancelled() {
    return this.#put(writerCancelled(this.#id));
  }

  /** `compaction_start`: uses the open turn's id, or opens the next one. */
  compactionStart() {
    return this.#put(writerCompactionStart(this.#id));
  }

  /** `compaction_end`: reuses the open id (or the last one) and leaves the turn open. */
  compactionEnd(tokensFreed) {
    return this.#put(writerCompactionEnd(this.#id, check.count(tokensFreed, 'Writer.compactionEnd(tokensFreed)')));
  }
}

module.exports = { Writer };
