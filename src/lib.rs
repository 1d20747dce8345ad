//! rsbloom: a Redis and Valkey module (named `bf`) of seven probabilistic families: Bloom
//! filters (`BF.*`, of a Guava-compatible type or RedisBloom's), RedisBloom's cuckoo filters
//! (`CF.*`), Count-Min Sketches (`CMS.*`), Top-K (`TOPK.*`) and t-digests (`TDIGEST.*`), bit
//! for bit, and two of its own: counting Bloom filters (`CBF.*`) and sliding-window filters
//! (`APBF.*`).
//!
//! The structures live in the `rsbloom-core` crate (no Redis types); this crate is the thin
//! Redis skin over it: `commands`, `datatype`, `config`, `info` (the INFO sections) and
//! `server_options`. This file only registers them with the server.

pub mod alloc;
pub mod commands;
pub mod config;
pub mod datatype;
pub mod info;
mod name_clash;
pub mod server_options;
pub mod size_limit;

use std::ffi::CStr;

use redis_module::configuration::ConfigurationFlags;
use redis_module::{redis_module, Context, RedisString, Status};

use config::{
    APBF_CAPACITY, APBF_ERROR_RATE, BATCH_PREFETCH, CBF_COUNTER_BITS, CBF_ERROR_RATE,
    CBF_INITIAL_SIZE, CF_BUCKET_SIZE, CF_EXPANSION, CF_INITIAL_SIZE, CF_MAX_EXPANSIONS,
    CF_MAX_ITERATIONS_CONFIG, CHUNK_BYTES, ERROR_RATE, EXPANSION, INITIAL_SIZE, MAX_FILTER_BYTES,
    NEW_FILTER_FORMAT,
};
use datatype::bloom::{BLOOM_TYPE, REDISBLOOM_TYPE};
use datatype::cms::CMS_TYPE;
use datatype::counting::COUNTING_TYPE;
use datatype::cuckoo::CUCKOO_TYPE;
use datatype::tdigest::TDIGEST_TYPE;
use datatype::topk::TOPK_TYPE;
use datatype::window::WINDOW_TYPE;

/// The version `MODULE LIST` reports: that of the RedisBloom release whose commands, replies
/// and formats rsbloom follows (8.2.3), as `MAJOR*10000 + MINOR*100 + PATCH`, so clients that
/// gate features on the `bf` module's version (redis-py, ...) read it right. rsbloom's own
/// version is the crate's, shown as `since` in COMMAND DOCS.
pub const MODULE_VERSION: i32 = 80203;

/// The version as COMMAND DOCS shows it in `since`.
const SINCE: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => c"0",
    };

fn init(ctx: &Context, args: &[RedisString]) -> Status {
    name_clash::reached_init();
    server_options::declare_options(ctx);
    let texts: Option<Vec<&str>> = args.iter().map(|a| a.try_as_str().ok()).collect();
    let result = texts
        .ok_or_else(|| "load arguments must be UTF-8".to_string())
        .and_then(|t| config::apply_load_args(&t))
        .and_then(|()| commands::register::register(ctx, SINCE))
        .and_then(|()| info::register(ctx));
    match result {
        Ok(()) => Status::Ok,
        Err(e) => {
            ctx.log_warning(&format!("bf: {e}"));
            Status::Err
        }
    }
}

redis_module! {
    name: "bf",
    version: MODULE_VERSION,
    allocator: (alloc::ModuleAlloc, alloc::ModuleAlloc),
    data_types: [BLOOM_TYPE, REDISBLOOM_TYPE, CUCKOO_TYPE, CMS_TYPE, TOPK_TYPE, TDIGEST_TYPE, COUNTING_TYPE, WINDOW_TYPE],
    init: init,
    configurations: [
        i64: [
            ["initial-size", &INITIAL_SIZE, config::DEFAULT_INITIAL_SIZE, 1, config::MAX_INITIAL_SIZE, ConfigurationFlags::DEFAULT, None],
            ["expansion-factor", &EXPANSION, config::DEFAULT_EXPANSION, 0, rsbloom_core::bloom::meta::MAX_EXPANSION as i64, ConfigurationFlags::DEFAULT, None],
            ["max-filter-bytes", &MAX_FILTER_BYTES, config::DEFAULT_MAX_FILTER_BYTES, config::MIN_BYTES, config::MAX_FILTER_BYTES_LIMIT, ConfigurationFlags::DEFAULT, None],
            ["chunk-bytes", &CHUNK_BYTES, config::DEFAULT_CHUNK_BYTES, config::MIN_BYTES, config::MAX_CHUNK_BYTES, ConfigurationFlags::DEFAULT, None],
            ["cf-bucket-size", &CF_BUCKET_SIZE, config::DEFAULT_CF_BUCKET_SIZE, 1, config::CF_MAX_BUCKET_SIZE, ConfigurationFlags::DEFAULT, None],
            ["cf-initial-size", &CF_INITIAL_SIZE, config::DEFAULT_CF_INITIAL_SIZE, config::CF_MIN_INITIAL_SIZE, config::CF_MAX_INITIAL_SIZE, ConfigurationFlags::DEFAULT, None],
            ["cf-max-iterations", &CF_MAX_ITERATIONS_CONFIG, config::DEFAULT_CF_MAX_ITERATIONS, 1, config::CF_MAX_ITERATIONS, ConfigurationFlags::DEFAULT, None],
            ["cf-expansion-factor", &CF_EXPANSION, config::DEFAULT_CF_EXPANSION, 0, config::CF_MAX_EXPANSION, ConfigurationFlags::DEFAULT, None],
            ["cf-max-expansions", &CF_MAX_EXPANSIONS, config::DEFAULT_CF_MAX_EXPANSIONS, 1, config::CF_MAX_EXPANSIONS_LIMIT, ConfigurationFlags::DEFAULT, None],
            ["cbf-initial-size", &CBF_INITIAL_SIZE, config::DEFAULT_CBF_INITIAL_SIZE, 1, config::CBF_MAX_INITIAL_SIZE, ConfigurationFlags::DEFAULT, None],
            ["cbf-counter-bits", &CBF_COUNTER_BITS, config::DEFAULT_CBF_COUNTER_BITS, 4, 8, ConfigurationFlags::DEFAULT, None],
            ["apbf-capacity", &APBF_CAPACITY, config::DEFAULT_APBF_CAPACITY, 1, config::APBF_MAX_CAPACITY, ConfigurationFlags::DEFAULT, None],
        ],
        string: [
            ["error-rate", &ERROR_RATE, "0.01", ConfigurationFlags::DEFAULT, None],
            ["cbf-error-rate", &CBF_ERROR_RATE, "0.01", ConfigurationFlags::DEFAULT, None],
            ["apbf-error-rate", &APBF_ERROR_RATE, "0.01", ConfigurationFlags::DEFAULT, None],
        ],
        bool: [
            ["batch-prefetch", &BATCH_PREFETCH, true, ConfigurationFlags::DEFAULT, None],
        ],
        enum: [
            ["new-filter-format", &NEW_FILTER_FORMAT, config::FormatName::guava, ConfigurationFlags::DEFAULT, None],
        ],
        module_args_as_configuration: false,
    ]
}
