//! Chunking invariance, over the conformance vectors and a generated realistic stream: the
//! same bytes fed in any split (one byte at a time, fixed sizes, every single cut, seeded
//! random cuts, cuts inside every multi-byte UTF-8 character and inside every escape, between
//! every `\r` and `\n`) give exactly the same events and the same [`RunResult`] as the bytes fed
//! whole. Each split is also read through [`Stream::feed_borrowed`]: its events, made owned, and
//! its result must be those of the owned path (a line continued across feeds borrows from the
//! stream's line buffer, so the splits try that path too).
//!
//! The inputs: every `stream/` case and every `hostile/` stream case (with its options and exit
//! code), and every `decode/`, `reject/` and `hostile/` line, as a one-line stream and as a
//! truncated last line. The property test `properties::chunking` adds random streams.

#[allow(dead_code)]
#[path = "conformance/mod.rs"]
mod support;

use hep_core::bounds::ArgsMode;
use hep_core::writer::{ToolOutcome, Writer};
use hep_core::{Event, LivenessAction, RunResult, Stream, StreamOptions, Usage, Verdict};
use serde_json::{Map, Value, json};

/// Inputs up to this size are also fed cut once at every position.
const EXHAUSTIVE_UP_TO: usize = 2048;

/// One stream to feed: its bytes and how to read and end it.
struct Input {
    name: String,
    bytes: Vec<u8>,
    options: StreamOptions,
    exit_code: Option<i32>,
}

/// Everything a stream gives: every event, in order, and the result.
type Outcome = (Vec<Event>, RunResult);

/// How a stream is fed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// `Stream::feed_into`: owned events.
    Owned,
    /// `Stream::feed_borrowed`, each event made owned with `Event::into_owned`.
    Borrowed,
}

/// Feeds `bytes` cut at `cuts` (ascending positions) to a fresh stream along `path`, then
/// ends it.
fn feed(input: &Input, cuts: &[usize], path: Path) -> Outcome {
    let mut stream = Stream::new(input.options);
    let mut events = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.bytes.len())) {
        let end = cut.clamp(start, input.bytes.len());
        let bytes = input.bytes.get(start..end).unwrap_or_default();
        match path {
            Path::Owned => stream.feed_into(bytes, &mut events),
            Path::Borrowed => stream.feed_borrowed(bytes, |event| events.push(event.into_owned())),
        }
        start = end;
    }
    events.extend(stream.end_input());
    (events, stream.finish(input.exit_code))
}

/// A small deterministic generator (SplitMix64), so that every run tries the same splits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
    }
}

/// Named splits of `bytes`: each a list of cut positions.
fn splits(bytes: &[u8], seed: u64, exhaustive: bool) -> Vec<(String, Vec<usize>)> {
    let n = bytes.len();
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for size in [1, 2, 3, 5, 7, 64, 4096] {
        out.push((format!("in {size}-byte chunks"), (size..n).step_by(size).collect()));
    }
    // Between the lead byte and a continuation byte of every multi-byte character (and
    // inside every invalid sequence): every cut at once, and one cut per position below.
    let inside_chars: Vec<usize> = (1..n).filter(|&i| bytes.get(i).is_some_and(|b| b & 0xc0 == 0x80)).collect();
    // Right after every backslash, and inside every `\uXXXX`.
    let mut inside_escapes = Vec::new();
    for (i, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'\\') {
        let len = if bytes.get(i + 1) == Some(&b'u') { 5 } else { 1 };
        inside_escapes.extend((i + 1..=i + len).filter(|&c| c < n));
    }
    inside_escapes.sort_unstable();
    inside_escapes.dedup();
    let between_cr_lf: Vec<usize> =
        (1..n).filter(|&i| bytes.get(i - 1) == Some(&b'\r') && bytes.get(i) == Some(&b'\n')).collect();
    let mut rng = Rng(seed);
    for (what, cuts) in [
        ("inside every multi-byte character", &inside_chars),
        ("inside every escape", &inside_escapes),
        ("between every \\r and \\n", &between_cr_lf),
    ] {
        if !cuts.is_empty() {
            out.push((what.to_owned(), cuts.clone()));
        }
        let each: Vec<usize> = if exhaustive || cuts.len() <= 64 {
            cuts.clone()
        } else {
            (0..64).map(|_| cuts.get(rng.below(cuts.len())).copied().unwrap_or(0)).collect()
        };
        for cut in each {
            out.push((format!("cut once {what} (at byte {cut})"), vec![cut]));
        }
    }
    if exhaustive {
        out.extend((1..n).map(|cut| (format!("cut once at byte {cut}"), vec![cut])));
    }
    for round in 0..32 {
        let count = 1 + rng.below(48.min(n.max(1)));
        let mut cuts: Vec<usize> = (0..count).map(|_| rng.below(n + 1)).collect();
        cuts.sort_unstable();
        out.push((format!("random cuts #{round} (seed {seed}): {cuts:?}"), cuts));
    }
    out
}

/// Feeds `input` in every split, owned and borrowed; returns a description of each split
/// whose outcome differs from the owned path's fed whole.
fn check(input: &Input, exhaustive: bool) -> Vec<String> {
    let whole = feed(input, &[], Path::Owned);
    let seed =
        input.name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let mut failures = Vec::new();
    let mut all = splits(&input.bytes, seed, exhaustive);
    all.push(("whole".to_owned(), Vec::new()));
    for (how, cuts) in all {
        for path in [Path::Owned, Path::Borrowed] {
            let got = feed(input, &cuts, path);
            if got != whole {
                failures.push(format!("{}: fed {how} ({path:?}), {}", input.name, difference(&whole, &got)));
            }
        }
    }
    failures
}

/// Where two outcomes part.
fn difference(whole: &Outcome, got: &Outcome) -> String {
    let at = whole.0.iter().zip(&got.0).position(|(a, b)| a != b);
    match at {
        Some(i) => format!("event {i} differs:\n    whole: {:?}\n    split: {:?}", whole.0.get(i), got.0.get(i)),
        None if whole.0.len() != got.0.len() => format!("{} events instead of {}", got.0.len(), whole.0.len()),
        None => format!("the result differs:\n    whole: {:?}\n    split: {:?}", whole.1, got.1),
    }
}

/// Every stream case of `stream/` and `hostile/`, and every line of `decode/`, `reject/` and
/// `hostile/` (with its `\n`, and as a truncated last line); or what cannot be read.
fn conformance_inputs() -> Result<Vec<Input>, String> {
    use support::stream::{exit_code, input, options};
    let mut inputs = Vec::new();
    for group in ["stream", "hostile", "decode", "reject"] {
        let (files, problems) = support::case_files(&support::root().join(group));
        if !problems.is_empty() || files.is_empty() {
            return Err(format!("conformance/{group}: no cases, or stray files: {problems:?}"));
        }
        for path in files {
            let name =
                format!("conformance/{group}/{}", path.file_name().map(|f| f.to_string_lossy()).unwrap_or_default());
            let case = support::load(&path).map_err(|e| format!("{name}: {e}"))?;
            let is_stream = group == "stream" || case.get("form").and_then(Value::as_str) == Some("stream");
            if is_stream {
                let bytes = input(&case).map_err(|e| format!("{name}: {e}"))?;
                let options = options(&case).map_err(|e| format!("{name}: {e}"))?;
                let exit_code = exit_code(&case).map_err(|e| format!("{name}: {e}"))?;
                inputs.push(Input { name, bytes, options, exit_code });
            } else {
                let line = support::get_bytes(&case, "line").map_err(|e| format!("{name}: {e}"))?;
                let mut with_newline = line.clone();
                with_newline.push(b'\n');
                let options = StreamOptions::default();
                inputs.push(Input {
                    name: format!("{name} (as a line)"),
                    bytes: with_newline,
                    options,
                    exit_code: Some(0),
                });
                inputs.push(Input {
                    name: format!("{name} (as a truncated tail)"),
                    bytes: line,
                    options,
                    exit_code: None,
                });
            }
        }
    }
    Ok(inputs)
}

#[test]
fn every_conformance_stream_and_line_gives_the_same_outcome_however_split() {
    let inputs = conformance_inputs();
    assert!(inputs.is_ok(), "{inputs:?}", inputs = inputs.as_ref().err());
    let inputs = inputs.unwrap_or_default();
    let mut failures = Vec::new();
    for input in &inputs {
        failures.extend(check(input, input.bytes.len() <= EXHAUSTIVE_UP_TO));
    }
    println!("{} inputs fed in every split", inputs.len());
    assert!(failures.is_empty(), "{} split(s) change the outcome:\n{}", failures.len(), failures.join("\n"));
}

// ---- a realistic stream ----

/// Text as a harness sees it: several scripts, emoji (astral), combining marks, quotes,
/// backslashes, control characters, U+2028, a terminal colour code and Windows line ends.
const PHRASES: &[&str] = &[
    "Let me read the file first. ",
    "Café crème, naïve façade — “quoted” ‘text’. ",
    "中文字符和日本語のテキスト、한국어 텍스트. ",
    "Emoji: 😀🎉👩\u{200d}💻 and flags 🇫🇷🇯🇵. ",
    "Combining: e\u{301} a\u{308} n\u{303}. ",
    "Path C:\\Users\\me\\notes.txt and a \"quote\". ",
    "Tabs\tand\nnewlines\r\nand a bell\u{7}. ",
    "Line separator\u{2028}paragraph\u{2029}next line\u{85}. ",
    "\u{1b}[31mred\u{1b}[0m and NUL \u{0} and DEL \u{7f}. ",
    "Math: ∑ x² ≤ ∞, arrows → ⇒, box ┌─┐. ",
    "RTL: مرحبا بالعالم ‏שלום‏. ",
    "BOM \u{feff} inside and U+FFFD \u{fffd}. ",
];

fn phrase(rng: &mut Rng) -> &'static str {
    PHRASES.get(rng.below(PHRASES.len())).copied().unwrap_or_default()
}

/// A run of several rounds written by the library's own [`Writer`]: deltas cut anywhere
/// (inside characters' UTF-16 halves never: the writer takes `&str`), tool calls with
/// arguments, partial output, heartbeats, results past the 2000-unit cap, compactions.
fn realistic_run(seed: u64, rounds: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut w = Writer::new(Vec::new(), "1.2.3-test", if seed % 2 == 0 { ArgsMode::Summary } else { ArgsMode::Full });
    let write = |r: hep_core::Result<Option<String>>| assert!(r.is_ok(), "the writer refused a call: {r:?}");
    write(w.header(&format!("session-{seed}")));
    write(w.agent_start());
    for round in 1..=rounds {
        if round > 1 && rng.below(4) == 0 {
            write(w.compaction_start());
            write(w.compaction_end(1000 + rng.next() % 50_000));
        }
        write(w.message_start("assistant"));
        let mut message = String::new();
        for _ in 0..3 + rng.below(12) {
            let text: String = (0..1 + rng.below(3)).map(|_| phrase(&mut rng)).collect();
            // Cut the text into deltas at character boundaries, as a token stream would.
            let chars: Vec<char> = text.chars().collect();
            let mut at = 0;
            while at < chars.len() {
                let take = 1 + rng.below(12);
                let delta: String = chars.iter().skip(at).take(take).collect();
                write(w.message_delta(&delta));
                at += take;
            }
            message.push_str(&text);
        }
        let mut results = Vec::new();
        for call in 0..rng.below(4) {
            let id = format!("call_{round}_{call}");
            let name = ["read", "bash", "edit", "grep"].get(rng.below(4)).copied().unwrap_or("read");
            let args: Map<String, Value> = json!({
                "path": format!("src/{}.rs", phrase(&mut rng).trim()),
                "flags": ["-n", "--color=never"],
                "limit": rng.below(500),
                "ratio": 0.25,
                "nested": {"quote": "\"", "backslash": "\\", "emoji": "😀"},
            })
            .as_object()
            .cloned()
            .unwrap_or_default();
            write(w.tool_start(&id, name, &args.into()));
            let mut output = String::new();
            for tick in 0..rng.below(6) {
                let update: String = (0..1 + rng.below(4)).map(|_| phrase(&mut rng)).collect();
                write(w.tool_delta(&id, &update));
                output.push_str(&update);
                if tick % 2 == 1 {
                    let detail = format!("attempt {tick}");
                    write(w.liveness(
                        &id,
                        name,
                        LivenessAction::Heartbeat,
                        5000 * tick as u64,
                        Some(output.len() as u64),
                        Some(&detail),
                    ));
                }
            }
            if rng.below(3) == 0 {
                // Past the cap: the writer cuts at 2000 UTF-16 units, maybe inside a pair.
                output = "😀a".repeat(700 + rng.below(3));
            }
            results.push((id, name, rng.below(5) != 0, output));
        }
        let outcomes: Vec<ToolOutcome<'_>> =
            results.iter().map(|(id, name, ok, text)| ToolOutcome { id, name, ok: *ok, text }).collect();
        let usage = Usage { input: 1000 + round, output: 200 + round, cost: 0.001 * round as f64 };
        let stop = if round == rounds { "stop" } else { "toolUse" };
        write(w.turn_done(&message, &outcomes, usage, stop));
    }
    w.into_inner()
}

/// `lines` of `bytes` (each without its `\n`) with `\r\n` line ends.
fn with_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 50);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// `bytes` with hostile lines inserted every so often and a cut-off tail.
fn with_hostile_lines(bytes: &[u8], seed: u64) -> Vec<u8> {
    const HOSTILE: &[&[u8]] = &[
        b"",
        b"   Compiling agent v1.0 (prose on stdout)",
        b"{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"bad \xc3\x28 utf-8\"}",
        b"{\"type\":\"agent_start\",\"turn_id\":1}{\"type\":\"cancelled\",\"turn_id\":1}",
        b"{\"type\":\"plan_update\",\"turn_id\":\"x\",\"note\":\"\\ud83d\"}",
        b"\xef\xbb\xbf{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"bom\"}",
        b"\x00\x00\x00\x00",
        b"{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"a\\ud83d\\ude00\\u00e9\\\\\\\"\"}",
    ];
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if rng.below(7) == 0 {
            out.extend_from_slice(HOSTILE.get(rng.below(HOSTILE.len())).copied().unwrap_or_default());
            out.push(b'\n');
        }
        out.extend_from_slice(line);
    }
    out.extend_from_slice(b"{\"type\":\"message_delta\",\"turn_id\":9,\"delta\":\"cut \xe2\x82");
    out
}

#[test]
fn a_realistic_stream_gives_the_same_outcome_however_split() {
    let mut failures = Vec::new();
    let mut inputs = 0;
    for seed in 1..=3 {
        let run = realistic_run(seed, 5);
        let plain = Input {
            name: format!("realistic run (seed {seed})"),
            bytes: run.clone(),
            options: StreamOptions::default(),
            exit_code: Some(0),
        };
        let (_, result) = feed(&plain, &[], Path::Owned);
        assert_eq!(result.verdict, Verdict::Ok, "the writer's run does not read back as ok: {:?}", result.reasons);
        assert!(result.conforms, "{:?}", result.violations);
        let hostile = with_hostile_lines(&run, seed);
        let variants = [
            plain,
            Input {
                name: format!("realistic run with \\r\\n line ends (seed {seed})"),
                bytes: with_crlf(&run),
                options: StreamOptions::default(),
                exit_code: Some(0),
            },
            Input {
                name: format!("realistic run with hostile lines (seed {seed})"),
                bytes: hostile.clone(),
                options: StreamOptions::default(),
                exit_code: Some(137),
            },
            Input {
                name: format!("realistic run with hostile lines, 300-byte lines (seed {seed})"),
                bytes: hostile.clone(),
                options: StreamOptions { max_line_length: 300, ..StreamOptions::default() },
                exit_code: None,
            },
            Input {
                name: format!("realistic run with hostile lines, strict (seed {seed})"),
                bytes: hostile,
                options: StreamOptions { strict: true, ..StreamOptions::default() },
                exit_code: Some(0),
            },
        ];
        for input in &variants {
            inputs += 1;
            failures.extend(check(input, false));
        }
    }
    println!("{inputs} realistic inputs fed in every split");
    assert!(failures.is_empty(), "{} split(s) change the outcome:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_splits_cut_where_they_say() {
    let bytes = "a\u{e9}\\u00e9\r\n😀".as_bytes();
    let all = splits(bytes, 1, true);
    let named = |what: &str| all.iter().find(|(how, _)| how == what).map(|(_, cuts)| cuts.clone()).unwrap_or_default();
    assert_eq!(named("inside every multi-byte character"), [2, 12, 13, 14]);
    assert_eq!(named("inside every escape"), [4, 5, 6, 7, 8]);
    assert_eq!(named("between every \\r and \\n"), [10]);
    assert_eq!(named("in 1-byte chunks"), (1..bytes.len()).collect::<Vec<_>>());
    assert!(all.iter().filter(|(how, _)| how.starts_with("cut once at byte")).count() == bytes.len() - 1);
}
