//! Where a command comes from: a client, or the server's own data replayed (the primary's
//! stream on a replica, the AOF while the server loads it).
//!
//! Both answers come from the server's context flags (`RedisModule_GetContextFlags`, which
//! also works out memory and replication state: ask only when the answer matters).

use std::ffi::c_int;

use redis_module::{raw, Context};

/// The context's flags, or none where the server has no such call.
pub(crate) fn flags(ctx: *mut raw::RedisModuleCtx) -> c_int {
    match unsafe { raw::RedisModule_GetContextFlags } {
        Some(get) if !ctx.is_null() => unsafe { get(ctx) },
        _ => 0,
    }
}

const REPLAYS: c_int =
    (raw::REDISMODULE_CTX_FLAGS_REPLICATED | raw::REDISMODULE_CTX_FLAGS_LOADING) as c_int;

/// Whether the command running in `ctx` replays what a primary already did: it came from the
/// primary (`REPLICATED`) or from the AOF being loaded (`LOADING`). Valkey 9's slot import
/// client, which replays the source's writes on the target, runs its commands with one of
/// these flags (tests/suite/server/slot_migration.rs checks the outcome).
pub fn replays(ctx: &Context) -> bool {
    replays_flags(flags(ctx.ctx))
}

fn replays_flags(flags: c_int) -> bool {
    flags & REPLAYS != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_primarys_stream_and_the_aof_replay() {
        assert!(!replays_flags(0));
        assert!(replays_flags(
            raw::REDISMODULE_CTX_FLAGS_REPLICATED as c_int
        ));
        assert!(replays_flags(raw::REDISMODULE_CTX_FLAGS_LOADING as c_int));
        // A replica's own client, a writable replica's writes included: not a replay.
        let replica =
            (raw::REDISMODULE_CTX_FLAGS_SLAVE | raw::REDISMODULE_CTX_FLAGS_READONLY) as c_int;
        assert!(!replays_flags(replica));
        // A replica loading its primary's RDB in the background serves its clients meanwhile.
        assert!(!replays_flags(
            raw::REDISMODULE_CTX_FLAGS_ASYNC_LOADING as c_int
        ));
    }
}
