//! `supervise/`: a timeline of what a supervised child did, on a simulated clock, and what
//! the supervisor must do and conclude.

use super::{Res, get, get_array, get_str, get_u64, same_json, show, text};
use hep_core::run::Limits;
use hep_core::supervise::{Action, CancelReason, ExitStatus, SuperviseOptions, Supervisor};
use hep_core::{Event, StreamOptions};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Keys a case may hold (any other is refused: a misspelt key must not pass unnoticed).
const CASE_KEYS: [&str; 5] = ["description", "options", "consume", "steps", "expect"];
const OPTION_KEYS: [&str; 10] = [
    "timeout_ms",
    "idle_timeout_ms",
    "interrupt_grace_ms",
    "terminate_grace_ms",
    "drain_ms",
    "stderr_tail_bytes",
    "max_stderr_line",
    "pause_at_bytes",
    "strict",
    "max_reports",
];
const STEP_KEYS: [&str; 9] = ["at", "stdout", "stderr", "cancel", "grace_ms", "exit", "close", "consume", "consumer"];
const EXPECT_KEYS: [&str; 5] = ["actions", "stderr_lines", "frames", "finished_at", "result"];
const RESULT_KEYS: [&str; 11] = [
    "verdict",
    "exit_code",
    "reasons",
    "conforms",
    "timed_out",
    "cancelled_by",
    "signals",
    "stderr_tail",
    "stderr_dropped",
    "notices_dropped",
    "duration_ms",
];

fn keys_known(what: &str, v: &Value, known: &[&str]) -> Res {
    let Value::Object(map) = v else { return Err(format!("{what} must be an object")) };
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown key `{k}` in {what}")),
        None => Ok(()),
    }
}

fn ms(v: &Value, key: &str) -> Res<Option<Duration>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => Ok(Some(Duration::from_millis(get_u64(v, key)?))),
    }
}

fn options(case: &Value) -> Res<SuperviseOptions> {
    let mut o = SuperviseOptions::default();
    let Some(given) = case.get("options") else { return Ok(o) };
    keys_known("`options`", given, &OPTION_KEYS)?;
    o.timeout = ms(given, "timeout_ms")?;
    o.idle_timeout = ms(given, "idle_timeout_ms")?;
    o.interrupt_grace = ms(given, "interrupt_grace_ms")?.unwrap_or(o.interrupt_grace);
    o.terminate_grace = ms(given, "terminate_grace_ms")?.unwrap_or(o.terminate_grace);
    o.drain = ms(given, "drain_ms")?.unwrap_or(o.drain);
    let size = |key: &str, default: usize| -> Res<usize> {
        match given.get(key) {
            None => Ok(default),
            Some(_) => usize::try_from(get_u64(given, key)?).map_err(|e| e.to_string()),
        }
    };
    o.stderr_tail_bytes = size("stderr_tail_bytes", o.stderr_tail_bytes)?;
    o.max_stderr_line = size("max_stderr_line", o.max_stderr_line)?;
    o.pause_at_bytes = size("pause_at_bytes", o.pause_at_bytes)?;
    let limits = Limits { max_reports: size("max_reports", Limits::default().max_reports)?, ..Limits::default() };
    let strict = given.get("strict").and_then(Value::as_bool).unwrap_or(false);
    o.stream = StreamOptions { strict, limits, ..StreamOptions::default() };
    Ok(o)
}

/// The JSON form of an action, as the cases spell it.
fn action_json(at: u64, action: &Action) -> Value {
    match action {
        Action::Signal(step) => json!({
            "at": at,
            "action": "signal",
            "signal": step.signal.name(),
            "reason": step.reason.as_str(),
            "next": step.next.map(|(signal, after)| json!({"signal": signal.name(), "after_ms": after.as_millis() as u64})),
        }),
        Action::KillGroup => json!({"at": at, "action": "kill_group"}),
        Action::PauseStdout => json!({"at": at, "action": "pause_stdout"}),
        Action::ResumeStdout => json!({"at": at, "action": "resume_stdout"}),
        Action::ClosePipes => json!({"at": at, "action": "close_pipes"}),
    }
}

/// What the run produced, on the simulated clock.
#[derive(Default)]
struct Seen {
    actions: Vec<Value>,
    stderr_lines: Vec<Value>,
    frames: Vec<Value>,
    finished_at: Option<u64>,
}

impl Seen {
    fn event(&mut self, event: Event) {
        if let Event::Frame(r) = event {
            self.frames.push(Value::String(r.frame.frame_type().to_owned()));
        }
    }

    /// Takes what the supervisor has for the driver, and its stderr lines (and, with
    /// `auto`, its events, consuming as it goes) at `at`.
    fn collect(&mut self, sup: &mut Supervisor, at: u64, auto: bool) {
        while let Some(action) = sup.poll_action() {
            self.actions.push(action_json(at, &action));
        }
        while let Some(line) = sup.poll_stderr() {
            self.stderr_lines.push(Value::String(line));
        }
        if auto {
            while let Some(event) = sup.poll_event() {
                self.event(event);
                while let Some(action) = sup.poll_action() {
                    self.actions.push(action_json(at, &action));
                }
            }
        }
        if sup.is_finished() && self.finished_at.is_none() {
            self.finished_at = Some(at);
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn apply(sup: &mut Supervisor, seen: &mut Seen, step: &Value, now: Duration) -> Res {
    let mut did = 0;
    if step.get("stdout").is_some() {
        sup.stdout(now, text(get(step, "stdout")?)?.as_bytes());
        did += 1;
    }
    if step.get("stderr").is_some() {
        sup.stderr(now, text(get(step, "stderr")?)?.as_bytes());
        did += 1;
    }
    if step.get("cancel").is_some() {
        let name = get_str(step, "cancel")?;
        let reason = CancelReason::parse(name).ok_or_else(|| format!("unknown cancel reason `{name}`"))?;
        sup.cancel_within(now, reason, ms(step, "grace_ms")?);
        did += 1;
    } else if step.get("grace_ms").is_some() {
        return Err("`grace_ms` belongs to a `cancel` step".into());
    }
    if step.get("exit").and_then(Value::as_str) == Some("unknown") {
        sup.exited(now, ExitStatus::Unknown);
        did += 1;
    } else if let Some(exit) = step.get("exit") {
        keys_known("`exit`", exit, &["code", "signal"])?;
        let code = |key| get(exit, key).ok().and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
        let status = match (code("code"), code("signal")) {
            (Some(c), None) => ExitStatus::Code(c),
            (None, Some(s)) => ExitStatus::Signal(s),
            _ => return Err(format!("`exit` needs one integer `code` or `signal`: {}", show(exit))),
        };
        sup.exited(now, status);
        did += 1;
    }
    if step.get("close").is_some() {
        match get_str(step, "close")? {
            "stdout" => sup.stdout_closed(now),
            "stderr" => sup.stderr_closed(now),
            "both" => {
                sup.stdout_closed(now);
                sup.stderr_closed(now);
            }
            other => return Err(format!("`close` must be stdout, stderr or both, not `{other}`")),
        }
        did += 1;
    }
    if step.get("consumer").is_some() {
        match get_str(step, "consumer")? {
            "attached" => sup.set_consumer(now, true),
            "detached" => sup.set_consumer(now, false),
            other => return Err(format!("`consumer` must be attached or detached, not `{other}`")),
        }
        did += 1;
    }
    if step.get("consume").is_some() {
        for _ in 0..get_u64(step, "consume")? {
            let Some(event) = sup.poll_event() else { break };
            seen.event(event);
        }
        did += 1;
    }
    if did != 1 {
        return Err(format!("a step does exactly one thing; this one does {did}: {}", show(step)));
    }
    Ok(())
}

pub(crate) fn run(case: &Value) -> Res {
    keys_known("the case", case, &CASE_KEYS)?;
    let auto = match case.get("consume").map(Value::as_str) {
        None | Some(Some("auto")) => true,
        Some(Some("manual")) => false,
        Some(_) => return Err("`consume` must be \"auto\" or \"manual\"".into()),
    };
    let mut sup = Supervisor::new(options(case)?, Duration::ZERO);
    let mut seen = Seen::default();
    let mut clock = 0;
    for (i, step) in get_array(case, "steps")?.iter().enumerate() {
        keys_known(&format!("steps[{i}]"), step, &STEP_KEYS)?;
        let at = get_u64(step, "at").map_err(|e| format!("steps[{i}]: {e}"))?;
        if at < clock {
            return Err(format!("steps[{i}]: `at` {at} is before the previous step's {clock}"));
        }
        while let Some(due) = sup.deadline().filter(|&d| millis(d) <= at) {
            // A deadline before the clock means: tick now.
            clock = clock.max(millis(due));
            sup.tick(Duration::from_millis(clock));
            seen.collect(&mut sup, clock, auto);
        }
        clock = at;
        apply(&mut sup, &mut seen, step, Duration::from_millis(at)).map_err(|e| format!("steps[{i}]: {e}"))?;
        seen.collect(&mut sup, at, auto);
    }
    while let (false, Some(due)) = (sup.is_finished(), sup.deadline()) {
        clock = clock.max(millis(due));
        sup.tick(Duration::from_millis(clock));
        seen.collect(&mut sup, clock, auto);
    }
    while let Some(event) = sup.poll_event() {
        seen.event(event);
    }
    check(case, &sup, &seen)
}

fn check(case: &Value, sup: &Supervisor, seen: &Seen) -> Res {
    let expect = get(case, "expect")?;
    keys_known("`expect`", expect, &EXPECT_KEYS)?;
    let mut problems = Vec::new();
    let mut compare = |what: &str, want: Option<&Value>, got: Value| {
        if let Some(want) = want {
            if let Err(e) = same_json(what, want, &got) {
                problems.push(e);
            }
        }
    };
    compare("actions", expect.get("actions"), Value::Array(seen.actions.clone()));
    compare("stderr_lines", expect.get("stderr_lines"), Value::Array(seen.stderr_lines.clone()));
    compare("frames", expect.get("frames"), Value::Array(seen.frames.clone()));
    compare("finished_at", expect.get("finished_at"), json!(seen.finished_at));
    if let Some(want) = expect.get("result") {
        keys_known("`expect.result`", want, &RESULT_KEYS)?;
        let Some(result) = sup.result() else {
            return Err("the run never finished (no result), though `expect.result` is given".into());
        };
        let supervision = serde_json::to_value(&result.supervision).map_err(|e| e.to_string())?;
        let mut got: Map<String, Value> = match supervision {
            Value::Object(map) => map,
            _ => return Err("a supervised result has no `supervision`".into()),
        };
        got.insert("verdict".into(), json!(result.verdict.as_str()));
        got.insert("exit_code".into(), json!(result.exit_code));
        got.insert("reasons".into(), json!(result.reasons));
        got.insert("conforms".into(), json!(result.conforms));
        if let Value::Object(want) = want {
            for (key, value) in want {
                compare(&format!("result.{key}"), Some(value), got.get(key).cloned().unwrap_or(Value::Null));
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}
