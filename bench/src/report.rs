//! Printing: the per-corpus table, the ratios against the targets, the breakdown.

use crate::corpus::Corpus;
use crate::measure::Timing;
use hep_core::Frame;

/// Describes a corpus: size, streams, frames, and the mix of frame types.
pub(crate) fn corpus(corpus: &Corpus, frames: &[Frame], capped: u64, identical: u64) {
    println!(
        "corpus {:<12} {:>7.1} MB  {:>3} streams  {:>9} frames  {:>5.0} B/frame",
        corpus.name,
        corpus.bytes as f64 / 1e6,
        corpus.streams.len(),
        corpus.frames,
        corpus.bytes as f64 / corpus.frames as f64
    );
    let mut mix: Vec<(&str, u64)> = Vec::new();
    for frame in frames {
        let kind = frame.frame_type();
        match mix.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => mix.push((kind, 1)),
        }
    }
    mix.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let total = frames.len().max(1) as f64;
    let parts: Vec<String> = mix.iter().map(|(k, n)| format!("{k} {:.1}%", *n as f64 * 100.0 / total)).collect();
    println!("  mix: {}", parts.join(", "));
    println!(
        "  checks: every frame re-encodes byte-exact; {capped} tool results over the 2000-unit cap; \
         serde_json::to_string reproduces {identical}/{} lines",
        frames.len()
    );
}

/// What the last column of a table shows, relative to a base row.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Relative<'a> {
    /// Speed relative to the base row (`base time / row time`).
    Speed(&'a str),
    /// Time as a share of the base row's time.
    Share(&'a str),
}

/// One table of timings.
pub(crate) fn table(title: &str, rows: &[Timing], relative: Relative<'_>) {
    let (base, share) = match relative {
        Relative::Speed(b) => (b, false),
        Relative::Share(b) => (b, true),
    };
    let base_time = rows.iter().find(|r| r.name == base).map(|r| r.median);
    println!();
    println!("{title}");
    println!(
        "  {:<44} {:>10} {:>9} {:>11} {:>13} {:>8}",
        "case",
        "median ms",
        "MB/s",
        "Mframes/s",
        "min..max ms",
        if share { "time" } else { "core/row" }
    );
    for r in rows {
        let speed = match base_time {
            Some(b) if share => format!("{:.0}%", r.median * 100.0 / b),
            Some(b) => format!("{:.2}x", r.median / b),
            None => String::new(),
        };
        println!(
            "  {:<44} {:>10.1} {:>9.0} {:>11.2} {:>13} {:>8}",
            r.name,
            r.median * 1e3,
            r.mb_per_s(),
            r.frames_per_s() / 1e6,
            format!("{:.0}..{:.0}", r.min * 1e3, r.max * 1e3),
            speed
        );
    }
}

/// `fast / slow` speed ratio (time of `slow` over time of `fast`), with a target verdict.
pub(crate) fn ratio(label: &str, rows: &[Timing], fast: &str, slow: &str, target: Option<f64>) -> Option<f64> {
    let f = rows.iter().find(|r| r.name == fast)?.median;
    let s = rows.iter().find(|r| r.name == slow)?.median;
    let ratio = s / f;
    let verdict = match target {
        Some(t) if ratio >= t => format!("target >= {t:.1}x: MET"),
        Some(t) => format!("target >= {t:.1}x: MISSED"),
        None => String::new(),
    };
    println!("  {label:<44} {ratio:>6.2}x   {verdict}");
    Some(ratio)
}

/// What a target measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// A speed ratio (`core/row`).
    Ratio,
    /// A throughput in MB/s.
    MbPerS,
}

/// One result judged against its target (met when `value >= target`).
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// What was measured, with its corpus.
    pub(crate) label: String,
    /// The measured value.
    pub(crate) value: f64,
    /// The lowest value that meets the target.
    pub(crate) target: f64,
    /// Ratio or throughput.
    pub(crate) unit: Unit,
}

impl Target {
    /// `value` and `target` written in the target's unit.
    fn shown(&self) -> (String, String) {
        match self.unit {
            Unit::Ratio => (format!("{:.2}x", self.value), format!("{:.1}x", self.target)),
            Unit::MbPerS => (format!("{:.0} MB/s", self.value), format!("{:.0} MB/s", self.target)),
        }
    }

    /// `MET` or `MISSED`.
    fn verdict(&self) -> &'static str {
        if self.value >= self.target { "MET" } else { "MISSED" }
    }
}

/// The MB/s of row `name` against `target` MB/s, printed like [`ratio`]'s lines.
pub(crate) fn speed(label: &str, rows: &[Timing], name: &str, target: f64) -> Option<f64> {
    let value = rows.iter().find(|r| r.name == name)?.mb_per_s();
    let judged = Target { label: label.to_owned(), value, target, unit: Unit::MbPerS };
    let (value_text, target_text) = judged.shown();
    println!("  {label:<44} {value_text:>10}   target >= {target_text}: {}", judged.verdict());
    Some(value)
}

/// The closing summary: every target, met or missed.
pub(crate) fn summary(targets: &[Target]) {
    println!("\nsummary");
    for t in targets {
        let (value, target) = t.shown();
        println!("  {:<52} {value:>9}  (target >= {target}) {}", t.label, t.verdict());
    }
}
