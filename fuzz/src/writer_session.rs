//! `writer_session`: arbitrary sequences of [`Writer`] calls with arbitrary arguments.
//!
//! A model of the emitter's turn-id rules (written from the spec, apart from the crate's
//! code) says, for each call, whether it must fail (an integer above [`MAX_INT`], a
//! non-finite cost), whether it emits, and the exact frame. Checked:
//!
//! - nothing panics; a call fails exactly when the model says, and a failed call emits
//!   nothing and leaves the emitter as it was (the next calls still get the model's ids);
//! - every emitted line decodes to the frame the model expects, re-encodes byte-exact, and
//!   is one clean line (no byte below 0x20); the sink holds exactly the lines, each
//!   `\n`-terminated;
//! - the whole session feeds through [`Stream`] with no skipped line, one frame per line,
//!   and only violations that the caller's order of calls caused (a header not first,
//!   frames after the end, an unknown call id, an unpaired compaction, ...); when the model
//!   saw no such misuse, there is no violation at all and the verdict follows the last
//!   terminal frame.

// A broken invariant panics: that is what the fuzzer (and the regression test) detects.
#![allow(clippy::panic)]

use arbitrary::{Arbitrary, Unstructured};
use hep_core::bounds::{self, ArgsMode};
use hep_core::writer::{ToolOutcome, Writer};
use hep_core::*;
use serde_json::{Number, Value};

/// An integer argument, mostly in range, sometimes at or past [`MAX_INT`].
#[derive(Debug, Clone, Copy)]
enum Int {
    Small(u16),
    Max,
    AboveMax,
    Any(u64),
}

impl<'a> Arbitrary<'a> for Int {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(match u.int_in_range(0u8..=7)? {
            0 => Self::Max,
            1 => Self::AboveMax,
            2 => Self::Any(u.arbitrary()?),
            _ => Self::Small(u.arbitrary()?),
        })
    }
}

impl Int {
    fn get(self) -> u64 {
        match self {
            Self::Small(v) => u64::from(v),
            Self::Max => MAX_INT,
            Self::AboveMax => MAX_INT + 1,
            Self::Any(v) => v,
        }
    }
}

/// A cost: mostly a plain price, sometimes any `f64` (NaN, infinities, -0.0, subnormals).
#[derive(Debug, Clone, Copy)]
enum Cost {
    Cents(u16),
    Any(f64),
}

impl<'a> Arbitrary<'a> for Cost {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(if u.ratio(1u8, 4)? { Self::Any(u.arbitrary()?) } else { Self::Cents(u.arbitrary()?) })
    }
}

impl Cost {
    fn get(self) -> f64 {
        match self {
            Self::Cents(c) => f64::from(c) / 100.0,
            Self::Any(v) => v,
        }
    }
}

/// A tool call id: one of a few (so that deltas find their call) or any text.
#[derive(Debug, Clone, Arbitrary)]
enum Id {
    Few(u8),
    Text(String),
}

impl Id {
    fn get(&self) -> String {
        match self {
            Self::Few(n) => format!("c{}", n % 4),
            Self::Text(s) => s.clone(),
        }
    }
}

/// A leaf value for tool arguments (a float may be one JSON cannot write).
#[derive(Debug, Clone, Arbitrary)]
enum Leaf {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl Leaf {
    /// The JSON value, or `None` for a non-finite float.
    fn value(&self) -> Option<Value> {
        Some(match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Int(i) => Value::Number(Number::from(*i)),
            Self::Float(f) => Value::Number(Number::from_f64(*f)?),
            Self::Str(s) => Value::String(s.clone()),
        })
    }
}

/// A value for tool arguments, nested one level at most.
#[derive(Debug, Clone, Arbitrary)]
enum Json {
    Leaf(Leaf),
    Array(Vec<Leaf>),
    Object(Vec<(String, Leaf)>),
}

impl Json {
    /// The JSON value, or `None` when it holds a non-finite float.
    fn value(&self) -> Option<Value> {
        Some(match self {
            Self::Leaf(l) => l.value()?,
            Self::Array(items) => Value::Array(items.iter().map(Leaf::value).collect::<Option<_>>()?),
            Self::Object(members) => {
                Value::Object(members.iter().map(|(k, v)| Some((k.clone(), v.value()?))).collect::<Option<_>>()?)
            }
        })
    }
}

/// One writer call.
#[derive(Debug, Clone, Arbitrary)]
enum Call {
    Header {
        session: String,
    },
    AgentStart,
    TurnStart,
    MessageStart {
        assistant: bool,
        role: String,
    },
    MessageDelta(String),
    ToolStart {
        id: Id,
        name: String,
        args: Vec<(String, Json)>,
    },
    ToolDelta {
        id: Id,
        update: String,
    },
    Liveness {
        id: Id,
        name: String,
        action: u8,
        elapsed_ms: Int,
        output_bytes: Option<Int>,
        detail: Option<String>,
    },
    TurnDone {
        message: String,
        results: Vec<(Id, String, bool, String)>,
        input: Int,
        output: Int,
        cost: Cost,
        stop: String,
    },
    TurnError {
        error: String,
        fatal: bool,
    },
    Cancelled,
    CompactionStart,
    CompactionEnd(Int),
}

/// A session: how arguments are rendered, then the calls.
///
/// A `tidy` session is steered into the shape a careful harness gives: header and
/// `agent_start` first, deltas and liveness only for calls started in the open turn,
/// compactions closed at once, nothing after the run ends, and a last `turn_done` if
/// needed. Random call lists are almost never well-formed, so this is what lets the
/// strongest check (no violation at all) run on long sessions.
#[derive(Debug, Clone, Arbitrary)]
struct Session {
    full_args: bool,
    tidy: bool,
    fah: String,
    session: String,
    calls: Vec<Call>,
}

/// The codes a caller can cause by the order of its calls; any other code is the writer's fault.
const MISUSE: [ViolationCode; 17] = [
    ViolationCode::EmptyStream,
    ViolationCode::MissingHeader,
    ViolationCode::DuplicateHeader,
    ViolationCode::FrameBeforeAgentStart,
    ViolationCode::FrameAfterEnd,
    ViolationCode::DuplicateToolCall,
    ViolationCode::UnmatchedCompactionEnd,
    ViolationCode::CompactionIdMismatch,
    ViolationCode::UnterminatedTurn,
    ViolationCode::CancelledInOpenRound,
    ViolationCode::NoTerminalFrame,
    ViolationCode::UnknownToolCall,
    ViolationCode::UnknownToolResult,
    ViolationCode::RoundAfterFatalError,
    ViolationCode::UnpairedCompactionStart,
    ViolationCode::CompactionAfterCancel,
    ViolationCode::EndedBeforeAgentStart,
];

/// The model: the turn-id rules of the spec, and what the caller did wrong so far.
#[derive(Debug, Default)]
struct Model {
    /// The harness version the writer was made with.
    fah: String,
    next: u64,
    open: Option<u64>,
    /// Whether the open turn has a frame other than a compaction's.
    open_content: bool,
    header: bool,
    agent_started: bool,
    lines: u64,
    /// How the run ended (a fatal `turn_error` or `cancelled`), until a round continues it.
    ended: Option<Terminal>,
    compaction: Option<u64>,
    /// Call ids started in the open turn, in start order.
    started_calls: Vec<String>,
    last_terminal: Option<Terminal>,
    misuse: Vec<&'static str>,
}

impl Model {
    fn new(fah: String) -> Self {
        Self { fah, next: 1, ..Self::default() }
    }

    /// Opens a turn if none is open.
    fn open(&mut self) -> u64 {
        if let Some(id) = self.open {
            return id;
        }
        let id = self.next;
        self.next += 1;
        self.open = Some(id);
        self.open_content = false;
        self.started_calls.clear();
        id
    }

    /// Bookkeeping for one emitted frame.
    fn emitted(&mut self, frame: &Frame) {
        self.lines += 1;
        let compaction = matches!(frame, Frame::CompactionStart(_) | Frame::CompactionEnd(_));
        let content = !compaction && !matches!(frame, Frame::HepHeader(_));
        match frame {
            Frame::HepHeader(_) if self.lines > 1 => self.misuse.push("header after other frames"),
            Frame::HepHeader(_) => {}
            _ if self.lines == 1 => self.misuse.push("first frame is not the header"),
            _ => {}
        }
        match self.ended {
            Some(Terminal::Error) if content => {
                self.misuse.push("a round after a fatal turn_error");
                self.ended = None;
            }
            Some(Terminal::Error) | None => {}
            Some(_) if !matches!(frame, Frame::HepHeader(_)) => self.misuse.push("a frame after cancelled"),
            Some(_) => {}
        }
        if content && !self.agent_started {
            self.misuse.push("a round frame before agent_start");
        }
        if !compaction && !matches!(frame, Frame::HepHeader(_)) && self.compaction.take().is_some() {
            self.misuse.push("a compaction_start closed by another frame");
        }
        if content {
            self.open_content = true;
        }
        if let Some(terminal) = frame.terminal() {
            self.last_terminal = Some(terminal);
            if matches!(frame, Frame::TurnError(TurnError { fatal: true, .. }) | Frame::Cancelled(_)) {
                self.ended = self.ended.or(Some(terminal));
            }
            self.open = None;
        }
    }

    fn check_call(&mut self, id: &str) {
        if !self.started_calls.iter().any(|s| s == id) {
            self.misuse.push("a delta or liveness for a call not started in the turn");
        }
    }

    /// What the end of the session adds to the misuse list; the exit code the run means.
    fn finish(&mut self) -> Option<i32> {
        if self.lines == 0 {
            self.misuse.push("no line at all");
        }
        if self.compaction.is_some() {
            self.misuse.push("a compaction left open");
        }
        if self.open.is_some() && self.open_content {
            self.misuse.push("a turn left open");
        }
        match self.last_terminal {
            None => {
                self.misuse.push("no terminal frame");
                None
            }
            Some(Terminal::Done) => Some(0),
            Some(Terminal::Error) => Some(1),
            Some(Terminal::Cancelled) => Some(130),
        }
    }
}

/// What the model expects of one call: an error, nothing, or a frame.
enum Expect {
    Fails,
    Nothing,
    Emits(Frame),
}

fn fits(value: u64) -> bool {
    value <= MAX_INT
}

/// Makes `call` on the writer and checks it against the model.
fn step(w: &mut Writer<Vec<u8>>, m: &mut Model, mode: ArgsMode, call: &Call, lines: &mut Vec<String>) {
    let (got, expect) = match call {
        Call::Header { session } => {
            let expect = if m.header {
                Expect::Nothing
            } else {
                m.header = true;
                let hep = PROTOCOL_VERSION.to_owned();
                Expect::Emits(Frame::HepHeader(HepHeader { hep, fah: m.fah.clone(), session: session.clone() }))
            };
            (w.header(session), expect)
        }
        Call::AgentStart => {
            let expect = if m.agent_started {
                Expect::Nothing
            } else {
                m.agent_started = true;
                Expect::Emits(Frame::AgentStart(AgentStart { turn_id: m.open() }))
            };
            (w.agent_start(), expect)
        }
        Call::TurnStart => {
            w.turn_start();
            m.open();
            return;
        }
        Call::MessageStart { assistant, role } => {
            let role = if *assistant { "assistant" } else { role.as_str() };
            // A message of another role emits nothing and opens no turn.
            let expect = if role == "assistant" {
                Expect::Emits(Frame::MessageStart(MessageStart { turn_id: m.open(), role: role.to_owned() }))
            } else {
                Expect::Nothing
            };
            (w.message_start(role), expect)
        }
        Call::MessageDelta(delta) => {
            let frame = Frame::MessageDelta(MessageDelta { turn_id: m.open(), delta: delta.clone() });
            (w.message_delta(delta), Expect::Emits(frame))
        }
        Call::ToolStart { id, name, args } => {
            let id = id.get();
            let mut values = Args::new();
            for (k, v) in args {
                match v.value() {
                    Some(value) => values.insert(k.clone(), value),
                    None => values.insert_unserializable(k.clone()),
                }
            }
            let args = values;
            let turn_id = m.open();
            if m.started_calls.contains(&id) {
                m.misuse.push("a call started twice in one turn");
            } else {
                m.started_calls.push(id.clone());
            }
            let args_summary = bounds::render_args(&args, mode);
            let frame = Frame::ToolStart(ToolStart { turn_id, id: id.clone(), name: name.clone(), args_summary });
            (w.tool_start(&id, name, &args), Expect::Emits(frame))
        }
        Call::ToolDelta { id, update } => {
            let id = id.get();
            // An empty update emits nothing and opens no turn.
            let expect = if update.is_empty() {
                Expect::Nothing
            } else {
                let turn_id = m.open();
                m.check_call(&id);
                Expect::Emits(Frame::ToolDelta(ToolDelta { turn_id, id: id.clone(), update: update.clone() }))
            };
            (w.tool_delta(&id, update), expect)
        }
        Call::Liveness { id, name, action, elapsed_ms, output_bytes, detail } => {
            let id = id.get();
            let action =
                LivenessAction::ALL.get(usize::from(*action) % 5).copied().unwrap_or(LivenessAction::Heartbeat);
            let (elapsed_ms, output_bytes) = (elapsed_ms.get(), output_bytes.map(Int::get));
            let got = w.liveness(&id, name, action, elapsed_ms, output_bytes, detail.as_deref());
            let expect = if !fits(elapsed_ms) || !output_bytes.is_none_or(fits) {
                Expect::Fails
            } else {
                let turn_id = m.open();
                m.check_call(&id);
                Expect::Emits(Frame::ToolLiveness(ToolLiveness {
                    turn_id,
                    id,
                    name: name.clone(),
                    action: action.as_str().to_owned(),
                    elapsed_ms,
                    output_bytes,
                    detail: detail.clone().filter(|d| !d.is_empty()),
                }))
            };
            (got, expect)
        }
        Call::TurnDone { message, results, input, output, cost, stop } => {
            let usage = Usage { input: input.get(), output: output.get(), cost: cost.get() };
            let ids: Vec<String> = results.iter().map(|(id, ..)| id.get()).collect();
            let outcomes: Vec<ToolOutcome<'_>> = results
                .iter()
                .zip(&ids)
                .map(|((_, name, ok, text), id)| ToolOutcome { id, name, ok: *ok, text })
                .collect();
            let got = w.turn_done(message, &outcomes, usage, stop);
            let expect = if !fits(usage.input) || !fits(usage.output) || !usage.cost.is_finite() {
                Expect::Fails
            } else {
                let tool_results = outcomes
                    .iter()
                    .map(|o| ToolResult {
                        id: o.id.to_owned(),
                        name: o.name.to_owned(),
                        ok: o.ok,
                        text: bounds::cap(o.text, bounds::TOOL_RESULT_CAP),
                    })
                    .collect();
                let (message, stop_reason) = (message.clone(), stop.clone());
                let turn_id = m.open();
                if ids.iter().any(|id| !m.started_calls.contains(id)) {
                    m.misuse.push("a tool result for a call not started in the turn");
                }
                Expect::Emits(Frame::TurnDone(TurnDone { turn_id, message, tool_results, usage, stop_reason }))
            };
            (got, expect)
        }
        Call::TurnError { error, fatal } => {
            let frame = Frame::TurnError(TurnError { turn_id: m.open(), error: error.clone(), fatal: *fatal });
            (w.turn_error(error, *fatal), Expect::Emits(frame))
        }
        Call::Cancelled => (w.cancelled(), Expect::Emits(Frame::Cancelled(TurnRef { turn_id: m.open() }))),
        Call::CompactionStart => {
            let turn_id = m.open();
            if m.compaction.replace(turn_id).is_some() {
                m.misuse.push("a compaction inside a compaction");
            }
            (w.compaction_start(), Expect::Emits(Frame::CompactionStart(TurnRef { turn_id })))
        }
        Call::CompactionEnd(tokens) => {
            let tokens_freed = tokens.get();
            let got = w.compaction_end(tokens_freed);
            let expect = if fits(tokens_freed) {
                let turn_id = m.open.unwrap_or(m.next - 1);
                if m.compaction.take() != Some(turn_id) {
                    m.misuse.push("a compaction_end without its compaction_start in the same turn");
                }
                Expect::Emits(Frame::CompactionEnd(CompactionEnd { turn_id, tokens_freed }))
            } else {
                Expect::Fails
            };
            (got, expect)
        }
    };
    match (got, expect) {
        (Err(err), Expect::Fails) => assert_eq!(err.kind(), ErrorKind::Unencodable, "{call:?}"),
        (Ok(None), Expect::Nothing) => {}
        (Ok(Some(line)), Expect::Emits(frame)) => {
            assert!(line.bytes().all(|b| b >= 0x20), "control byte in {line:?}");
            match decode(line.as_bytes()) {
                Ok(decoded) => assert_eq!(decoded, frame, "the line is not the frame meant: {line}"),
                Err(err) => panic!("the writer wrote a line that does not decode: {err}: {line}"),
            }
            assert_eq!(encode(&frame).ok().as_ref(), Some(&line), "the line is not the frame's exact encoding");
            m.emitted(&frame);
            lines.push(line);
        }
        (got, Expect::Fails) => panic!("{call:?} should fail (out of range), gave {got:?}"),
        (got, Expect::Nothing) => panic!("{call:?} should emit nothing, gave {got:?}"),
        (got, Expect::Emits(frame)) => panic!("{call:?} should emit {frame:?}, gave {got:?}"),
    }
}

/// In a tidy session, the calls to make for `call` (see [`Session`]); `None` stops the session.
fn tidy(m: &Model, call: &Call) -> Option<Vec<Call>> {
    if m.ended.is_some() {
        return None;
    }
    let mut calls = Vec::new();
    if m.compaction.is_some() && !matches!(call, Call::CompactionEnd(_)) {
        calls.push(Call::CompactionEnd(Int::Small(0)));
    }
    let pick = |id: &Id| {
        let n = match id {
            Id::Few(n) => usize::from(*n),
            Id::Text(s) => s.len(),
        };
        let started = if m.open.is_some() { m.started_calls.as_slice() } else { &[] };
        started.get(n % started.len().max(1)).map(|s| Id::Text(s.clone()))
    };
    let call = match call {
        Call::ToolDelta { id, update } => pick(id).map(|id| Call::ToolDelta { id, update: update.clone() }),
        Call::Liveness { id, name, action, elapsed_ms, output_bytes, detail } => pick(id).map(|id| Call::Liveness {
            id,
            name: name.clone(),
            action: *action,
            elapsed_ms: *elapsed_ms,
            output_bytes: *output_bytes,
            detail: detail.clone(),
        }),
        Call::CompactionEnd(_) if m.compaction != Some(m.open.unwrap_or(m.next - 1)) => None,
        Call::ToolStart { id, .. } if m.open.is_some() && m.started_calls.contains(&id.get()) => None,
        Call::TurnDone { message, results, input, output, cost, stop } => Some(Call::TurnDone {
            message: message.clone(),
            results: results
                .iter()
                .filter_map(|(id, name, ok, text)| Some((pick(id)?, name.clone(), *ok, text.clone())))
                .collect(),
            input: *input,
            output: *output,
            cost: *cost,
            stop: stop.clone(),
        }),
        other => Some(other.clone()),
    };
    calls.extend(call);
    Some(calls)
}

/// Checks every invariant in the module docs on `data`, panicking on the first that breaks.
pub fn check(data: &[u8]) {
    let Ok(session) = Session::arbitrary_take_rest(Unstructured::new(data)) else { return };
    let mode = if session.full_args { ArgsMode::Full } else { ArgsMode::Summary };
    let mut w = Writer::new(Vec::new(), session.fah.clone(), mode);
    let mut m = Model::new(session.fah.clone());
    let mut lines = Vec::new();
    let mut make = |w: &mut Writer<Vec<u8>>, m: &mut Model, call: &Call| {
        step(w, m, mode, call, &mut lines);
        assert_eq!(w.emitter().current_turn_id(), m.open.unwrap_or(m.next - 1), "current_turn_id after {call:?}");
    };
    if session.tidy {
        make(&mut w, &mut m, &Call::Header { session: session.session.clone() });
        make(&mut w, &mut m, &Call::AgentStart);
    }
    for call in &session.calls {
        if !session.tidy {
            make(&mut w, &mut m, call);
            continue;
        }
        let Some(calls) = tidy(&m, call) else { break };
        for call in &calls {
            make(&mut w, &mut m, call);
        }
    }
    if session.tidy && m.ended.is_none() {
        if m.compaction.is_some() {
            make(&mut w, &mut m, &Call::CompactionEnd(Int::Small(0)));
        }
        if (m.open.is_some() && m.open_content) || m.last_terminal.is_none() {
            let done = Call::TurnDone {
                message: String::new(),
                results: Vec::new(),
                input: Int::Small(1),
                output: Int::Small(1),
                cost: Cost::Cents(1),
                stop: "stop".to_owned(),
            };
            make(&mut w, &mut m, &done);
        }
    }
    let exit_code = m.finish();
    let bytes = w.into_inner();
    let mut joined = lines.join("\n").into_bytes();
    if !lines.is_empty() {
        joined.push(b'\n');
    }
    assert_eq!(bytes, joined, "the sink does not hold exactly the returned lines");

    let mut stream = Stream::default();
    let mut events = stream.feed(&bytes);
    events.extend(stream.end_input());
    let result = stream.finish(exit_code);
    let frames: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Frame(r) => Some(r.raw.as_str()),
            Event::Skipped(err) => panic!("the stream skipped a written line: {err}"),
            _ => None,
        })
        .collect();
    assert_eq!(frames, lines, "the stream's frames are not the written lines");
    let codes: Vec<ViolationCode> = result.violations.iter().map(|v| v.code).collect();
    for v in &result.violations {
        assert!(MISUSE.contains(&v.code), "a violation the writer could have avoided: {v}\n{}", lines.join("\n"));
    }
    if m.misuse.is_empty() {
        assert!(codes.is_empty(), "violations of a well-formed session: {codes:?}\n{}", lines.join("\n"));
        assert!(result.conforms, "a well-formed session does not conform");
        let verdict = match m.last_terminal {
            Some(Terminal::Done) => Verdict::Ok,
            Some(Terminal::Error) => Verdict::Failed,
            _ => Verdict::Cancelled,
        };
        assert_eq!(result.verdict, verdict, "{:?}", result.reasons);
    }
}
