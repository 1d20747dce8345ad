//! Arbitrary bytes as an `RSbloomCB` RDB value (in the wire form) through the counting
//! filter's loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::counting::value(data));
