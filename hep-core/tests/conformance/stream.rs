//! `stream/`: a whole stream fed three ways (whole, byte by byte, 7-byte chunks) to fresh
//! streams; the outcomes must agree, then every key of `expect` is checked. `hostile/`
//! stream cases use the same machinery.

use super::{Res, canonical, get, get_array, get_bytes, same_json, text};
use hep_core::run::{Limits, ToolCall, Turn};
use hep_core::{Event, Stream, StreamOptions, Terminal, Usage};
use serde_json::{Map, Value, json};

/// The keys `expect` may hold; list-valued ones are matched entry by entry (but `reasons`,
/// a list of strings matched whole).
pub(crate) const EXPECT_KEYS: [&str; 14] = [
    "frames",
    "violations",
    "skipped",
    "halted",
    "verdict",
    "reasons",
    "conforms",
    "answer",
    "usage",
    "turns",
    "violation_count",
    "skipped_count",
    "untracked_calls",
    "turns_dropped",
];

pub(crate) fn run(case: &Value) -> Res {
    let whole = observe(case)?;
    let expect = get(case, "expect")?;
    check_expect(expect, &whole)
}

/// Reads a stream case's input, options and exit code, feeds the input whole, one byte at a
/// time and in 7-byte chunks (the outcomes must agree), and returns the outcome.
pub(crate) fn observe(case: &Value) -> Res<Value> {
    let input = input(case)?;
    let options = options(case)?;
    let exit_code = exit_code(case)?;
    let whole = outcome(&[&input], options, exit_code);
    for (how, size) in [("one byte at a time", 1), ("in 7-byte chunks", 7)] {
        let chunks: Vec<&[u8]> = input.chunks(size).collect();
        let other = outcome(&chunks, options, exit_code);
        same_json(&format!("fed {how}, the outcome (vs. fed whole)"), &whole, &other)?;
    }
    Ok(whole)
}

/// Checks every key of `expect` against the outcome `whole`.
pub(crate) fn check_expect(expect: &Value, whole: &Value) -> Res {
    let expect = expect.as_object().ok_or("`expect` must be an object")?;
    if expect.is_empty() {
        return Err("`expect` checks nothing".into());
    }
    let mut failures = Vec::new();
    for (key, want) in expect {
        let got = whole.get(key).unwrap_or(&Value::Null);
        let checked = match (want, got) {
            _ if !EXPECT_KEYS.contains(&key.as_str()) => Err(format!("unknown `expect` key `{key}`")),
            _ if key == "reasons" => same_json("`reasons`", want, got),
            (Value::Array(want), Value::Array(got)) => entries(key, want, got),
            _ => same_json(&format!("`{key}`"), want, got),
        };
        failures.extend(checked.err());
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n")) }
}

/// `exit_code`: an integer, or `null` / absent (unknown).
pub(crate) fn exit_code(case: &Value) -> Res<Option<i32>> {
    match case.get("exit_code") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            Ok(Some(v.as_i64().and_then(|c| i32::try_from(c).ok()).ok_or("`exit_code` must be an integer or null")?))
        }
    }
}

/// `input_lines` (each followed by `\n`), or `input` / `input_base64` as given.
pub(crate) fn input(case: &Value) -> Res<Vec<u8>> {
    let has_bytes = case.get("input").is_some() || case.get("input_base64").is_some();
    match (case.get("input_lines"), has_bytes) {
        (Some(_), true) => Err("give `input_lines` or `input`/`input_base64`, not both".into()),
        (Some(_), false) => {
            let mut bytes = Vec::new();
            for line in get_array(case, "input_lines")? {
                bytes.extend(text(line).map_err(|e| format!("`input_lines`: {e}"))?.into_bytes());
                bytes.push(b'\n');
            }
            Ok(bytes)
        }
        (None, _) => get_bytes(case, "input"),
    }
}

pub(crate) fn options(case: &Value) -> Res<StreamOptions> {
    let mut options = StreamOptions::default();
    let Some(given) = case.get("options") else { return Ok(options) };
    for (key, v) in given.as_object().ok_or("`options` must be an object")? {
        match key.as_str() {
            "strict" => options.strict = v.as_bool().ok_or("`options.strict` must be a boolean")?,
            "max_line_length" => {
                let max = v.as_u64().and_then(|m| usize::try_from(m).ok());
                options.max_line_length = max.ok_or("`options.max_line_length` must be an integer")?;
            }
            "limits" => options.limits = limits(v)?,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
}

/// `options.limits`: any of `Limits`' fields by name, each a non-negative integer; the
/// others keep the core's defaults.
fn limits(given: &Value) -> Res<Limits> {
    let mut limits = Limits::default();
    for (key, v) in given.as_object().ok_or("`options.limits` must be an object")? {
        let field = match key.as_str() {
            "max_turns" => &mut limits.max_turns,
            "max_text_bytes" => &mut limits.max_text_bytes,
            "max_tool_output_bytes" => &mut limits.max_tool_output_bytes,
            "max_tools_per_turn" => &mut limits.max_tools_per_turn,
            "max_followups" => &mut limits.max_followups,
            "max_compactions_per_turn" => &mut limits.max_compactions_per_turn,
            "max_tracked_calls" => &mut limits.max_tracked_calls,
            "max_reports" => &mut limits.max_reports,
            "max_retained_bytes" => &mut limits.max_retained_bytes,
            other => return Err(format!("unknown limit `options.limits.{other}`")),
        };
        let max = v.as_u64().and_then(|m| usize::try_from(m).ok());
        *field = max.ok_or_else(|| format!("`options.limits.{key}` must be a non-negative integer"))?;
    }
    Ok(limits)
}

/// Each listed entry must match the actual one key by key (`tools` entries likewise);
/// the lists must be equally long.
fn entries(path: &str, want: &[Value], got: &[Value]) -> Res {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let at = format!("{path}[{i}]");
        let w = w.as_object().ok_or_else(|| format!("`{at}` must be an object"))?;
        for (key, wv) in w {
            let gv = g.get(key).ok_or_else(|| format!("`{at}.{key}` is no key a runner knows"))?;
            match (wv, gv) {
                (Value::Array(wl), Value::Array(gl)) if key == "tools" => entries(&format!("{at}.tools"), wl, gl)?,
                _ => same_json(&format!("`{at}.{key}`"), wv, gv)?,
            }
        }
    }
    if want.len() != got.len() {
        return Err(format!("`{path}` has {} entries instead of {}: {}", got.len(), want.len(), Value::from(got)));
    }
    Ok(())
}

/// Everything a case can check, as JSON, after feeding `chunks` to a fresh stream.
pub(crate) fn outcome(chunks: &[&[u8]], options: StreamOptions, exit_code: Option<i32>) -> Value {
    let mut stream = Stream::new(options);
    let mut frames = Vec::new();
    for piece in chunks {
        for event in stream.feed(piece) {
            if let Event::Frame(r) = event {
                let frame = canonical(&r.frame).unwrap_or_else(|e| Value::from(format!("<no canonical form: {e}>")));
                frames.push(json!({"line": r.line, "type": r.frame.frame_type(), "frame": frame}));
            }
        }
    }
    let result = stream.finish(exit_code);
    let violations: Vec<Value> = result
        .violations
        .iter()
        .map(
            |v| json!({"code": v.code.as_str(), "severity": v.severity.as_str(), "line": v.line, "turn_id": v.turn_id}),
        )
        .collect();
    let skipped: Vec<Value> =
        result.skipped.iter().map(|e| json!({"line": e.line(), "kind": e.kind().as_str()})).collect();
    let halted = result.halted.as_ref().map(|e| json!({"kind": e.kind().as_str(), "line": e.line()}));
    json!({
        "frames": frames,
        "violations": violations,
        "skipped": skipped,
        "halted": halted,
        "verdict": result.verdict.as_str(),
        "reasons": result.reasons,
        "conforms": result.conforms,
        "answer": result.run.answer,
        "usage": usage(&result.run.usage),
        "turns": result.run.turns.iter().map(turn).collect::<Vec<_>>(),
        "violation_count": result.violation_count,
        "skipped_count": result.skipped_count,
        "untracked_calls": result.untracked_calls,
        "turns_dropped": result.run.turns_dropped,
    })
}

fn usage(u: &Usage) -> Value {
    json!({"input": u.input, "output": u.output, "cost": u.cost})
}

fn turn(t: &Turn) -> Value {
    let mut o = Map::new();
    o.insert("turn_id".into(), t.turn_id.into());
    o.insert("text".into(), t.text.clone().into());
    o.insert("text_dropped".into(), t.text_dropped.into());
    o.insert("end".into(), t.end.map(Terminal::as_str).into());
    o.insert("message".into(), t.message.clone().into());
    o.insert("error".into(), t.error.clone().into());
    o.insert("stop_reason".into(), t.stop_reason.clone().into());
    o.insert("usage".into(), t.usage.as_ref().map(usage).into());
    o.insert("compactions".into(), t.compactions.clone().into());
    o.insert("compactions_dropped".into(), t.compactions_dropped.into());
    o.insert("bytes_dropped".into(), t.bytes_dropped.into());
    o.insert("tools".into(), t.tools.iter().map(tool).collect::<Vec<_>>().into());
    o.insert("tools_dropped".into(), t.tools_dropped.into());
    o.into()
}

fn tool(c: &ToolCall) -> Value {
    json!({
        "id": c.id,
        "name": c.name,
        "args_summary": c.args_summary,
        "status": c.status.as_str(),
        "output": c.output,
        "output_dropped": c.output_dropped,
        "result": c.result,
        "followups": c.followups.iter().map(|f| f.action.clone()).collect::<Vec<_>>(),
        "followups_dropped": c.followups_dropped,
    })
}

/// Each case of `stream/limits/` pins what its limits change: without `options.limits` it
/// fails.
#[test]
fn limits_cases_fail_without_their_limits() {
    let (files, _) = super::case_files(&super::root().join("stream").join("limits"));
    assert!(files.len() >= 7, "limits cases: {files:?}");
    for file in files {
        let name = format!("limits/{}", file.file_stem().and_then(|n| n.to_str()).unwrap_or_default());
        let without = super::run_mutated("stream", &name, |case| {
            case.get_mut("options").and_then(Value::as_object_mut).map(|o| o.remove("limits"));
        });
        assert!(without.is_err(), "{name} passes without its limits");
    }
}

/// The runner refuses a limit it does not know, and a value that is no count.
#[test]
fn unknown_or_bad_limits_are_refused() {
    for (limits, complaint) in [
        (json!({"max_turn": 2}), "unknown limit `options.limits.max_turn`"),
        (json!({"max_turns": -1}), "`options.limits.max_turns` must be a non-negative integer"),
        (json!([2]), "`options.limits` must be an object"),
    ] {
        let got = super::run_mutated("stream", "limits/turns-dropped-past-max-turns", |case| {
            case["options"]["limits"] = limits;
        });
        assert_eq!(got, Err(complaint.to_owned()));
    }
}

/// Every case of `stream/` pins the verdict's reasons (what a user reads), so that no
/// change to them goes unnoticed in any language.
#[test]
fn every_stream_case_pins_its_reasons() {
    let (files, _) = super::case_files(&super::root().join("stream"));
    let unpinned: Vec<String> = files
        .iter()
        .filter(|path| super::load(path).ok().and_then(|case| case.pointer("/expect/reasons").cloned()).is_none())
        .map(|path| super::relative(path))
        .collect();
    assert!(files.len() > 90, "stream cases: {}", files.len());
    assert!(unpinned.is_empty(), "stream cases without `expect.reasons`: {unpinned:?}");
}
