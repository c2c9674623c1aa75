//! Hostile and ordinary input across the ABI gives what hep-core gives: every stream of
//! `conformance/stream/` (with `limits/` and `reference/`) and `conformance/hostile/` is fed through `hep_stream_feed` whole,
//! one byte at a time and in chunks of 7 bytes; the batches' bytes, the halt and the
//! result's JSON must equal those of hep-core's own `Stream` fed directly.

// A test's helpers fail it by panicking.
#![allow(clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use hep::buffers::{hep_batch_free, hep_string_free};
use hep::errors::hep_error_free;
use hep::stream::{hep_stream_feed, hep_stream_finish, hep_stream_free, hep_stream_new};
use hep::{HepBatch, HepError, HepStreamOptions, HepString};
use hep_core::batch::FrameBatch;
use hep_core::{Event, Stream, StreamOptions};
use serde_json::Value;
use std::path::Path;
use std::ptr::null_mut;

/// The *text* notation of the vectors: a string, `{"repeat": S, "count": N}`, or an array.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(text).collect(),
        Value::Object(o) => {
            let count = o.get("count").and_then(Value::as_u64).unwrap_or(0);
            text(o.get("repeat").unwrap_or(&Value::Null)).repeat(usize::try_from(count).unwrap_or(0))
        }
        other => panic!("not a text: {other}"),
    }
}

/// The stream a case feeds, if it is a stream case.
fn input(case: &Value) -> Option<Vec<u8>> {
    if let Some(lines) = case.get("input_lines").and_then(Value::as_array) {
        return Some(lines.iter().map(|l| text(l) + "\n").collect::<String>().into_bytes());
    }
    if let Some(input) = case.get("input") {
        return Some(text(input).into_bytes());
    }
    let b64 = case.get("input_base64")?.as_str()?;
    Some(base64::engine::general_purpose::STANDARD.decode(b64).expect("standard base64"))
}

fn options(case: &Value) -> HepStreamOptions {
    let mut options = hep::options::hep_stream_options_default();
    let given = case.get("options").cloned().unwrap_or(Value::Null);
    options.strict = given.get("strict").and_then(Value::as_bool).unwrap_or(false);
    if let Some(max) = given.get("max_line_length").and_then(Value::as_u64) {
        options.max_line_bytes = max;
    }
    for (name, value) in given.get("limits").and_then(Value::as_object).into_iter().flatten() {
        let value = value.as_u64().expect("a limit is an integer");
        let l = &mut options.limits;
        let field = match name.as_str() {
            "max_turns" => &mut l.max_turns,
            "max_text_bytes" => &mut l.max_text_bytes,
            "max_tool_output_bytes" => &mut l.max_tool_output_bytes,
            "max_tools_per_turn" => &mut l.max_tools_per_turn,
            "max_followups" => &mut l.max_followups,
            "max_compactions_per_turn" => &mut l.max_compactions_per_turn,
            "max_tracked_calls" => &mut l.max_tracked_calls,
            "max_reports" => &mut l.max_reports,
            "max_retained_bytes" => &mut l.max_retained_bytes,
            other => panic!("unknown limit {other}"),
        };
        *field = value;
    }
    options
}

/// What a run gave: the frames' bytes, the halt (kind code, line, column) and the result.
#[derive(Debug, PartialEq)]
struct Outcome {
    frames: Vec<u8>,
    halt: Option<(i32, u64, u64)>,
    result: String,
}

fn direct(bytes: &[u8], options: StreamOptions, exit_code: Option<i32>) -> Outcome {
    let mut stream = Stream::new(options);
    let mut batch = FrameBatch::default();
    let mut halt = None;
    stream.feed_with(bytes, |event| match event {
        Event::Frame(received) => batch.push(&received),
        Event::Halted(e) => halt = Some((hep::HepErrorKind::from(e.kind()) as i32, e.line(), e.column())),
        Event::Violation(_) | Event::Skipped(_) => {}
    });
    let result = serde_json::to_string(&stream.finish(exit_code)).expect("a result serializes");
    Outcome { frames: batch.into_bytes(), halt, result }
}

fn through_the_abi(bytes: &[u8], chunk: usize, options: &HepStreamOptions, exit_code: Option<i32>) -> Outcome {
    let mut stream = null_mut();
    let (mut frames, mut halt) = (Vec::new(), None);
    // SAFETY: valid arguments throughout: a live stream, buffers that outlive each call,
    // out arguments to locals; everything handed out is freed once.
    unsafe {
        assert!(hep_stream_new(options, &mut stream, null_mut()));
        for piece in bytes.chunks(chunk.max(1)) {
            let mut batch = HepBatch { data: std::ptr::null(), len: 0, frames: 0 };
            let mut error: *mut HepError = null_mut();
            let ok = hep_stream_feed(stream, piece.as_ptr(), piece.len(), &mut batch, &mut error);
            if !batch.data.is_null() {
                frames.extend_from_slice(std::slice::from_raw_parts(batch.data, batch.len));
            }
            hep_batch_free(batch);
            if !ok {
                let e = &*error;
                halt = Some((e.kind as i32, e.line, e.column));
                hep_error_free(error);
            }
        }
        let mut result = HepString { ptr: null_mut(), len: 0 };
        assert!(hep_stream_finish(stream, exit_code.unwrap_or(0), exit_code.is_some(), &mut result, null_mut()));
        let json = std::slice::from_raw_parts(result.ptr.cast::<u8>(), result.len);
        let result_text = String::from_utf8(json.to_vec()).expect("the result is UTF-8");
        hep_string_free(result);
        hep_stream_free(stream);
        Outcome { frames, halt, result: result_text }
    }
}

#[test]
fn every_conformance_stream_reads_through_the_abi_as_in_the_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut cases = 0;
    for folder in ["stream", "stream/limits", "stream/reference", "hostile"] {
        let mut paths: Vec<_> =
            std::fs::read_dir(root.join(folder)).expect("the vectors").flatten().map(|e| e.path()).collect();
        paths.retain(|path| path.extension().is_some_and(|ext| ext == "json"));
        paths.sort();
        for path in paths {
            let case: Value = serde_json::from_slice(&std::fs::read(&path).expect("a case")).expect("JSON");
            let Some(bytes) = input(&case) else { continue };
            let options = options(&case);
            let exit_code = case.get("exit_code").and_then(Value::as_i64).map(|c| i32::try_from(c).expect("i32"));
            let want = direct(&bytes, options.into(), exit_code);
            for chunk in [bytes.len(), 1, 7] {
                let got = through_the_abi(&bytes, chunk, &options, exit_code);
                assert_eq!(got, want, "{} in chunks of {chunk}", path.display());
            }
            cases += 1;
        }
    }
    assert!(cases > 150, "only {cases} stream cases found");
}
