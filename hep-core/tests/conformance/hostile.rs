//! `hostile/`: the hostile-input catalog. A case is a `line` or a `stream` that must be
//! accepted, must be rejected, or is implementation-defined (a list of allowed outcomes, and
//! the one this library gives). Anything the runner does not know is an error, never a pass.

use super::stream::{EXPECT_KEYS, check_expect, observe};
use super::{Res, canonical, encode_frame, get, get_array, get_bytes, get_str, same_json, same_text, show};
use hep_core::{ErrorKind, Frame, decode};
use serde_json::Value;

/// The keys a stream case's `expect` (and each allowed stream outcome) must hold at least.
const STREAM_MUST_PIN: [&str; 4] = ["frames", "violations", "skipped", "verdict"];

pub(crate) fn run(case: &Value) -> Res {
    let topic = get_str(case, "topic")?;
    if topic.trim().is_empty() {
        return Err("`topic` must not be empty".into());
    }
    let form = get_str(case, "form")?;
    let outcome = get_str(case, "outcome")?;
    if !["accept", "reject", "implementation_defined"].contains(&outcome) {
        return Err(format!("unknown `outcome` `{outcome}` (accept, reject or implementation_defined)"));
    }
    refuse_keys_of_other_kinds(case, form, outcome)?;
    match form {
        "line" => line_case(case, outcome),
        "stream" => stream_case(case, outcome),
        other => Err(format!("unknown hostile case `form` `{other}` (line or stream)")),
    }
}

/// A key that belongs to another form or outcome means the case is not what it seems.
fn refuse_keys_of_other_kinds(case: &Value, form: &str, outcome: &str) -> Res {
    let line_keys = ["line", "line_base64", "frame", "encoded", "error"];
    let stream_keys = ["input", "input_base64", "input_lines", "options", "exit_code", "expect"];
    let mut foreign: Vec<&str> = match form {
        "line" => stream_keys.to_vec(),
        "stream" => line_keys.to_vec(),
        _ => Vec::new(),
    };
    match outcome {
        "implementation_defined" => foreign.extend(["frame", "encoded", "error", "expect"]),
        _ => foreign.extend(["allowed", "chosen"]),
    }
    match (form, outcome) {
        ("line", "accept") => foreign.push("error"),
        ("line", "reject") => foreign.extend(["frame", "encoded"]),
        _ => {}
    }
    if outcome == "implementation_defined"
        && case.get("why").and_then(Value::as_str).is_none_or(|w| w.trim().is_empty())
    {
        return Err("an implementation_defined case needs a non-empty string `why`".into());
    }
    match foreign.into_iter().find(|key| case.get(*key).is_some()) {
        Some(key) => Err(format!("key `{key}` does not belong to a `{form}` case with outcome `{outcome}`")),
        None => Ok(()),
    }
}

// ---- line cases ----

/// What decoding one line gave.
enum Decoded {
    Frame(Frame),
    Rejected(hep_core::Error),
}

fn line_case(case: &Value, outcome: &str) -> Res {
    let line = get_bytes(case, "line")?;
    if line.contains(&b'\n') {
        return Err("a line case cannot hold `\\n` (a line ends there): make it a stream case".into());
    }
    if line.ends_with(b"\r") {
        return Err("a line case cannot end in `\\r` (a line end to some helpers): make it a stream case".into());
    }
    let got = match decode(&line) {
        Ok(frame) => Decoded::Frame(frame),
        Err(err) => Decoded::Rejected(err),
    };
    as_one_line_stream(&line, &got)?;
    match outcome {
        "implementation_defined" => {
            let allowed = get_array(case, "allowed")?;
            for (i, alt) in allowed.iter().enumerate() {
                line_alternative(alt).map_err(|e| format!("`allowed[{i}]`: {e}"))?;
            }
            let checks: Vec<Res> = allowed.iter().map(|alt| line_matches(alt, &got)).collect();
            chosen(case, &checks, || describe(&got))
        }
        _ => line_matches(case, &got),
    }
}

/// An allowed line outcome is `{"outcome": "accept", "frame"?, "encoded"?}` (at least one of
/// the two) or `{"outcome": "reject", "error"}`.
fn line_alternative(alt: &Value) -> Res {
    let keys: &[&str] = match get_str(alt, "outcome")? {
        "accept" if alt.get("frame").is_none() && alt.get("encoded").is_none() => {
            return Err("an allowed `accept` needs `frame` or `encoded`".into());
        }
        "accept" => &["outcome", "frame", "encoded"],
        "reject" => &["outcome", "error"],
        other => return Err(format!("unknown allowed `outcome` `{other}` (accept or reject)")),
    };
    let object = alt.as_object().ok_or("an allowed outcome must be an object")?;
    match object.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown key `{k}` in an allowed outcome")),
        None => Ok(()),
    }
}

/// `want` (a case, or an allowed outcome) holds `outcome` and what it implies.
fn line_matches(want: &Value, got: &Decoded) -> Res {
    match (get_str(want, "outcome")?, got) {
        ("accept", Decoded::Frame(frame)) => {
            if want.get("frame").is_some() {
                same_json("the decoded frame", get(want, "frame")?, &canonical(frame)?)?;
            }
            if want.get("encoded").is_some() {
                same_text("the encoding of the decoded frame", get_str(want, "encoded")?, &encode_frame(frame)?)?;
            }
            Ok(())
        }
        ("accept", Decoded::Rejected(err)) => Err(format!("must decode, but is rejected: {err}")),
        ("reject", got) => {
            let error = get(want, "error")?;
            let kind = get_str(error, "kind")?;
            if !ErrorKind::ALL.iter().any(|k| k.as_str() == kind) {
                return Err(format!("`error.kind` `{kind}` is no ErrorKind name"));
            }
            let err = match got {
                Decoded::Rejected(err) => err,
                Decoded::Frame(frame) => {
                    let form = canonical(frame).map_or_else(|e| e, |v| show(&v));
                    return Err(format!("must be rejected with `{kind}`, but decodes to {form}"));
                }
            };
            if err.kind().as_str() != kind {
                return Err(format!("rejected with kind `{}` instead of `{kind}`: {err}", err.kind()));
            }
            if error.get("column").is_some() {
                let column = super::get_u64(error, "column")?;
                if err.column() != column {
                    return Err(format!("rejected at column {} instead of {column}: {err}", err.column()));
                }
            }
            Ok(())
        }
        (other, _) => Err(format!("unknown `outcome` `{other}`")),
    }
}

fn describe(got: &Decoded) -> String {
    match got {
        Decoded::Frame(frame) => format!("accepted as {}", canonical(frame).map_or_else(|e| e, |v| show(&v))),
        Decoded::Rejected(err) => format!("rejected with `{}` at column {}: {err}", err.kind(), err.column()),
    }
}

/// The line fed as a one-line stream (`line` + `\n`) gives the same: the same frame, or
/// line 1 skipped with the same kind.
fn as_one_line_stream(line: &[u8], got: &Decoded) -> Res {
    let mut input = line.to_vec();
    input.push(b'\n');
    let mut stream = hep_core::Stream::default();
    let events = stream.feed(&input);
    let result = stream.finish(None);
    let frame = events.into_iter().find_map(|e| match e {
        hep_core::Event::Frame(r) => Some(r.frame),
        _ => None,
    });
    match (got, frame, result.skipped.first()) {
        (Decoded::Frame(want), Some(frame), None) if *want == frame => Ok(()),
        (Decoded::Rejected(err), None, Some(skipped)) if skipped.kind() == err.kind() && skipped.line() == 1 => Ok(()),
        (_, frame, skipped) => Err(format!(
            "fed as a one-line stream, the line gives {frame:?} and skipped {skipped:?}, unlike decoding it ({})",
            describe(got)
        )),
    }
}

// ---- stream cases ----

fn stream_case(case: &Value, outcome: &str) -> Res {
    let whole = observe(case)?;
    match outcome {
        "implementation_defined" => {
            let allowed = get_array(case, "allowed")?;
            for (i, want) in allowed.iter().enumerate() {
                pins_enough(want).map_err(|e| format!("`allowed[{i}]`: {e}"))?;
            }
            let checks: Vec<Res> = allowed.iter().map(|want| check_expect(want, &whole)).collect();
            chosen(case, &checks, || show(&whole))
        }
        _ => {
            let expect = get(case, "expect")?;
            pins_enough(expect)?;
            check_expect(expect, &whole)?;
            let conforms = whole.get("conforms").and_then(Value::as_bool);
            match (outcome, conforms) {
                ("accept", Some(true)) | ("reject", Some(false)) => Ok(()),
                ("accept", _) => Err("an `accept` stream case must conform, and this one does not".into()),
                _ => Err("a `reject` stream case must not conform, and this one does".into()),
            }
        }
    }
}

/// A hostile stream outcome pins at least the frames, violations, skipped lines and verdict,
/// and nothing a runner does not know.
fn pins_enough(expect: &Value) -> Res {
    let expect = expect.as_object().ok_or("a stream outcome must be an object")?;
    if let Some(k) = expect.keys().find(|k| !EXPECT_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown `expect` key `{k}`"));
    }
    match STREAM_MUST_PIN.iter().find(|k| !expect.contains_key(**k)) {
        Some(k) => Err(format!("a hostile stream outcome must pin `{k}`")),
        None => Ok(()),
    }
}

// ---- implementation-defined ----

/// `checks[i]` says whether the outcome is `allowed[i]`; it must be `allowed[chosen]`, the
/// alternative this library takes (so that every binding gives the same).
fn chosen(case: &Value, checks: &[Res], got: impl Fn() -> String) -> Res {
    let count = checks.len();
    if count == 0 {
        return Err("`allowed` lists no outcome".into());
    }
    let chosen = super::get_u64(case, "chosen")?;
    let index = usize::try_from(chosen)
        .ok()
        .filter(|i| *i < count)
        .ok_or_else(|| format!("`chosen` {chosen} is no index of `allowed`"))?;
    match checks.get(index) {
        Some(Ok(())) => Ok(()),
        _ => {
            let other = checks.iter().position(Result::is_ok);
            let why = checks.get(index).and_then(|c| c.clone().err()).unwrap_or_default();
            Err(match other {
                Some(i) => format!(
                    "the outcome is allowed[{i}], not the chosen allowed[{index}]: the bindings would disagree\n  {why}"
                ),
                None => {
                    format!("the outcome is none of the allowed ones: {}\n  against allowed[{index}]: {why}", got())
                }
            })
        }
    }
}
