//! `writer/`: a script of emitter calls and the exact lines it writes.

use super::{Res, get, get_array, get_bool, get_str, get_text, get_u64, same_text};
use hep_core::writer::ToolOutcome;
use hep_core::{ArgsMode, Emitter, LivenessAction, Usage, parse_args};
use serde_json::Value;

pub(crate) fn run(case: &Value) -> Res {
    let mode = match case.get("args_mode").map(Value::as_str) {
        None | Some(Some("summary")) => ArgsMode::Summary,
        Some(Some("full")) => ArgsMode::Full,
        Some(_) => return Err("`args_mode` must be \"summary\" or \"full\"".into()),
    };
    let mut emitter = Emitter::new(get_str(case, "fah")?, mode);
    let mut lines = Vec::new();
    for (i, call) in get_array(case, "calls")?.iter().enumerate() {
        let name = get_str(call, "call").map_err(|e| format!("calls[{i}]: {e}"))?;
        let line = apply(&mut emitter, name, call).map_err(|e| format!("calls[{i}] `{name}`: {e}"))?;
        lines.extend(line);
    }
    let expected = get_array(case, "lines")?
        .iter()
        .map(|l| l.as_str().ok_or("`lines` must hold strings"))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (want, got)) in expected.iter().zip(&lines).enumerate() {
        same_text(&format!("line {}", i + 1), want, got)?;
    }
    if expected.len() != lines.len() {
        let more = lines.get(expected.len()..).unwrap_or_default();
        return Err(format!(
            "the calls emit {} lines instead of {}; unexpected extra lines: {more:?}",
            lines.len(),
            expected.len()
        ));
    }
    if case.get("turn_id").is_some() {
        let (want, got) = (get_u64(case, "turn_id")?, emitter.current_turn_id());
        if want != got {
            return Err(format!("current turn id is {got} instead of {want}"));
        }
    }
    Ok(())
}

/// Makes one call, returning the line it emitted.
fn apply(em: &mut Emitter, name: &str, call: &Value) -> Res<Option<String>> {
    let emitted = match name {
        "header" => em.header(get_str(call, "session")?),
        "agent_start" => em.agent_start(),
        "turn_start" => {
            em.turn_start();
            Ok(None)
        }
        "cancelled" => em.cancelled(),
        "compaction_start" => em.compaction_start(),
        "message_start" => em.message_start(get_str(call, "role")?),
        "message_delta" => em.message_delta(&get_text(call, "delta")?),
        "tool_start" => {
            let args = parse_args(&get_text(call, "args")?).map_err(|e| format!("`args`: {e}"))?;
            em.tool_start(get_str(call, "id")?, get_str(call, "name")?, &args)
        }
        "tool_delta" => em.tool_delta(get_str(call, "id")?, &get_text(call, "update")?),
        "liveness" => {
            let action = get_str(call, "action")?;
            let action = LivenessAction::parse(action).ok_or_else(|| format!("unknown action `{action}`"))?;
            let output_bytes = match call.get("output_bytes") {
                None | Some(Value::Null) => None,
                Some(_) => Some(get_u64(call, "output_bytes")?),
            };
            let detail = match call.get("detail") {
                None | Some(Value::Null) => None,
                Some(_) => Some(get_str(call, "detail")?),
            };
            let elapsed = get_u64(call, "elapsed_ms")?;
            em.liveness(get_str(call, "id")?, get_str(call, "name")?, action, elapsed, output_bytes, detail)
        }
        "turn_done" => {
            let results = get_array(call, "tool_results")?
                .iter()
                .map(|r| Ok((get_str(r, "id")?, get_str(r, "name")?, get_bool(r, "ok")?, get_text(r, "text")?)))
                .collect::<Res<Vec<_>>>()
                .map_err(|e| format!("`tool_results`: {e}"))?;
            let outcomes: Vec<ToolOutcome<'_>> =
                results.iter().map(|(id, name, ok, text)| ToolOutcome { id, name, ok: *ok, text }).collect();
            let u = get(call, "usage")?;
            let cost = get(u, "cost")?.as_f64().ok_or("`usage.cost` must be a number")?;
            let usage = Usage { input: get_u64(u, "input")?, output: get_u64(u, "output")?, cost };
            em.turn_done(&get_text(call, "message")?, &outcomes, usage, get_str(call, "stop_reason")?)
        }
        "turn_error" => em.turn_error(get_str(call, "error")?, get_bool(call, "fatal")?),
        "compaction_end" => em.compaction_end(get_u64(call, "tokens_freed")?),
        other => return Err(format!("unknown call `{other}`")),
    };
    emitted.map_err(|e| format!("the emitter fails: {e}"))
}
