// hep, as an ES module: the very objects of the CommonJS entry (index.js).
import hep from './index.js';

export const {
  VERSION,
  PROTOCOL_VERSION,
  EXIT_OK,
  EXIT_FAILED,
  EXIT_CANCELLED,
  INTERRUPT_GRACE_MS,
  TERMINATE_GRACE_MS,
  STDERR_TAIL_BYTES,
  DRAIN_AFTER_EXIT_MS,
  MAX_STDERR_LINE,
  PAUSE_AT_BYTES,
  MIN_DROP_AT_BYTES,
  TOOL_RESULT_CAP,
  MAX_LINE_BYTES,
  HepError,
  parseLine,
  encode,
  Stream,
  Writer,
  Tail,
  exitCodeForSignal,
  sanitize,
  jsonSchema,
  cap,
  utf16Len,
  argsSummary,
  argsFull,
  spawn,
  Run,
  Supervisor,
  read,
} = hep;

export default hep;
