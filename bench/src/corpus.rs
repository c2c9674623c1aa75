//! The seeded corpus: whole runs (one stream each) written with `hep_core::writer::Emitter`,
//! so every line is byte-exact HEP v1 and every stream conforms.

use crate::Failure;
use crate::rng::Rng;
use crate::text::{call_id, chunks, prose, tool_call, tool_output};
use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{ArgsMode, LivenessAction, Usage, parse_args};
use serde_json::json;

/// The shape of one corpus.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Profile {
    /// Name shown in the report.
    pub(crate) name: &'static str,
    /// PRNG seed.
    pub(crate) seed: u64,
    /// Streams (runs) at scale 1.
    pub(crate) streams: usize,
    /// Rounds per run.
    pub(crate) rounds: (usize, usize),
    /// Characters of assistant text per round (streamed as 2–40-char deltas).
    pub(crate) text_chars: (usize, usize),
    /// Probability that a round (not the last) calls tools.
    pub(crate) tool_round: f64,
    /// Tool calls in such a round.
    pub(crate) tools: (usize, usize),
    /// `tool_delta` frames per call.
    pub(crate) tool_deltas: (usize, usize),
    /// Characters per `tool_delta`.
    pub(crate) delta_chars: (usize, usize),
    /// Probability of a `tool_liveness` after each `tool_delta`.
    pub(crate) liveness: f64,
    /// Probability that a result is padded past the 2000-unit cap.
    pub(crate) big_result: f64,
    /// Probability of a pre-flight compaction before a round.
    pub(crate) compaction: f64,
}

/// Mostly streamed assistant text: the case a supervisor mirrors most.
pub(crate) const DELTA_HEAVY: Profile = Profile {
    name: "delta-heavy",
    seed: 0x4845_5031,
    streams: 80,
    rounds: (20, 60),
    text_chars: (200, 2400),
    tool_round: 0.4,
    tools: (1, 2),
    tool_deltas: (0, 4),
    delta_chars: (40, 300),
    liveness: 0.05,
    big_result: 0.15,
    compaction: 0.03,
};

/// Agentic tool loops: many calls, larger partial output, results often over the cap.
pub(crate) const TOOL_HEAVY: Profile = Profile {
    name: "tool-heavy",
    seed: 0x4845_5032,
    streams: 20,
    rounds: (20, 60),
    text_chars: (20, 400),
    tool_round: 0.9,
    tools: (1, 5),
    tool_deltas: (1, 12),
    delta_chars: (80, 1500),
    liveness: 0.15,
    big_result: 0.4,
    compaction: 0.03,
};

/// A generated corpus: one byte buffer per stream.
#[derive(Debug)]
pub(crate) struct Corpus {
    /// Profile name.
    pub(crate) name: &'static str,
    /// Each stream's bytes (`\n`-terminated lines).
    pub(crate) streams: Vec<Vec<u8>>,
    /// Lines (frames) written over all streams.
    pub(crate) frames: u64,
    /// Bytes over all streams.
    pub(crate) bytes: u64,
    /// Per stream, the writer inputs its frames do not hold, as JSON lines (`--dump-corpus`):
    /// the args mode, each `tool_start`'s argument JSON, each `turn_done`'s uncapped results.
    pub(crate) inputs: Vec<Vec<u8>>,
}

/// Lines of one stream being written.
struct Lines {
    buf: Vec<u8>,
    frames: u64,
    inputs: Vec<u8>,
}

impl Lines {
    fn put(&mut self, line: hep_core::Result<Option<String>>) -> hep_core::Result<()> {
        if let Some(line) = line? {
            self.buf.extend_from_slice(line.as_bytes());
            self.buf.push(b'\n');
            self.frames += 1;
        }
        Ok(())
    }

    /// Records a writer input that the frames do not hold.
    fn input(&mut self, value: &serde_json::Value) {
        self.inputs.extend_from_slice(value.to_string().as_bytes());
        self.inputs.push(b'\n');
    }
}

/// Generates the corpus of `profile` with `scale` times its stream count.
pub(crate) fn generate(profile: &Profile, scale: f64) -> Result<Corpus, Failure> {
    let mut rng = Rng::new(profile.seed);
    let count = ((profile.streams as f64 * scale).round() as usize).max(1);
    let mut corpus =
        Corpus { name: profile.name, streams: Vec::with_capacity(count), frames: 0, bytes: 0, inputs: Vec::new() };
    for index in 0..count {
        let mut lines = Lines { buf: Vec::new(), frames: 0, inputs: Vec::new() };
        run(profile, &mut rng, index, &mut lines)?;
        corpus.frames += lines.frames;
        corpus.bytes += lines.buf.len() as u64;
        corpus.streams.push(lines.buf);
        corpus.inputs.push(lines.inputs);
    }
    Ok(corpus)
}

/// One run: header, `agent_start`, rounds; the last round ends with `turn_done`/`stop`.
fn run(p: &Profile, rng: &mut Rng, index: usize, out: &mut Lines) -> Result<(), Failure> {
    // Every fourth run is an `events=full` run (raw JSON arguments).
    let mode = if index % 4 == 3 { ArgsMode::Full } else { ArgsMode::Summary };
    let mut em = Emitter::new("1.2.3", mode);
    out.input(&json!({"tool_args": if mode == ArgsMode::Full { "full" } else { "summary" }}));
    out.put(em.header(&format!("sess-{index:04}-{:08x}", rng.next_u64() as u32)))?;
    let rounds = rng.range(p.rounds.0, p.rounds.1);
    let mut input_tokens = rng.range(2_000, 12_000) as u64;
    for r in 0..rounds {
        if r == 0 {
            out.put(em.agent_start())?;
        } else if rng.chance(p.compaction) {
            out.put(em.compaction_start())?;
            out.put(em.compaction_end(rng.range(4_000, 90_000) as u64))?;
            input_tokens /= 3;
        }
        out.put(em.message_start("assistant"))?;
        let text = prose(rng, p.text_chars);
        for chunk in chunks(rng, &text) {
            out.put(em.message_delta(chunk))?;
        }
        let last = r + 1 == rounds;
        let results = if !last && rng.chance(p.tool_round) { tools(p, rng, &mut em, out)? } else { Vec::new() };
        let outcomes: Vec<ToolOutcome<'_>> =
            results.iter().map(|(id, name, ok, text)| ToolOutcome { id, name, ok: *ok, text }).collect();
        let output = rng.range(20, 1_500) as u64;
        input_tokens += rng.range(200, 6_000) as u64;
        let cost = (input_tokens as f64 * 3.0 + output as f64 * 15.0) / 1e6;
        let usage = Usage { input: input_tokens, output, cost };
        let stop = if results.is_empty() { "stop" } else { "toolUse" };
        out.input(&json!({"turn_done": results.iter().map(|r| &r.3).collect::<Vec<_>>()}));
        out.put(em.turn_done(&text, &outcomes, usage, stop))?;
    }
    Ok(())
}

/// The tool calls of one round: `tool_start`, `tool_delta`s, occasional `tool_liveness`.
/// Returns `(id, name, ok, full result text)` per call.
fn tools(
    p: &Profile,
    rng: &mut Rng,
    em: &mut Emitter,
    out: &mut Lines,
) -> Result<Vec<(String, &'static str, bool, String)>, Failure> {
    let mut results = Vec::new();
    for _ in 0..rng.range(p.tools.0, p.tools.1) {
        let id = call_id(rng);
        let (name, args) = tool_call(rng);
        out.input(&json!({"tool_start": args}));
        out.put(em.tool_start(&id, name, &parse_args(&args)?))?;
        let mut full = String::new();
        let mut elapsed = 0u64;
        for _ in 0..rng.range(p.tool_deltas.0, p.tool_deltas.1) {
            let chunk = tool_output(rng, p.delta_chars);
            out.put(em.tool_delta(&id, &chunk))?;
            full.push_str(&chunk);
            elapsed += rng.range(50, 4_000) as u64;
            if rng.chance(p.liveness) {
                let (action, detail) = if rng.chance(0.85) {
                    (LivenessAction::Heartbeat, format!("attempt {}", rng.range(1, 3)))
                } else {
                    (LivenessAction::CancelRetry, "no output for 120 s; retrying".to_owned())
                };
                let bytes = Some(full.len() as u64).filter(|_| rng.chance(0.8));
                out.put(em.liveness(&id, name, action, elapsed, bytes, Some(&detail)))?;
            }
        }
        if rng.chance(p.big_result) {
            full.push_str(&tool_output(rng, (2_000, 9_000)));
        } else if full.is_empty() {
            full.push_str(&tool_output(rng, (2, 600)));
        }
        results.push((id, name, !rng.chance(0.1), full));
    }
    Ok(results)
}
