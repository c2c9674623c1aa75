//! The reference harness's own edge paths (`conformance/stream/reference/`: a signal that
//! finds it not streaming, an over-window continuation, an unpaired `compaction_start`, a
//! crash after the last round, ...) as every command that judges a run shows them:
//! `hep validate --exit-code N` (text and JSON), `hep check` and `hep watch` (text and
//! JSON) running a child that prints the case's lines and exits with its exit code. Each
//! must give the case's verdict and name every violation it expects, with its severity and
//! where it was found.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{conformance_dir, hep, run, run_hep, scratch, validate_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A reference case: its name, its stream written to a scratch file, its exit code and
/// what it expects.
struct Case {
    name: String,
    file: PathBuf,
    exit_code: i32,
    expect: Value,
}

impl Case {
    fn verdict(&self) -> &str {
        self.expect["verdict"].as_str().unwrap()
    }

    fn conforms(&self) -> bool {
        self.expect["conforms"] == true
    }

    fn violations(&self) -> &[Value] {
        self.expect["violations"].as_array().unwrap()
    }

    /// The expected violations by severity: `0 errors, 2 warnings`.
    fn severities(&self) -> String {
        let errors = self.violations().iter().filter(|v| v["severity"] == "error").count();
        format!("{}, {}", plural(errors, "error"), plural(self.violations().len() - errors, "warning"))
    }

    /// Each expected violation as the text outputs print it: `line 9: warning
    /// unpaired_compaction_start:` or, found at the end, `end of stream: warning …:`.
    fn violation_lines(&self) -> Vec<String> {
        self.violations()
            .iter()
            .map(|v| {
                let line = v["line"].as_u64().unwrap();
                let place = if line == 0 { "end of stream".to_owned() } else { format!("line {line}") };
                format!("{place}: {} {}:", v["severity"].as_str().unwrap(), v["code"].as_str().unwrap())
            })
            .collect()
    }

    /// A command running `sh`, which prints the case's stream and exits with its code.
    fn child(&self) -> Vec<String> {
        let script = r#"cat "$1"; exit "$2""#;
        ["sh", "-c", script, "sh", self.file.to_str().unwrap(), &self.exit_code.to_string()].map(str::to_owned).to_vec()
    }
}

fn cases() -> Vec<Case> {
    let dir = conformance_dir().join("stream").join("reference");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "the reference cases are there: {}", paths.len());
    paths.iter().map(|p| case(p)).collect()
}

fn case(path: &Path) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut bytes = Vec::new();
    for line in json["input_lines"].as_array().unwrap_or_else(|| panic!("{name}: input_lines")) {
        bytes.extend(line.as_str().unwrap().as_bytes());
        bytes.push(b'\n');
    }
    let file = scratch(&name);
    std::fs::write(&file, bytes).unwrap();
    let exit_code = i32::try_from(json["exit_code"].as_i64().unwrap()).unwrap();
    Case { name, file, exit_code, expect: json["expect"].clone() }
}

/// `n word` or `n words`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// The two text layouts: the findings and verdict line of `validate` and `check`, and the
/// summary of `watch`.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Report,
    Summary,
}

/// What of the case's verdict, counts and violations `text` does not show.
fn missing(case: &Case, text: &str, layout: Layout) -> Vec<String> {
    let n = case.violations().len();
    let mut wanted = match layout {
        Layout::Report => vec![
            format!("verdict {} (", case.verdict()),
            if n == 0 { "no violations".into() } else { format!("{} ({})", plural(n, "violation"), case.severities()) },
        ],
        Layout::Summary => vec![
            format!("verdict     {} — ", case.verdict()),
            if n == 0 { "violations  none".into() } else { format!("violations  {n} ({})", case.severities()) },
        ],
    };
    wanted.extend(case.violation_lines());
    wanted.into_iter().filter(|w| !text.contains(w.as_str())).collect()
}

fn report(failures: &mut Vec<String>, case: &Case, command: &str, text: &str, missing: Vec<String>) {
    if !missing.is_empty() {
        failures.push(format!("{} ({command}): missing {missing:?} in:\n{text}", case.name));
    }
}

#[test]
fn validate_shows_the_verdict_and_names_every_violation_of_each_reference_path() {
    let mut failures = Vec::new();
    for case in cases() {
        let code = case.exit_code.to_string();
        let out = run_hep(&["validate", "--color", "never", "--exit-code", &code, case.file.to_str().unwrap()], b"");
        let text = out.text();
        let want_code = i32::from(!case.conforms());
        if out.code != want_code {
            failures.push(format!("{}: validate exited {}, not {want_code}:\n{text}", case.name, out.code));
        }
        let conforms = if case.conforms() { ": conforms; " } else { ": does not conform; " };
        let mut gaps = missing(&case, &text, Layout::Report);
        gaps.extend((!text.contains(conforms)).then(|| conforms.to_owned()));
        report(&mut failures, &case, "validate", &text, gaps);

        let (json, _) = validate_json(&std::fs::read(&case.file).unwrap(), &["--exit-code", &code]);
        let got: Vec<(&Value, &Value)> =
            json["violations"].as_array().unwrap().iter().map(|v| (&v["code"], &v["severity"])).collect();
        let want: Vec<(&Value, &Value)> = case.violations().iter().map(|v| (&v["code"], &v["severity"])).collect();
        if (&json["verdict"], got.as_slice()) != (&case.expect["verdict"], want.as_slice()) {
            failures.push(format!("{} (validate --format json): {json:#}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn check_shows_the_verdict_and_names_every_violation_of_each_reference_path() {
    let mut failures = Vec::new();
    for case in cases() {
        let mut command = hep(["check", "--color", "never", "--"]);
        command.args(case.child());
        let out = run(command, b"");
        let text = out.text();
        let want_code = i32::from(!case.conforms());
        if out.code != want_code {
            failures.push(format!("{}: check exited {}, not {want_code}:\n{text}", case.name, out.code));
        }
        let mut gaps = missing(&case, &text, Layout::Report);
        let exit = format!("exit code {}", case.exit_code);
        gaps.extend((!text.contains(&exit)).then_some(exit));
        report(&mut failures, &case, "check", &text, gaps);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn watch_shows_the_verdict_and_names_every_violation_of_each_reference_path() {
    let mut failures = Vec::new();
    for case in cases() {
        let mut command = hep(["watch", "--color", "never", "--"]);
        command.args(case.child());
        let out = run(command, b"");
        let text = out.text();
        if out.code != case.exit_code {
            failures.push(format!("{}: watch exited {}, not the child's {}", case.name, out.code, case.exit_code));
        }
        let summary = text.rsplit_once("── summary ──").map_or("", |(_, s)| s);
        let mut gaps = missing(&case, summary, Layout::Summary);
        let exit = format!("exit code   {}", case.exit_code);
        gaps.extend((!summary.contains(&exit)).then_some(exit));
        report(&mut failures, &case, "watch", &text, gaps);

        let mut command = hep(["watch", "--json", "--"]);
        command.args(case.child());
        let json = run(command, b"").json();
        let got: Vec<&Value> = json["violations"].as_array().unwrap().iter().map(|v| &v["code"]).collect();
        let want: Vec<&Value> = case.violations().iter().map(|v| &v["code"]).collect();
        if (&json["verdict"], &json["conforms"], got) != (&case.expect["verdict"], &case.expect["conforms"], want) {
            failures.push(format!("{} (watch --json): {json:#}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
