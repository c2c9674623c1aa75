//! `CoreWriter`: the core's emitter state machine (`hep_core::writer::Emitter`) behind
//! Swift's `Writer`, which writes the lines it returns to a `FileHandle` or a closure.

use crate::boundary::guard;
use crate::errors::CoreError;
use crate::frames::LivenessAction;
use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{ArgsMode, Error, ErrorKind, ToolResult, Usage};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Each call returns the line it produces (without `\n`), or `nil` when the protocol says
/// the call emits nothing.
type Line = Result<Option<String>, CoreError>;

/// The emitter: turn-id allocation, header once, `agent_start` once, compaction brackets,
/// bounds; each call returns its byte-exact line.
#[derive(Debug, uniffi::Object)]
pub struct CoreWriter(Mutex<Emitter>);

impl CoreWriter {
    fn emitter(&self) -> MutexGuard<'_, Emitter> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl CoreWriter {
    /// A fresh emitter for a harness of version `fah`, rendering tool arguments in `args_mode`.
    #[uniffi::constructor]
    pub fn new(fah: String, args_mode: ArgsMode) -> Arc<Self> {
        Arc::new(Self(Mutex::new(Emitter::new(fah, args_mode))))
    }

    /// The open turn's id, else the last allocated one (0 before any).
    pub fn turn_id(&self) -> u64 {
        self.emitter().current_turn_id()
    }

    /// `hep_header`, once; later calls emit nothing.
    pub fn header(&self, session: String) -> Line {
        guard(|| Ok(self.emitter().header(&session)?))
    }

    /// `agent_start`: only the first call emits; it opens a turn.
    pub fn agent_start(&self) -> Line {
        guard(|| Ok(self.emitter().agent_start()?))
    }

    /// Opens a turn if none is open; emits nothing.
    pub fn turn_start(&self) {
        self.emitter().turn_start();
    }

    /// `message_start`, emitted only for `role == "assistant"`.
    pub fn message_start(&self, role: String) -> Line {
        guard(|| Ok(self.emitter().message_start(&role)?))
    }

    /// `message_delta` with a chunk of assistant text.
    pub fn message_delta(&self, delta: String) -> Line {
        guard(|| Ok(self.emitter().message_delta(&delta)?))
    }

    /// `tool_start`; `args` is the JSON text of the argument object (its key order kept).
    pub fn tool_start(&self, id: String, name: String, args: String) -> Line {
        guard(|| Ok(self.emitter().tool_start(&id, &name, &hep_core::parse_args(&args)?)?))
    }

    /// `tool_delta`; an empty `update` emits nothing.
    pub fn tool_delta(&self, id: String, update: String) -> Line {
        guard(|| Ok(self.emitter().tool_delta(&id, &update)?))
    }

    /// `tool_liveness`; an empty `detail` is omitted. An action v1 does not define is refused
    /// (`unencodable`).
    pub fn tool_liveness(
        &self,
        id: String,
        name: String,
        action: LivenessAction,
        elapsed_ms: u64,
        output_bytes: Option<u64>,
        detail: Option<String>,
    ) -> Line {
        guard(|| {
            let Some(action) = action.known() else {
                let message = format!("`{}` is no HEP v1 liveness action", action.name());
                return Err(Error::new(ErrorKind::Unencodable, message).into());
            };
            Ok(self.emitter().liveness(&id, &name, action, elapsed_ms, output_bytes, detail.as_deref())?)
        })
    }

    /// `turn_done` for the open turn (result texts capped at 2000 UTF-16 units); closes it.
    pub fn turn_done(&self, message: String, tool_results: Vec<ToolResult>, usage: Usage, stop_reason: String) -> Line {
        guard(|| {
            let outcomes: Vec<ToolOutcome<'_>> = tool_results
                .iter()
                .map(|r| ToolOutcome { id: &r.id, name: &r.name, ok: r.ok, text: &r.text })
                .collect();
            Ok(self.emitter().turn_done(&message, &outcomes, usage, &stop_reason)?)
        })
    }

    /// `turn_error` for the open turn; closes it.
    pub fn turn_error(&self, error: String, fatal: bool) -> Line {
        guard(|| Ok(self.emitter().turn_error(&error, fatal)?))
    }

    /// `cancelled` for the open turn; closes it.
    pub fn cancelled(&self) -> Line {
        guard(|| Ok(self.emitter().cancelled()?))
    }

    /// `compaction_start`: the open turn's id, or the next one.
    pub fn compaction_start(&self) -> Line {
        guard(|| Ok(self.emitter().compaction_start()?))
    }

    /// `compaction_end`: the open id (or the last allocated one); leaves the turn open.
    pub fn compaction_end(&self, tokens_freed: u64) -> Line {
        guard(|| Ok(self.emitter().compaction_end(tokens_freed)?))
    }
}
