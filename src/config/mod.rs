//! Module configs (`CONFIG GET/SET bf.<name>`, and RedisBloom 8's names for the eight it has
//! too) and `loadmodule` arguments.
//!
//! Values live in atomics read on every command. Redis has no float config type, so error
//! rates are string configs validated on every set. `settings` holds the eight settings
//! RedisBloom 8 has too, `load_args` the load arguments, `register` what the server is told.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, Ordering};

mod load_args;
mod register;
pub mod settings;
pub mod valkey;

pub use load_args::apply_load_args;
pub use register::register;

use redis_module::configuration::{ConfigurationContext, ConfigurationValue};
use redis_module::{enum_configuration, RedisError, RedisString};

use rsbloom_core::bloom::Scheme;
use rsbloom_core::cuckoo;
use rsbloom_core::memory::limit::GrowthLimit;

pub const DEFAULT_ERROR_RATE: f64 = 0.01;
pub const DEFAULT_INITIAL_SIZE: i64 = 100;
pub const DEFAULT_EXPANSION: i64 = 2;
pub const DEFAULT_MAX_FILTER_BYTES: i64 = 512 << 20;
pub const DEFAULT_CHUNK_BYTES: i64 = 16 << 20;
pub const MIN_BYTES: i64 = 64;
pub const MAX_FILTER_BYTES_LIMIT: i64 = 1 << 40;
pub const MAX_CHUNK_BYTES: i64 = 512 << 20;

// Cuckoo filters: RedisBloom's defaults for CF.RESERVE's options and for the filters
// CF.ADD / CF.INSERT create, and its `CF_MAX_EXPANSIONS`.
pub const DEFAULT_CF_BUCKET_SIZE: i64 = cuckoo::filter::DEFAULT_BUCKET_SIZE as i64;
pub const DEFAULT_CF_INITIAL_SIZE: i64 = cuckoo::filter::DEFAULT_CAPACITY as i64;
pub const DEFAULT_CF_MAX_ITERATIONS: i64 = cuckoo::filter::DEFAULT_MAX_ITERATIONS as i64;
pub const DEFAULT_CF_EXPANSION: i64 = cuckoo::filter::DEFAULT_EXPANSION as i64;
pub const DEFAULT_CF_MAX_EXPANSIONS: i64 = cuckoo::filter::DEFAULT_MAX_EXPANSIONS as i64;
pub const CF_MAX_BUCKET_SIZE: i64 = cuckoo::meta::MAX_BUCKET_SIZE as i64;
pub const CF_MAX_ITERATIONS: i64 = u16::MAX as i64;
pub const CF_MAX_EXPANSION: i64 = cuckoo::filter::MAX_EXPANSION as i64;
/// RedisBloom 8's bound. A filter holds at most `cuckoo::meta::MAX_FILTERS` (65535) sub-filters
/// whatever this says, as RedisBloom's (it counts them in 16 bits).
pub const CF_MAX_EXPANSIONS_LIMIT: i64 = 65536;
/// The largest initial sizes, RedisBloom 8's (as its commands' capacity limits).
pub const MAX_INITIAL_SIZE: i64 = 1 << 30;
pub const CF_MAX_INITIAL_SIZE: i64 = 1 << 30;
// Counting Bloom filters: what CBF.ADD / CBF.MADD create a missing key with.
pub const DEFAULT_CBF_INITIAL_SIZE: i64 = 1000;
pub const DEFAULT_CBF_COUNTER_BITS: i64 =
    rsbloom_core::counting::filter::DEFAULT_COUNTER_BITS as i64;
/// The largest counting filter initial size (as CBF.RESERVE's capacity limit).
pub const CBF_MAX_INITIAL_SIZE: i64 = rsbloom_core::bloom::meta::MAX_CAPACITY as i64;
// Sliding-window filters: what APBF.ADD / APBF.MADD create a missing key with (a COUNT
// window).
pub const DEFAULT_APBF_CAPACITY: i64 = 1000;
pub const APBF_MAX_CAPACITY: i64 = rsbloom_core::bloom::meta::MAX_CAPACITY as i64;

/// The error rate of implicitly created filters, stored as the bits of an `f64`.
pub struct ErrorRate(AtomicU64);

impl ErrorRate {
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    fn store(&self, p: f64) {
        self.0.store(p.to_bits(), Ordering::Relaxed);
    }
}

/// Parses an error rate in (0, 1), or says why not.
pub fn parse_error_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "error rate must be a number in the range (0, 1), got '{text}'"
        )),
    }
}

impl ConfigurationValue<RedisString> for ErrorRate {
    fn get(&self, _: &ConfigurationContext) -> RedisString {
        RedisString::create(None, ErrorRate::get(self).to_string().as_str())
    }
    fn set(&self, _: &ConfigurationContext, value: RedisString) -> Result<(), RedisError> {
        let text = value.try_as_str()?;
        self.store(parse_error_rate(text).map_err(RedisError::String)?);
        Ok(())
    }
}

// `0.01f64.to_bits()`, spelled out because `to_bits` is not const on every toolchain.
pub static ERROR_RATE: ErrorRate = ErrorRate(AtomicU64::new(0x3F84_7AE1_47AE_147B));
pub static INITIAL_SIZE: AtomicI64 = AtomicI64::new(DEFAULT_INITIAL_SIZE);
pub static EXPANSION: AtomicI64 = AtomicI64::new(DEFAULT_EXPANSION);
pub static MAX_FILTER_BYTES: AtomicI64 = AtomicI64::new(DEFAULT_MAX_FILTER_BYTES);
pub static CHUNK_BYTES: AtomicI64 = AtomicI64::new(DEFAULT_CHUNK_BYTES);
pub static BATCH_PREFETCH: AtomicBool = AtomicBool::new(true);
pub static KEYED_DEFAULT: AtomicBool = AtomicBool::new(false);
pub static BLOCKED_DEFAULT: AtomicBool = AtomicBool::new(false);
pub static CF_BUCKET_SIZE: AtomicI64 = AtomicI64::new(DEFAULT_CF_BUCKET_SIZE);
pub static CF_INITIAL_SIZE: AtomicI64 = AtomicI64::new(DEFAULT_CF_INITIAL_SIZE);
pub static CF_MAX_ITERATIONS_CONFIG: AtomicI64 = AtomicI64::new(DEFAULT_CF_MAX_ITERATIONS);
pub static CF_EXPANSION: AtomicI64 = AtomicI64::new(DEFAULT_CF_EXPANSION);
pub static CF_MAX_EXPANSIONS: AtomicI64 = AtomicI64::new(DEFAULT_CF_MAX_EXPANSIONS);
pub static CBF_ERROR_RATE: ErrorRate = ErrorRate(AtomicU64::new(0x3F84_7AE1_47AE_147B));
pub static CBF_INITIAL_SIZE: AtomicI64 = AtomicI64::new(DEFAULT_CBF_INITIAL_SIZE);
pub static CBF_COUNTER_BITS: CounterBits = CounterBits(AtomicI64::new(DEFAULT_CBF_COUNTER_BITS));
pub static APBF_ERROR_RATE: ErrorRate = ErrorRate(AtomicU64::new(0x3F84_7AE1_47AE_147B));
pub static APBF_CAPACITY: AtomicI64 = AtomicI64::new(DEFAULT_APBF_CAPACITY);

/// `bf.cbf-counter-bits`: 4 or 8, refused otherwise on every set.
pub struct CounterBits(AtomicI64);

/// Parses a counter width, 4 or 8, or says why not.
fn parse_counter_bits(v: i64) -> Result<i64, String> {
    match v {
        4 | 8 => Ok(v),
        _ => Err(format!("cbf-counter-bits must be 4 or 8, got {v}")),
    }
}

impl ConfigurationValue<i64> for CounterBits {
    fn get(&self, _: &ConfigurationContext) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
    fn set(&self, _: &ConfigurationContext, value: i64) -> Result<(), RedisError> {
        let v = parse_counter_bits(value).map_err(RedisError::String)?;
        self.0.store(v, Ordering::Relaxed);
        Ok(())
    }
}

/// What CBF.ADD / CBF.MADD create a missing key with.
#[derive(Debug, Clone, Copy)]
pub struct CbfDefaults {
    pub error_rate: f64,
    pub capacity: u64,
    pub counter_bits: u32,
}

pub fn cbf_defaults() -> CbfDefaults {
    CbfDefaults {
        error_rate: CBF_ERROR_RATE.get(),
        capacity: CBF_INITIAL_SIZE.load(Ordering::Relaxed) as u64,
        counter_bits: CBF_COUNTER_BITS.0.load(Ordering::Relaxed) as u32,
    }
}

/// What APBF.ADD / APBF.MADD create a missing key with: a COUNT window of this capacity
/// and error rate.
pub fn apbf_defaults() -> (f64, u64) {
    (
        APBF_ERROR_RATE.get(),
        APBF_CAPACITY.load(Ordering::Relaxed) as u64,
    )
}

enum_configuration! {
    /// How `bf.new-filter-format` spells the Bloom schemes (its values, hence lower case).
    /// Only the config's spelling: nothing outside this file sees it, it is a [`Scheme`]
    /// everywhere else.
    #[allow(non_camel_case_types)]
    #[derive(Debug, PartialEq, Eq, Copy)]
    pub enum FormatName {
        guava = 0,
        redisbloom = 1,
        valkey = 2,
    }
}

impl FormatName {
    fn scheme(self) -> Scheme {
        match self {
            // valkey: BF.RESERVE / ADD / MADD / INSERT create valkey-bloom's type
            // (commands/bf/valkey.rs); what only rsbloom creates stays Guava's.
            FormatName::guava | FormatName::valkey => Scheme::Guava,
            FormatName::redisbloom => Scheme::RedisBloom,
        }
    }

    /// The value named `text` (any case), as `loadmodule` arguments give it.
    fn parse(text: &str) -> Option<FormatName> {
        let (names, values) = FormatName::guava.get_options();
        let i = names.iter().position(|n| n.eq_ignore_ascii_case(text))?;
        FormatName::try_from(values[i]).ok()
    }
}

/// `bf.new-filter-format`, held as its number so every create reads it without a lock.
pub struct FormatConfig(AtomicI32);

impl FormatConfig {
    fn store(&self, value: FormatName) {
        self.0.store(value.into(), Ordering::Relaxed);
    }
    fn load(&self) -> FormatName {
        FormatName::try_from(self.0.load(Ordering::Relaxed)).unwrap_or(FormatName::guava)
    }
}

impl ConfigurationValue<FormatName> for FormatConfig {
    fn get(&self, _: &ConfigurationContext) -> FormatName {
        self.load()
    }
    fn set(&self, _: &ConfigurationContext, value: FormatName) -> Result<(), RedisError> {
        self.store(value);
        Ok(())
    }
}

pub static NEW_FILTER_FORMAT: FormatConfig = FormatConfig(AtomicI32::new(0));

/// `bf.new-filter-format valkey`: BF.RESERVE, ADD, MADD and INSERT create valkey-bloom's
/// type, `bloomfltr`.
pub fn new_filters_valkey() -> bool {
    NEW_FILTER_FORMAT.load() == FormatName::valkey
}

/// The scheme (and so the type) of filters created from now on.
pub fn new_filter_scheme() -> Scheme {
    NEW_FILTER_FORMAT.load().scheme()
}

/// Parameters of a filter created implicitly by ADD, MADD or INSERT (RESERVE takes the
/// scheme and expansion from here too).
pub struct Defaults {
    pub scheme: Scheme,
    pub error_rate: f64,
    pub capacity: u64,
    pub expansion: u32,
    /// `bf.keyed-default` and `bf.blocked-default`: filters in our own format made without
    /// the option are keyed / blocked.
    pub keyed: bool,
    pub blocked: bool,
}

pub fn defaults() -> Defaults {
    Defaults {
        scheme: new_filter_scheme(),
        error_rate: ERROR_RATE.get(),
        capacity: INITIAL_SIZE.load(Ordering::Relaxed) as u64,
        expansion: EXPANSION.load(Ordering::Relaxed) as u32,
        keyed: KEYED_DEFAULT.load(Ordering::Relaxed),
        blocked: BLOCKED_DEFAULT.load(Ordering::Relaxed),
    }
}

/// The parameters of a cuckoo filter: CF.RESERVE's defaults, and what CF.ADD / CF.INSERT
/// create a missing key with (INSERT's CAPACITY overrides the capacity).
#[derive(Debug, Clone, Copy)]
pub struct CfDefaults {
    pub capacity: u64,
    pub bucket_size: u8,
    pub max_iterations: u16,
    pub expansion: u16,
}

pub fn cf_defaults() -> CfDefaults {
    // The config ranges keep each value within its type.
    CfDefaults {
        capacity: CF_INITIAL_SIZE.load(Ordering::Relaxed) as u64,
        bucket_size: CF_BUCKET_SIZE.load(Ordering::Relaxed) as u8,
        max_iterations: CF_MAX_ITERATIONS_CONFIG.load(Ordering::Relaxed) as u16,
        expansion: CF_EXPANSION.load(Ordering::Relaxed) as u16,
    }
}

/// What a cuckoo filter may grow to: `bytes` (`bf.max-filter-bytes`, or none, see
/// [`crate::size_limit`]) and `bf.cf-max-expansions`.
pub fn cf_limits<B: GrowthLimit>(bytes: B) -> cuckoo::Limits<B> {
    cuckoo::Limits {
        bytes,
        max_expansions: CF_MAX_EXPANSIONS.load(Ordering::Relaxed) as u64,
    }
}

/// The largest BUCKETSIZE CF.RESERVE takes: 255, or half `bf.cf-initial-size` when less.
pub fn cf_bucket_size_max() -> i64 {
    settings::Setting::CfBucketSize.int_range().1
}

/// The smallest CAPACITY CF.INSERT takes: twice `bf.cf-bucket-size`.
pub fn cf_initial_size_min() -> i64 {
    settings::Setting::CfInitialSize.int_range().0
}

/// `bf.max-filter-bytes`.
pub fn max_filter_bytes() -> u64 {
    MAX_FILTER_BYTES.load(Ordering::Relaxed) as u64
}

/// `bf.batch-prefetch`: multi-item commands prefetch probe lines ahead (on by default;
/// switching it off exists to measure what it gains).
pub fn batch_prefetch() -> bool {
    BATCH_PREFETCH.load(Ordering::Relaxed)
}

/// `bf.chunk-bytes`.
pub fn chunk_bytes() -> u64 {
    CHUNK_BYTES.load(Ordering::Relaxed) as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn default_error_rate_bits_are_0_01() {
        assert_eq!(
            f64::from_bits(0x3F84_7AE1_47AE_147B),
            super::DEFAULT_ERROR_RATE
        );
    }
}
