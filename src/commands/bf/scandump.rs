//! BF.SCANDUMP and BF.LOADCHUNK: a filter as a header plus data chunks, and back, with
//! RedisBloom 8's iterator rules and replies.

use rsbloom_core::bloom::codec::scandump::{self, Load};
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use crate::commands::grammar;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// BF.SCANDUMP key iterator -> [next iterator, data]; `[0, ""]` past the end or below 0.
/// The key is checked before the iterator, as in RedisBloom.
pub fn scandump(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let chain = key.read::<Chain>()?.ok_or(Error::NotFound)?;
    let iter = grammar::integer(&call.args[2]).ok_or(Error::ScanDumpNotNumeric)?;
    let (next, data) = scandump::dump_step(chain, iter, config::chunk_bytes());
    Ok(Reply::Array(vec![Reply::Int(next), Reply::Bulk(data)]))
}

/// BF.LOADCHUNK key iterator data: iterator 1 on a missing key creates it from a header;
/// on an existing key every iterator writes a data chunk.
pub fn loadchunk(call: &Call) -> Result<Reply> {
    let iter = grammar::integer(&call.args[2]).ok_or(Error::LoadChunkNotNumeric)?;
    let limit = call.size_limit();
    let key = open_write(call);
    // A key of another type is WRONGTYPE whatever the data holds, so it is checked first.
    let existing = key.write::<Chain>()?;
    let refused = |e| call.refused_load::<Chain>(e);
    let data = call.args[3].as_slice();
    match scandump::parse_load(iter, data, limit, existing.is_some()).map_err(refused)? {
        Load::Header(meta) => {
            if let Some(place) = &meta.shard {
                place.check_key(call.key().as_slice())?;
            }
            let chain = Chain::from_meta(&meta, limit).map_err(refused)?;
            key.store(chain)?;
        }
        Load::Data { offset, data } => {
            let mut chain = existing.ok_or(Error::NotFound)?;
            chain.write_chunk(offset, data).map_err(refused)?;
        }
    }
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
