//! Which writes `bf.max-filter-bytes` holds to.
//!
//! The limit protects the server from what clients ask for: creations, growth, `RESTORE`,
//! the LOADCHUNK commands, `BF.IMPORT`. The server's own data is not a request, and a limit
//! there would only turn a dataset the server wrote into one it cannot start with (the
//! limit lowered since, or a RedisBloom filter bigger than it). So no limit applies
//!
//! - while the server loads (`REDISMODULE_CTX_FLAGS_LOADING`): its RDB at startup or
//!   `DEBUG RELOAD`, the AOF's replay (the commands it holds, `RESTORE` and LOADCHUNK
//!   included), a replica's full sync;
//! - to a command from the primary (`REDISMODULE_CTX_FLAGS_REPLICATED`): a replica must
//!   take what its primary took, whatever the two limits are;
//! - to a `RESTORE` on a read-only replica: no client may write there, so it comes from the
//!   primary (a value's load sees no client, so this is how the primary is recognised; on
//!   a writable replica the limit holds, as for any client).
//!
//! Without a limit, a value is bounded by its data and by the allocator, whose refusal is an
//! error ([`rsbloom_core::memory::fallible`]), not an abort.

use std::ffi::c_int;

use redis_module::{raw, Context};

use crate::config;
use crate::origin::flags;

/// No size limit.
pub const NONE: u64 = u64::MAX;

const LOADING: c_int =
    (raw::REDISMODULE_CTX_FLAGS_LOADING | raw::REDISMODULE_CTX_FLAGS_ASYNC_LOADING) as c_int;
const REPLICATED: c_int = raw::REDISMODULE_CTX_FLAGS_REPLICATED as c_int;
const READ_ONLY_REPLICA: c_int =
    (raw::REDISMODULE_CTX_FLAGS_SLAVE | raw::REDISMODULE_CTX_FLAGS_READONLY) as c_int;

/// The limit of a command running in `ctx`.
pub fn for_command(ctx: &Context) -> u64 {
    limit_for(flags(ctx.ctx), false)
}

/// The limit of a value read from `io` (an RDB value, a `RESTORE` payload).
///
/// # Safety
/// `io` must be the stream the server handed to an `rdb_load` callback, still being read.
pub unsafe fn for_load(io: *mut raw::RedisModuleIO) -> u64 {
    limit_for(unsafe { io_flags(io) }, true)
}

/// Whether a value read from `io` was sent by a client (`RESTORE`), not loaded by the server
/// or sent by its primary: the loads a client's checks apply to (a shard's key, too).
///
/// # Safety
/// As [`for_load`].
pub unsafe fn load_from_client(io: *mut raw::RedisModuleIO) -> bool {
    !exempt(unsafe { io_flags(io) }, true)
}

unsafe fn io_flags(io: *mut raw::RedisModuleIO) -> c_int {
    let ctx = match unsafe { raw::RedisModule_GetContextFromIO } {
        Some(get) => unsafe { get(io) },
        None => std::ptr::null_mut(),
    };
    flags(ctx)
}

/// Loading, or from the primary.
fn exempt(flags: c_int, value_load: bool) -> bool {
    let from_primary =
        flags & REPLICATED != 0 || (value_load && flags & READ_ONLY_REPLICA == READ_ONLY_REPLICA);
    flags & LOADING != 0 || from_primary
}

fn limit_for(flags: c_int, value_load: bool) -> u64 {
    if exempt(flags, value_load) {
        NONE
    } else {
        config::max_filter_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_client_requests_are_limited() {
        let limited = config::max_filter_bytes();
        assert_eq!(limit_for(0, false), limited);
        assert_eq!(limit_for(0, true), limited);
        assert_eq!(limit_for(LOADING, true), NONE);
        assert_eq!(limit_for(LOADING, false), NONE);
        assert_eq!(limit_for(REPLICATED, false), NONE);
        assert_eq!(limit_for(READ_ONLY_REPLICA, true), NONE);
        // A command on a read-only replica that is not from the primary (a read) keeps it,
        // and so does a RESTORE on a writable replica.
        assert_eq!(limit_for(READ_ONLY_REPLICA, false), limited);
        let writable = raw::REDISMODULE_CTX_FLAGS_SLAVE as c_int;
        assert_eq!(limit_for(writable, true), limited);
    }
}
