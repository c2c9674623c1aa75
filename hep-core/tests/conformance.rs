//! Runs every conformance vector under `conformance/` (the format is in
//! `conformance/README.md`).
//!
//! One test per folder: each runs every case file of its folder, collects all failures
//! (case path and a diff) and fails at the end listing them. A folder without cases, a
//! stray file and an unknown `op` or `call` fail too, so the suite never passes vacuously.
//! `cargo test -p hep-core --test conformance -- --nocapture` prints the count per folder.

#[path = "conformance/mod.rs"]
mod support;

#[test]
fn encode() {
    support::run_group("encode");
}

#[test]
fn decode() {
    support::run_group("decode");
}

#[test]
fn reject() {
    support::run_group("reject");
}

#[test]
fn bounds() {
    support::run_group("bounds");
}

#[test]
fn writer() {
    support::run_group("writer");
}

#[test]
fn stream() {
    support::run_group("stream");
}

#[test]
fn layout() {
    support::check_layout();
}
