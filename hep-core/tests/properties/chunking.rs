//! Chunking invariance: however the bytes of a stream are split into `feed` calls, the
//! events and the result are exactly those of feeding it whole.

use crate::script::{play, script};
use crate::strategies::*;
use hep_core::run::Limits;
use hep_core::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

/// A junk line: arbitrary bytes, JSON-ish fragments, a stray known frame, or nothing.
fn junk() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        vec(any::<u8>(), 0..40),
        vec(
            prop::sample::select(
                &["{", "}", "[", "]", "\"", "\\", ":", ",", "\r", "\"type\"", "\"turn_id\"", "1", "null", "\"v2\""][..]
            ),
            0..12
        )
        .prop_map(|parts| parts.concat().into_bytes()),
        known_frame().prop_map(|f| encode(&f).unwrap_or_default().into_bytes()),
        Just(Vec::new()),
    ]
    .prop_map(|mut bytes| {
        bytes.retain(|&b| b != b'\n');
        bytes
    })
}

/// Stream options: default, strict, tiny line limits and tiny retention limits.
pub(crate) fn options() -> impl Strategy<Value = StreamOptions> {
    let max_line = prop_oneof![2 => Just(hep_core::lines::DEFAULT_MAX_LINE), 1 => 0usize..200];
    let limits = prop_oneof![
        2 => Just(Limits::default()),
        1 => (0usize..4, 0usize..16, 0usize..16, 0usize..3, 0usize..3, 0usize..3, 0usize..64, 0usize..3, 0usize..3).prop_map(
            |(t, x, o, c, f, r, b, k, i)| Limits {
                max_turns: t,
                max_text_bytes: x,
                max_tool_output_bytes: o,
                max_tools_per_turn: c,
                max_followups: f,
                max_reports: r,
                max_retained_bytes: b,
                max_compactions_per_turn: k,
                max_tracked_calls: i,
            }
        ),
    ];
    (max_line, any::<bool>(), limits).prop_map(|(max_line_length, strict, limits)| StreamOptions {
        max_line_length,
        strict,
        limits,
    })
}

/// A stream: writer output with junk lines inserted, optionally with `\r\n` endings and
/// without its final newline.
fn stream_bytes() -> impl Strategy<Value = Bytes> {
    (script(), vec((any::<Index>(), junk()), 0..4), any::<bool>(), any::<bool>()).prop_map(
        |(script, junk, crlf, cut)| {
            let mut lines: Vec<Vec<u8>> =
                play(&script).map(|p| p.lines).unwrap_or_default().into_iter().map(String::into_bytes).collect();
            for (at, bytes) in junk {
                lines.insert(at.index(lines.len() + 1), bytes);
            }
            let ending: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let mut out = Vec::new();
            for line in &lines {
                out.extend_from_slice(line);
                out.extend_from_slice(ending);
            }
            if cut {
                out.truncate(out.len().saturating_sub(ending.len()));
            }
            Bytes(out)
        },
    )
}

/// Feeds `chunks` to a fresh stream and ends it.
fn feed_all(options: StreamOptions, chunks: &[&[u8]], exit_code: Option<i32>) -> (Vec<Event>, RunResult) {
    let mut stream = Stream::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        stream.feed_into(chunk, &mut events);
    }
    events.extend(stream.end_input());
    (events, stream.finish(exit_code))
}

/// Feeds `chunks` to a fresh stream through `Stream::feed_borrowed`, each event made owned,
/// and ends it.
fn feed_all_borrowed(options: StreamOptions, chunks: &[&[u8]], exit_code: Option<i32>) -> (Vec<Event>, RunResult) {
    let mut stream = Stream::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        stream.feed_borrowed(chunk, |event| events.push(event.into_owned()));
    }
    events.extend(stream.end_input());
    (events, stream.finish(exit_code))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn chunking_does_not_change_events_or_result(
        bytes in stream_bytes(),
        options in options(),
        splits in vec(any::<Index>(), 0..16),
        exit_code in exit_code(),
    ) {
        let Bytes(bytes) = bytes;
        let whole = feed_all(options, &[&bytes], exit_code);
        let chunked = feed_all(options, &chunks(&bytes, &splits), exit_code);
        prop_assert_eq!(&chunked.0, &whole.0, "events differ, options {:?}", options);
        prop_assert_eq!(&chunked.1, &whole.1, "results differ, options {:?}", options);
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        let one_by_one = feed_all(options, &bytewise, exit_code);
        prop_assert_eq!(&one_by_one.0, &whole.0, "byte-at-a-time events differ, options {:?}", options);
        prop_assert_eq!(&one_by_one.1, &whole.1, "byte-at-a-time results differ, options {:?}", options);
    }

    #[test]
    fn the_borrowed_path_gives_the_owned_events_and_result(
        bytes in stream_bytes(),
        options in options(),
        splits in vec(any::<Index>(), 0..16),
        exit_code in exit_code(),
    ) {
        let Bytes(bytes) = bytes;
        let owned = feed_all(options, &chunks(&bytes, &splits), exit_code);
        let borrowed = feed_all_borrowed(options, &chunks(&bytes, &splits), exit_code);
        prop_assert_eq!(&borrowed.0, &owned.0, "events differ, options {:?}", options);
        prop_assert_eq!(&borrowed.1, &owned.1, "results differ, options {:?}", options);
    }
}

/// Minimal reproductions of what the property found; each compares one split against the
/// whole input.
fn same_either_way(options: StreamOptions, chunks: &[&[u8]]) {
    let whole: Vec<u8> = chunks.concat();
    let (whole_events, whole_result) = feed_all(options, &[&whole], None);
    let (split_events, split_result) = feed_all(options, chunks, None);
    let shown: Vec<Bytes> = chunks.iter().map(|c| Bytes(c.to_vec())).collect();
    assert_eq!(split_events, whole_events, "events of {shown:?}");
    assert_eq!(split_result, whole_result, "result of {shown:?}");
}

#[test]
fn line_too_long_with_crlf_reports_the_same_length_however_split() {
    // Whole, the `\r` is stripped before measuring ("line of 1 bytes"); split after the `\r`,
    // the overflow path counts it ("line of 2 bytes").
    let options = StreamOptions { max_line_length: 0, ..StreamOptions::default() };
    same_either_way(options, &[b"a\r", b"\n"]);
}

#[test]
fn lines_read_after_a_strict_halt_do_not_depend_on_chunking() {
    // Whole, the framer keeps counting lines after the halt (`lines` = 2); split, later
    // chunks are ignored (`lines` = 1).
    let options = StreamOptions { strict: true, ..StreamOptions::default() };
    same_either_way(options, &[b"x\n", b"y\n"]);
}

#[test]
fn lines_read_after_an_unsupported_version_do_not_depend_on_chunking() {
    let header: &[u8] = b"{\"type\":\"hep_header\",\"hep\":\"v2\",\"fah\":\"\",\"session\":\"\"}\n";
    same_either_way(StreamOptions::default(), &[header, b"x\n"]);
}
