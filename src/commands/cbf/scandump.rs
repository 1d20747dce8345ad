//! CBF.SCANDUMP and CBF.LOADCHUNK: a filter as a header plus counter chunks, and back, with
//! the Bloom filters' iterator rules, replies and texts. Every LOADCHUNK call is
//! replicated (the AOF rewrite writes filters as these calls too).

use rsbloom_core::counting::codec::{self, Load};
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::grammar;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// CBF.SCANDUMP key iterator -> [next iterator, data]; `[0, ""]` past the end or below 0.
pub fn scandump(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let filter = key.read::<CountingFilter>()?.ok_or(Error::NotFound)?;
    let iter = grammar::integer(&call.args[2]).ok_or(Error::ScanDumpNotNumeric)?;
    let (next, data) = codec::dump_step(filter, iter, config::chunk_bytes());
    Ok(Reply::Array(vec![Reply::Int(next), Reply::Bulk(data)]))
}

/// CBF.LOADCHUNK key iterator data: iterator 1 on a missing key creates it from a header;
/// on an existing key every iterator writes a chunk of counters.
pub fn loadchunk(call: &Call) -> Result<Reply> {
    let iter = grammar::integer(&call.args[2]).ok_or(Error::LoadChunkNotNumeric)?;
    let limit = call.size_limit();
    let key = open_write(call);
    let existing = key.write::<CountingFilter>()?;
    let refused = |e| call.refused_load::<CountingFilter>(e);
    let data = call.args[3].as_slice();
    match codec::parse_load(iter, data, limit, existing.is_some()).map_err(refused)? {
        Load::Header(meta) => {
            let filter = CountingFilter::from_meta(&meta, limit).map_err(refused)?;
            key.store(filter)?;
        }
        Load::Data { offset, data } => {
            let mut filter = existing.ok_or(Error::NotFound)?;
            filter.write_chunk(offset, data).map_err(refused)?;
        }
    }
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
