'use strict';
// `read(source, options)`: the frames of a saved stream, from a file path or any Readable
// (or other async iterable of chunks). Chunks are fed to a `Stream` as they come and the
// input is ended at the end: a truncated last line is skipped in lenient mode and throws a
// HepError (`HEP_TRUNCATED`) in strict mode.

const fs = require('node:fs');
const { Stream, checkLimits } = require('./stream.js');

const CHUNK_BYTES = 64 * 1024;

/** Feeds one step (`feed` or `endInput`); in strict mode, the frames before the error come first. */
function* take(step) {
  let frames;
  try {
    frames = step();
  } catch (error) {
    if (Array.isArray(error.frames)) yield* error.frames;
    throw error;
  }
  yield* frames;
}

/**
 * Iterates the frames of a saved stream. `source` is a path (string or URL) or a Readable
 * of bytes or text. Options: `strict`, `raw`, `maxLineBytes` and `limits`, as for `Stream`.
 */
async function* read(source, options = {}) {
  const { strict = false, raw = false, maxLineBytes } = options;
  const limits = checkLimits(options.limits, 'read(options): limits');
  const streamOptions = { strict, raw, limits };
  if (maxLineBytes !== undefined) streamOptions.maxLineBytes = maxLineBytes;
  const stream = new Stream(streamOptions);
  const opened = typeof source === 'string' || source instanceof URL;
  if (!opened && (source === null || typeof source !== 'object' || !(Symbol.asyncIterator in source))) {
    throw new TypeError('read(): source must be a path or a Readable');
  }
  const input = opened ? fs.createReadStream(source, { highWaterMark: CHUNK_BYTES }) : source;
  try {
    for await (const chunk of input) yield* take(() => stream.feed(chunk));
    yield* take(() => stream.endInput());
  } finally {
    if (opened) input.destroy();
  }
}

module.exports = { read };
