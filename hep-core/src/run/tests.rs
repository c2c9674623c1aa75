//! Unit tests of the run reducer (`run.rs`): budgets, caps and counts.

use super::*;

fn delta(turn_id: u64, text: &str) -> Frame {
    Frame::MessageDelta(MessageDelta { turn_id, delta: text.to_owned() })
}

#[test]
fn text_is_capped_per_turn_on_a_char_boundary() {
    let mut run = Run::new(Limits { max_text_bytes: 5, ..Limits::default() });
    // Once text is cut, later chunks are dropped too, even one that would fit: the
    // text stays a prefix of what was sent.
    for chunk in ["abc", "dé", "fg", "h"] {
        run.apply(&delta(1, chunk));
    }
    let turn = &run.turns[0];
    assert_eq!((turn.text.as_str(), turn.text_dropped), ("abcd", 5));
}

#[test]
fn old_turns_go_when_the_byte_budget_is_spent() {
    let mut run = Run::new(Limits { max_retained_bytes: 1000, ..Limits::default() });
    let chunk = "x".repeat(300);
    for turn_id in 1..=10 {
        run.apply(&delta(turn_id, &chunk));
    }
    let kept: Vec<u64> = run.turns.iter().map(|t| t.turn_id).collect();
    assert_eq!(kept, [8, 9, 10]);
    assert_eq!((run.turns_dropped, run.retained), (7, 900));
}

#[test]
fn the_current_turn_is_kept_and_cut_to_the_budget() {
    let mut run = Run::new(Limits { max_retained_bytes: 10, ..Limits::default() });
    run.apply(&delta(1, "0123456789abcdef"));
    assert_eq!(run.turns.len(), 1);
    assert_eq!((run.turns[0].text.as_str(), run.turns[0].text_dropped), ("0123456789", 6));
    assert_eq!(run.retained, 10);
}

#[test]
fn replaced_text_is_not_counted_twice() {
    let mut run = Run::new(Limits::default());
    let done: Frame = Frame::TurnDone(TurnDone {
        turn_id: 1,
        message: "0123456789".into(),
        tool_results: vec![ToolResult { id: "c".into(), name: "sh".into(), ok: true, text: "abc".into() }],
        usage: Usage::default(),
        stop_reason: "stop".into(),
    });
    for _ in 0..1000 {
        run.apply(&done);
    }
    assert_eq!((run.retained, run.turns[0].retained), (20, 20));
}

#[test]
fn turn_count_is_capped() {
    let mut run = Run::new(Limits { max_turns: 2, ..Limits::default() });
    for turn_id in 1..=5 {
        run.apply(&delta(turn_id, "hi"));
    }
    assert_eq!(run.turns.iter().map(|t| t.turn_id).collect::<Vec<_>>(), [4, 5]);
    assert_eq!((run.turns_dropped, run.retained), (3, 4));
}

fn liveness_report(action: &str, detail: Option<&str>) -> Frame {
    Frame::ToolLiveness(ToolLiveness {
        turn_id: 1,
        id: "c1".into(),
        name: "sh".into(),
        action: action.into(),
        elapsed_ms: 1000,
        output_bytes: None,
        detail: detail.map(str::to_owned),
    })
}

#[test]
fn every_kept_text_counts_against_the_budget() {
    let mut run = Run::new(Limits::default());
    let start = ToolStart { turn_id: 1, id: "c1".into(), name: "sh".into(), args_summary: "ls".into() };
    let steps = [
        // id, name and arguments
        (Frame::ToolStart(start), 6),
        // the output
        (Frame::ToolDelta(ToolDelta { turn_id: 1, id: "c1".into(), update: "out".into() }), 9),
        // the latest report (action and detail), and the same again as a follow-up
        (liveness_report("advisory", Some("slow")), 9 + 12 + 12),
        // a heartbeat replaces the latest report and is no follow-up
        (liveness_report("heartbeat", None), 9 + 12 + 9),
    ];
    for (frame, retained) in steps {
        run.apply(&frame);
        assert_eq!((run.retained, run.turns[0].retained), (retained, retained), "after {frame:?}");
    }
}

#[test]
fn a_call_whose_id_and_name_just_fit_is_kept() {
    let start: Frame =
        Frame::ToolStart(ToolStart { turn_id: 1, id: "c12".into(), name: "sh".into(), args_summary: String::new() });
    for (max, kept) in [(5, 1), (4, 0)] {
        let mut run = Run::new(Limits { max_retained_bytes: max, ..Limits::default() });
        run.apply(&start);
        let turn = &run.turns[0];
        assert_eq!((turn.tools.len(), turn.tools_dropped), (kept, 1 - kept as u64), "max_retained_bytes {max}");
    }
}

#[test]
fn turns_that_fill_the_budget_exactly_are_all_kept() {
    let mut run = Run::new(Limits { max_retained_bytes: 900, ..Limits::default() });
    for turn_id in 1..=3 {
        run.apply(&delta(turn_id, &"x".repeat(300)));
    }
    assert_eq!((run.turns.len(), run.turns_dropped, run.retained), (3, 0, 900));
}

#[test]
fn the_run_counts_frames_compactions_and_tokens_freed() {
    let end = |turn_id, tokens_freed| Frame::CompactionEnd(CompactionEnd { turn_id, tokens_freed });
    let mut run = Run::new(Limits::default());
    for frame in [
        Frame::CompactionStart(TurnRef { turn_id: 1 }),
        end(1, 300),
        delta(1, "hi"),
        Frame::CompactionStart(TurnRef { turn_id: 2 }),
        end(2, 45),
    ] {
        run.apply(&frame);
    }
    assert_eq!((run.frames, run.compactions, run.tokens_freed), (5, 2, 345));
    assert_eq!(run.turns.iter().map(|t| t.compactions.clone()).collect::<Vec<_>>(), [vec![300], vec![45]]);
}
