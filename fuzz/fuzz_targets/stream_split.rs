//! libFuzzer entry point; the invariants are in `hep_fuzz::stream_split`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hep_fuzz::stream_split::check(data));
