//! Arbitrary bytes as an `RSbloomAP` RDB value (in the wire form) through the
//! sliding-window filter's loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::window::harness::value(data));
