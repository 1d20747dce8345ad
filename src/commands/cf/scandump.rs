//! CF.SCANDUMP and CF.LOADCHUNK: a filter as a 38-byte header (rsbloom's longer one with
//! its place for a shard, `sharded`) plus its slot arrays, and back.
//!
//! Unlike RedisBloom, every LOADCHUNK call is replicated and reaches the AOF (RedisBloom
//! sends only the header, so replicas and AOF reloads get filters with empty slots), its
//! header is held to `bf.max-filter-bytes`, and a chunk past the end is refused rather than
//! written into the last sub-filter. The server's own replay (AOF loading, a primary's
//! stream) is not held to RedisBloom's user checks (see [`Sender::Server`]).

use redis_module::{Context, ContextFlags};

use rsbloom_core::cuckoo::codec::scandump::{self, Load, Sender};
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::grammar;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;
use crate::datatype::Family;

/// CF.SCANDUMP key iterator -> [next iterator, data], `[0, null]` at the end (at once for a
/// filter that counts no items).
pub fn scandump(call: &Call) -> Result<Reply> {
    let iter = grammar::integer(&call.args[2])
        .filter(|&it| it >= 0)
        .ok_or(Error::CfInvalidPosition)?;
    let key = open_read(call);
    let filter = key.read::<CuckooFilter>()?.ok_or(Error::NotFound)?;
    let (next, data) = scandump::dump_step(filter, iter, config::chunk_bytes())?;
    let data = match data {
        Some(bytes) => Reply::Bulk(bytes.into_owned()),
        None => Reply::Null,
    };
    Ok(Reply::Array(vec![Reply::Int(next), data]))
}

/// CF.LOADCHUNK key iterator data: iterator 1 creates the key from a header, later
/// iterators write a chunk of slots into it.
pub fn loadchunk(call: &Call) -> Result<Reply> {
    let ctx = call.ctx;
    let iter = grammar::integer(&call.args[2])
        .filter(|&it| it != 0)
        .ok_or(Error::CfInvalidPosition)?;
    let key = open_write(call);
    let existing = key.write::<CuckooFilter>()?;
    match (iter == 1, existing.is_some()) {
        (true, true) => return Err(Error::ItemExists),
        (false, false) => return Err(Error::NotFound),
        _ => {}
    }
    let limit = call.size_limit();
    let load = scandump::parse_load_from(iter, call.args[3].as_slice(), limit, sender(ctx));
    match load.map_err(CuckooFilter::refused_load)? {
        Load::Header(meta) => {
            let filter = CuckooFilter::from_meta(&meta, limit);
            key.store(filter.map_err(CuckooFilter::refused_load)?)?;
        }
        Load::ShardHeader(meta, place) => {
            place.check_key(call.key().as_slice())?;
            let filter =
                CuckooFilter::from_meta(&meta, limit).map_err(CuckooFilter::refused_load)?;
            key.store(filter.with_shard(*place))?;
        }
        Load::Data { offset, data } => {
            let mut filter = existing.ok_or(Error::NotFound)?;
            filter
                .write_chunk(offset, data)
                .map_err(CuckooFilter::refused_load)?;
        }
    }
    ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}

/// The server replaying its own writes: the AOF while loading, or a primary's stream on a
/// replica. Valkey 9's atomic slot migration replays the source's AOF rewrite on the target
/// through an import client that passes this check as it is (`slot_migration` moves such a
/// filter; the client's own flag, `SLOT_IMPORT_CLIENT` = bit 25, means `DEBUG_ENABLED` on
/// Redis and is not needed).
fn sender(ctx: &Context) -> Sender {
    if ctx
        .get_flags()
        .intersects(ContextFlags::LOADING | ContextFlags::REPLICATED)
    {
        Sender::Server
    } else {
        Sender::User
    }
}
