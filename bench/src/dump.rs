//! `--dump-corpus DIR`: writes the seeded corpora as files, so the other languages' benches
//! measure the very bytes this crate measures.
//!
//! Layout: `DIR/<corpus>/corpus.json` (name, seed, scale, streams, frames, bytes), and per
//! stream `stream-NNNN.jsonl` (the HEP lines) and `stream-NNNN.inputs.jsonl` (the writer
//! inputs the frames do not hold, for replaying the stream through a writer).

use crate::Failure;
use crate::corpus::{Corpus, Profile};
use std::fs;
use std::path::Path;

/// Writes `corpus`, generated from `profile` at `scale`, under `dir`.
pub(crate) fn write(dir: &Path, profile: &Profile, scale: f64, corpus: &Corpus) -> Result<(), Failure> {
    let at = dir.join(corpus.name);
    let io = |e: std::io::Error| Failure(format!("{}: {e}", at.display()));
    fs::create_dir_all(&at).map_err(io)?;
    for (index, (stream, inputs)) in corpus.streams.iter().zip(&corpus.inputs).enumerate() {
        fs::write(at.join(format!("stream-{index:04}.jsonl")), stream).map_err(io)?;
        fs::write(at.join(format!("stream-{index:04}.inputs.jsonl")), inputs).map_err(io)?;
    }
    let manifest = serde_json::json!({
        "name": corpus.name,
        "seed": profile.seed,
        "scale": scale,
        "streams": corpus.streams.len(),
        "frames": corpus.frames,
        "bytes": corpus.bytes,
    });
    fs::write(at.join("corpus.json"), format!("{manifest:#}\n")).map_err(io)?;
    println!(
        "wrote {}: {} streams, {} frames, {} bytes",
        at.display(),
        corpus.streams.len(),
        corpus.frames,
        corpus.bytes
    );
    Ok(())
}
