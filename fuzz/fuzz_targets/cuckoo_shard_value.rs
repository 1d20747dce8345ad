//! Arbitrary bytes as an `RSbloomCF` RDB value (a shard, in the wire form) through its loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::cuckoo::shard_value(data));
