//! The simulator's scenarios: scripts of rounds, text and tool calls, and the compaction
//! passes around them (before the agent run, between its rounds, after it).

use crate::args::Scenario;
use crate::simulator::{Ending, Sim, Stop, ToolRun};
use hep_core::LivenessAction;
use hep_core::writer::ToolOutcome;

const OPENERS: &[&str] = &[
    "Let me look at the project layout first.",
    "I'll start by reading the failing test.",
    "First, a quick look at the notes — then I'll run the suite.",
];

const ANSWERS: &[&str] = &[
    "All 42 tests pass now. The fix was a missing `\\r\\n` case in the line splitter; I added a regression test for it.",
    "Done: the parser handles lone surrogates (\"\\udc00\" → U+FFFD) and the benchmark shows 1.8× over serde. ✅",
    "The build is green again — the failure came from a stale lock file. I regenerated it and pinned `serde_json` to 1.0.",
];

const LISTING: &[&str] = &[
    "Cargo.toml",
    "README.md",
    "src/",
    "src/lib.rs",
    "src/lines.rs",
    "src/decode.rs",
    "tests/",
    "tests/conformance.rs",
];

const TEST_LOG: &[&str] = &[
    "   Compiling hep-core v0.1.0",
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s",
    "     Running unittests src/lib.rs",
    "running 42 tests",
    "test lines::tests::splits_on_newline_only ... ok",
    "test decode::tests::lone_surrogates ... ok",
    "test stream::tests::crlf_tolerated ... ok",
    "test result: ok. 42 passed; 0 failed; 0 ignored",
];

const BUILD_LOG: &[&str] = &[
    "   Compiling hep-core v0.1.0",
    "error[E0432]: unresolved import `crate::lines::split`",
    " --> src/stream.rs:7:5",
    "  |",
    "7 | use crate::lines::split;",
    "  |     ^^^^^^^^^^^^^^^^^^^ no `split` in `lines`",
    "error: could not compile `hep-core` (lib) due to 1 previous error",
];

/// Plays `scenario` after the header: the agent run, which streams from `agent_start` to
/// its last terminal frame, then what the harness does after it. Returns how the run ended.
pub(crate) fn play(sim: &mut Sim, scenario: Scenario) -> Result<Ending, Stop> {
    let ending = match scenario {
        Scenario::Chat => chat(sim),
        Scenario::Tools => tools(sim),
        Scenario::Error => error(sim),
        Scenario::CancelMe => cancel_me(sim),
        Scenario::Compaction => compaction(sim),
        Scenario::Stuck => stuck(sim),
        Scenario::BigOutput => big_output(sim),
        Scenario::Future => future(sim),
        Scenario::OverWindow => over_window(sim),
        Scenario::SkippedCompaction => skipped_compaction(sim),
    }?;
    // The run's last terminal frame is written: from here on a signal aborts nothing.
    sim.stop_streaming();
    after_run(sim, scenario)?;
    Ok(ending)
}

/// After the agent run: the post-run compaction, where the scenario has one.
fn after_run(sim: &mut Sim, scenario: Scenario) -> Result<(), Stop> {
    match scenario {
        Scenario::Compaction => {
            let freed = sim.pick(20_000, 60_000);
            sim.compaction(1500, Some(freed))
        }
        Scenario::SkippedCompaction => {
            let freed = sim.pick(30_000, 90_000);
            sim.compaction(900, Some(freed))
        }
        _ => Ok(()),
    }
}

/// `agent_start` and `message_start` of the first round.
fn begin(sim: &mut Sim) -> Result<(), Stop> {
    sim.agent_start()?;
    message_start(sim)
}

fn message_start(sim: &mut Sim) -> Result<(), Stop> {
    let line = sim.em().message_start("assistant")?;
    sim.put(line)
}

/// A round of text only, ending the run.
fn answer(sim: &mut Sim) -> Result<Ending, Stop> {
    message_start(sim)?;
    let text = sim.choose(ANSWERS);
    sim.say(text)?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}

/// A round that says `text`, runs `run`, and ends with `toolUse`.
fn tool_round(sim: &mut Sim, text: &str, run: &ToolRun<'_>) -> Result<(), Stop> {
    if !text.is_empty() {
        sim.say(text)?;
    }
    let output = sim.tool(run)?;
    let result = [ToolOutcome { id: run.id, name: run.name, ok: run.ok, text: &output }];
    sim.done(text, &result, "toolUse")
}

fn chat(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    let text = "Hi! HEP is the line protocol `fa --output events` speaks: one JSON object per line — \
                header first, then rounds of deltas, tool calls and exactly one terminal frame each.";
    sim.say(text)?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}

fn tools(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    let opener = sim.choose(OPENERS);
    let ls = ToolRun {
        id: "call_1",
        name: "bash",
        args: r#"{"command":"ls -R"}"#,
        output: LISTING,
        duration_ms: 600,
        ok: true,
    };
    tool_round(sim, opener, &ls)?;
    message_start(sim)?;
    let test = ToolRun {
        id: "call_2",
        name: "bash",
        args: r#"{"command":"cargo test","timeout_s":600}"#,
        output: TEST_LOG,
        duration_ms: 2600,
        ok: true,
    };
    tool_round(sim, "Now the test suite.", &test)?;
    answer(sim)
}

fn error(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    sim.say("Reading the configuration")?;
    sim.pause(400)?;
    let line = sim.em().turn_error("provider error: 529 overloaded_error: Overloaded", true)?;
    sim.put(line)?;
    Ok(Ending::Failed)
}

fn cancel_me(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    for round in 1..=200u64 {
        if round > 1 {
            message_start(sim)?;
        }
        let id = format!("call_{round}");
        let args = format!(r#"{{"command":"sleep 5 && make step-{round}"}}"#);
        let run = ToolRun { id: &id, name: "bash", args: &args, output: TEST_LOG, duration_ms: 5000, ok: true };
        tool_round(sim, "Working through the next step; this takes a while.", &run)?;
    }
    answer(sim)
}

/// A pre-flight compaction, a round, a compaction between rounds, the answer, and (in
/// [`after_run`]) the post-run compaction.
fn compaction(sim: &mut Sim) -> Result<Ending, Stop> {
    sim.compaction(800, Some(48_213))?;
    begin(sim)?;
    let read = ToolRun {
        id: "call_1",
        name: "read",
        args: r#"{"path":"NOTES.md"}"#,
        output: &["# Notes", "- ship it"],
        duration_ms: 300,
        ok: true,
    };
    tool_round(sim, "Context was compacted; re-reading the notes.", &read)?;
    sim.compaction(600, Some(12_877))?;
    answer(sim)
}

fn stuck(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    sim.say("Running the watcher; it sometimes hangs.")?;
    let args = hep_core::parse_args(r#"{"command":"npm test -- --watch"}"#)?;
    let line = sim.em().tool_start("call_1", "bash", &args)?;
    sim.put(line)?;
    let follow_ups = [
        (3000, LivenessAction::Advisory, "no output for 3s"),
        (6000, LivenessAction::CancelRetry, "retrying (attempt 2)"),
        (9000, LivenessAction::Escalate, "still stuck after 2 attempts"),
        (11000, LivenessAction::BackgroundConvert, "moved to background as job 3"),
    ];
    let mut elapsed = 0;
    for (at, action, detail) in follow_ups {
        while elapsed + 1000 <= at {
            sim.pause(1000)?;
            elapsed += 1000;
            let attempt = if elapsed > 6000 { "attempt 2" } else { "attempt 1" };
            let line = sim.em().liveness("call_1", "bash", LivenessAction::Heartbeat, elapsed, None, Some(attempt))?;
            sim.put(line)?;
        }
        let line = sim.em().liveness("call_1", "bash", action, at, None, Some(detail))?;
        sim.put(line)?;
    }
    let text = "The test watcher hung twice, so I moved it to the background (job 3).";
    let result = [ToolOutcome { id: "call_1", name: "bash", ok: false, text: "tool moved to background as job 3" }];
    sim.done("Running the watcher; it sometimes hangs.", &result, "toolUse")?;
    message_start(sim)?;
    sim.say(text)?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}

fn big_output(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    let lines: Vec<String> = (1..=120)
        .map(|i| {
            format!("{i:>4} | 2026-11-30T08:{:02}:{:02}Z INFO request served in {}ms 📦", i % 60, (i * 7) % 60, i * 3)
        })
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let args = r#"{"command":"cat /var/log/service/access.log | grep -v healthcheck | sort -k3 | uniq -c | head -n 5000","timeout_s":120,"cwd":"/srv/app"}"#;
    let run = ToolRun { id: "call_1", name: "bash", args, output: &refs, duration_ms: 2400, ok: true };
    tool_round(sim, "Let me dump the access log.", &run)?;
    answer(sim)
}

fn future(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    let turn = sim.em().current_turn_id();
    sim.put(Some(format!(
        r#"{{"type":"model_info","turn_id":{turn},"model":"fa-large-2027","context_window":400000}}"#
    )))?;
    sim.say("A newer emitter sends frames and fields this version does not know; ")?;
    sim.put(Some(format!(
        r#"{{"type":"message_delta","turn_id":{turn},"delta":"they are kept, ","index":3,"annotations":[{{"kind":"cite"}}]}}"#
    )))?;
    sim.put(Some(format!(
        r#"{{"type":"reasoning_summary","turn_id":{turn},"text":"(summary of hidden reasoning)"}}"#
    )))?;
    let text = "A newer emitter sends frames and fields this version does not know; they are kept, never an error.";
    sim.say("never an error.")?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}

/// A request that does not fit the context window: round 2 ends with a fatal
/// `turn_error`, the harness compacts (outside the agent run: the reference does it once the
/// failed prompt has settled) and continues; round 3 ends the run with `turn_done`.
fn over_window(sim: &mut Sim) -> Result<Ending, Stop> {
    begin(sim)?;
    let log = ToolRun {
        id: "call_1",
        name: "read",
        args: r#"{"path":"target/build.log"}"#,
        output: BUILD_LOG,
        duration_ms: 500,
        ok: true,
    };
    tool_round(sim, "The build log is long; reading it whole.", &log)?;
    // The next request carries the whole log: the provider refuses it before any text.
    sim.pause(700)?;
    let tokens = sim.pick(200_500, 240_000);
    let error = format!("context window exceeded: {tokens} tokens > 200000");
    let line = sim.em().turn_error(&error, true)?;
    sim.put(line)?;
    sim.stop_streaming();
    let freed = tokens - sim.pick(60_000, 90_000);
    sim.compaction(1200, Some(freed))?;
    sim.start_streaming()?;
    message_start(sim)?;
    let text = "The build failed on an unresolved import (`crate::lines::split`, renamed to `split_lines`); \
                I fixed the two call sites and the build is green.";
    sim.say(text)?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}

/// A pre-flight compaction pass that decides not to compact (`compaction_start`, no end),
/// a round, and a post-run compaction (in [`after_run`]) that runs.
fn skipped_compaction(sim: &mut Sim) -> Result<Ending, Stop> {
    sim.compaction(300, None)?;
    begin(sim)?;
    let text = "Checked `Cargo.lock`: every dependency is already on its latest patch release, \
                so there is nothing to update.";
    sim.say(text)?;
    sim.done(text, &[], "stop")?;
    Ok(Ending::Done)
}
