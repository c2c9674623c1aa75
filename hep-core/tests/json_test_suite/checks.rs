//! What each way of reading a line must give: `decode`, both `Stream` paths, and the two
//! decoders of a `message_delta` line.

use super::corpus::{DELTA_HEAD, FRAME_HEAD, GENERAL_DELTA_HEAD, wrap};
use hep_core::{
    Error, ErrorKind, Event, Frame, MAX_DEPTH, MessageDelta, Received, Stream, UnknownFrame, decode, parse_args,
};

/// A check's verdict on one case: `Err` says what is wrong.
pub(crate) type Res<T = ()> = Result<T, String>;

/// The lines before each case's line in a stream: a round is open.
const BEFORE: [&str; 2] =
    [r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#, r#"{"type":"agent_start","turn_id":1}"#];

/// The line after each case's line in a stream: it must come through whatever came before.
const AFTER: &str = r#"{"type":"message_delta","turn_id":1,"delta":"after"}"#;

/// The error kinds that say a line is not well-formed JSON text.
pub(crate) const SYNTAX_KINDS: [ErrorKind; 2] = [ErrorKind::Syntax, ErrorKind::InvalidUtf8];

/// The frame an accepted document, wrapped as the unknown frame `line`, decodes to: the
/// type, no `turn_id`, and the line verbatim (an unknown frame keeps no other field).
pub(crate) fn unknown_frame(line: &[u8]) -> Res<Frame> {
    let raw = String::from_utf8(line.to_vec()).map_err(|e| format!("an accepted line is UTF-8: {e}"))?;
    Ok(Frame::Unknown(UnknownFrame { frame_type: "x_case".into(), turn_id: None, raw }))
}

/// `line` fed to a lenient [`Stream`] after a header and an `agent_start`, and before a
/// valid frame, through `feed_with` and through `feed_borrowed`, gives exactly what
/// `decoded` (what `decode` gave) predicts: its frame at line 3, or the line skipped with
/// the same error; the frames around it come through, and nothing else is reported.
pub(crate) fn stream_agrees(line: &[u8], decoded: &Result<Frame, Error>) -> Res {
    let mut input = Vec::new();
    for known in BEFORE.iter().map(|l| l.as_bytes()).chain([line, AFTER.as_bytes()]) {
        input.extend_from_slice(known);
        input.push(b'\n');
    }
    let frame = |number: u64, raw: &str| {
        decode(raw.as_bytes())
            .map(|frame| Event::Frame(Received { line: number, raw: raw.into(), frame }))
            .map_err(show)
    };
    let mut want = vec![frame(1, BEFORE[0])?, frame(2, BEFORE[1])?];
    want.push(match decoded {
        Ok(f) => Event::Frame(Received { line: 3, raw: String::from_utf8_lossy(line).into_owned(), frame: f.clone() }),
        Err(e) => Event::Skipped(e.clone().at_line(3)),
    });
    want.push(frame(4, AFTER)?);
    let mut owned = Vec::new();
    Stream::default().feed_with(&input, |event| owned.push(event));
    let mut borrowed = Vec::new();
    Stream::default().feed_borrowed(&input, |event| borrowed.push(event.into_owned()));
    for (path, got) in [("feed_with", owned), ("feed_borrowed", borrowed)] {
        if got != want {
            return Err(format!("Stream::{path} gave {got:?}\n  decode predicts {want:?}"));
        }
    }
    Ok(())
}

/// The value hep's JSON parser reads for a `y_` document (through [`parse_args`], on the
/// line `{"v":DOC}`) is the one serde_json reads, the oracle, or `pinned` (JSON text) when
/// the table lists another.
pub(crate) fn value_matches_serde(doc: &[u8], pinned: Option<&str>) -> Res {
    let line = wrap(br#"{"v":"#, doc);
    let text = std::str::from_utf8(&line).map_err(|e| format!("a `y_` line is UTF-8: {e}"))?;
    let oracle = match pinned {
        Some(value) => serde_json::from_str(&format!(r#"{{"v":{value}}}"#)),
        None => serde_json::from_str(text),
    };
    let want: serde_json::Value = oracle.map_err(|e| format!("serde_json: {e}"))?;
    let got = parse_args(text).map_err(show)?;
    match got.as_json() {
        Some(values) if want.as_object() == Some(values) => Ok(()),
        _ => Err(format!("hep's parser read {got:?}\n  serde_json read {want}")),
    }
}

/// A refused document's error from `decode`: a syntax or encoding kind (or `pinned`, a
/// kind the case's table entry names), no line, and a column inside the document or at the
/// `}` after it; an `invalid_utf8` error exactly at the first bad byte, a `too_deep` one
/// within the first [`MAX_DEPTH`] levels (so the parser stopped there, however long the line).
pub(crate) fn rejected_sensibly(line: &[u8], err: &Error, pinned: Option<ErrorKind>) -> Res {
    let kind_ok = match pinned {
        Some(kind) => err.kind() == kind,
        None => SYNTAX_KINDS.contains(&err.kind()),
    };
    if !kind_ok {
        let want = pinned.map_or_else(|| format!("{SYNTAX_KINDS:?}"), |kind| format!("{kind:?}"));
        return Err(format!("error kind `{}`, want {want}: {err}", err.kind()));
    }
    let bad_byte = std::str::from_utf8(line).err().map(|e| e.valid_up_to() as u64 + 1);
    let columns = FRAME_HEAD.len() as u64 + 1..=line.len() as u64 + 1;
    match bad_byte {
        _ if err.line() != 0 => Err(format!("`decode` placed the error on line {}: {err}", err.line())),
        Some(column) if err.kind() != ErrorKind::InvalidUtf8 || err.column() != column => {
            Err(format!("the first bad UTF-8 byte is at column {column}: {err}"))
        }
        None if err.kind() == ErrorKind::InvalidUtf8 => Err(format!("the line is UTF-8: {err}")),
        _ if !columns.contains(&err.column()) => Err(format!("column {} is outside {columns:?}: {err}", err.column())),
        // No corpus document opens a level in more than 8 bytes (`[{"":` takes 5).
        _ if err.kind() == ErrorKind::TooDeep && err.column() > (FRAME_HEAD.len() + 8 * MAX_DEPTH) as u64 => {
            Err(format!("refused past the depth bound, at column {}: {err}", err.column()))
        }
        _ => Ok(()),
    }
}

/// A `["..."]` document's `string` as a `message_delta`'s `delta`, decoded by the one-pass
/// decoder (the writer's key order) and by the general one (another order): both must give
/// the same frame, or errors of the same kind at the same column, and both `Stream` paths
/// must read the writer's line alike. Returns what the one-pass decoder gave.
pub(crate) fn delta_decoders_agree(string: &[u8]) -> Res<Result<Frame, Error>> {
    let fast = decode(&wrap(DELTA_HEAD, string));
    let general = decode(&wrap(GENERAL_DELTA_HEAD, string));
    let agree = match (&fast, &general) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => (a.kind(), a.line(), a.column()) == (b.kind(), b.line(), b.column()),
        _ => false,
    };
    if !agree {
        return Err(format!("the decoders disagree: one-pass {fast:?}, general {general:?}"));
    }
    stream_agrees(&wrap(DELTA_HEAD, string), &fast)?;
    Ok(fast)
}

/// The error a `["..."]` document's `string` gives as a `delta` (`as_delta`) is the one the
/// whole document gives as a frame's value (`as_value`): the same kind, at the same byte of
/// the string, or both at the end of their line (an unterminated string reads to the end).
pub(crate) fn same_error_in_string(doc: &[u8], string: &[u8], as_delta: &Error, as_value: &Error) -> Res {
    // The kind, and the column counted from the string's opening quote (None: the line's end).
    let place = |err: &Error, string_at: usize, line_len: usize| {
        let column = err.column() as i64;
        (err.kind(), (column <= line_len as i64).then(|| column - string_at as i64))
    };
    let offset = string.as_ptr() as usize - doc.as_ptr() as usize;
    let delta = place(as_delta, DELTA_HEAD.len(), DELTA_HEAD.len() + string.len() + 1);
    let value = place(as_value, FRAME_HEAD.len() + offset, FRAME_HEAD.len() + doc.len() + 1);
    if delta == value { Ok(()) } else { Err(format!("as a delta {as_delta}, as a frame's value {as_value}")) }
}

/// The `message_delta` frame holding `delta`, as the writer would have sent it.
pub(crate) fn delta_frame(delta: &str) -> Frame {
    Frame::MessageDelta(MessageDelta { turn_id: 1, delta: delta.into() })
}

/// An error for a failure report.
pub(crate) fn show(err: Error) -> String {
    format!("{}: {err}", err.kind())
}
