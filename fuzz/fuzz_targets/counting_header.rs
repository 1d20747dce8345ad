//! Arbitrary bytes as a CBF.LOADCHUNK header through the counting filter's header decoder.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::counting::header(data));
