//! Validator and reducer state stays within `Limits` whatever the stream holds: 100 000
//! turns, tool calls, distinct ids, compactions, follow-ups, violations and skipped lines.
//! What a cap leaves out is counted exactly, and no cap changes the verdict.

use hep_core::run::Limits;
use hep_core::{RunResult, Stream, StreamOptions, Verdict};
use std::fmt::Write;

const N: u64 = 100_000;

const HEADER: &str = r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#;

/// Limits large enough that nothing in these streams is left out.
fn unbounded() -> Limits {
    Limits {
        max_turns: usize::MAX,
        max_text_bytes: usize::MAX,
        max_tool_output_bytes: usize::MAX,
        max_tools_per_turn: usize::MAX,
        max_followups: usize::MAX,
        max_compactions_per_turn: usize::MAX,
        max_tracked_calls: usize::MAX,
        max_reports: usize::MAX,
        max_retained_bytes: usize::MAX,
    }
}

/// Reads `input` in 64 KiB chunks with `limits`, checking after every chunk that the kept
/// violations and skipped lines stay within `max_reports`, and ends it with exit code 0.
fn read(input: &str, limits: Limits) -> RunResult {
    let mut stream = Stream::new(StreamOptions { limits, ..StreamOptions::default() });
    for chunk in input.as_bytes().chunks(64 << 10) {
        stream.feed_with(chunk, drop);
        assert!(stream.violations().len() <= limits.max_reports);
        assert!(stream.skipped().len() <= limits.max_reports);
        assert!(stream.run().turns.len() <= limits.max_turns.max(1));
    }
    stream.finish(Some(0))
}

fn done(turn_id: u64, results: &str) -> String {
    format!(
        r#"{{"type":"turn_done","turn_id":{turn_id},"message":"m{turn_id}","tool_results":[{results}],"usage":{{"input":1,"output":2,"cost":0.5}},"stop_reason":"stop"}}"#
    )
}

/// A stream of one round holding `body`, then its `turn_done`.
fn one_round(body: &str) -> String {
    format!("{HEADER}\n{{\"type\":\"agent_start\",\"turn_id\":1}}\n{body}{}\n", done(1, ""))
}

#[test]
fn a_hundred_thousand_turns_keep_max_turns() {
    let mut input = format!("{HEADER}\n{{\"type\":\"agent_start\",\"turn_id\":1}}\n");
    for id in 1..=N {
        let call = r#"{"type":"tool_start","turn_id":ID,"id":"c","name":"sh","args_summary":"ls"}"#;
        let result = r#"{"id":"c","name":"sh","ok":true,"text":"out"}"#;
        writeln!(input, "{}", call.replace("ID", &id.to_string())).unwrap();
        writeln!(input, r#"{{"type":"message_delta","turn_id":{id},"delta":"hello"}}"#).unwrap();
        writeln!(input, "{}", done(id, result)).unwrap();
    }
    let capped = read(&input, Limits::default());
    let kept = Limits::default().max_turns;
    assert_eq!((capped.run.turns.len(), capped.run.turns_dropped), (kept, N - kept as u64));
    assert_eq!(capped.run.turns.front().map(|t| t.turn_id), Some(N - kept as u64 + 1));
    assert_eq!(capped.run.turns.back().map(|t| t.message.as_deref()), Some(Some("m100000")));
    assert_eq!((capped.run.usage.input, capped.run.usage.output), (N, 2 * N));

    let full = read(&input, unbounded());
    assert_eq!((full.run.turns.len(), full.run.turns_dropped), (N as usize, 0));
    assert_eq!((capped.verdict, capped.violation_count, capped.conforms), (Verdict::Ok, 0, true));
    assert_eq!((full.verdict, &full.reasons, full.run.usage), (capped.verdict, &capped.reasons, capped.run.usage));
}

#[test]
fn a_hundred_thousand_distinct_call_ids_in_one_round() {
    let mut body = String::new();
    for i in 0..N {
        writeln!(body, r#"{{"type":"tool_start","turn_id":1,"id":"c{i}","name":"sh","args_summary":""}}"#).unwrap();
        writeln!(body, r#"{{"type":"tool_delta","turn_id":1,"id":"c{i}","update":"x"}}"#).unwrap();
    }
    // Never started: unknown only to a validator that remembers every id of the round.
    body.push_str(r#"{"type":"tool_delta","turn_id":1,"id":"stray","update":"x"}"#);
    body.push('\n');
    let input = one_round(&body);

    // The reducer keeps 100 calls (a frame naming a call it did not keep is looked up among
    // all the kept ones: with 100 000 of them this test would be quadratic).
    let limits = Limits { max_tools_per_turn: 100, ..Limits::default() };
    let capped = read(&input, limits);
    let tracked = Limits::default().max_tracked_calls as u64;
    assert_eq!(capped.untracked_calls, N - tracked);
    assert_eq!(capped.violation_count, 0, "{:?}", capped.violations);
    let turn = &capped.run.turns[0];
    assert_eq!((turn.tools.len(), turn.tools_dropped), (100, N - 100));

    let full = read(&input, Limits { max_tracked_calls: usize::MAX, ..limits });
    assert_eq!(full.untracked_calls, 0);
    let codes: Vec<&str> = full.violations.iter().map(|v| v.code.as_str()).collect();
    assert_eq!(codes, ["unknown_tool_call"]);
    assert_eq!((capped.verdict, full.verdict), (Verdict::Ok, Verdict::Ok));
}

#[test]
fn untracked_calls_are_counted_per_start_and_checking_resumes_next_round() {
    let start = |turn: u64, id: &str| {
        format!(r#"{{"type":"tool_start","turn_id":{turn},"id":"{id}","name":"sh","args_summary":""}}"#)
    };
    let delta = |turn: u64, id: &str| format!(r#"{{"type":"tool_delta","turn_id":{turn},"id":"{id}","update":"x"}}"#);
    let input = [
        HEADER.to_owned(),
        r#"{"type":"agent_start","turn_id":1}"#.to_owned(),
        start(1, "a"),
        start(1, "a"),
        start(1, "b"),
        start(1, "b"),
        delta(1, "zz"),
        done(1, ""),
        start(2, "c"),
        delta(2, "zz"),
        done(2, ""),
    ]
    .join("\n")
        + "\n";
    let r = read(&input, Limits { max_tracked_calls: 1, ..Limits::default() });
    // `a` is remembered, so its second start is a duplicate; both starts of `b` go
    // untracked (and their repetition unseen).
    assert_eq!(r.untracked_calls, 2);
    let found: Vec<(&str, Option<u64>)> = r.violations.iter().map(|v| (v.code.as_str(), v.turn_id)).collect();
    assert_eq!(found, [("duplicate_tool_call", Some(1)), ("unknown_tool_call", Some(2))]);

    let r = read(&input, Limits { max_tracked_calls: 0, ..Limits::default() });
    assert_eq!((r.untracked_calls, r.violation_count), (5, 0));
    assert_eq!(r.verdict, Verdict::Ok);
}

#[test]
fn a_hundred_thousand_compactions_in_one_round() {
    let mut body = String::new();
    for i in 0..N {
        writeln!(body, r#"{{"type":"compaction_start","turn_id":1}}"#).unwrap();
        writeln!(body, r#"{{"type":"compaction_end","turn_id":1,"tokens_freed":{}}}"#, i % 7).unwrap();
    }
    let input = one_round(&body);
    let capped = read(&input, Limits::default());
    let kept = Limits::default().max_compactions_per_turn;
    let turn = &capped.run.turns[0];
    assert_eq!((turn.compactions.len(), turn.compactions_dropped), (kept, N - kept as u64));
    let freed: u64 = (0..N).map(|i| i % 7).sum();
    assert_eq!((capped.run.compactions, capped.run.tokens_freed), (N, freed));

    let full = read(&input, unbounded());
    assert_eq!((full.run.turns[0].compactions.len(), full.run.turns[0].compactions_dropped), (N as usize, 0));
    assert_eq!((capped.verdict, full.verdict, capped.violation_count), (Verdict::Ok, Verdict::Ok, 0));
}

#[test]
fn a_hundred_thousand_follow_ups_on_one_call() {
    let mut body = r#"{"type":"tool_start","turn_id":1,"id":"c","name":"sh","args_summary":""}"#.to_owned() + "\n";
    for i in 0..N {
        let action = if i % 2 == 0 { "heartbeat" } else { "advisory" };
        writeln!(
            body,
            r#"{{"type":"tool_liveness","turn_id":1,"id":"c","name":"sh","action":"{action}","elapsed_ms":{i},"detail":"slow"}}"#
        )
        .unwrap();
    }
    let input = one_round(&body);
    let capped = read(&input, Limits::default());
    let call = &capped.run.turns[0].tools[0];
    let kept = Limits::default().max_followups;
    assert_eq!((call.followups.len(), call.followups_dropped), (kept, N / 2 - kept as u64));
    assert_eq!(call.last_liveness.as_ref().map(|l| l.elapsed_ms), Some(N - 1));

    let full = read(&input, unbounded());
    assert_eq!(full.run.turns[0].tools[0].followups.len(), (N / 2) as usize);
    assert_eq!((capped.verdict, full.verdict), (Verdict::Ok, Verdict::Ok));
}

#[test]
fn a_hundred_thousand_violations_and_skipped_lines() {
    let mut body = String::new();
    for _ in 0..N {
        body.push_str("{\"type\":\"message_start\",\"turn_id\":1,\"role\":\"user\"}\nnot json\n");
    }
    let input = one_round(&body);
    let capped = read(&input, Limits::default());
    let kept = Limits::default().max_reports;
    assert_eq!((capped.violations.len(), capped.violation_count), (kept, N));
    assert_eq!((capped.skipped.len(), capped.skipped_count), (kept, N));

    let full = read(&input, unbounded());
    assert_eq!((full.violations.len(), full.skipped.len()), (N as usize, N as usize));
    assert_eq!((capped.verdict, capped.conforms), (Verdict::ProtocolError, false));
    assert_eq!((full.verdict, full.conforms), (capped.verdict, capped.conforms));
}

#[test]
fn one_huge_round_holds_at_most_max_retained_bytes_of_text() {
    // 2 000 calls with 1 KiB arguments, results and follow-up details: 6 MiB of text, all
    // in the round that is never dropped.
    let big = "y".repeat(1024);
    let mut body = String::new();
    let mut results = Vec::new();
    for i in 0..2000 {
        writeln!(body, r#"{{"type":"tool_start","turn_id":1,"id":"c{i}","name":"sh","args_summary":"{big}"}}"#)
            .unwrap();
        writeln!(
            body,
            r#"{{"type":"tool_liveness","turn_id":1,"id":"c{i}","name":"sh","action":"escalate","elapsed_ms":1,"detail":"{big}"}}"#
        )
        .unwrap();
        results.push(format!(r#"{{"id":"c{i}","name":"sh","ok":true,"text":"{big}"}}"#));
    }
    let input =
        format!("{HEADER}\n{{\"type\":\"agent_start\",\"turn_id\":1}}\n{body}{}\n", done(1, &results.join(",")));
    let budget = 256 << 10;
    let limits = Limits { max_retained_bytes: budget, max_tools_per_turn: usize::MAX, ..Limits::default() };
    let capped = read(&input, limits);
    let turn = &capped.run.turns[0];
    let held: usize = turn
        .tools
        .iter()
        .map(|c| {
            let liveness = |l: &hep_core::run::Liveness| l.action.len() + l.detail.as_ref().map_or(0, String::len);
            c.id.len()
                + c.name.len()
                + c.args_summary.len()
                + c.output.len()
                + c.result.as_ref().map_or(0, String::len)
                + c.last_liveness.as_ref().map_or(0, liveness)
                + c.followups.iter().map(liveness).sum::<usize>()
        })
        .sum::<usize>()
        + turn.text.len()
        + turn.message.as_ref().map_or(0, String::len)
        + turn.stop_reason.as_ref().map_or(0, String::len);
    assert!(held <= budget, "{held} bytes held");
    assert!(held > budget - 2048, "the budget is used: {held} bytes held");
    assert!(turn.tools_dropped > 0 && turn.bytes_dropped > 0);
    assert_eq!(turn.message.as_deref(), Some(""), "the budget was spent before turn_done");
    assert_eq!(capped.run.answer.as_deref(), Some("m1"), "the answer is kept whole");

    let full = read(&input, unbounded());
    assert_eq!((full.run.turns[0].tools.len(), full.run.turns[0].bytes_dropped), (2000, 0));
    assert_eq!((capped.verdict, full.verdict, capped.violation_count), (Verdict::Ok, Verdict::Ok, 0));
}
