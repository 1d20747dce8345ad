//! The BF.* commands: parse arguments, call the core, reply. No filter logic lives here.

pub mod add;
pub mod arg;
pub mod args;
pub mod dump;
pub mod exists;
pub mod guava;
pub mod info;
pub mod registry;
pub mod reply;
pub mod reserve;

use std::ffi::{c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{raw, Context};

use crate::codec::chunks;
use crate::datatype::{type_of, BLOOM_TYPE, REDISBLOOM_TYPE};
use crate::error::{Error, Result};
use crate::filter::Chain;
use arg::Arg;
use reply::Reply;

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

/// The filter at `key` for reading, of either type: `None` if the key is missing,
/// WRONGTYPE if it holds something else.
pub fn read_filter(key: &RedisKey) -> Result<Option<&Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .or_else(|_| key.get_value::<Chain>(&REDISBLOOM_TYPE))
        .map_err(|_| Error::WrongType)
}

/// The filter at `key` for writing, as [`read_filter`].
pub fn write_filter<'a>(key: &RedisKeyWritable) -> Result<Option<&'a mut Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .or_else(|_| key.get_value::<Chain>(&REDISBLOOM_TYPE))
        .map_err(|_| Error::WrongType)
}

/// Stores a new filter at an empty key, as the type of its scheme, and hands it back for
/// further writes.
pub fn store_filter<'a>(key: &RedisKeyWritable, chain: Chain) -> Result<&'a mut Chain> {
    key.set_value(type_of(chain.scheme()), chain)
        .map_err(|_| Error::WrongType)?;
    write_filter(key)?.ok_or(Error::Internal)
}

/// Replicates the creation of `chain` at `key`, then `items` if any: the SCANDUMP header of
/// the filter as it was created (its first layer, empty) as `BF.LOADCHUNK key 1 <header>`,
/// then `BF.MADD key items...`; Redis wraps the two in MULTI/EXEC. The header pins the type
/// and every parameter, so a replica or an AOF replay never fills in defaults or a
/// `bf.new-filter-format` of its own.
pub fn replicate_creation(ctx: &Context, key: &Arg, chain: &Chain, items: &[Arg]) {
    let mut meta = chain.meta();
    meta.layers.truncate(1);
    for layer in &mut meta.layers {
        layer.count = 0;
    }
    let header = chunks::header_of_meta(&meta);
    ctx.replicate("BF.LOADCHUNK", &[key.as_slice(), b"1", &header][..]);
    if !items.is_empty() {
        let mut args: Vec<&[u8]> = vec![key.as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        ctx.replicate("BF.MADD", args.as_slice());
    }
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
