'use strict';
// `HepError`: every error of the core (and any failure of the binding itself) as one Error
// class whose `code` names the core's error kind.

/** Any error of hep: `code` is `HEP_` and the kind in capitals, e.g. `HEP_WRONG_TYPE`. */
class HepError extends Error {
  /**
   * @param {string} message
   * @param {{kind?: string, line?: number | null, column?: number | null, excerpt?: string, cause?: unknown}} [details]
   */
  constructor(message, { kind = 'internal', line = null, column = null, excerpt = '', ...options } = {}) {
    super(message, options);
    this.name = 'HepError';
    this.code = `HEP_${kind.toUpperCase()}`;
    this.kind = kind;
    this.line = line;
    this.column = column;
    this.excerpt = excerpt;
  }
}

/**
 * The `HepError` of a record of the native addon: the core's error fields and its text
 * (a line or column of 0 means none, given as null).
 */
function fromRecord(record) {
  return new HepError(record.text, {
    kind: record.kind,
    line: record.line === 0 ? null : record.line,
    column: record.column === 0 ? null : record.column,
    excerpt: record.excerpt,
  });
}

module.exports = { HepError, fromRecord };
