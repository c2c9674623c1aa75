//! The writers: each is the core's [`Emitter`] (turn ids, header once, bounds, exact bytes)
//! and the emitter version its header names. Each call returns the line it produced, without
//! its newline, or `null`; `lib/writer.js` writes it, with its newline, to the sink.
//!
//! A writer is named by an id into a table of this JavaScript thread rather than being a napi
//! class: calling a method of a napi class costs a few hundred nanoseconds of bookkeeping,
//! as much as writing the line, while a plain function costs a tenth of that. `lib/writer.js`
//! closes the id when its `Writer` is garbage-collected.

use crate::boundary::guard;
use crate::errors::{Failure, Outcome};
use crate::text::{js_string, utf8, with_utf8, with_utf8_head};
use hep_core::writer::{Emitter, ToolHead};
use hep_core::{ArgsMode, LivenessAction, Usage, bounds};
use napi::JsString;
use napi::bindgen_prelude::Env;
use napi_derive::napi;
use std::cell::RefCell;

/// One open writer.
struct Writer {
    emitter: Emitter,
}

thread_local! {
    /// The writers of this JavaScript thread (the main one, or a worker's), by id; `None` is
    /// a closed id, reused by the next writer.
    static WRITERS: RefCell<Vec<Option<Writer>>> = const { RefCell::new(Vec::new()) };
}

/// What `f` makes of writer `id`.
fn with<T>(id: u32, f: impl FnOnce(&mut Writer) -> T) -> Outcome<T> {
    WRITERS
        .with_borrow_mut(|writers| writers.get_mut(id as usize).and_then(Option::as_mut).map(f))
        .ok_or_else(|| Failure::Internal(format!("writer {id} is closed")))
}

/// What each call returns: the line without its newline, or `null` when nothing is written.
type Written<'env> = napi::Result<Option<JsString<'env>>>;

/// The line that `emit` makes writer `id` produce; a core error is thrown as a `HepError`.
fn line<'env>(env: &'env Env, id: u32, emit: impl FnOnce(&mut Writer) -> Outcome<Option<String>>) -> Written<'env> {
    guard(env, || match with(id, emit)?? {
        Some(line) => Ok(Some(js_string(env, &line)?)),
        None => Ok(None),
    })
}

/// A non-negative integer from JavaScript (checked by lib/writer.js) as the core's integer;
/// `as` saturates, and the core's encoder refuses what is past 2^53 - 1.
fn uint(value: f64) -> u64 {
    value as u64
}

/// Opens a writer whose header names `fah`, rendering tool arguments in full mode
/// when `full_args`, else in summary mode; returns its id.
#[napi(catch_unwind)]
pub fn writer_open(env: Env, fah: String, full_args: bool) -> napi::Result<u32> {
    guard(&env, || Ok(open(fah, full_args)))
}

/// Closes writer `id` (its `Writer` is gone).
#[napi(catch_unwind)]
pub fn writer_close(env: Env, id: u32) -> napi::Result<()> {
    guard(&env, || {
        close(id);
        Ok(())
    })
}

/// The body of [`writer_open`]: the id of a new writer, the first closed one reused.
fn open(fah: String, full_args: bool) -> u32 {
    let mode = if full_args { ArgsMode::Full } else { ArgsMode::Summary };
    let writer = Writer { emitter: Emitter::new(fah, mode) };
    WRITERS.with_borrow_mut(|writers| match writers.iter_mut().enumerate().find(|(_, slot)| slot.is_none()) {
        Some((free, slot)) => {
            *slot = Some(writer);
            free as u32
        }
        None => {
            writers.push(Some(writer));
            (writers.len() - 1) as u32
        }
    })
}

/// The body of [`writer_close`].
fn close(id: u32) {
    WRITERS.with_borrow_mut(|writers| {
        if let Some(slot) = writers.get_mut(id as usize) {
            *slot = None;
        }
    });
}

/// The open turn's id, else the last allocated one (0 before any).
#[napi(catch_unwind)]
pub fn writer_turn_id(env: Env, id: u32) -> napi::Result<f64> {
    guard(&env, || with(id, |w| w.emitter.current_turn_id() as f64))
}

/// `hep_header` (written once).
#[napi(catch_unwind)]
pub fn writer_header<'env>(env: &'env Env, id: u32, session: JsString<'_>) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.header(&utf8(&session)?)?))
}

/// `agent_start` (only the first call writes); opens a turn.
#[napi(catch_unwind)]
pub fn writer_agent_start<'env>(env: &'env Env, id: u32) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.agent_start()?))
}

/// Opens a turn if none is open; writes nothing.
#[napi(catch_unwind)]
pub fn writer_turn_start(env: Env, id: u32) -> napi::Result<()> {
    guard(&env, || with(id, |w| w.emitter.turn_start()))
}

/// `message_start`, written only for the assistant role.
#[napi(catch_unwind)]
pub fn writer_message_start<'env>(env: &'env Env, id: u32, role: JsString<'_>) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.message_start(&utf8(&role)?)?))
}

/// `message_delta`.
#[napi(catch_unwind)]
pub fn writer_message_delta<'env>(env: &'env Env, id: u32, text: JsString<'_>) -> Written<'env> {
    line(env, id, |w| Ok(with_utf8(&text, |text| w.emitter.message_delta(text))??))
}

/// `tool_start`; `args` is the JSON text of the argument object (its key order is kept).
#[napi(catch_unwind)]
pub fn writer_tool_start<'env>(
    env: &'env Env,
    id: u32,
    call: JsString<'_>,
    name: JsString<'_>,
    args: JsString<'_>,
) -> Written<'env> {
    line(env, id, |w| {
        let args = hep_core::parse_args(&utf8(&args)?)?;
        Ok(w.emitter.tool_start(&utf8(&call)?, &utf8(&name)?, &args)?)
    })
}

/// `tool_delta`; an empty update writes nothing.
#[napi(catch_unwind)]
pub fn writer_tool_delta<'env>(env: &'env Env, id: u32, call: JsString<'_>, update: JsString<'_>) -> Written<'env> {
    line(env, id, |w| {
        let call = utf8(&call)?;
        Ok(with_utf8(&update, |update| w.emitter.tool_delta(&call, update))??)
    })
}

/// `tool_liveness`; `action` is one of v1's (checked by lib/writer.js).
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)] // the frame's own fields, as lib/writer.js passes them
pub fn writer_tool_liveness<'env>(
    env: &'env Env,
    id: u32,
    call: JsString<'_>,
    name: JsString<'_>,
    action: JsString<'_>,
    elapsed_ms: f64,
    output_bytes: Option<f64>,
    detail: Option<JsString<'_>>,
) -> Written<'env> {
    line(env, id, |w| {
        let action = LivenessAction::parse(&utf8(&action)?).unwrap_or(LivenessAction::Heartbeat);
        let detail = detail.as_ref().map(utf8).transpose()?;
        let (call, name) = (utf8(&call)?, utf8(&name)?);
        Ok(w.emitter.liveness(&call, &name, action, uint(elapsed_ms), output_bytes.map(uint), detail.as_deref())?)
    })
}

/// `turn_done` (result texts capped); closes the turn. The tool results come as one array
/// per field (checked by lib/writer.js to be of one length). Each text is capped by the core
/// from its first units and its length, so a long one is never copied whole.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)] // the frame's own fields, usage spread, as lib/writer.js passes them
pub fn writer_turn_done<'env>(
    env: &'env Env,
    id: u32,
    message: JsString<'_>,
    ids: Vec<String>,
    names: Vec<String>,
    oks: Vec<bool>,
    texts: Vec<JsString<'_>>,
    input: f64,
    output: f64,
    cost: f64,
    stop_reason: JsString<'_>,
) -> Written<'env> {
    line(env, id, |w| {
        let mut heads = Vec::with_capacity(texts.len());
        for text in &texts {
            heads.push(with_utf8_head(text, bounds::TOOL_RESULT_CAP + 1, |head, units| (head.to_owned(), units))?);
        }
        let results: Vec<ToolHead<'_>> = ids
            .iter()
            .zip(&names)
            .zip(&oks)
            .zip(&heads)
            .map(|(((id, name), &ok), (head, units))| ToolHead { id, name, ok, head, units: *units })
            .collect();
        let usage = Usage { input: uint(input), output: uint(output), cost };
        Ok(w.emitter.turn_done_heads(&utf8(&message)?, &results, usage, &utf8(&stop_reason)?)?)
    })
}

/// `turn_error`; closes the turn.
#[napi(catch_unwind)]
pub fn writer_turn_error<'env>(env: &'env Env, id: u32, error: JsString<'_>, fatal: bool) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.turn_error(&utf8(&error)?, fatal)?))
}

/// `cancelled`; closes the turn.
#[napi(catch_unwind)]
pub fn writer_cancelled<'env>(env: &'env Env, id: u32) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.cancelled()?))
}

/// `compaction_start`.
#[napi(catch_unwind)]
pub fn writer_compaction_start<'env>(env: &'env Env, id: u32) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.compaction_start()?))
}

/// `compaction_end`.
#[napi(catch_unwind)]
pub fn writer_compaction_end<'env>(env: &'env Env, id: u32, tokens_freed: f64) -> Written<'env> {
    line(env, id, |w| Ok(w.emitter.compaction_end(uint(tokens_freed))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_ids_are_reused_and_refused_until_then() {
        let (a, b) = (open("1".into(), false), open("1".into(), true));
        assert_ne!(a, b);
        close(a);
        assert!(with(a, |_| ()).is_err());
        assert!(with(b, |w| w.emitter.args_mode() == ArgsMode::Full).unwrap());
        assert_eq!(open("2".into(), false), a);
        assert!(with(a, |w| w.emitter.fah() == "2").unwrap());
    }
}
