// A toy harness that prints a HEP v1 stream on stdout with the package's `Writer`.
//
// It plays a two-round run: the assistant says what it will do, reads a file with a tool
// (streamed output and a heartbeat), then gives its answer. On SIGINT or SIGTERM it writes
// `cancelled` and exits 130, as the reference harness does while its agent streams (which
// this toy does from its first line to its last).
//
//     node examples/node/emit.mjs                      # the stream, on stdout
//     hep check -- node examples/node/emit.mjs         # checked against the protocol
//     hep watch -- node examples/node/emit.mjs         # mirrored live

import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT_CANCELLED, EXIT_OK, Writer } from 'hep';

const FAH_VERSION = '0.1.0';
const PAUSE_MS = 10; // between chunks, so the stream arrives the way a live one does

// START writer
/** Sends `text` as a few `message_delta` chunks. */
async function streamText(out, text, signal) {
  for (let start = 0; start < text.length; start += 12) {
    out.messageDelta(text.slice(start, start + 12));
    await sleep(PAUSE_MS, undefined, { signal });
  }
}

async function run(out, signal) {
  out.header('demo-1');
  out.agentStart();

  // Round 1: some text, then a tool call with streamed output.
  out.messageStart('assistant');
  const intro = 'Let me read the notes first.';
  await streamText(out, intro, signal);
  out.toolStart('call_1', 'read', { path: 'notes.txt' });
  const lines = ['# Notes\n', '- the parser splits lines on newlines only\n', '- 42 tests\n'];
  for (const line of lines) {
    out.toolDelta('call_1', line);
    await sleep(PAUSE_MS, undefined, { signal });
  }
  const size = Buffer.byteLength(lines.join(''));
  out.toolLiveness('call_1', 'read', 'heartbeat', 1000, size, 'attempt 1');
  out.turnDone(
    intro,
    [{ id: 'call_1', name: 'read', ok: true, text: lines.join('').trimEnd() }],
    { input: 1200, output: 85, cost: 0.0051 },
    'toolUse',
  );

  // Round 2: the answer.
  out.messageStart('assistant');
  const answer = 'The notes say the parser splits lines on newlines only, and all 42 tests pass.';
  await streamText(out, answer, signal);
  out.turnDone(answer, [], { input: 1350, output: 40, cost: 0.0047 }, 'stop');
}
// END writer

// START writer-main
async function main() {
  const out = new Writer(process.stdout, { fahVersion: FAH_VERSION });
  const stop = new AbortController(); // SIGINT or SIGTERM interrupt the waits of `run`
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  try {
    await run(out, stop.signal);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    out.cancelled(); // the round's terminal frame; then exit 130
    return EXIT_CANCELLED;
  }
  return EXIT_OK;
}
// END writer-main

process.exitCode = await main();
