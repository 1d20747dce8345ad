//! Arbitrary bytes as valkey-bloom's `bloomfltr` RDB value (byte 0 even) or BF.LOAD blob
//! (odd) through the decoders.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::valkey::value(data));
