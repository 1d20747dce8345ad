//! Arbitrary bytes as a LOADCHUNK session: a header, then chunks at iterators.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::bloom::loadchunk_session(data));
