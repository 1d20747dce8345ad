//! Arbitrary bytes as a `TDIS-TYPE` RDB value (in the wire form) through the t-digest
//! loader; an accepted value answers every query and re-encodes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rsbloom_core::testkit::tdigest::value(data));
