//! Arbitrary bytes as an `MBbloom--` RDB value (in the wire form) through RedisBloom's loader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::bloom::redisbloom_value(data));
