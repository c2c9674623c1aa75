//! libFuzzer entry point; the invariants are in `hep_fuzz::decode_line`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hep_fuzz::decode_line::check(data));
