//! Every vector of `conformance/encode/` through `hep_encode_json`: the frame's JSON text
//! gives exactly the vector's line; refused input and arguments give their error kinds.

// A test's helpers fail it by panicking.
#![allow(clippy::expect_used, clippy::panic)]

use hep::HepString;
use hep::buffers::hep_string_free;
use hep::encode::hep_encode_json;
use hep::errors::{hep_error_free, hep_error_kind_name};
use hep::{HepError, HepText};
use serde_json::Value;
use std::ffi::CStr;
use std::path::Path;
use std::ptr::null_mut;

/// The line `hep_encode_json` writes for `json`, or the snake_case name of its error kind.
fn encode(json: &str) -> Result<String, String> {
    let mut line = HepString { ptr: null_mut(), len: 0 };
    let mut error: *mut HepError = null_mut();
    let text = HepText { ptr: json.as_ptr().cast(), len: json.len() };
    // SAFETY: `text` lends `json` for the call; both out places are valid.
    if unsafe { hep_encode_json(text, &mut line, &mut error) } {
        // SAFETY: a successful call wrote an owned string of `len` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(line.ptr.cast::<u8>(), line.len) };
        let out = String::from_utf8(bytes.to_vec()).expect("the line is UTF-8");
        // SAFETY: `line` came from the library and is freed once.
        unsafe { hep_string_free(line) };
        return Ok(out);
    }
    // SAFETY: a failed call wrote a boxed error; its kind's name is a static C string.
    let kind = unsafe { CStr::from_ptr(hep_error_kind_name((*error).kind as i32)) };
    let kind = kind.to_str().expect("kind names are ASCII").to_owned();
    // SAFETY: `error` came from the library and is freed once.
    unsafe { hep_error_free(error) };
    Err(kind)
}

#[test]
fn every_encode_vector_gives_its_line_through_the_abi() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/encode");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).expect("conformance/encode") {
        let path = entry.expect("an entry").path();
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("a vector")).expect("JSON");
        let frame = vector.get("frame").unwrap_or_else(|| panic!("{}: no frame", path.display()));
        let got = encode(&frame.to_string());
        let line = vector.get("line").and_then(Value::as_str);
        let line = line.unwrap_or_else(|| panic!("{}: no line", path.display()));
        assert_eq!(got, Ok(line.to_owned()), "{}", path.display());
        compared += 1;
    }
    assert!(compared > 0, "no encode vector in {}", dir.display());
}

#[test]
fn refused_arguments_are_invalid_argument() {
    assert_eq!(encode(r#"{"type":"later"}"#), Err("wrong_type".to_owned()));
    let mut error: *mut HepError = null_mut();
    let text = HepText { ptr: c"{}".as_ptr(), len: 2 };
    // SAFETY: a NULL `line_out` is refused before anything is written.
    assert!(!unsafe { hep_encode_json(text, null_mut(), &mut error) });
    // SAFETY: the failed call wrote a boxed error, freed once.
    let name = unsafe { CStr::from_ptr(hep_error_kind_name((*error).kind as i32)) };
    assert_eq!(name.to_str(), Ok("invalid_argument"));
    // SAFETY: as above.
    unsafe { hep_error_free(error) };
}
