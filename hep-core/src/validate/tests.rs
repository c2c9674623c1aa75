//! Unit tests of the validator (`validate.rs`): the consumer guarantees, frame by frame.

use super::*;
use crate::frame::{HepHeader, MessageStart, ToolDelta, ToolStart, UnknownFrame};

#[test]
fn remembered_ids_stay_within_the_cap() {
    let mut v = Validator::with_max_tracked_calls(3);
    let mut out = Vec::new();
    let start = |id: u32| {
        Frame::ToolStart(ToolStart { turn_id: 1, id: format!("c{id}"), name: "sh".into(), args_summary: String::new() })
    };
    for id in 0..10_000 {
        v.check(id.into(), &start(id), &mut out);
        assert!(v.calls.len() <= 3);
    }
    assert_eq!(v.untracked_calls(), 10_000 - 3);
    let delta: Frame = Frame::ToolDelta(ToolDelta { turn_id: 2, id: "c0".into(), update: "x".into() });
    v.check(10_001, &delta, &mut out);
    assert_eq!((v.calls.len(), v.round_untracked, v.untracked_calls()), (0, 0, 10_000 - 3));
}

#[test]
fn a_continued_run_can_end_again() {
    let lines = [
        r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#,
        r#"{"type":"agent_start","turn_id":1}"#,
        r#"{"type":"turn_error","turn_id":1,"error":"over window","fatal":true}"#,
        r#"{"type":"message_delta","turn_id":1,"delta":"late"}"#,
        r#"{"type":"message_delta","turn_id":2,"delta":"continued"}"#,
        r#"{"type":"cancelled","turn_id":2}"#,
        r#"{"type":"message_delta","turn_id":3,"delta":"after the cancel"}"#,
    ];
    let mut v = Validator::new();
    let mut out = Vec::new();
    for (line, text) in (1..).zip(lines) {
        v.check(line, &crate::decode(text.as_bytes()).unwrap(), &mut out);
    }
    let found: Vec<(&str, u64)> = out.iter().map(|v| (v.code.as_str(), v.line)).collect();
    assert_eq!(
        found,
        [("frame_after_end", 4), ("frame_after_terminal", 4), ("round_after_fatal_error", 5), ("frame_after_end", 7)]
    );
}

#[test]
fn the_last_terminal_frame_and_the_open_round_are_known() {
    let lines = [
        r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#,
        r#"{"type":"agent_start","turn_id":1}"#,
        r#"{"type":"turn_error","turn_id":1,"error":"retrying","fatal":false}"#,
        r#"{"type":"message_delta","turn_id":2,"delta":"again"}"#,
    ];
    let mut v = Validator::new();
    let mut out = Vec::new();
    assert_eq!((v.last_terminal(), v.unfinished_round(), v.before_agent_start()), (None, None, false));
    for (line, text) in (1..).zip(lines) {
        v.check(line, &crate::decode(text.as_bytes()).unwrap(), &mut out);
    }
    assert_eq!((v.last_terminal(), v.unfinished_round()), (Some((Terminal::Error, 1)), Some(2)));
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn a_run_ended_before_its_first_round_says_after_what() {
    let header = r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#;
    let compaction = r#"{"type":"compaction_start","turn_id":1}"#;
    for (lines, after) in
        [(&[header][..], "the header"), (&[header, compaction][..], "the header and pre-flight compaction frames")]
    {
        let mut v = Validator::new();
        let mut out = Vec::new();
        for (line, text) in (1..).zip(lines) {
            v.check(line, &crate::decode(text.as_bytes()).unwrap(), &mut out);
        }
        v.finish(Some(EXIT_FAILED), &mut out);
        let ended = out.iter().find(|v| v.code == ViolationCode::EndedBeforeAgentStart);
        let message = ended.map(|v| v.message.as_str());
        assert_eq!(message, Some(format!("the stream ended before agent_start, after {after}").as_str()));
    }
}

#[test]
fn hostile_text_makes_short_messages() {
    let huge = "x".repeat(1 << 20);
    let header = Frame::HepHeader(HepHeader { hep: huge.clone(), fah: String::new(), session: String::new() });
    let unknown = Frame::Unknown(UnknownFrame { frame_type: huge.clone(), turn_id: None, raw: String::new() });
    let streams = [
        vec![header],
        vec![
            unknown,
            Frame::MessageStart(MessageStart { turn_id: 1, role: huge.clone() }),
            Frame::ToolDelta(ToolDelta { turn_id: 1, id: huge.clone(), update: String::new() }),
        ],
    ];
    let mut out = Vec::new();
    for frames in &streams {
        let mut v = Validator::new();
        for (line, frame) in (1..).zip(frames) {
            v.check(line, frame, &mut out);
        }
    }
    let codes: Vec<&str> = out.iter().map(|v| v.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "unsupported_version",
            "missing_header",
            "frame_before_agent_start",
            "unexpected_role",
            "empty_tool_delta",
            "unknown_tool_call"
        ]
    );
    for found in &out {
        assert!(found.message.len() < 200, "{}: {} bytes", found.code, found.message.len());
    }
}
