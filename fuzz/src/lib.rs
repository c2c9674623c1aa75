//! The invariants the fuzz targets check, one module per target.
//!
//! Each module has a `check(data)` that panics when an invariant breaks. The libFuzzer
//! entry points in `fuzz_targets/` only call it, and `hep-core/tests/fuzz_regressions.rs`
//! includes the same files to replay `fuzz/regressions/<target>/*` on stable Rust.

pub mod decode_line;
pub mod stream_split;
pub mod writer_session;
