//! [`HepWriter`]: hep-core's emitter (`hep_core::writer::Emitter`: turn ids, header once,
//! `agent_start` once, compaction brackets, bounds) behind an opaque handle. Each call
//! writes the byte-exact line it produces, without `\n`, to `*line_out` (free it with
//! `hep_string_free`), or a NULL string when the protocol says the call writes nothing.
//! The caller writes the line and a `\n` to its sink.

use crate::boundary::{guard, guard_void};
use crate::buffers::{HepString, HepText, out, put};
use crate::errors::{Failure, HepError};
use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{ArgsMode, Error, ErrorKind, LivenessAction, Usage};

/// An emitter of HEP v1 lines. Not thread-safe: use one handle from one thread at a time.
/// Freed by `hep_writer_free`.
#[derive(Debug)]
pub struct HepWriter(Emitter);

/// How `tool_start.args_summary` renders the arguments (passed as an `int32_t`).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepArgsMode {
    /// `key=<json>` pairs cut at 100 UTF-16 units plus `...` (the default).
    Summary = 0,
    /// The argument object's JSON, cut at 4000 units plus `…(+N chars)`.
    Full = 1,
}

/// A tool call's result, for `hep_writer_turn_done`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HepToolResult {
    /// The call's id.
    pub id: HepText,
    /// The tool's name.
    pub name: HepText,
    /// Whether the call succeeded.
    pub ok: bool,
    /// The result text (capped at 2000 UTF-16 units).
    pub text: HepText,
}

/// Token usage and cost, for `hep_writer_turn_done`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HepUsage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cost (finite; a non-finite cost is `unencodable`).
    pub cost: f64,
}

/// Runs `call` on the writer behind `writer` and hands its line to `*line_out`.
fn emit(
    writer: *mut HepWriter,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
    call: impl FnOnce(&mut Emitter) -> Result<Option<String>, Failure>,
) -> bool {
    guard(error_out, || {
        let place = out(line_out, "line_out")?;
        // SAFETY: a non-NULL `writer` comes from `hep_writer_new`, is live and is used by
        // this thread only, as every writer entry point's contract says.
        let writer = unsafe { writer.as_mut() }.ok_or_else(|| Failure::argument("writer is NULL"))?;
        let line = call(&mut writer.0)?.map_or(HepString::NONE, HepString::from);
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, line) };
        Ok(())
    })
}

/// Makes a writer for a harness of version `fah` (the `hep_header.fah`), rendering tool
/// arguments in `args_mode` (a `HepArgsMode`), into `*writer_out`.
///
/// # Safety
///
/// `fah` points to `len` readable bytes (or is NULL with 0); `writer_out` and `error_out`
/// are NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_new(
    fah: HepText,
    args_mode: i32,
    writer_out: *mut *mut HepWriter,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(writer_out, "writer_out")?;
        // SAFETY: `fah` is lent for the call, as `HepText` says.
        let fah = unsafe { fah.as_str("fah") }?;
        let mode = match args_mode {
            0 => ArgsMode::Summary,
            1 => ArgsMode::Full,
            other => return Err(Failure::argument(format!("args_mode {other} is no HepArgsMode"))),
        };
        let writer = Box::into_raw(Box::new(HepWriter(Emitter::new(fah, mode))));
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, writer) };
        Ok(())
    })
}

/// The open turn's id, else the last allocated one (0 before any, and for NULL).
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_turn_id(writer: *const HepWriter) -> u64 {
    let mut id = 0;
    // SAFETY: a non-NULL `writer` comes from `hep_writer_new` and is live.
    guard_void(|| id = unsafe { writer.as_ref() }.map_or(0, |w| w.0.current_turn_id()));
    id
}

/// `hep_header` with `session`, once; later calls write nothing.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_header(
    writer: *mut HepWriter,
    session: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    // SAFETY: `session` is lent for the call.
    emit(writer, line_out, error_out, |e| Ok(e.header(unsafe { session.as_str("session") }?)?))
}

/// `agent_start`: only the first call writes; it opens a turn.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_agent_start(
    writer: *mut HepWriter,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| Ok(e.agent_start()?))
}

/// Opens a turn if none is open; writes nothing (`*line_out` is NULL).
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_turn_start(
    writer: *mut HepWriter,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| {
        e.turn_start();
        Ok(None)
    })
}

/// `message_start`, written only for `role` `assistant`.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_message_start(
    writer: *mut HepWriter,
    role: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    // SAFETY: `role` is lent for the call.
    emit(writer, line_out, error_out, |e| Ok(e.message_start(unsafe { role.as_str("role") }?)?))
}

/// `message_delta` with a chunk of assistant text.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_message_delta(
    writer: *mut HepWriter,
    delta: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    // SAFETY: `delta` is lent for the call.
    emit(writer, line_out, error_out, |e| Ok(e.message_delta(unsafe { delta.as_str("delta") }?)?))
}

/// `tool_start`; `args_json` is the JSON text of the argument object (its key order and
/// number spellings kept).
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_tool_start(
    writer: *mut HepWriter,
    id: HepText,
    name: HepText,
    args_json: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| {
        // SAFETY: the texts are lent for the call.
        let (id, name, args) = unsafe { (id.as_str("id")?, name.as_str("name")?, args_json.as_str("args_json")?) };
        Ok(e.tool_start(id, name, &hep_core::parse_args(args)?)?)
    })
}

/// `tool_delta`; an empty `update` writes nothing.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_tool_delta(
    writer: *mut HepWriter,
    id: HepText,
    update: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| {
        // SAFETY: the texts are lent for the call.
        let (id, update) = unsafe { (id.as_str("id")?, update.as_str("update")?) };
        Ok(e.tool_delta(id, update)?)
    })
}

/// `tool_liveness` with the wire name of `action` (`heartbeat`, `cancel_retry`, ...; another
/// is `unencodable`), `output_bytes` (NULL: absent) and `detail` (NULL or empty: omitted).
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the frame's fields, and the two out arguments
pub unsafe extern "C" fn hep_writer_tool_liveness(
    writer: *mut HepWriter,
    id: HepText,
    name: HepText,
    action: HepText,
    elapsed_ms: u64,
    output_bytes: *const u64,
    detail: *const HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| {
        // SAFETY: the texts are lent for the call; the optional pointers, when not NULL,
        // point to a value the caller filled.
        let (id, name, action, output_bytes, detail) = unsafe {
            let detail = match detail.as_ref() {
                Some(text) => Some(text.as_str("detail")?),
                None => None,
            };
            (id.as_str("id")?, name.as_str("name")?, action.as_str("action")?, output_bytes.as_ref().copied(), detail)
        };
        let Some(action) = LivenessAction::parse(action) else {
            return Err(Error::new(ErrorKind::Unencodable, format!("`{action}` is no HEP v1 liveness action")).into());
        };
        Ok(e.liveness(id, name, action, elapsed_ms, output_bytes, detail)?)
    })
}

/// `turn_done` for the open turn with `results_len` tool results at `results` (NULL when
/// 0), `usage` and `stop_reason`; closes the turn.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the frame's fields, and the two out arguments
pub unsafe extern "C" fn hep_writer_turn_done(
    writer: *mut HepWriter,
    message: HepText,
    results: *const HepToolResult,
    results_len: usize,
    usage: HepUsage,
    stop_reason: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| {
        let results = if results.is_null() {
            if results_len != 0 {
                return Err(Failure::argument(format!("results is NULL with length {results_len}")));
            }
            &[][..]
        } else {
            // SAFETY: a non-NULL `results` points to `results_len` results the caller filled.
            unsafe { std::slice::from_raw_parts(results, results_len) }
        };
        let mut outcomes = Vec::with_capacity(results.len());
        for r in results {
            // SAFETY: each result's texts are lent for the call.
            let (id, name, text) =
                unsafe { (r.id.as_str("result id")?, r.name.as_str("result name")?, r.text.as_str("result text")?) };
            outcomes.push(ToolOutcome { id, name, ok: r.ok, text });
        }
        // SAFETY: the texts are lent for the call.
        let (message, stop_reason) = unsafe { (message.as_str("message")?, stop_reason.as_str("stop_reason")?) };
        let usage = Usage { input: usage.input, output: usage.output, cost: usage.cost };
        Ok(e.turn_done(message, &outcomes, usage, stop_reason)?)
    })
}

/// `turn_error` for the open turn; closes it.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_turn_error(
    writer: *mut HepWriter,
    error: HepText,
    fatal: bool,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    // SAFETY: `error` is lent for the call.
    emit(writer, line_out, error_out, |e| Ok(e.turn_error(unsafe { error.as_str("error") }?, fatal)?))
}

/// `cancelled` for the open turn; closes it.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_cancelled(
    writer: *mut HepWriter,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| Ok(e.cancelled()?))
}

/// `compaction_start`: the open turn's id, or the next one.
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_compaction_start(
    writer: *mut HepWriter,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| Ok(e.compaction_start()?))
}

/// `compaction_end` with `tokens_freed`: the open id (or the last allocated one).
///
/// # Safety
///
/// `writer` is NULL or a live handle from `hep_writer_new`, not used by another thread
/// during the call; each `HepText` (and each pointer argument) is NULL or points to what
/// its type says, readable for the call; `line_out` and `error_out` are NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_compaction_end(
    writer: *mut HepWriter,
    tokens_freed: u64,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    emit(writer, line_out, error_out, |e| Ok(e.compaction_end(tokens_freed)?))
}

/// Frees `writer`. NULL is accepted. `writer` must come from `hep_writer_new` and not be
/// used afterwards.
///
/// # Safety
///
/// `writer` is NULL or a handle from `hep_writer_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_writer_free(writer: *mut HepWriter) {
    guard_void(|| {
        if !writer.is_null() {
            // SAFETY: a non-NULL `writer` was made by `Box::into_raw` in `hep_writer_new`
            // and is freed once, as this function's contract says.
            drop(unsafe { Box::from_raw(writer) });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::HepErrorKind;
    use std::ptr::{null, null_mut};

    fn text(s: &str) -> HepText {
        HepText { ptr: s.as_ptr().cast(), len: s.len() }
    }

    #[test]
    fn lines_are_byte_exact_and_nothing_is_null() {
        let mut writer = null_mut();
        // SAFETY: valid arguments, a live writer, valid out arguments throughout.
        unsafe {
            assert!(hep_writer_new(text("1.0"), HepArgsMode::Summary as i32, &mut writer, null_mut()));
            let mut line = HepString::NONE;
            assert!(hep_writer_header(writer, text("s"), &mut line, null_mut()));
            assert_eq!(line.as_str(), Some(r#"{"type":"hep_header","hep":"v1","fah":"1.0","session":"s"}"#));
            assert!(hep_writer_header(writer, text("s"), &mut line, null_mut()));
            assert!(line.ptr.is_null());
            assert!(hep_writer_agent_start(writer, &mut line, null_mut()));
            assert_eq!(hep_writer_turn_id(writer), 1);
            let mut error = null_mut();
            let bad = text("wait");
            assert!(!hep_writer_tool_liveness(
                writer,
                text("c"),
                text("n"),
                bad,
                1,
                null(),
                null(),
                &mut line,
                &mut error
            ));
            assert_eq!(Box::from_raw(error).kind, HepErrorKind::Unencodable);
            let usage = HepUsage { input: 1, output: 2, cost: 0.5 };
            assert!(hep_writer_turn_done(writer, text("m"), null(), 0, usage, text("stop"), &mut line, null_mut()));
            assert!(line.as_str().is_some_and(|l| l.starts_with(r#"{"type":"turn_done","turn_id":1"#)));
            hep_writer_free(writer);
        }
    }

    #[test]
    fn bad_arguments_are_errors() {
        let (mut writer, mut error, mut line) = (null_mut(), null_mut(), HepString::NONE);
        // SAFETY: invalid values are refused before anything is read from them.
        unsafe {
            assert!(!hep_writer_new(text("1.0"), 7, &mut writer, &mut error));
            assert_eq!(Box::from_raw(error).kind, HepErrorKind::InvalidArgument);
            assert!(!hep_writer_cancelled(null_mut(), &mut line, &mut error));
            assert_eq!(Box::from_raw(error).kind, HepErrorKind::InvalidArgument);
            assert_eq!(hep_writer_turn_id(null()), 0);
            hep_writer_free(null_mut());
        }
    }
}
