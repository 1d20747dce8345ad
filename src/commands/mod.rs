//! The BF.* commands: parse arguments, call the core, reply. No filter logic lives here.

pub mod add;
pub mod args;
pub mod docs;
pub mod dump;
pub mod exists;
pub mod info;
pub mod reply;
pub mod reserve;

use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{Context, NotifyEvent, RedisResult, RedisString, RedisValue};

use crate::datatype::BLOOM_TYPE;
use crate::error::{Error, Result};
use crate::filter::Chain;
use reply::Reply;

/// A command body: the whole argv (name included) in, a reply out.
pub type Handler = fn(&Context, &[RedisString]) -> Result<Reply>;

/// Runs a command body, catching panics (one would abort the server), and sends its reply.
pub fn dispatch(ctx: &Context, args: Vec<RedisString>, handler: Handler) -> RedisResult {
    let reply = match catch_unwind(AssertUnwindSafe(|| handler(ctx, &args))) {
        Ok(Ok(reply)) => reply,
        Ok(Err(e)) => Reply::Error(e),
        Err(_) => {
            ctx.log_warning("bf: a command panicked; replied with an error");
            Reply::Error(Error::Internal)
        }
    };
    reply::send(ctx, &reply);
    Ok(RedisValue::NoReply)
}

/// Checks the argument count: `min..=max` including the command name.
pub fn arity(args: &[RedisString], min: usize, max: usize, name: &'static str) -> Result<()> {
    if args.len() < min || args.len() > max {
        return Err(Error::WrongArity(name));
    }
    Ok(())
}

/// The filter at `key` for reading: `None` if the key is missing, WRONGTYPE if it holds
/// something else.
pub fn read_filter(key: &RedisKey) -> Result<Option<&Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .map_err(|_| Error::WrongType)
}

/// The filter at `key` for writing, as [`read_filter`].
pub fn write_filter<'a>(key: &RedisKeyWritable) -> Result<Option<&'a mut Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .map_err(|_| Error::WrongType)
}

/// Stores a new filter at an empty key and hands it back for further writes.
pub fn store_filter<'a>(key: &RedisKeyWritable, chain: Chain) -> Result<&'a mut Chain> {
    key.set_value(&BLOOM_TYPE, chain)
        .map_err(|_| Error::WrongType)?;
    write_filter(key)?.ok_or(Error::Internal)
}

/// Replicates the creation of `chain` at `key` with every parameter spelled out, followed by
/// `items` if any, so replicas and AOF replays never fill in defaults from their own configs.
pub fn replicate_creation(ctx: &Context, key: &RedisString, chain: &Chain, items: &[RedisString]) {
    let capacity = chain
        .layers()
        .first()
        .map_or(1, |l| l.capacity())
        .to_string();
    // `{}` prints the shortest text that parses back to the very same f64.
    let error = chain.error_rate().to_string();
    let expansion = chain.expansion().to_string();
    let mut args: Vec<&[u8]> = vec![key.as_slice()];
    if items.is_empty() {
        args.extend([
            error.as_bytes(),
            capacity.as_bytes(),
            b"EXPANSION",
            expansion.as_bytes(),
        ]);
        ctx.replicate("BF.RESERVE", args.as_slice());
    } else {
        args.extend([
            b"CAPACITY".as_slice(),
            capacity.as_bytes(),
            b"ERROR",
            error.as_bytes(),
        ]);
        args.extend([b"EXPANSION".as_slice(), expansion.as_bytes(), b"ITEMS"]);
        args.extend(items.iter().map(RedisString::as_slice));
        ctx.replicate("BF.INSERT", args.as_slice());
    }
}

/// Emits the keyspace event `event` (class generic, `g`) for a write that changed `key`.
pub fn notify(ctx: &Context, event: &str, key: &RedisString) {
    ctx.notify_keyspace_event(NotifyEvent::GENERIC, event, key);
}
