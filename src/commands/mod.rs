//! The commands: one folder per filter family (`bf/`, `cf/`), each command a
//! function that parses its arguments, calls the core and returns a [`Reply`]. What every
//! family shares is here: the harness every callback runs in ([`run`]: borrowed arguments,
//! panics caught, one reply), key access, arity, keyspace events; the command table and its
//! registration ([`table`]); replies; argument access and parsing.

use std::ffi::{c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{raw, Context};
use rsbloom_core::error::{Error, Result};

use argv::Arg;
use reply::Reply;

/// The `extern "C"` callback of one command: [`run`] with its handler, so arguments reach
/// the handler borrowed, with no copies on the way in.
macro_rules! callback {
    ($handler:path) => {{
        extern "C" fn callback(
            ctx: *mut redis_module::raw::RedisModuleCtx,
            argv: *mut *mut redis_module::raw::RedisModuleString,
            argc: std::ffi::c_int,
        ) -> std::ffi::c_int {
            // SAFETY: these are the arguments Redis passed to this callback.
            unsafe { $crate::commands::run(ctx, argv, argc, $handler) }
        }
        callback as $crate::commands::table::CommandFn
    }};
}

pub mod argv;
pub mod bf;
pub mod cf;
pub mod parse;
pub mod reply;
pub mod table;

/// A command body: the whole argv (name included) in, a reply out.
pub type Handler = fn(&Context, &[Arg]) -> Result<Reply>;

/// The body of every command callback: runs `handler` on the borrowed arguments, catching
/// panics (one would abort the server), and sends its reply.
///
/// # Safety
/// The arguments must be those Redis passed to a command callback.
pub unsafe fn run(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
    handler: Handler,
) -> c_int {
    let ctx = Context::new(ctx);
    // SAFETY: Redis passes its argument array, valid for the whole callback.
    let args = Arg::slice(argv, argc);
    let reply = match catch_unwind(AssertUnwindSafe(|| handler(&ctx, args))) {
        Ok(Ok(reply)) => reply,
        Ok(Err(e)) => Reply::Error(e),
        Err(_) => {
            ctx.log_warning("bf: a command panicked; replied with an error");
            Reply::Error(Error::Internal)
        }
    };
    reply::send(&ctx, &reply);
    raw::Status::Ok as c_int
}

/// Opens `key` for reading.
pub fn open_read(ctx: &Context, key: &Arg) -> RedisKey {
    let inner = raw::open_key(ctx.ctx, key.raw(), raw::KeyMode::READ);
    // SAFETY: the context and the key handle live until the key is dropped at the end of
    // the command, which closes it.
    unsafe { RedisKey::from_raw_parts(ctx.ctx, inner) }
}

/// Opens `key` for reading and writing.
pub fn open_write(ctx: &Context, key: &Arg) -> RedisKeyWritable {
    RedisKeyWritable::open_with_redis_string(ctx.ctx, key.raw())
}

/// Checks the argument count: `min..=max` including the command name.
pub fn arity(args: &[Arg], min: usize, max: usize, name: &'static str) -> Result<()> {
    if args.len() < min || args.len() > max {
        return Err(Error::WrongArity(name));
    }
    Ok(())
}

/// Emits the keyspace event `event` (class generic, `g`) for a write that changed `key`.
pub fn notify(ctx: &Context, event: &'static CStr, key: &Arg) {
    if let Some(notify) = unsafe { raw::RedisModule_NotifyKeyspaceEvent } {
        unsafe {
            notify(
                ctx.ctx,
                raw::REDISMODULE_NOTIFY_GENERIC,
                event.as_ptr(),
                key.raw(),
            )
        };
    }
}
