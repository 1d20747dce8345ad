//! Arbitrary bytes as an RDB value (in the wire form) through `rdb::load`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::bloom::rdb_value(data));
