// The hand-written alternative to `hep.Stream`: what a Node user would otherwise write to
// read a HEP stream. 64 KiB Buffer chunks (as `fs.read` or a Readable hand them over) go
// through a StringDecoder, the text is split on '\n' with the partial last line carried
// over, every line goes through `JSON.parse`, and a checker of HEP v1's consumer guarantees
// looks at each frame. The checker is the JavaScript twin of `check_lines` in
// bench/python/bench.py: the same rules, in the same order.

import { StringDecoder } from 'node:string_decoder';

/** The checker's verdict on a bad stream. */
export class Invalid extends Error {}

// Exact JSON types. JSON.parse gives numbers for ints and floats alike, so an int is a
// number with `Number.isInteger`, a float any number (`1.0` parses as `1`); a bool is
// never a number, and an array is not an object.
const INT = 'int';
const STR = 'string';
const BOOL = 'bool';
const LIST = 'list';
const OBJ = 'object';
const FLOAT = 'float';

function is(value, want) {
  switch (want) {
    case INT: return Number.isInteger(value);
    case STR: return typeof value === 'string';
    case BOOL: return typeof value === 'boolean';
    case LIST: return Array.isArray(value);
    case OBJ: return value !== null && typeof value === 'object' && !Array.isArray(value);
    case FLOAT: return typeof value === 'number';
    default: throw new Error(`unknown type ${want}`);
  }
}

/** Required fields of each frame type and their exact JSON types. */
const REQUIRED = new Map([
  ['agent_start', [['turn_id', INT]]],
  ['message_start', [['turn_id', INT], ['role', STR]]],
  ['message_delta', [['turn_id', INT], ['delta', STR]]],
  ['tool_start', [['turn_id', INT], ['id', STR], ['name', STR], ['args_summary', STR]]],
  ['tool_delta', [['turn_id', INT], ['id', STR], ['update', STR]]],
  ['tool_liveness', [['turn_id', INT], ['id', STR], ['name', STR], ['action', STR], ['elapsed_ms', INT]]],
  ['turn_done', [['turn_id', INT], ['message', STR], ['tool_results', LIST], ['usage', OBJ],
    ['stop_reason', STR]]],
  ['turn_error', [['turn_id', INT], ['error', STR], ['fatal', BOOL]]],
  ['cancelled', [['turn_id', INT]]],
  ['compaction_start', [['turn_id', INT]]],
  ['compaction_end', [['turn_id', INT], ['tokens_freed', INT]]],
]);
const TERMINAL = new Set(['turn_done', 'turn_error', 'cancelled']);
const ACTIONS = new Set(['heartbeat', 'cancel_retry', 'background_convert', 'escalate', 'advisory']);
const EXIT_OF = { turn_done: 0, turn_error: 1, cancelled: 130 };
const RESULT_FIELDS = [['id', STR], ['name', STR], ['ok', BOOL], ['text', STR]];
const USAGE_FIELDS = [['input', INT], ['output', INT], ['cost', FLOAT]];

/**
 * Checks HEP v1's consumer guarantees one parsed frame at a time: the header first
 * (protocol v1), required fields and their types per frame type, turn ids per round (1, 2,
 * ...; every frame of a round shares its id), exactly one terminal frame per round,
 * `agent_start` once, compactions bracketed, and (in `end`) the exit code matching the last
 * terminal frame. Unknown frame types and fields are ignored.
 */
export class Checker {
  constructor() {
    this.number = 0; // lines seen
    this.current = 0; // the last round id allocated
    this.isOpen = false; // a round is open (no terminal frame yet)
    this.agentStarts = 0;
    this.compaction = null; // id of a compaction_start awaiting its compaction_end
    this.lastTerminal = null;
  }

  frame(frame) {
    const number = ++this.number;
    if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) {
      throw new Invalid(`line ${number}: not an object`);
    }
    const kind = frame.type;
    if (number === 1) {
      if (kind !== 'hep_header') throw new Invalid('line 1: not a hep_header');
      for (const key of ['hep', 'fah', 'session']) {
        if (typeof frame[key] !== 'string') throw new Invalid(`line 1: hep_header.${key} is not a string`);
      }
      if (frame.hep.split('.')[0] !== 'v1') throw new Invalid(`line 1: unsupported protocol ${frame.hep}`);
      return;
    }
    const fields = REQUIRED.get(kind);
    if (fields === undefined) {
      if (typeof kind !== 'string') throw new Invalid(`line ${number}: no type`);
      return; // an unknown frame type: ignored (additive evolution)
    }
    for (const [key, want] of fields) {
      if (!is(frame[key], want)) throw new Invalid(`line ${number}: ${kind}.${key} is missing or not ${want}`);
    }
    const turnId = frame.turn_id;
    if (this.isOpen) {
      if (turnId !== this.current) throw new Invalid(`line ${number}: turn_id ${turnId} in round ${this.current}`);
    } else if (turnId === this.current + 1) {
      this.current = turnId;
      this.isOpen = true;
    } else {
      throw new Invalid(`line ${number}: turn_id ${turnId} opens no round (expected ${this.current + 1})`);
    }
    if (kind === 'message_delta') {
      // nothing more to check
    } else if (TERMINAL.has(kind)) {
      this.isOpen = false;
      this.lastTerminal = kind;
      if (kind === 'turn_done') {
        for (const result of frame.tool_results) {
          if (!is(result, OBJ)) throw new Invalid(`line ${number}: a tool result is not an object`);
          for (const [key, want] of RESULT_FIELDS) {
            if (!is(result[key], want)) {
              throw new Invalid(`line ${number}: tool_results[].${key} is missing or not ${want}`);
            }
          }
        }
        const usage = frame.usage;
        for (const [key, want] of USAGE_FIELDS) {
          if (!is(usage[key], want)) throw new Invalid(`line ${number}: usage.${key} is missing or not ${want}`);
        }
      }
    } else if (kind === 'tool_delta') {
      if (frame.update === '') throw new Invalid(`line ${number}: empty tool_delta.update`);
    } else if (kind === 'tool_liveness') {
      if (!ACTIONS.has(frame.action)) throw new Invalid(`line ${number}: unknown tool_liveness.action`);
      if (frame.output_bytes !== undefined && !Number.isInteger(frame.output_bytes)) {
        throw new Invalid(`line ${number}: tool_liveness.output_bytes is not an int`);
      }
      if (frame.detail !== undefined && typeof frame.detail !== 'string') {
        throw new Invalid(`line ${number}: tool_liveness.detail is not a string`);
      }
    } else if (kind === 'message_start') {
      if (frame.role !== 'assistant') throw new Invalid(`line ${number}: message_start.role is not assistant`);
    } else if (kind === 'agent_start') {
      if (++this.agentStarts > 1) throw new Invalid(`line ${number}: a second agent_start`);
    } else if (kind === 'compaction_start') {
      this.compaction = turnId;
    } else if (kind === 'compaction_end') {
      if (this.compaction !== turnId) {
        throw new Invalid(`line ${number}: compaction_end without its compaction_start`);
      }
      this.compaction = null;
    }
  }

  /** The end of the stream and the child's exit code; returns the frame count. */
  end(exitCode) {
    if (this.number === 0) throw new Invalid('empty stream');
    if (this.isOpen) throw new Invalid(`round ${this.current} has no terminal frame`);
    if (this.agentStarts !== 1 || this.compaction !== null) {
      throw new Invalid('agent_start missing, or a compaction left open');
    }
    if (this.lastTerminal === null || EXIT_OF[this.lastTerminal] !== exitCode) {
      throw new Invalid(`exit code ${exitCode} but the last terminal frame is ${this.lastTerminal}`);
    }
    return this.number;
  }
}

/**
 * b. Reads one stream as a user would: `chunk`-byte Buffer slices through a StringDecoder,
 * split on '\n' (the partial last line carried into the next chunk), `JSON.parse` per
 * line, each frame checked (with `check`; without, parsing only). Returns the frame count.
 */
export function parseStream(data, chunk, check = true) {
  const decoder = new StringDecoder('utf8');
  const checker = check ? new Checker() : null;
  let carry = '';
  let frames = 0;
  for (let start = 0; start < data.length; start += chunk) {
    const lines = (carry + decoder.write(data.subarray(start, start + chunk))).split('\n');
    carry = lines.pop();
    for (const line of lines) {
      const frame = JSON.parse(line);
      if (checker !== null) checker.frame(frame);
    }
    frames += lines.length;
  }
  carry += decoder.end();
  if (carry !== '') throw new Invalid(`line ${frames + 1}: truncated (no newline at the end of the stream)`);
  return checker !== null ? checker.end(0) : frames;
}

/** The lines of a stream (a string, each line ending with '\n'), without their newlines. */
export function linesOf(text) {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The checker must not be a no-op: each of these breaks of a good stream, run through the
 * very reader that is timed (`parseStream` in `chunk`-byte slices), is refused.
 */
export function checkerRefusesBadStreams(data, chunk) {
  const lines = linesOf(data.toString('utf8'));
  const done = lines.findIndex((line) => line.startsWith('{"type":"turn_done"'));
  const delta = lines.findIndex((line) => line.startsWith('{"type":"message_delta"'));
  if (done < 0 || delta < 0) throw new Error('checker self-test: the stream has no turn_done or message_delta');
  const withoutUsage = JSON.parse(lines[done]);
  delete withoutUsage.usage;
  const broken = {
    'header not first': [lines[1], lines[0], ...lines.slice(2)],
    'a round with two terminal frames': [...lines.slice(0, done + 1), lines[done], ...lines.slice(done + 1)],
    'turn_id as a string': [...lines.slice(0, delta), lines[delta].replace('"turn_id":1', '"turn_id":"1"'),
      ...lines.slice(delta + 1)],
    'turn_done without usage': [...lines.slice(0, done), JSON.stringify(withoutUsage), ...lines.slice(done + 1)],
    'the last round unterminated': lines.slice(0, -1),
  };
  if (parseStream(data, chunk) !== lines.length) throw new Error('checker self-test: the good stream miscounts');
  for (const [name, bad] of Object.entries(broken)) {
    const buffer = Buffer.from(bad.join('\n') + '\n', 'utf8');
    try {
      parseStream(buffer, chunk);
    } catch (error) {
      if (error instanceof Invalid) continue;
      throw error;
    }
    throw new Error(`the JavaScript checker accepted a stream with ${name}`);
  }
  return Object.keys(broken).length;
}
