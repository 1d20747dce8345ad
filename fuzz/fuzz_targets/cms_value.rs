//! Arbitrary bytes as a `CMSk-TYPE` RDB value (one byte of encoding version, then the value
//! in the wire form) through the Count-Min Sketch loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::cms::value(data));
