//! Hostile input: arbitrary and mutated bytes never panic `decode` or `Stream`, anything
//! accepted re-encodes stably, and deep nesting is refused as `too_deep` without recursion.

use crate::chunking::options;
use crate::script::{play, script};
use crate::strategies::*;
use hep_core::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

/// Tokens that make random input look like JSON and HEP.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ":",
    ",",
    " ",
    "\t",
    "\r",
    "-",
    "0",
    "1",
    "9007199254740992",
    "1.5",
    "e",
    "E+",
    "1e999",
    "-0",
    "true",
    "false",
    "null",
    "\\u",
    "d800",
    "dc00",
    "\\ud83d\\ude00",
    "\\n",
    "\u{2028}",
    "\u{0}",
    "\u{7f}",
    "😀",
    "\"type\"",
    "\"turn_done\"",
    "\"tool_liveness\"",
    "\"hep_header\"",
    "\"turn_id\"",
    "\"usage\"",
    "\"cost\"",
    "\"tool_results\"",
    "\"detail\"",
    "\"output_bytes\"",
    "\"fatal\"",
];

fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    vec(prop::sample::select(TOKENS), 0..40).prop_map(|parts| parts.concat().into_bytes())
}

/// Arbitrary bytes or JSON-ish token soup, up to `max` random bytes.
fn hostile_bytes(max: usize) -> impl Strategy<Value = Bytes> {
    prop_oneof![vec(any::<u8>(), 0..max), jsonish()].prop_map(Bytes)
}

/// One edit of a line.
#[derive(Debug, Clone)]
enum Mutation {
    Truncate(Index),
    Flip(Index, u8),
    Insert(Index, u8),
    InsertToken(Index, &'static str),
    Delete(Index, Index),
    Nest(Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let hostile_byte = prop::sample::select(
        &[b'"', b'\\', b'[', b']', b'{', b'}', b',', b':', b'\n', b'\r', 0, 0x80, 0xc3, 0xed, 0xf0, 0xff][..],
    );
    prop_oneof![
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), 1u8..=255).prop_map(|(at, x)| Mutation::Flip(at, x)),
        (any::<Index>(), hostile_byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(at, t)| Mutation::InsertToken(at, t)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Delete(a, b)),
        (any::<Index>(), 0usize..200).prop_map(|(at, depth)| Mutation::Nest(at, depth)),
    ]
}

fn mutate(line: &mut Vec<u8>, m: &Mutation) {
    let at = |i: &Index, len: usize| i.index(len + 1);
    match m {
        Mutation::Truncate(i) => line.truncate(at(i, line.len())),
        Mutation::Flip(i, x) => {
            if !line.is_empty() {
                let pos = i.index(line.len());
                if let Some(b) = line.get_mut(pos) {
                    *b ^= x;
                }
            }
        }
        Mutation::Insert(i, b) => line.insert(at(i, line.len()), *b),
        Mutation::InsertToken(i, t) => {
            let pos = at(i, line.len());
            line.splice(pos..pos, t.bytes());
        }
        Mutation::Delete(a, b) => {
            let (a, b) = (at(a, line.len()), at(b, line.len()));
            line.drain(a.min(b)..a.max(b));
        }
        Mutation::Nest(i, depth) => {
            let pos = at(i, line.len());
            let nest = format!("{}{}", "[{\"a\":".repeat(*depth), "}]".repeat(*depth));
            line.splice(pos..pos, nest.bytes());
        }
    }
}

/// Decodes `bytes`; whatever it accepts must re-encode to a line that decodes to the same
/// frame; whatever it refuses must be a decode error placed within the line.
///
/// A known frame re-encodes canonically (no raw control byte); an unknown frame is written
/// back verbatim, JSON whitespace (`\t`, `\r`, even `\n` when `decode` is called directly) included.
fn decode_checked(bytes: &[u8]) -> Result<(), TestCaseError> {
    match decode(bytes) {
        Ok(frame) => {
            let line = encode(&frame)?;
            if let Frame::Unknown(unknown) = &frame {
                prop_assert_eq!(line.as_bytes(), bytes);
                prop_assert_eq!(&unknown.raw, &line);
            } else {
                prop_assert!(line.bytes().all(|b| b >= 0x20), "control byte in {:?}", line);
            }
            let again = decode(line.as_bytes())?;
            prop_assert_eq!(encode(&again)?, line);
            if !matches!(frame, Frame::ToolLiveness(ToolLiveness { detail: Some(ref d), .. }) if d.is_empty()) {
                prop_assert_eq!(again, frame);
            }
        }
        Err(err) => {
            let decode_kinds = [
                ErrorKind::Syntax,
                ErrorKind::InvalidUtf8,
                ErrorKind::TrailingCharacters,
                ErrorKind::NotAnObject,
                ErrorKind::MissingField,
                ErrorKind::DuplicateField,
                ErrorKind::WrongType,
                ErrorKind::OutOfRange,
                ErrorKind::TooDeep,
            ];
            prop_assert!(decode_kinds.contains(&err.kind()), "{}", err);
            prop_assert!(
                err.column() >= 1 && err.column() <= bytes.len() as u64 + 1,
                "column {} of {} bytes: {}",
                err.column(),
                bytes.len(),
                err
            );
            prop_assert_eq!(err.line(), 0);
        }
    }
    Ok(())
}

/// Feeds `bytes` in chunks and checks the bookkeeping of the result.
fn stream_checked(
    options: StreamOptions,
    bytes: &[u8],
    splits: &[Index],
    exit_code: Option<i32>,
) -> Result<(), TestCaseError> {
    let mut stream = Stream::new(options);
    let mut events = Vec::new();
    for chunk in chunks(bytes, splits) {
        stream.feed_into(chunk, &mut events);
    }
    events.extend(stream.end_input());
    let result = stream.finish(exit_code);
    let mut last_line = 0;
    for event in &events {
        if let Event::Frame(r) = event {
            prop_assert!(r.line > last_line, "line {} after {}", r.line, last_line);
            last_line = r.line;
        }
    }
    prop_assert!(result.skipped_count >= result.skipped.len() as u64);
    prop_assert!(result.violation_count >= result.violations.len() as u64);
    prop_assert!(result.skipped.len() <= options.limits.max_reports);
    prop_assert!(result.violations.len() <= options.limits.max_reports);
    if matches!(result.verdict, Verdict::Ok | Verdict::Failed | Verdict::Cancelled) {
        prop_assert!(result.conforms, "{:?} but not conforming: {:?}", result.verdict, result.reasons);
    }
    let halted = events.iter().any(|e| matches!(e, Event::Halted(_)));
    prop_assert_eq!(halted, result.halted.is_some());
    if halted {
        prop_assert!(matches!(events.last(), Some(Event::Halted(_))), "a halt is the last event");
        prop_assert_eq!(result.verdict, Verdict::ProtocolError);
    } else {
        let frames = events.iter().filter(|e| matches!(e, Event::Frame(_))).count() as u64;
        prop_assert_eq!(frames + result.skipped_count, result.lines);
        prop_assert_eq!(result.run.frames, frames);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn decode_never_panics_on_bytes(bytes in hostile_bytes(120)) {
        let Bytes(bytes) = bytes;
        decode_checked(&bytes)?;
        let _ = parse_args(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn decode_never_panics_on_mutated_frames(frame in known_frame(), edits in vec(mutation(), 1..4)) {
        let mut line = encode(&frame)?.into_bytes();
        for m in &edits {
            mutate(&mut line, m);
        }
        decode_checked(&line)?;
    }

    #[test]
    fn stream_never_panics_on_bytes(
        bytes in hostile_bytes(400),
        options in options(),
        splits in vec(any::<Index>(), 0..8),
        exit_code in exit_code(),
    ) {
        let Bytes(bytes) = bytes;
        stream_checked(options, &bytes, &splits, exit_code)?;
    }
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn stream_never_panics_on_mutated_runs(
        script in script(),
        edits in vec((any::<Index>(), mutation()), 1..6),
        options in options(),
        splits in vec(any::<Index>(), 0..8),
        exit_code in exit_code(),
    ) {
        let mut lines: Vec<Vec<u8>> = play(&script)?.lines.into_iter().map(String::into_bytes).collect();
        for (which, m) in &edits {
            let n = lines.len();
            if let Some(line) = lines.get_mut(which.index(n)) {
                mutate(line, m);
            }
        }
        let mut bytes = lines.join(&b'\n');
        bytes.push(b'\n');
        stream_checked(options, &bytes, &splits, exit_code)?;
    }
}

#[test]
fn deep_nesting_is_too_deep_not_a_stack_overflow() {
    let n = 10_000;
    let cases = [
        "[".repeat(n),
        "[".repeat(n) + &"]".repeat(n),
        "{\"a\":".repeat(n),
        "{\"a\":".repeat(n) + "1" + &"}".repeat(n),
        format!("{{\"type\":\"turn_done\",\"x\":{}", "[".repeat(n)),
        format!(
            "{{\"type\":\"tool_start\",\"turn_id\":1,\"args_summary\":{}{}}}",
            "[{\"k\":".repeat(n),
            "}]".repeat(n)
        ),
    ];
    for text in &cases {
        let err = decode(text.as_bytes()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TooDeep, "{err}");
        assert!(err.column() <= 6 * (MAX_DEPTH as u64 + 8) + 40, "too_deep reported late, at column {}", err.column());
        let err = parse_args(text).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TooDeep, "{err}");

        let mut stream = Stream::default();
        let mut input = text.clone().into_bytes();
        input.push(b'\n');
        let events = stream.feed(&input);
        assert!(
            matches!(events.as_slice(), [Event::Skipped(e)] if e.kind() == ErrorKind::TooDeep && e.line() == 1),
            "{events:?}"
        );
        let result = stream.finish(None);
        assert_eq!(result.skipped_count, 1);
        assert_eq!(result.verdict, Verdict::ProtocolError);
    }
    // Deep nesting inside a string is just text.
    let inside = format!("{{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"{}\"}}", "[{".repeat(n));
    let Frame::MessageDelta(m) = decode(inside.as_bytes()).unwrap() else { panic!("not a message_delta") };
    assert_eq!(m.delta.len(), 2 * n);
    // The limit itself is exact.
    let at_limit = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert_eq!(decode(at_limit.as_bytes()).unwrap_err().kind(), ErrorKind::NotAnObject);
    let over = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert_eq!(decode(over.as_bytes()).unwrap_err().kind(), ErrorKind::TooDeep);
}
