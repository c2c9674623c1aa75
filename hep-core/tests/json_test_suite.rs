//! Runs the JSONTestSuite parsing corpus (vendored in `tests/data/JSONTestSuite/`, see its
//! README) through hep-core: a test written by nobody here.
//!
//! Each document is read as the value of an unknown frame, `{"type":"x_case","v":DOC}`,
//! with `decode` and with a lenient `Stream` (both paths): `y_` must be accepted (and its
//! value, read by the same parser through `parse_args`, be serde_json's), `n_`
//! rejected with a syntax or encoding error at a sensible column (the next line still
//! read), and `i_` gives the answer pinned in `json_test_suite/tables.rs`. Each `["..."]`
//! string is also read as a `message_delta`'s `delta` by both decoders. A case that cannot
//! run is listed with its reason; every test fails listing all its failures, and asserts
//! how many cases it ran, so it never passes vacuously.
//! `cargo test -p hep-core --test json_test_suite -- --nocapture` prints the counts.

#[path = "json_test_suite/corpus.rs"]
mod corpus;

#[path = "json_test_suite/checks.rs"]
mod checks;

#[path = "json_test_suite/tables.rs"]
mod tables;

use checks::{
    Res, delta_decoders_agree, delta_frame, rejected_sensibly, same_error_in_string, show, stream_agrees,
    unknown_frame, value_matches_serde,
};
use corpus::{Class, Doc, FRAME_HEAD, has_line_end, lone_string, serde_accepts, wrap};
use hep_core::{Frame, MessageDelta, decode};
use tables::{Answer, EITHER, LINE_ENDS, N_KINDS, NEWLINE_IS_THE_ERROR, READ_AS_DART_READS, SERDE_ACCEPTS_WRAPPED};

/// Runs `check` on each document, then fails listing every failure; returns how many ran.
fn run_all(docs: &[Doc], mut check: impl FnMut(&Doc) -> Res<bool>) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in docs {
        match check(doc) {
            Ok(run) => ran += usize::from(run),
            Err(e) => failures.push(format!("{}:\n    {}", doc.name, e.replace('\n', "\n    "))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s) in {} documents\n\n{}\n",
        failures.len(),
        docs.len(),
        failures.join("\n\n")
    );
    ran
}

/// The reason a table gives for `name`, if it lists it.
fn listed<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(listed, _)| *listed == name).map(|(_, reason)| *reason)
}

#[test]
fn the_corpus_is_the_vendored_one() {
    let docs = corpus::load().unwrap();
    let count = |class| docs.iter().filter(|doc| doc.class == class).count();
    assert_eq!((count(Class::Accept), count(Class::Reject), count(Class::Either)), (95, 188, 35));
    let with_line_ends: Vec<&str> =
        docs.iter().filter(|doc| has_line_end(&doc.bytes)).map(|doc| doc.name.as_str()).collect();
    assert_eq!(with_line_ends, LINE_ENDS, "the documents holding a raw newline or CR changed");
    let names: Vec<&str> = docs.iter().map(|doc| doc.name.as_str()).collect();
    for (name, _) in NEWLINE_IS_THE_ERROR.iter().chain(SERDE_ACCEPTS_WRAPPED.iter()) {
        assert!(names.contains(name) && name.starts_with("n_"), "{name}: listed, but no `n_` document");
    }
    for (name, _) in READ_AS_DART_READS {
        assert!(name.starts_with("y_") && names.contains(&name), "{name}: listed, but no `y_` document");
    }
    for (name, _) in N_KINDS {
        assert!(name.starts_with("n_") && names.contains(&name), "{name}: listed, but no `n_` document");
    }
    let either: Vec<&str> = EITHER.iter().map(|(name, _)| *name).collect();
    let i_names: Vec<&str> = names.iter().copied().filter(|name| name.starts_with("i_")).collect();
    assert_eq!(either, i_names, "the `i_` table lists every `i_` document, in order");
}

#[test]
fn y_documents_are_accepted_as_the_value_of_an_unknown_frame() {
    let ran = run_all(&corpus::of(Class::Accept).unwrap(), |doc| {
        let line = wrap(FRAME_HEAD, &doc.bytes);
        if !serde_accepts(&line) {
            return Err("serde_json, the oracle, refuses the wrapped document".into());
        }
        let want = unknown_frame(&line)?;
        let got = decode(&line);
        if got.as_ref() != Ok(&want) {
            return Err(format!("decode gave {:?}", got.map_err(show)));
        }
        value_matches_serde(&doc.bytes, listed(&READ_AS_DART_READS, &doc.name))?;
        stream_agrees(&line, &got).map(|()| true)
    });
    println!("y_: {ran} documents accepted by decode and both Stream paths, read as serde_json reads them");
    assert_eq!(ran, 95);
}

#[test]
fn n_documents_are_rejected_with_a_syntax_error_and_the_next_line_is_read() {
    let ran = run_all(&corpus::of(Class::Reject).unwrap(), |doc| {
        if listed(&NEWLINE_IS_THE_ERROR, &doc.name).is_some() {
            return Ok(false);
        }
        let line = wrap(FRAME_HEAD, &doc.bytes);
        match (serde_accepts(&line), listed(&SERDE_ACCEPTS_WRAPPED, &doc.name)) {
            (true, Some(_)) => return Ok(false),
            (true, None) => return Err("serde_json accepts the wrapped document: list it or wrap it otherwise".into()),
            (false, Some(_)) => return Err("listed as accepted by serde_json once wrapped, but refused".into()),
            (false, None) => {}
        }
        let decoded = decode(&line);
        let Err(err) = &decoded else { return Err(format!("decode accepted it: {decoded:?}")) };
        rejected_sensibly(&line, err, listed(&N_KINDS, &doc.name))?;
        stream_agrees(&line, &decoded).map(|()| true)
    });
    let skipped = NEWLINE_IS_THE_ERROR.len() + SERDE_ACCEPTS_WRAPPED.len();
    println!("n_: {ran} documents rejected by decode and skipped by both Stream paths, {skipped} not runnable");
    assert_eq!(ran, 188 - skipped);
}

#[test]
fn i_documents_give_the_pinned_answer() {
    let ran = run_all(&corpus::of(Class::Either).unwrap(), |doc| {
        let line = wrap(FRAME_HEAD, &doc.bytes);
        let decoded = decode(&line);
        let pinned = listed(&EITHER, &doc.name).ok_or("not in the `i_` table")?;
        match (pinned, &decoded) {
            (Answer::Refuse(kind), Err(err)) => rejected_sensibly(&line, err, Some(kind))?,
            (Answer::Accept | Answer::AcceptDelta(_), Ok(frame)) if *frame == unknown_frame(&line)? => {}
            _ => return Err(format!("pinned {pinned:?}, decode gave {:?}", decoded.as_ref().map_err(|e| e.kind()))),
        }
        stream_agrees(&line, &decoded).map(|()| true)
    });
    println!("i_: {ran} documents gave their pinned answer through decode and both Stream paths");
    assert_eq!(ran, 35);
}

#[test]
fn lone_strings_decode_the_same_as_a_message_delta_through_both_decoders() {
    let mut counts = [0; 3];
    run_all(&corpus::load().unwrap(), |doc| {
        let Some(string) = lone_string(&doc.bytes) else { return Ok(false) };
        if has_line_end(string) {
            return Ok(false);
        }
        let decoded = delta_decoders_agree(string)?;
        let as_frame = decode(&wrap(FRAME_HEAD, &doc.bytes));
        match doc.class {
            Class::Accept => {
                let want: [String; 1] = serde_json::from_slice(&doc.bytes).map_err(|e| format!("serde_json: {e}"))?;
                let [want] = want;
                if decoded.as_ref() != Ok(&delta_frame(&want)) {
                    return Err(format!("want delta {want:?}, decode gave {:?}", decoded.map_err(show)));
                }
            }
            Class::Reject => {
                let delta_line = wrap(corpus::DELTA_HEAD, string);
                if serde_accepts(&delta_line) {
                    return Err("serde_json accepts the string as a delta".into());
                }
                let (Err(as_delta), Err(as_value)) = (&decoded, &as_frame) else {
                    return Err(format!("as a delta {decoded:?}, as a frame's value {as_frame:?}"));
                };
                same_error_in_string(&doc.bytes, string, as_delta, as_value)?;
            }
            Class::Either => {
                let pinned = listed(&EITHER, &doc.name).ok_or("not in the `i_` table")?;
                match (pinned, &decoded, &as_frame) {
                    (Answer::AcceptDelta(want), Ok(Frame::MessageDelta(MessageDelta { delta, .. })), _)
                        if delta == want => {}
                    (Answer::Refuse(kind), Err(as_delta), Err(as_value)) if as_delta.kind() == kind => {
                        same_error_in_string(&doc.bytes, string, as_delta, as_value)?;
                    }
                    _ => return Err(format!("pinned {pinned:?}, as a delta decode gave {decoded:?}")),
                }
            }
        }
        counts[doc.class as usize] += 1;
        Ok(true)
    });
    println!("lone strings as a message_delta: {} y_, {} n_, {} i_", counts[0], counts[1], counts[2]);
    assert_eq!(counts, [45, 19, 19]);
}
