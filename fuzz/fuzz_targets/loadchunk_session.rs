//! Arbitrary bytes as a LOADCHUNK session: a header, then chunks at iterators.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom::codec::harness::loadchunk_session(data));
