//! rsbloom: a Redis and Valkey module (named `bf`) of seven probabilistic families: Bloom
//! filters (`BF.*`, of a Guava-compatible type or RedisBloom's), RedisBloom's cuckoo filters
//! (`CF.*`), Count-Min Sketches (`CMS.*`), Top-K (`TOPK.*`) and t-digests (`TDIGEST.*`), bit
//! for bit, and two of its own: counting Bloom filters (`CBF.*`) and sliding-window filters
//! (`APBF.*`).
//!
//! The structures live in the `rsbloom-core` crate (no Redis types); this crate is the thin
//! Redis skin over it: `commands`, `datatype`, `config`, `info` (the INFO sections) and
//! `server_options`. This file only registers them with the server (the configs are registered
//! by `config::register`, after the load arguments, not by `redis_module!`).

pub mod alloc;
pub mod commands;
pub mod config;
pub mod datatype;
pub mod info;
mod name_clash;
pub mod origin;
pub mod server_options;
pub mod size_limit;

use std::ffi::CStr;

use datatype::bloom::{BLOOM_TYPE, REDISBLOOM_TYPE};
use datatype::cms::CMS_TYPE;
use datatype::counting::COUNTING_TYPE;
use datatype::cuckoo::{CUCKOO_SHARD_TYPE, CUCKOO_TYPE};
use datatype::tdigest::TDIGEST_TYPE;
use datatype::topk::TOPK_TYPE;
use datatype::valkey::VALKEY_TYPE;
use datatype::window::WINDOW_TYPE;
use redis_module::{redis_module, Context, RedisString, Status};

/// The version `MODULE LIST` reports, as `MAJOR*10000 + MINOR*100 + PATCH`: RedisBloom
/// 8.12.0's, the newest release whose commands, replies and formats rsbloom follows (its
/// Count-Min Sketch cell sizes included), so clients that gate features on the `bf` module's
/// version send what rsbloom takes (`CELL_SIZE` from 8.12, t-digest from 2.4). rsbloom's own
/// version is the crate's, COMMAND DOCS' `since` of its own commands.
pub const MODULE_VERSION: i32 = 81200;

/// rsbloom's own version, Cargo.toml's: `INFO bf`'s `bf_version`, and COMMAND DOCS' `since`
/// of rsbloom's own commands and of the arguments it adds to RedisBloom's.
pub const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => c"0",
    };

fn init(ctx: &Context, args: &[RedisString]) -> Status {
    name_clash::reached_init();
    let server = server_options::Server::of(ctx);
    server_options::declare_options(ctx, server);
    commands::reply::set_double_style(server_options::double_style(server));
    let texts: Option<Vec<&str>> = args.iter().map(|a| a.try_as_str().ok()).collect();
    let result = texts
        .ok_or_else(|| "load arguments must be UTF-8".to_string())
        .and_then(|t| config::apply_load_args(&t))
        .and_then(|()| config::register(ctx, server.has_unprefixed_configs()))
        .and_then(|()| commands::register::register(ctx))
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
    data_types: [BLOOM_TYPE, REDISBLOOM_TYPE, CUCKOO_TYPE, CUCKOO_SHARD_TYPE, CMS_TYPE, TOPK_TYPE, TDIGEST_TYPE, COUNTING_TYPE, WINDOW_TYPE, VALKEY_TYPE],
    init: init,
}
