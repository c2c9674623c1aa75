//! The emitter: the reference's turn-id state machine, producing byte-exact lines.
//!
//! [`Emitter`] is sans-IO (each call returns the line it produced, if any); [`Writer`]
//! adds a sink and writes and flushes each line, `\n` included, as it is produced.

use crate::args::Args;
use crate::bounds::{self, ArgsMode};
use crate::encode::encode;
use crate::error::Result;
use crate::frame::*;
use std::io::Write;

/// One tool result as the harness has it, before the writer bounds its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome<'a> {
    /// Tool call id.
    pub id: &'a str,
    /// Tool name.
    pub name: &'a str,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Full result text (the writer caps it at 2000 UTF-16 units).
    pub text: &'a str,
}

/// One tool result whose text the caller holds only the head of (see [`bounds::cap_head`]):
/// what a binding passes when reading a whole long text would cost more than the cap keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolHead<'a> {
    /// Tool call id.
    pub id: &'a str,
    /// Tool name.
    pub name: &'a str,
    /// Whether the call succeeded.
    pub ok: bool,
    /// The text's first [`bounds::TOOL_RESULT_CAP`]` + 1` characters (all of it when shorter).
    pub head: &'a str,
    /// The whole text's length in UTF-16 code units.
    pub units: usize,
}

/// The turn-id state machine of the reference emitter, producing one line per frame.
///
/// Every method returns `Ok(Some(line))` (without `\n`) when it emits, `Ok(None)` when the
/// spec says the call emits nothing. A call that fails (`unencodable`: an integer above
/// [`MAX_INT`], a non-finite cost) emits nothing and leaves the emitter as it was, so the
/// same call can be made again with valid values.
#[derive(Debug, Clone)]
pub struct Emitter {
    fah: String,
    next_id: u64,
    open_id: Option<u64>,
    agent_started: bool,
    header_written: bool,
    args_mode: ArgsMode,
}

impl Emitter {
    /// A fresh emitter for a harness of version `fah` (written in `hep_header.fah`),
    /// rendering tool arguments in `args_mode`.
    pub fn new(fah: impl Into<String>, args_mode: ArgsMode) -> Self {
        Self { fah: fah.into(), next_id: 1, open_id: None, agent_started: false, header_written: false, args_mode }
    }

    /// The harness version written in `hep_header.fah`.
    pub fn fah(&self) -> &str {
        &self.fah
    }

    /// The current turn id: the open turn's, else the last allocated one (0 before any).
    pub fn current_turn_id(&self) -> u64 {
        self.open_id.unwrap_or(self.next_id.saturating_sub(1))
    }

    /// How tool arguments are rendered.
    pub fn args_mode(&self) -> ArgsMode {
        self.args_mode
    }

    fn open(&mut self) -> u64 {
        match self.open_id {
            Some(id) => id,
            None => {
                let id = self.next_id;
                self.next_id = self.next_id.saturating_add(1);
                self.open_id = Some(id);
                id
            }
        }
    }

    fn emit(frame: Frame) -> Result<Option<String>> {
        encode(&frame).map(Some)
    }

    /// Emits the frame `frame(turn_id)` for the open turn's id (or the next one); the turn
    /// is opened only once the frame is encoded, so a failure changes nothing.
    fn emit_in_turn(&mut self, frame: impl FnOnce(u64) -> Frame) -> Result<Option<String>> {
        let line = Self::emit(frame(self.open_id.unwrap_or(self.next_id)))?;
        self.open();
        Ok(line)
    }

    /// `hep_header` with the emitter's harness version and `session`, written once; later
    /// calls emit nothing.
    pub fn header(&mut self, session: &str) -> Result<Option<String>> {
        if self.header_written {
            return Ok(None);
        }
        self.header_written = true;
        let hep = crate::PROTOCOL_VERSION.to_owned();
        Self::emit(Frame::HepHeader(HepHeader { hep, fah: self.fah.clone(), session: session.to_owned() }))
    }

    /// `agent_start`: only the first call emits; it opens a turn.
    pub fn agent_start(&mut self) -> Result<Option<String>> {
        if self.agent_started {
            return Ok(None);
        }
        let line = self.emit_in_turn(|turn_id| Frame::AgentStart(AgentStart { turn_id }))?;
        self.agent_started = true;
        Ok(line)
    }

    /// Opens a turn if none is open; emits nothing.
    pub fn turn_start(&mut self) {
        self.open();
    }

    /// `message_start`, emitted only for `role == "assistant"`; another role emits nothing
    /// and opens no turn (the reference allocates an id only when it writes a frame).
    pub fn message_start(&mut self, role: &str) -> Result<Option<String>> {
        if role != "assistant" {
            return Ok(None);
        }
        self.emit_in_turn(|turn_id| Frame::MessageStart(MessageStart { turn_id, role: role.to_owned() }))
    }

    /// `message_delta` with a chunk of assistant text.
    pub fn message_delta(&mut self, delta: &str) -> Result<Option<String>> {
        self.emit_in_turn(|turn_id| Frame::MessageDelta(MessageDelta { turn_id, delta: delta.to_owned() }))
    }

    /// `tool_start`, rendering `args` in the emitter's [`ArgsMode`].
    pub fn tool_start(&mut self, id: &str, name: &str, args: &Args) -> Result<Option<String>> {
        let args_summary = bounds::render_args(args, self.args_mode);
        self.emit_in_turn(|turn_id| {
            Frame::ToolStart(ToolStart { turn_id, id: id.to_owned(), name: name.to_owned(), args_summary })
        })
    }

    /// `tool_delta`; an empty `update` emits nothing and opens no turn.
    pub fn tool_delta(&mut self, id: &str, update: &str) -> Result<Option<String>> {
        if update.is_empty() {
            return Ok(None);
        }
        self.emit_in_turn(|turn_id| {
            Frame::ToolDelta(ToolDelta { turn_id, id: id.to_owned(), update: update.to_owned() })
        })
    }

    /// `tool_liveness`; an empty `detail` is omitted.
    pub fn liveness(
        &mut self,
        id: &str,
        name: &str,
        action: LivenessAction,
        elapsed_ms: u64,
        output_bytes: Option<u64>,
        detail: Option<&str>,
    ) -> Result<Option<String>> {
        self.emit_in_turn(|turn_id| {
            Frame::ToolLiveness(ToolLiveness {
                turn_id,
                id: id.to_owned(),
                name: name.to_owned(),
                action: action.as_str().to_owned(),
                elapsed_ms,
                output_bytes,
                detail: detail.filter(|d| !d.is_empty()).map(str::to_owned),
            })
        })
    }

    /// Emits a terminal frame for the open turn (or the next one), then closes it.
    fn terminal(&mut self, frame: impl FnOnce(u64) -> Frame) -> Result<Option<String>> {
        let line = self.emit_in_turn(frame)?;
        self.open_id = None;
        Ok(line)
    }

    /// `turn_done` for the open turn (tool result texts capped), then closes it.
    pub fn turn_done(
        &mut self,
        message: &str,
        tool_results: &[ToolOutcome<'_>],
        usage: Usage,
        stop_reason: &str,
    ) -> Result<Option<String>> {
        let heads: Vec<ToolHead<'_>> = tool_results
            .iter()
            .map(|r| ToolHead { id: r.id, name: r.name, ok: r.ok, head: r.text, units: bounds::utf16_len(r.text) })
            .collect();
        self.turn_done_heads(message, &heads, usage, stop_reason)
    }

    /// [`Emitter::turn_done`] with each tool result given by its text's head and length: the
    /// same line, without the caller copying the whole of a long text.
    pub fn turn_done_heads(
        &mut self,
        message: &str,
        tool_results: &[ToolHead<'_>],
        usage: Usage,
        stop_reason: &str,
    ) -> Result<Option<String>> {
        let tool_results = tool_results
            .iter()
            .map(|r| ToolResult {
                id: r.id.to_owned(),
                name: r.name.to_owned(),
                ok: r.ok,
                text: bounds::cap_head(r.head, r.units, bounds::TOOL_RESULT_CAP),
            })
            .collect();
        let message = message.to_owned();
        let stop_reason = stop_reason.to_owned();
        self.terminal(|turn_id| Frame::TurnDone(TurnDone { turn_id, message, tool_results, usage, stop_reason }))
    }

    /// `turn_error` for the open turn, then closes it.
    pub fn turn_error(&mut self, error: &str, fatal: bool) -> Result<Option<String>> {
        let error = error.to_owned();
        self.terminal(|turn_id| Frame::TurnError(TurnError { turn_id, error, fatal }))
    }

    /// `cancelled` for the open turn, then closes it.
    pub fn cancelled(&mut self) -> Result<Option<String>> {
        self.terminal(|turn_id| Frame::Cancelled(TurnRef { turn_id }))
    }

    /// `compaction_start`: uses the open turn's id, or opens the next one.
    pub fn compaction_start(&mut self) -> Result<Option<String>> {
        self.emit_in_turn(|turn_id| Frame::CompactionStart(TurnRef { turn_id }))
    }

    /// `compaction_end`: reuses the open id (or the last allocated one) and leaves the turn open.
    pub fn compaction_end(&mut self, tokens_freed: u64) -> Result<Option<String>> {
        let turn_id = self.current_turn_id();
        Self::emit(Frame::CompactionEnd(CompactionEnd { turn_id, tokens_freed }))
    }
}

/// An [`Emitter`] writing each line, `\n`-terminated, to a sink and flushing it at once.
#[derive(Debug)]
pub struct Writer<W: Write> {
    emitter: Emitter,
    sink: W,
}

macro_rules! write_through {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        $(#[$doc])*
        ///
        /// Writes and flushes the line, and returns it (without `\n`).
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<Option<String>> {
            let line = self.emitter.$name($($arg),*)?;
            self.put(line)
        }
    )*};
}

impl<W: Write> Writer<W> {
    /// A writer to `sink` for a harness of version `fah`, rendering tool arguments in
    /// `args_mode`.
    pub fn new(sink: W, fah: impl Into<String>, args_mode: ArgsMode) -> Self {
        Self { emitter: Emitter::new(fah, args_mode), sink }
    }

    /// The state machine behind the writer.
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// The sink, given back.
    pub fn into_inner(self) -> W {
        self.sink
    }

    /// Opens a turn if none is open; writes nothing.
    pub fn turn_start(&mut self) {
        self.emitter.turn_start();
    }

    fn put(&mut self, line: Option<String>) -> Result<Option<String>> {
        if let Some(line) = &line {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            self.sink.write_all(&bytes)?;
            self.sink.flush()?;
        }
        Ok(line)
    }

    write_through! {
        /// See [`Emitter::header`].
        header(session: &str);
        /// See [`Emitter::agent_start`].
        agent_start();
        /// See [`Emitter::message_start`].
        message_start(role: &str);
        /// See [`Emitter::message_delta`].
        message_delta(delta: &str);
        /// See [`Emitter::tool_start`].
        tool_start(id: &str, name: &str, args: &Args);
        /// See [`Emitter::tool_delta`].
        tool_delta(id: &str, update: &str);
        /// See [`Emitter::liveness`].
        liveness(id: &str, name: &str, action: LivenessAction, elapsed_ms: u64, output_bytes: Option<u64>, detail: Option<&str>);
        /// See [`Emitter::turn_done`].
        turn_done(message: &str, tool_results: &[ToolOutcome<'_>], usage: Usage, stop_reason: &str);
        /// See [`Emitter::turn_error`].
        turn_error(error: &str, fatal: bool);
        /// See [`Emitter::cancelled`].
        cancelled();
        /// See [`Emitter::compaction_start`].
        compaction_start();
        /// See [`Emitter::compaction_end`].
        compaction_end(tokens_freed: u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn a_failed_call_leaves_the_emitter_as_it_was() {
        // Found by the writer_session fuzz target: a turn_done refused for its usage still
        // closed the turn, so the retry went to the next turn id and the stream showed a
        // turn without a terminal frame.
        let mut e = Emitter::new("1", ArgsMode::Summary);
        e.header("s").unwrap();
        e.agent_start().unwrap();
        let usage = Usage { input: MAX_INT + 1, output: 0, cost: 0.0 };
        let err = e.turn_done("", &[], usage, "stop").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unencodable);
        assert_eq!(e.current_turn_id(), 1);
        let nan = Usage { cost: f64::NAN, ..Usage::default() };
        assert!(e.turn_done("", &[], nan, "stop").is_err());
        let line = e.turn_done("", &[], Usage::default(), "stop").unwrap().unwrap();
        assert!(line.contains(r#""turn_id":1,"#), "{line}");

        // Nor does a refused call open a turn.
        let mut e = Emitter::new("1", ArgsMode::Summary);
        let late = e.liveness("c1", "bash", LivenessAction::Heartbeat, MAX_INT + 1, None, None);
        assert_eq!(late.unwrap_err().kind(), ErrorKind::Unencodable);
        assert_eq!(e.current_turn_id(), 0);
        assert!(e.compaction_end(MAX_INT + 1).is_err());
        assert_eq!(e.compaction_end(5).unwrap().unwrap(), r#"{"type":"compaction_end","turn_id":0,"tokens_freed":5}"#);
    }

    #[test]
    fn turn_done_heads_writes_what_turn_done_writes() {
        let long = "é😀ab".repeat(800);
        for text in ["", "short", long.as_str()] {
            let head: String = text.chars().take(bounds::TOOL_RESULT_CAP + 1).collect();
            let units = bounds::utf16_len(text);
            let mut whole = Emitter::new("1", ArgsMode::Summary);
            let mut heads = Emitter::new("1", ArgsMode::Summary);
            let outcome = [ToolOutcome { id: "c1", name: "bash", ok: true, text }];
            let part = [ToolHead { id: "c1", name: "bash", ok: true, head: &head, units }];
            let expected = whole.turn_done("m", &outcome, Usage::default(), "stop").unwrap();
            assert_eq!(heads.turn_done_heads("m", &part, Usage::default(), "stop").unwrap(), expected);
            assert_eq!(heads.current_turn_id(), whole.current_turn_id());
        }
    }

    /// A sink that keeps what it is given and where each flush happened, or refuses writes.
    #[derive(Default)]
    struct Sink {
        bytes: Vec<u8>,
        flushed_at: Vec<usize>,
        refuse: bool,
    }

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.refuse {
                return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the reader went away"));
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            self.flushed_at.push(self.bytes.len());
            Ok(())
        }
    }

    #[test]
    fn the_writer_writes_each_line_with_its_newline_and_flushes_it() {
        let mut w = Writer::new(Sink::default(), "1.2.3", ArgsMode::Full);
        assert_eq!((w.emitter().fah(), w.emitter().args_mode()), ("1.2.3", ArgsMode::Full));
        let header = w.header("s-1").unwrap().unwrap();
        assert_eq!(header, r#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}"#);
        assert_eq!(w.header("s-2").unwrap(), None, "a second header writes nothing");
        w.turn_start();
        assert_eq!(w.emitter().current_turn_id(), 1, "turn_start opens a turn, writing nothing");
        let delta = w.message_delta("hi").unwrap().unwrap();
        assert_eq!(delta, r#"{"type":"message_delta","turn_id":1,"delta":"hi"}"#);
        let sink = w.into_inner();
        assert_eq!(String::from_utf8(sink.bytes).unwrap(), format!("{header}\n{delta}\n"));
        assert_eq!(sink.flushed_at, [header.len() + 1, header.len() + delta.len() + 2]);
        assert_eq!(Emitter::new("2", ArgsMode::Summary).args_mode(), ArgsMode::Summary);
    }

    #[test]
    fn a_sink_that_refuses_the_line_fails_the_call() {
        let mut w = Writer::new(Sink { refuse: true, ..Sink::default() }, "1", ArgsMode::Summary);
        assert_eq!(w.header("s").unwrap_err().kind(), ErrorKind::Io);
        assert_eq!(w.message_start("user").unwrap(), None, "a call that writes nothing does not touch the sink");
    }
}
