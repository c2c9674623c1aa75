//! `hep-bench`: hep-core's stream path and encoder, side by side with what a user would
//! otherwise write with serde_json, over a seeded, deterministic corpus.
//!
//! Run with `cargo run --release -p hep-bench [-- --reps N --warmup N --scale X]`;
//! `-- --dump-corpus DIR` writes the corpora as files instead (for the Python bench).
//! See `bench/README.md` for what each row measures.

mod cases;
mod corpus;
mod dump;
mod measure;
mod mirror;
mod report;
mod rng;
mod text;

use cases::{Delivery, Stage, Work};
use corpus::{Corpus, DELTA_HEAVY, Profile, TOOL_HEAVY};
use hep_core::Frame;
use measure::{Case, Clock, Timing, measure};
use report::{Relative, Target, Unit};
use std::fmt;

/// A failed check or workload: the benchmark stops rather than report a failure's speed.
pub(crate) struct Failure(pub(crate) String);

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<hep_core::Error> for Failure {
    fn from(e: hep_core::Error) -> Self {
        Self(format!("hep-core: {e}"))
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        Self(format!("serde_json: {e}"))
    }
}

const CORE: &str = "a. core Stream::feed_with 64K + finish";
const CORE_BATCHED: &str = "a2. core Stream::feed_into 64K (batched)";
const BORROWED: &str = "a3. core feed_borrowed 64K, every field read";
const TYPED: &str = "b. lines + from_str typed serde enum";
const VALUE: &str = "c. lines + from_str serde_json::Value";
const ENCODE: &str = "d1. hep_core::encode";
const TO_STRING: &str = "d2. serde_json::to_string typed enum";

/// Command-line settings.
#[derive(Debug, Clone, Copy)]
struct Options {
    reps: usize,
    warmup: usize,
    scale: f64,
    /// Only cases whose name contains this (for profiling one case).
    only: Option<&'static str>,
    /// Only the corpus of this name.
    corpus: Option<&'static str>,
    /// Write the corpora under this directory instead of measuring.
    dump: Option<&'static str>,
    /// What a run's time is.
    clock: Clock,
}

fn options() -> Result<Options, Failure> {
    let mut o = Options { reps: 7, warmup: 1, scale: 1.0, only: None, corpus: None, dump: None, clock: Clock::Wall };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| Failure(format!("{flag} needs a value")))?;
        let bad = |e: &dyn fmt::Display| Failure(format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--reps" => o.reps = value.parse().map_err(|e| bad(&e))?,
            "--warmup" => o.warmup = value.parse().map_err(|e| bad(&e))?,
            "--scale" => o.scale = value.parse().map_err(|e| bad(&e))?,
            "--only" => o.only = Some(value.leak()),
            "--corpus" => o.corpus = Some(value.leak()),
            "--dump-corpus" => o.dump = Some(value.leak()),
            "--clock" => {
                o.clock = match value.as_str() {
                    "wall" => Clock::Wall,
                    "cpu" => Clock::Cpu,
                    _ => return Err(bad(&"expected wall or cpu")),
                }
            }
            _ => {
                let known = "--reps N, --warmup N, --scale X, --only CASE-SUBSTRING, --corpus NAME, --dump-corpus DIR, --clock wall|cpu";
                return Err(Failure(format!("unknown option {flag} (known: {known})")));
            }
        }
    }
    o.reps = o.reps.max(1);
    Ok(o)
}

/// Tool results the writer cut at the 2000-unit cap.
fn capped(frames: &[Frame]) -> u64 {
    let results = frames.iter().filter_map(|f| match f {
        Frame::TurnDone(d) => Some(&d.tool_results),
        _ => None,
    });
    results.flatten().filter(|r| r.text.ends_with(" chars)") && r.text.contains("…(+")).count() as u64
}

fn main() -> Result<(), Failure> {
    let o = options()?;
    let profiles = [DELTA_HEAVY, TOOL_HEAVY];
    let chosen = || profiles.iter().filter(|p| o.corpus.is_none_or(|c| c == p.name));
    if let Some(dir) = o.dump {
        for profile in chosen() {
            dump::write(std::path::Path::new(dir), profile, o.scale, &corpus::generate(profile, o.scale)?)?;
        }
        return Ok(());
    }
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!(
        "hep-bench: {} warm-up + {} timed runs per case (median reported), {cores} cores, scale {}, {} time",
        o.warmup,
        o.reps,
        o.scale,
        if o.clock == Clock::Cpu { "thread CPU" } else { "wall-clock" }
    );
    println!("MB = 10^6 bytes of input (parsers) or output (encoders)");
    println!("core/row = core speed over the row's speed = row time / core time (> 1.00x: the core is faster)\n");
    let mut verdicts = Vec::new();
    for profile in chosen() {
        verdicts.extend(bench_corpus(profile, o)?);
    }
    report::summary(&verdicts);
    Ok(())
}

/// Generates, checks and measures one corpus; returns the targets it was judged against.
fn bench_corpus(profile: &Profile, o: Options) -> Result<Vec<Target>, Failure> {
    let corpus = corpus::generate(profile, o.scale)?;
    let (frames, serde_frames, identical) = cases::decode_all(&corpus)?;
    println!();
    report::corpus(&corpus, &frames, capped(&frames), identical);
    let n = corpus.frames;
    let c = &corpus;
    let mut list = vec![
        case(CORE, n, move || cases::core_stream(c, Delivery::Callback)),
        case(CORE_BATCHED, n, move || cases::core_stream(c, Delivery::Batched)),
        case(BORROWED, n, move || cases::core_borrowed(c)),
        case(TYPED, n, move || cases::serde_typed(c)),
        case(VALUE, n, move || cases::serde_value(c)),
        case(ENCODE, n, || cases::core_encode(&frames)),
        case(TO_STRING, n, || cases::serde_encode(&serde_frames)),
    ];
    list.retain(|c| o.only.is_none_or(|w| c.name.contains(w)));
    let rows = measure(&mut list, o.warmup, o.reps, o.clock)?;
    let pick = |names: &[&str]| -> Vec<Timing> { rows.iter().filter(|r| names.contains(&r.name)).cloned().collect() };
    report::table(
        &format!("{} — parsing", corpus.name),
        &pick(&[CORE, CORE_BATCHED, BORROWED, TYPED, VALUE]),
        Relative::Speed(CORE),
    );
    report::table(&format!("{} — encoding", corpus.name), &pick(&[ENCODE, TO_STRING]), Relative::Speed(ENCODE));
    println!("  ratios (core speed / alternative speed = alternative time / core time):");
    let stream_target = if profile.name == DELTA_HEAVY.name { 2.0 } else { 1.5 };
    let mut verdicts = Vec::new();
    let mut judge = |label: &str, fast, slow, target: Option<f64>| {
        if let (Some(value), Some(target)) = (report::ratio(label, &rows, fast, slow, target), target) {
            verdicts.push(Target { label: format!("{}: {label}", corpus.name), value, target, unit: Unit::Ratio });
        }
    };
    judge("core stream path / serde typed enum", CORE, TYPED, Some(stream_target));
    judge("core stream path / serde_json::Value", CORE, VALUE, None);
    judge("core batched feed_into / serde typed enum", CORE_BATCHED, TYPED, None);
    judge("core borrowed path / serde typed enum", BORROWED, TYPED, None);
    judge("hep_core::encode / serde_json::to_string", ENCODE, TO_STRING, Some(1.3));
    // Issue 17: the borrowed path alone, before any binding, at >= 1 GB/s on delta-heavy.
    let label = "core borrowed stream path";
    if profile.name == DELTA_HEAVY.name {
        if let Some(value) = report::speed(label, &rows, BORROWED, 1000.0) {
            verdicts.push(Target {
                label: format!("{}: {label}", corpus.name),
                value,
                target: 1000.0,
                unit: Unit::MbPerS,
            });
        }
    }
    if profile.name == DELTA_HEAVY.name {
        breakdown(c, o)?;
    }
    Ok(verdicts)
}

fn case<'a>(name: &'static str, frames: u64, run: impl FnMut() -> Result<Work, Failure> + 'a) -> Case<'a> {
    Case { name, frames, run: Box::new(run) }
}

/// Where the stream path's time goes: its stages timed cumulatively.
fn breakdown(c: &Corpus, o: Options) -> Result<Vec<Timing>, Failure> {
    let n = c.frames;
    let mut list = vec![
        case("split (LineSplitter)", n, move || cases::stage(c, Stage::Split)),
        case("split + decode", n, move || cases::stage(c, Stage::Decode)),
        case("split + decode + validate + reduce", n, move || cases::stage(c, Stage::Reduce)),
        case("full Stream::feed_with + finish", n, move || cases::core_stream(c, Delivery::Callback)),
    ];
    list.retain(|c| o.only.is_none_or(|w| c.name.contains(w)));
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let rows = measure(&mut list, o.warmup, o.reps, o.clock)?;
    let title = format!("{} — stream path breakdown (cumulative stages)", c.name);
    report::table(&title, &rows, Relative::Share("full Stream::feed_with + finish"));
    Ok(rows)
}
