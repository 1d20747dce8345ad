//! Keys-position answers for the commands laid out as [`Access::MergeInto`] declares:
//! `destination numkeys source [source ...] ...` (CMS.MERGE; TDIGEST.MERGE has the same
//! layout; BF.MERGE and CBF.MERGE name every argument a key and need none of this). A
//! command row with flag `getkeys-api` and callback [`numkeys_callback!`] tells a
//! server that asks (Redis 7.0's cluster finds a module command's keys only this way; later
//! servers read the key specs) the same keys its key specs name: the destination, argument
//! one, with [`Access::MergeInto`]'s flags, and the `numkeys` sources after argument two,
//! read-only ([`Access::ReadData`]'s flags).
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::raw;

use crate::commands::argv::Arg;
use crate::commands::grammar::integer;
use crate::commands::row::Access;

/// Answers a keys-position request of the server, if this call is one: the destination, and
/// the sources when numkeys is a positive integer the arguments hold. Returns whether it
/// was one (the command must then do nothing else).
///
/// # Safety
/// The arguments must be those Redis passed to a command callback.
pub unsafe fn answer(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> bool {
    let asked = raw::RedisModule_IsKeysPositionRequest.is_some_and(|f| f(ctx) != 0);
    if !asked {
        return false;
    }
    let args = Arg::slice(argv, argc);
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let at = |pos: usize, access: Access| {
            if let Some(with_flags) = raw::RedisModule_KeyAtPosWithFlags {
                with_flags(ctx, pos as c_int, access.flags() as c_int);
            } else if let Some(plain) = raw::RedisModule_KeyAtPos {
                plain(ctx, pos as c_int);
            }
        };
        if args.len() < 2 {
            return;
        }
        at(1, Access::MergeInto);
        let sources = args.get(2).and_then(integer).unwrap_or(0);
        if sources > 0 && (sources as u64) <= args.len().saturating_sub(3) as u64 {
            for pos in 3..3 + sources as usize {
                at(pos, Access::ReadData);
            }
        }
    }));
    true
}

/// The callback of a `destination numkeys source...` command `$row` (flag `getkeys-api`):
/// it answers the server's keys-position requests ([`answer`]) and otherwise runs
/// `$handler` as [`callback!`](crate::commands::row::callback) does.
macro_rules! numkeys_callback {
    ($row:ident => $handler:path) => {{
        extern "C" fn callback(
            ctx: *mut redis_module::raw::RedisModuleCtx,
            argv: *mut *mut redis_module::raw::RedisModuleString,
            argc: std::ffi::c_int,
        ) -> std::ffi::c_int {
            // SAFETY: these are the arguments Redis passed to this callback.
            unsafe {
                if $crate::commands::numkeys_keys::answer(ctx, argv, argc) {
                    return redis_module::raw::REDISMODULE_OK as std::ffi::c_int;
                }
                $crate::commands::run(ctx, argv, argc, &$row, $handler)
            }
        }
        callback as $crate::commands::row::CommandFn
    }};
}
pub(crate) use numkeys_callback;
