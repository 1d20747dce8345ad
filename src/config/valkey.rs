//! valkey-bloom's configs (`bf.bloom-*`), which shape the filters made in its format
//! (`bloomfltr`): their values, read by the valkey dialect of the BF commands. Names,
//! defaults and ranges are valkey-bloom 1.0's, so its valkey.conf starts rsbloom.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

pub const CAPACITY_DEFAULT: i64 = 100;
pub const EXPANSION_DEFAULT: i64 = 2;
pub const FP_RATE_DEFAULT: f64 = 0.01;
pub const TIGHTENING_DEFAULT: f64 = 0.5;
pub const MEMORY_LIMIT_DEFAULT: i64 = 128 * 1024 * 1024;

pub static CAPACITY: AtomicI64 = AtomicI64::new(CAPACITY_DEFAULT);
pub static EXPANSION: AtomicI64 = AtomicI64::new(EXPANSION_DEFAULT);
/// f64 bits.
pub static FP_RATE: AtomicU64 = AtomicU64::new(0x3F84_7AE1_47AE_147B);
pub static TIGHTENING: AtomicU64 = AtomicU64::new(0x3FE0_0000_0000_0000);
pub static USE_RANDOM_SEED: AtomicBool = AtomicBool::new(true);
pub static MEMORY_LIMIT: AtomicI64 = AtomicI64::new(MEMORY_LIMIT_DEFAULT);
/// Kept for valkey-bloom's configuration files; rsbloom's defragmentation of a `bloomfltr`
/// value moves only its box, whatever this says.
pub static DEFRAG: AtomicBool = AtomicBool::new(true);

pub fn capacity() -> i64 {
    CAPACITY.load(Ordering::Relaxed)
}
pub fn expansion() -> u32 {
    EXPANSION.load(Ordering::Relaxed) as u32
}
pub fn fp_rate() -> f64 {
    f64::from_bits(FP_RATE.load(Ordering::Relaxed))
}
pub fn tightening() -> f64 {
    f64::from_bits(TIGHTENING.load(Ordering::Relaxed))
}
pub fn use_random_seed() -> bool {
    USE_RANDOM_SEED.load(Ordering::Relaxed)
}
/// `bf.bloom-memory-usage-limit` in bytes.
pub fn memory_limit() -> u64 {
    MEMORY_LIMIT.load(Ordering::Relaxed).max(0) as u64
}

/// Set by `bf.new-filter-format valkey`: missing keys are created as `bloomfltr`.
pub static NEW_FILTERS: AtomicBool = AtomicBool::new(false);

pub fn new_filters_valkey() -> bool {
    NEW_FILTERS.load(Ordering::Relaxed)
}
