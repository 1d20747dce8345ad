//! Arbitrary bytes as an `MBbloomCF` RDB value (in the wire form) through the cuckoo loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::cuckoo::value(data));
