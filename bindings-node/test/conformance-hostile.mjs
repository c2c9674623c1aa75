// The `hostile/` cases: a `line` or a `stream` that must be accepted, must be rejected, or is
// implementation-defined (a list of allowed outcomes, and the one this library gives). Same
// semantics as the Rust runner (hep-core/tests/conformance/hostile.rs): anything the runner does
// not know is an error, never a pass.

import { HepError, Stream, parseLine } from 'hep';
import { EXPECT_KEYS, checkExpect, observe } from './conformance-stream.mjs';
import { CaseError, ERROR_KINDS, canonical, encoded, get, getBytes, getList, getStr, getUint, sameJson, sameText, show } from './conformance-support.mjs';

const OUTCOMES = ['accept', 'reject', 'implementation_defined'];
const STREAM_MUST_PIN = ['frames', 'violations', 'skipped', 'verdict'];
const LINE_KEYS = ['line', 'line_base64', 'frame', 'encoded', 'error'];
const STREAM_KEYS = ['input', 'input_base64', 'input_lines', 'options', 'exit_code', 'expect'];

export function runHostile(c) {
  const topic = getStr(c, 'topic');
  if (topic.trim() === '') throw new CaseError('`topic` must not be empty');
  const form = getStr(c, 'form');
  const outcome = getStr(c, 'outcome');
  if (!OUTCOMES.includes(outcome)) throw new CaseError(`unknown \`outcome\` \`${outcome}\` (accept, reject or implementation_defined)`);
  refuseKeysOfOtherKinds(c, form, outcome);
  if (form === 'line') lineCase(c, outcome);
  else if (form === 'stream') streamCase(c, outcome);
  else throw new CaseError(`unknown hostile case \`form\` \`${form}\` (line or stream)`);
}

/** A key that belongs to another form or outcome means the case is not what it seems. */
function refuseKeysOfOtherKinds(c, form, outcome) {
  const foreign = form === 'line' ? [...STREAM_KEYS] : form === 'stream' ? [...LINE_KEYS] : [];
  if (outcome === 'implementation_defined') {
    foreign.push('frame', 'encoded', 'error', 'expect');
    if (typeof c.why !== 'string' || c.why.trim() === '') throw new CaseError('an implementation_defined case needs a non-empty string `why`');
  } else {
    foreign.push('allowed', 'chosen');
  }
  if (form === 'line' && outcome === 'accept') foreign.push('error');
  if (form === 'line' && outcome === 'reject') foreign.push('frame', 'encoded');
  const key = foreign.find((k) => Object.hasOwn(c, k));
  if (key !== undefined) throw new CaseError(`key \`${key}\` does not belong to a \`${form}\` case with outcome \`${outcome}\``);
}

// ---- line cases ----

/** `{frame}` or `{error}` (a HepError); anything else thrown propagates (a crash fails the case). */
function decode(line) {
  try {
    return { frame: parseLine(line) };
  } catch (e) {
    if (e instanceof HepError) return { error: e };
    throw e;
  }
}

function lineCase(c, outcome) {
  const line = getBytes(c, 'line');
  if (line.includes(0x0a)) throw new CaseError('a line case cannot hold `\\n` (a line ends there): make it a stream case');
  if (line.at(-1) === 0x0d) throw new CaseError('a line case cannot end in `\\r` (a line end to some helpers): make it a stream case');
  const got = decode(line);
  if (got.frame !== undefined && (got.frame.line !== 1 || got.frame.raw !== line.toString('utf8'))) {
    throw new CaseError(`the frame's line is ${show(got.frame.line)} ${show(got.frame.raw)}, not 1 and the line`);
  }
  asOneLineStream(line, got);
  if (outcome !== 'implementation_defined') {
    lineMatches(c, got);
    return;
  }
  const allowed = getList(c, 'allowed');
  allowed.forEach((alt, i) => {
    try {
      lineAlternative(alt);
    } catch (e) {
      if (e instanceof CaseError) throw new CaseError(`\`allowed[${i}]\`: ${e.message}`);
      throw e;
    }
  });
  chosen(
    c,
    allowed.map((alt) => attempt(() => lineMatches(alt, got))),
    () => describe(got),
  );
}

/** An allowed line outcome is `{outcome: 'accept', frame?, encoded?}` (at least one of the two) or `{outcome: 'reject', error}`. */
function lineAlternative(alt) {
  const outcome = getStr(alt, 'outcome');
  let keys;
  if (outcome === 'accept') {
    if (!Object.hasOwn(alt, 'frame') && !Object.hasOwn(alt, 'encoded')) throw new CaseError('an allowed `accept` needs `frame` or `encoded`');
    keys = ['outcome', 'frame', 'encoded'];
  } else if (outcome === 'reject') {
    keys = ['outcome', 'error'];
  } else {
    throw new CaseError(`unknown allowed \`outcome\` \`${outcome}\` (accept or reject)`);
  }
  const key = Object.keys(alt).find((k) => !keys.includes(k));
  if (key !== undefined) throw new CaseError(`unknown key \`${key}\` in an allowed outcome`);
}

/** `want` (a case, or an allowed outcome) holds `outcome` and what it implies. */
function lineMatches(want, got) {
  const outcome = getStr(want, 'outcome');
  if (outcome === 'accept') {
    if (got.error !== undefined) throw new CaseError(`must decode, but is rejected: ${got.error.message}`);
    if (Object.hasOwn(want, 'frame')) sameJson('the decoded frame', get(want, 'frame'), canonical(got.frame));
    if (Object.hasOwn(want, 'encoded')) sameText('the encoding of the decoded frame', getStr(want, 'encoded'), encoded(got.frame));
    return;
  }
  if (outcome !== 'reject') throw new CaseError(`unknown \`outcome\` \`${outcome}\``);
  const error = get(want, 'error');
  const kind = getStr(error, 'kind');
  if (!ERROR_KINDS.includes(kind)) throw new CaseError(`\`error.kind\` \`${kind}\` is no ErrorKind name`);
  if (got.error === undefined) throw new CaseError(`must be rejected with \`${kind}\`, but decodes to ${show(canonical(got.frame))}`);
  const err = got.error;
  if (err.kind !== kind) throw new CaseError(`rejected with kind \`${err.kind}\` instead of \`${kind}\`: ${err.message}`);
  if (err.code !== `HEP_${kind.toUpperCase()}`) throw new CaseError(`rejected with code ${err.code} for kind ${kind}`);
  if (Object.hasOwn(error, 'column')) {
    const column = getUint(error, 'column');
    if (err.column !== column) throw new CaseError(`rejected at column ${err.column} instead of ${column}: ${err.message}`);
  }
}

function describe(got) {
  if (got.error !== undefined) return `rejected with \`${got.error.kind}\` at column ${got.error.column}: ${got.error.message}`;
  return `accepted as ${show(canonical(got.frame))}`;
}

/** The line fed as a one-line stream (`line` + `\n`) gives the same: the same frame, or line 1 skipped with the same kind. */
function asOneLineStream(line, got) {
  const stream = new Stream({ raw: true }); // as parseLine: an unknown frame keeps its line
  let frames;
  try {
    frames = stream.feed(Buffer.concat([line, Buffer.from('\n')]));
  } catch (e) {
    if (!(e instanceof HepError)) throw e;
    frames = e.frames; // a refused version halts the stream after its header
  }
  const result = stream.finish(null);
  const skipped = result.skipped.map((s) => [s.line, s.kind]);
  if (got.error !== undefined) {
    if (frames.length === 0 && show(skipped) === show([[1, got.error.kind]])) return;
  } else if (skipped.length === 0 && frames.length === 1 && encoded(frames[0]) === encoded(got.frame)) {
    sameJson('fed as a one-line stream, the frame', canonical(got.frame), canonical(frames[0]));
    return;
  }
  throw new CaseError(
    `fed as a one-line stream, the line gives frames ${show(frames.map(canonical))} and skipped ${show(skipped)}, unlike decoding it (${describe(got)})`,
  );
}

// ---- stream cases ----

function streamCase(c, outcome) {
  const whole = observe(c);
  if (outcome === 'implementation_defined') {
    const allowed = getList(c, 'allowed');
    allowed.forEach((want, i) => {
      try {
        pinsEnough(want);
      } catch (e) {
        if (e instanceof CaseError) throw new CaseError(`\`allowed[${i}]\`: ${e.message}`);
        throw e;
      }
    });
    chosen(
      c,
      allowed.map((want) => attempt(() => checkExpect(want, whole))),
      () => show(whole),
    );
    return;
  }
  const expect = get(c, 'expect');
  pinsEnough(expect);
  checkExpect(expect, whole);
  if (outcome === 'accept' && whole.conforms !== true) throw new CaseError('an `accept` stream case must conform, and this one does not');
  if (outcome === 'reject' && whole.conforms !== false) throw new CaseError('a `reject` stream case must not conform, and this one does');
}

/** A hostile stream outcome pins at least the frames, violations, skipped lines and verdict, and nothing a runner does not know. */
function pinsEnough(expect) {
  if (expect === null || typeof expect !== 'object' || Array.isArray(expect)) throw new CaseError('a stream outcome must be an object');
  const unknown = Object.keys(expect).find((k) => !EXPECT_KEYS.includes(k));
  if (unknown !== undefined) throw new CaseError(`unknown \`expect\` key \`${unknown}\``);
  const missing = STREAM_MUST_PIN.find((k) => !Object.hasOwn(expect, k));
  if (missing !== undefined) throw new CaseError(`a hostile stream outcome must pin \`${missing}\``);
}

// ---- implementation-defined ----

/** null when `check` passes, else what differs. */
function attempt(check) {
  try {
    check();
    return null;
  } catch (e) {
    if (e instanceof CaseError) return e.message;
    throw e;
  }
}

/**
 * `checks[i]` says whether the outcome is `allowed[i]`; it must be `allowed[chosen]`, the
 * alternative this library takes (so that every binding gives the same).
 */
function chosen(c, checks, got) {
  if (checks.length === 0) throw new CaseError('`allowed` lists no outcome');
  const index = getUint(c, 'chosen');
  if (index >= checks.length) throw new CaseError(`\`chosen\` ${index} is no index of \`allowed\``);
  if (checks[index] === null) return;
  const other = checks.findIndex((check) => check === null);
  if (other >= 0) {
    throw new CaseError(`the outcome is allowed[${other}], not the chosen allowed[${index}]: the bindings would disagree\n  ${checks[index]}`);
  }
  throw new CaseError(`the outcome is none of the allowed ones: ${got()}\n  against allowed[${index}]: ${checks[index]}`);
}
