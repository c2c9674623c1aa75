//! Random but well-formed writer call scripts, played through [`Writer`], with the run a
//! consumer must reduce from them.

use crate::strategies::*;
use hep_core::bounds::{self, ArgsMode};
use hep_core::run::ToolStatus;
use hep_core::writer::{ToolOutcome, Writer};
use hep_core::{LivenessAction, Terminal, Usage, Verdict};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value};

/// One writer call inside a round.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// `turn_start` (emits nothing).
    TurnStart,
    /// A second `header` (emits nothing).
    HeaderAgain,
    /// A second `agent_start` (emits nothing).
    AgentStartAgain,
    /// `message_start` with `"assistant"` (`None`) or another role (emits nothing).
    MessageStart(Option<String>),
    MessageDelta(String),
    ToolStart {
        id: String,
        name: String,
        args: Map<String, Value>,
    },
    /// `tool_delta` for a call started earlier in the round (an empty update emits nothing).
    ToolDelta {
        call: Index,
        update: String,
    },
    /// `liveness` for a call started earlier in the round.
    Liveness {
        call: Index,
        name: String,
        action: LivenessAction,
        elapsed_ms: u64,
        output_bytes: Option<u64>,
        detail: Option<String>,
    },
    /// A compaction in the middle of a round (its `tokens_freed`).
    Compaction(u64),
}

/// The `turn_done` that ends a round.
#[derive(Debug, Clone)]
pub(crate) struct Done {
    message: String,
    /// Results, each for a call started in the round.
    results: Vec<(Index, bool, String)>,
    usage: Usage,
    stop_reason: String,
}

/// How a round ends. Only the last round may end the run (fatal error, cancelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Done,
    Error { fatal: bool },
    Cancelled,
}

impl End {
    /// Whether the run must stop after this terminal frame.
    fn ends_run(self) -> bool {
        matches!(self, End::Error { fatal: true } | End::Cancelled)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Round {
    /// Pre-flight compaction (its `tokens_freed`).
    pre: Option<u64>,
    steps: Vec<Step>,
    done: Done,
    /// How the round ends when it is not the last one (never ends the run).
    mid_end: End,
    /// Post-turn compaction, unless the round ended the run.
    post: Option<u64>,
}

#[derive(Debug, Clone)]
pub(crate) struct Script {
    mode: ArgsMode,
    fah: String,
    session: String,
    rounds: Vec<Round>,
    /// How the last round ends.
    end: End,
    error: String,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::TurnStart),
        1 => Just(Step::HeaderAgain),
        1 => Just(Step::AgentStartAgain),
        2 => prop::option::of(text()).prop_map(Step::MessageStart),
        6 => text().prop_map(Step::MessageDelta),
        4 => (text(), text(), args()).prop_map(|(id, name, args)| Step::ToolStart { id, name, args }),
        4 => (any::<Index>(), prop_oneof![Just(String::new()), text()])
            .prop_map(|(call, update)| Step::ToolDelta { call, update }),
        3 => (any::<Index>(), text(), liveness_action(), int53(), prop::option::of(int53()), prop::option::of(text()))
            .prop_map(|(call, name, action, elapsed_ms, output_bytes, detail)| {
                Step::Liveness { call, name, action, elapsed_ms, output_bytes, detail }
            }),
        1 => int53().prop_map(Step::Compaction),
    ]
}

fn done() -> impl Strategy<Value = Done> {
    let usage = (int53(), int53(), finite_f64()).prop_map(|(input, output, cost)| Usage { input, output, cost });
    let stop = prop_oneof![prop::sample::select(&["stop", "toolUse", "length"][..]).prop_map(str::to_owned), text()];
    (text(), vec((any::<Index>(), any::<bool>(), long_text()), 0..3), usage, stop)
        .prop_map(|(message, results, usage, stop_reason)| Done { message, results, usage, stop_reason })
}

fn round() -> impl Strategy<Value = Round> {
    let mid_end = prop_oneof![4 => Just(End::Done), 1 => Just(End::Error { fatal: false })];
    (prop::option::of(int53()), vec(step(), 0..10), done(), mid_end, prop::option::of(int53()))
        .prop_map(|(pre, steps, done, mid_end, post)| Round { pre, steps, done, mid_end, post })
}

/// A whole run: header, `agent_start`, 1 to 4 rounds, the last ending with any terminal.
pub(crate) fn script() -> impl Strategy<Value = Script> {
    let mode = prop_oneof![Just(ArgsMode::Summary), Just(ArgsMode::Full)];
    let end = prop_oneof![
        4 => Just(End::Done),
        2 => Just(End::Error { fatal: true }),
        1 => Just(End::Error { fatal: false }),
        2 => Just(End::Cancelled),
    ];
    (mode, text(), text(), vec(round(), 1..5), end, text())
        .prop_map(|(mode, fah, session, rounds, end, error)| Script { mode, fah, session, rounds, end, error })
}

/// A tool call as the reducer must mirror it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolExpect {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) args_summary: String,
    pub(crate) status: ToolStatus,
    pub(crate) output: String,
    pub(crate) result: Option<String>,
    pub(crate) followups: Vec<String>,
    pub(crate) last_action: Option<String>,
}

/// A round as the reducer must mirror it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnExpect {
    pub(crate) turn_id: u64,
    pub(crate) text: String,
    pub(crate) end: Option<Terminal>,
    pub(crate) message: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) usage: Option<Usage>,
    pub(crate) compactions: Vec<u64>,
    pub(crate) tools: Vec<ToolExpect>,
}

impl TurnExpect {
    fn new(turn_id: u64) -> Self {
        Self {
            turn_id,
            text: String::new(),
            end: None,
            message: None,
            error: None,
            usage: None,
            compactions: Vec::new(),
            tools: Vec::new(),
        }
    }

    fn tool(&mut self, id: &str) -> Option<&mut ToolExpect> {
        self.tools.iter_mut().find(|t| t.id == id)
    }
}

/// What playing a script produced and what a consumer must conclude from it.
#[derive(Debug, Clone)]
pub(crate) struct Played {
    /// The lines the writer returned, in order.
    pub(crate) lines: Vec<String>,
    /// The bytes the writer wrote to its sink.
    pub(crate) bytes: Vec<u8>,
    pub(crate) turns: Vec<TurnExpect>,
    pub(crate) answer: Option<String>,
    pub(crate) usage: Usage,
    pub(crate) exit_code: i32,
    pub(crate) verdict: Verdict,
    pub(crate) current_turn_id: u64,
}

/// Records one writer call's outcome, checking whether it emitted as the spec says.
fn put(lines: &mut Vec<String>, got: hep_core::Result<Option<String>>, emits: bool) -> Result<(), TestCaseError> {
    match got? {
        Some(line) if emits => lines.push(line),
        None if !emits => {}
        other => return Err(TestCaseError::fail(format!("writer call gave {other:?}; expected it to emit: {emits}"))),
    }
    Ok(())
}

/// The element of `ids` picked by `index`, if there is any element.
fn pick<'a>(ids: &'a [String], index: &Index) -> Option<&'a str> {
    if ids.is_empty() { None } else { ids.get(index.index(ids.len())).map(String::as_str) }
}

/// Plays `script` through a fresh [`Writer`], returning the output and the expected run.
pub(crate) fn play(script: &Script) -> Result<Played, TestCaseError> {
    let mut w = Writer::new(Vec::new(), script.fah.clone(), script.mode);
    let mut lines = Vec::new();
    let mut turns: Vec<TurnExpect> = Vec::new();
    let mut usage = Usage::default();
    let mut carry: Vec<u64> = Vec::new();
    let last = script.rounds.len().saturating_sub(1);
    for (i, round) in script.rounds.iter().enumerate() {
        let turn_id = i as u64 + 1;
        let mut turn = TurnExpect::new(turn_id);
        turn.compactions = std::mem::take(&mut carry);
        if i == 0 {
            put(&mut lines, w.header(&script.session), true)?;
        }
        if let Some(tokens) = round.pre {
            put(&mut lines, w.compaction_start(), true)?;
            put(&mut lines, w.compaction_end(tokens), true)?;
            turn.compactions.push(tokens);
        }
        if i == 0 {
            put(&mut lines, w.agent_start(), true)?;
        }
        let mut started: Vec<String> = Vec::new();
        for step in &round.steps {
            match step {
                Step::TurnStart => w.turn_start(),
                Step::HeaderAgain => put(&mut lines, w.header(&script.session), false)?,
                Step::AgentStartAgain => put(&mut lines, w.agent_start(), false)?,
                Step::MessageStart(role) => {
                    let role = role.as_deref().unwrap_or("assistant");
                    put(&mut lines, w.message_start(role), role == "assistant")?;
                }
                Step::MessageDelta(delta) => {
                    put(&mut lines, w.message_delta(delta), true)?;
                    turn.text.push_str(delta);
                }
                Step::ToolStart { id, name, args } => {
                    // A second tool_start for an id the round started is a duplicate_tool_call:
                    // a well-formed script never writes one.
                    if started.contains(id) {
                        continue;
                    }
                    let args = args.clone().into();
                    put(&mut lines, w.tool_start(id, name, &args), true)?;
                    turn.tools.push(ToolExpect {
                        id: id.clone(),
                        name: name.clone(),
                        args_summary: bounds::render_args(&args, script.mode),
                        status: ToolStatus::Running,
                        output: String::new(),
                        result: None,
                        followups: Vec::new(),
                        last_action: None,
                    });
                    started.push(id.clone());
                }
                Step::ToolDelta { call, update } => {
                    let Some(id) = pick(&started, call) else { continue };
                    put(&mut lines, w.tool_delta(id, update), !update.is_empty())?;
                    if let Some(tool) = turn.tool(id) {
                        tool.output.push_str(update);
                    }
                }
                Step::Liveness { call, name, action, elapsed_ms, output_bytes, detail } => {
                    let Some(id) = pick(&started, call) else { continue };
                    put(
                        &mut lines,
                        w.liveness(id, name, *action, *elapsed_ms, *output_bytes, detail.as_deref()),
                        true,
                    )?;
                    if let Some(tool) = turn.tool(id) {
                        if *action != LivenessAction::Heartbeat {
                            tool.followups.push(action.as_str().to_owned());
                        }
                        tool.last_action = Some(action.as_str().to_owned());
                    }
                }
                Step::Compaction(tokens) => {
                    put(&mut lines, w.compaction_start(), true)?;
                    put(&mut lines, w.compaction_end(*tokens), true)?;
                    turn.compactions.push(*tokens);
                }
            }
        }
        let end = if i == last { script.end } else { round.mid_end };
        match end {
            End::Done => {
                let d = &round.done;
                let mut outcomes = Vec::new();
                for (call, ok, text) in &d.results {
                    let Some(id) = pick(&started, call) else { continue };
                    let name = turn.tool(id).map(|t| t.name.clone()).unwrap_or_default();
                    outcomes.push((id.to_owned(), name, *ok, text.as_str()));
                }
                let outcomes_ref: Vec<ToolOutcome<'_>> =
                    outcomes.iter().map(|(id, name, ok, text)| ToolOutcome { id, name, ok: *ok, text }).collect();
                put(&mut lines, w.turn_done(&d.message, &outcomes_ref, d.usage, &d.stop_reason), true)?;
                for o in &outcomes_ref {
                    if let Some(tool) = turn.tool(o.id) {
                        tool.status = if o.ok { ToolStatus::Ok } else { ToolStatus::Failed };
                        tool.result = Some(bounds::cap(o.text, bounds::TOOL_RESULT_CAP));
                    }
                }
                turn.end = Some(Terminal::Done);
                turn.message = Some(d.message.clone());
                turn.usage = Some(d.usage);
                usage.input += d.usage.input;
                usage.output += d.usage.output;
                usage.cost += d.usage.cost;
            }
            End::Error { fatal } => {
                put(&mut lines, w.turn_error(&script.error, fatal), true)?;
                turn.end = Some(Terminal::Error);
                turn.error = Some(script.error.clone());
            }
            End::Cancelled => {
                put(&mut lines, w.cancelled(), true)?;
                turn.end = Some(Terminal::Cancelled);
            }
        }
        turns.push(turn);
        if let (Some(tokens), false) = (round.post, end.ends_run()) {
            put(&mut lines, w.compaction_start(), true)?;
            put(&mut lines, w.compaction_end(tokens), true)?;
            if i == last {
                let mut tail = TurnExpect::new(turn_id + 1);
                tail.compactions.push(tokens);
                turns.push(tail);
            } else {
                // The compaction opened the next round's id; that round reuses it.
                carry.push(tokens);
            }
        }
    }
    let (answer, exit_code, verdict) = match script.end {
        End::Done => (turns.iter().rev().find_map(|t| t.message.clone()), 0, Verdict::Ok),
        End::Error { .. } => (None, 1, Verdict::Failed),
        End::Cancelled => (None, 130, Verdict::Cancelled),
    };
    let current_turn_id = w.emitter().current_turn_id();
    let bytes = w.into_inner();
    Ok(Played { lines, bytes, turns, answer, usage, exit_code, verdict, current_turn_id })
}
