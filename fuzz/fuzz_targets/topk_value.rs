//! Arbitrary bytes as a `TopK-TYPE` RDB value (in the wire form) through the Top-K loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::topk::value(data));
