//! Arbitrary bytes as an RDB value (in the wire form) through `rdb::load`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom::codec::harness::rdb_value(data));
