'use strict';
// Frames as plain objects with the protocol's field names: from the native addon's batches
// (the layout is documented in src/batch.rs), and back to their exact line.
//
// A frame of a type v1 does not know is `{type: 'unknown', frame}`, `frame` being the
// line's object as it is (with its own `type`), so that `switch (frame.type)` narrows.

const { native, constants } = require('./native.js');
const check = require('./check.js');

/** The type of each frame code of a batch, as the core names them (see src/batch.rs). */
const TYPES = [
  'hep_header',
  'agent_start',
  'message_start',
  'message_delta',
  'tool_start',
  'tool_delta',
  'tool_liveness',
  'turn_done',
  'turn_error',
  'cancelled',
  'compaction_start',
  'compaction_end',
  'unknown',
];
if (constants.frameTypes.join() !== TYPES.join()) {
  throw new Error(`hep: the native addon's frame types ${constants.frameTypes} are not ${TYPES}: rebuild it`);
}

/**
 * The frames of a batch. `pool` holds the string fields one after the other, `cols` each
 * frame's code, then (in `raw` mode) its line number and the end of its line in `pool`,
 * then its fields; `at` is where the next string starts.
 */
function framesOf(pool, cols, raw) {
  const frames = [];
  const n = cols.length;
  let i = 0;
  let at = 0;
  while (i < n) {
    const code = cols[i++];
    let line = 0;
    let text = '';
    if (raw) {
      line = cols[i++];
      text = pool.slice(at, (at = cols[i++]));
    }
    let frame;
    switch (code) {
      case 3:
        frame = { type: 'message_delta', turn_id: cols[i++], delta: pool.slice(at, (at = cols[i++])) };
        break;
      case 5:
        frame = {
          type: 'tool_delta',
          turn_id: cols[i++],
          id: pool.slice(at, (at = cols[i++])),
          update: pool.slice(at, (at = cols[i++])),
        };
        break;
      case 0:
        frame = {
          type: 'hep_header',
          hep: pool.slice(at, (at = cols[i++])),
          fah: pool.slice(at, (at = cols[i++])),
          session: pool.slice(at, (at = cols[i++])),
        };
        break;
      case 1:
        frame = { type: 'agent_start', turn_id: cols[i++] };
        break;
      case 2:
        frame = { type: 'message_start', turn_id: cols[i++], role: pool.slice(at, (at = cols[i++])) };
        break;
      case 4:
        frame = {
          type: 'tool_start',
          turn_id: cols[i++],
          id: pool.slice(at, (at = cols[i++])),
          name: pool.slice(at, (at = cols[i++])),
          args_summary: pool.slice(at, (at = cols[i++])),
        };
        break;
      case 6: {
        frame = {
          type: 'tool_liveness',
          turn_id: cols[i++],
          id: pool.slice(at, (at = cols[i++])),
          name: pool.slice(at, (at = cols[i++])),
          action: pool.slice(at, (at = cols[i++])),
          elapsed_ms: cols[i++],
        };
        const outputBytes = cols[i++];
        if (!Number.isNaN(outputBytes)) frame.output_bytes = outputBytes;
        const detailEnd = cols[i++];
        if (!Number.isNaN(detailEnd)) frame.detail = pool.slice(at, (at = detailEnd));
        break;
      }
      case 7: {
        const turnId = cols[i++];
        const message = pool.slice(at, (at = cols[i++]));
        const count = cols[i++];
        const toolResults = [];
        for (let k = 0; k < count; k++) {
          toolResults.push({
            id: pool.slice(at, (at = cols[i++])),
            name: pool.slice(at, (at = cols[i++])),
            ok: cols[i++] === 1,
            text: pool.slice(at, (at = cols[i++])),
          });
        }
        frame = {
          type: 'turn_done',
          turn_id: turnId,
          message,
          tool_results: toolResults,
          usage: { input: cols[i++], output: cols[i++], cost: cols[i++] },
          stop_reason: pool.slice(at, (at = cols[i++])),
        };
        break;
      }
      case 8:
        frame = { type: 'turn_error', turn_id: cols[i++], error: pool.slice(at, (at = cols[i++])), fatal: cols[i++] === 1 };
        break;
      case 9:
        frame = { type: 'cancelled', turn_id: cols[i++] };
        break;
      case 10:
        frame = { type: 'compaction_start', turn_id: cols[i++] };
        break;
      case 11:
        frame = { type: 'compaction_end', turn_id: cols[i++], tokens_freed: cols[i++] };
        break;
      case 12:
        frame = { type: 'unknown', frame: JSON.parse(pool.slice(at, (at = cols[i++]))) };
        break;
      default:
        throw new Error(`hep: unknown frame code ${code} in a batch of the native addon: rebuild it`);
    }
    if (raw) {
      Object.defineProperty(frame, 'raw', { value: text, configurable: true });
      Object.defineProperty(frame, 'line', { value: line, configurable: true });
    }
    frames.push(frame);
  }
  return frames;
}

/**
 * One line (without its newline; a final `\n` or `\r\n` is ignored) to its frame, which
 * carries the line as non-enumerable `raw` and `line` (1). Throws a `HepError`.
 */
function parseLine(line) {
  let batch;
  if (typeof line === 'string') batch = native.parseLineText(line);
  else if (line instanceof Uint8Array) batch = native.parseLine(line);
  else throw new TypeError(`parseLine(line): line must be a string, a Buffer or a Uint8Array, not ${check.describe(line)}`);
  return framesOf(batch[0], batch[1], true)[0];
}

/**
 * The exact line the reference emitter writes for `frame` (no newline). Throws a `HepError`
 * for a frame the protocol cannot carry. An unknown frame is written back as its line
 * (`raw`) when it has one, else as the JSON of its object.
 */
function encode(frame) {
  check.object(frame, 'encode(frame): frame');
  if (frame.type !== 'unknown') return native.encode(frame);
  if (typeof frame.raw === 'string') return native.encodeUnknown(frame.raw);
  check.object(frame.frame, "encode(frame): an unknown frame's `frame`");
  return native.encodeUnknown(JSON.stringify(frame.frame));
}

module.exports = { framesOf, parseLine, encode };
