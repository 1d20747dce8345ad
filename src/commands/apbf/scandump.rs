//! APBF.SCANDUMP and APBF.LOADCHUNK: a filter as a header (parameters, ring position,
//! generations and their times) plus word chunks, and back, with the Bloom filters'
//! iterator rules, replies and texts. Every LOADCHUNK call is replicated (the AOF rewrite
//! writes filters as these calls too).

use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::codec::{self, Load};
use rsbloom_core::window::WindowFilter;

use crate::commands::grammar;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// APBF.SCANDUMP key iterator -> [next iterator, data]; `[0, ""]` past the end or below 0.
pub fn scandump(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let filter = key.read::<WindowFilter>()?.ok_or(Error::NotFound)?;
    let iter = grammar::integer(&call.args[2]).ok_or(Error::ScanDumpNotNumeric)?;
    let (next, data) = codec::dump_step(filter, iter, config::chunk_bytes());
    Ok(Reply::Array(vec![Reply::Int(next), Reply::Bulk(data)]))
}

/// APBF.LOADCHUNK key iterator data: iterator 1 on a missing key creates it from a header;
/// on an existing key every iterator writes a chunk of words.
pub fn loadchunk(call: &Call) -> Result<Reply> {
    let iter = grammar::integer(&call.args[2]).ok_or(Error::LoadChunkNotNumeric)?;
    let limit = call.size_limit();
    let key = open_write(call);
    let existing = key.write::<WindowFilter>()?;
    let refused = |e| call.refused_load::<WindowFilter>(e);
    let data = call.args[3].as_slice();
    match codec::parse_load(iter, data, limit, existing.is_some()).map_err(refused)? {
        Load::Header(filter) => {
            key.store(*filter)?;
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
