//! valkey-bloom's configs (`bf.bloom-*`), which shape the filters made in its format
//! (`bloomfltr`): their values, read by the valkey dialect of the BF commands. Names,
//! defaults and ranges are valkey-bloom 1.0's, so its valkey.conf starts rsbloom.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

use redis_module::configuration::{
    register_bool_configuration, register_i64_configuration, register_string_configuration,
    ConfigurationContext, ConfigurationFlags, ConfigurationValue,
};
use redis_module::{Context, RedisError, RedisString};
use rsbloom_core::error::ValkeyError;

pub const CAPACITY_DEFAULT: i64 = 100;
pub const EXPANSION_DEFAULT: i64 = 2;
pub const FP_RATE_DEFAULT: f64 = 0.01;
pub const TIGHTENING_DEFAULT: f64 = 0.5;
pub const MEMORY_LIMIT_DEFAULT: i64 = 128 * 1024 * 1024;

pub static CAPACITY: AtomicI64 = AtomicI64::new(CAPACITY_DEFAULT);
pub static EXPANSION: AtomicI64 = AtomicI64::new(EXPANSION_DEFAULT);
pub const CAPACITY_MAX: i64 = i64::MAX;
pub const EXPANSION_MAX: i64 = u32::MAX as i64;
pub const MEMORY_LIMIT_MAX: i64 = i64::MAX;

/// A ratio in (0, 1) held as f64 bits: the error rate or the tightening ratio. valkey-bloom
/// takes 0 too, which its filters cannot be made with (the crate panics on an error rate of
/// 0; a tightening ratio of 0 makes every scale-out fail): refused here.
pub struct Ratio {
    bits: AtomicU64,
    range_error: ValkeyError,
}

impl Ratio {
    pub fn get(&self) -> f64 {
        f64::from_bits(self.bits.load(Ordering::Relaxed))
    }
    /// Sets the value from its text (Rust's float grammar, as valkey-bloom reads it).
    pub fn set_text(&self, text: &str) -> Result<(), String> {
        let x = text
            .parse::<f64>()
            .map_err(|_| "Invalid floating-point value".to_string())?;
        if !(x > 0.0 && x < 1.0) {
            return Err(self.range_error.to_string());
        }
        self.bits.store(x.to_bits(), Ordering::Relaxed);
        Ok(())
    }
}

impl ConfigurationValue<RedisString> for Ratio {
    fn get(&self, _: &ConfigurationContext) -> RedisString {
        RedisString::create(None, Ratio::get(self).to_string().as_str())
    }
    fn set(&self, _: &ConfigurationContext, value: RedisString) -> Result<(), RedisError> {
        self.set_text(value.try_as_str()?)
            .map_err(RedisError::String)
    }
}

// 0.01 and 0.5 as f64 bits.
pub static FP_RATE: Ratio = Ratio {
    bits: AtomicU64::new(0x3F84_7AE1_47AE_147B),
    range_error: ValkeyError::ErrorRateRange,
};
pub static TIGHTENING: Ratio = Ratio {
    bits: AtomicU64::new(0x3FE0_0000_0000_0000),
    range_error: ValkeyError::TighteningRatioRange,
};
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
    FP_RATE.get()
}
pub fn tightening() -> f64 {
    TIGHTENING.get()
}
pub fn use_random_seed() -> bool {
    USE_RANDOM_SEED.load(Ordering::Relaxed)
}
/// `bf.bloom-memory-usage-limit` in bytes.
pub fn memory_limit() -> u64 {
    MEMORY_LIMIT.load(Ordering::Relaxed).max(0) as u64
}

fn parse_int(name: &str, text: &str, min: i64, max: i64) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{name} must be an integer in [{min}, {max}], got '{text}'"
        )),
    }
}

fn parse_bool(name: &str, text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!("{name} must be yes or no, got '{text}'")),
    }
}

/// A `loadmodule` argument of valkey-bloom's (`bloom-capacity 1000`, also `bf.`-prefixed):
/// Ok(false) when `name` is none of them.
pub fn apply_load_arg(name: &str, value: &str) -> Result<bool, String> {
    let lower = name.to_ascii_lowercase().replace('_', "-");
    let bare = lower.strip_prefix("bf.").unwrap_or(&lower);
    match bare {
        "bloom-capacity" => {
            CAPACITY.store(parse_int(name, value, 1, CAPACITY_MAX)?, Ordering::Relaxed)
        }
        "bloom-expansion" => {
            EXPANSION.store(parse_int(name, value, 0, EXPANSION_MAX)?, Ordering::Relaxed)
        }
        "bloom-memory-usage-limit" => MEMORY_LIMIT.store(
            parse_int(name, value, 0, MEMORY_LIMIT_MAX)?,
            Ordering::Relaxed,
        ),
        "bloom-fp-rate" => FP_RATE.set_text(value)?,
        "bloom-tightening-ratio" => TIGHTENING.set_text(value)?,
        "bloom-use-random-seed" => {
            USE_RANDOM_SEED.store(parse_bool(name, value)?, Ordering::Relaxed)
        }
        "bloom-defrag-enabled" => DEFRAG.store(parse_bool(name, value)?, Ordering::Relaxed),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Registers valkey-bloom's configs as `bf.bloom-*`, their defaults what the load arguments
/// left.
pub fn register(ctx: &Context) {
    let flags = || ConfigurationFlags::DEFAULT;
    for (name, value, min, max) in [
        ("bloom-capacity", &CAPACITY, 1, CAPACITY_MAX),
        ("bloom-expansion", &EXPANSION, 0, EXPANSION_MAX),
        (
            "bloom-memory-usage-limit",
            &MEMORY_LIMIT,
            0,
            MEMORY_LIMIT_MAX,
        ),
    ] {
        let default = value.load(Ordering::Relaxed);
        register_i64_configuration(ctx, name, value, default, min, max, flags(), None);
    }
    for (name, ratio) in [
        ("bloom-fp-rate", &FP_RATE),
        ("bloom-tightening-ratio", &TIGHTENING),
    ] {
        let default = ratio.get().to_string();
        register_string_configuration(ctx, name, ratio, &default, flags(), None);
    }
    for (name, value) in [
        ("bloom-use-random-seed", &USE_RANDOM_SEED),
        ("bloom-defrag-enabled", &DEFRAG),
    ] {
        let default = value.load(Ordering::Relaxed);
        register_bool_configuration(ctx, name, value, default, flags(), None);
    }
}
