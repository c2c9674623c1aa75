//! Writes what the bindings restate of hep-core's frame model, from the Rust types: the
//! Python stubs' frame classes, the TypeScript frame union and Node's wire table, the Swift
//! frame declarations and batch reader, the uniffi mirrors, the Go frame structs and batch
//! reader, and hep-core's batch encoder.
//!
//! `make codegen` (`cargo run -p hep-codegen -- write`) writes every file; `cargo test -p
//! hep-codegen` fails when one on disk differs from what would be written.

mod batch;
mod go;
pub mod model;
mod node;
mod python;
mod swift;
mod text;

use model::{Model, Problem};
use std::path::{Path, PathBuf};

/// A file the generators write: its path below the repository root and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// Path relative to the repository root.
    pub path: PathBuf,
    /// The whole file, its first line saying it is generated.
    pub contents: String,
}

/// Every generated file, from hep-core's model.
pub fn generate() -> Result<Vec<Generated>, Problem> {
    let model = Model::read()?;
    let mut files = Vec::new();
    files.extend(python::files(&model));
    files.extend(node::files(&model));
    files.extend(swift::files(&model));
    files.extend(batch::files(&model));
    files.extend(go::files(&model));
    Ok(files)
}

/// The repository root (the parent of this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The generated files whose copy under `root` differs from `files` (or is missing).
pub fn stale(root: &Path, files: &[Generated]) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|f| std::fs::read_to_string(root.join(&f.path)).ok().as_deref() != Some(f.contents.as_str()))
        .map(|f| f.path.clone())
        .collect()
}
