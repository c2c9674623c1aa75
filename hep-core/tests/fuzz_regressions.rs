//! Replays every input kept under `fuzz/regressions/<target>/` (crashes the fuzz targets
//! found, and inputs worth keeping) through the very invariants the targets check, so that
//! stable Rust and `make test` run them. The invariants live in `fuzz/src/`; see
//! `docs/reliability.md` for the targets and how to run them.
// The modules are the fuzz crate's (public items, panicking checks), compiled here as test code.
#![allow(unreachable_pub, missing_docs, clippy::panic, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

#[path = "../../fuzz/src/decode_line.rs"]
mod decode_line;
#[path = "../../fuzz/src/stream_split.rs"]
mod stream_split;
#[path = "../../fuzz/src/writer_session.rs"]
mod writer_session;

/// The kept inputs of `target`, sorted by name.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .unwrap();
    files.retain(|path| path.is_file());
    files.sort();
    files.into_iter().map(|path| (path.clone(), std::fs::read(&path).unwrap())).collect()
}

/// Runs `check` on each kept input of `target`, naming the file that fails.
fn replay(target: &str, check: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no regression inputs for {target}");
    for (path, data) in inputs {
        if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
            eprintln!("regression input {} fails", path.display());
            std::panic::resume_unwind(panic);
        }
    }
}

#[test]
fn decode_line_regressions() {
    replay("decode_line", decode_line::check);
}

#[test]
fn stream_split_regressions() {
    replay("stream_split", stream_split::check);
}

#[test]
fn writer_session_regressions() {
    replay("writer_session", writer_session::check);
}
