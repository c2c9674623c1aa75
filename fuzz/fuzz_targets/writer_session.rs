//! libFuzzer entry point; the invariants are in `hep_fuzz::writer_session`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hep_fuzz::writer_session::check(data));
