//! Property tests of `hep-core`: frame round-trips, writer output against the validator,
//! chunking invariance of [`hep_core::Stream`], hostile input, the UTF-16 bounds and the
//! supervision state machine under any order of events.
//!
//! Run with `cargo test -p hep-core --test properties`. Failures are not persisted to disk;
//! proptest prints the minimal failing input.

#[path = "properties/strategies.rs"]
mod strategies;

#[path = "properties/script.rs"]
mod script;

#[path = "properties/frames.rs"]
mod frames;

#[path = "properties/writer.rs"]
mod writer;

#[path = "properties/chunking.rs"]
mod chunking;

#[path = "properties/hostile.rs"]
mod hostile;

#[path = "properties/bounds.rs"]
mod bounds;

#[path = "properties/supervise.rs"]
mod supervise;
