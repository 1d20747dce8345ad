//! Arbitrary bytes as a CF.LOADCHUNK session: a header, then chunks at iterators.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::cuckoo::loadchunk_session(data));
