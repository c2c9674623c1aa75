'use strict';
// `Tail`: the last bytes of a byte stream (a child's stderr), bounded: the core's.

const { native, constants } = require('./addon.js');
const check = require('./check.js');

/** The last `cap` bytes of a byte stream (a child's stderr). */
class Tail {
  #native;

  constructor(cap = constants.stderrTailBytes) {
    this.#native = new native.NativeTail(check.count(cap, 'Tail(cap)'));
  }

  /** Appends a chunk (bytes, or text as UTF-8), forgetting the oldest bytes beyond the cap. */
  push(chunk) {
    if (typeof chunk === 'string') chunk = Buffer.from(chunk);
    else if (!(chunk instanceof Uint8Array)) {
      throw new TypeError(`Tail.push(chunk): chunk must be a Buffer, a Uint8Array or a string, not ${check.describe(chunk)}`);
    }
    this.#native.push(chunk);
  }

  /** The kept bytes as text (a character cut at the start as U+FFFD). */
  text() {
    return this.#native.text();
  }

  /** How many bytes were forgotten. */
  get dropped() {
    return this.#native.dropped;
  }
}

module.exports = { Tail };
