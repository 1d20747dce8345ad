//! BF.SCANDUMP and BF.LOADCHUNK: a filter as a header plus data chunks, and back.

use rsbloom_core::bloom::codec::scandump::{self, Load};
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use crate::commands::key::{open_read, open_write};
use crate::commands::parse::iterator;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;
use crate::datatype::Family;

/// BF.SCANDUMP key iterator -> [next iterator, data]
pub fn scandump(call: &Call) -> Result<Reply> {
    let iter = iterator(&call.args[2])?;
    let key = open_read(call);
    let chain = key.read::<Chain>()?.ok_or(Error::NotFound)?;
    let (next, data) = scandump::dump_step(chain, iter, config::chunk_bytes())?;
    Ok(Reply::Array(vec![Reply::Int(next), Reply::Bulk(data)]))
}

/// BF.LOADCHUNK key iterator data: iterator 1 creates the key from a header, later
/// iterators write a data chunk into it.
pub fn loadchunk(call: &Call) -> Result<Reply> {
    let iter = iterator(&call.args[2])?;
    let limit = config::max_filter_bytes();
    let key = open_write(call);
    // A key of another type is WRONGTYPE whatever the data holds, so it is checked first.
    let existing = key.write::<Chain>()?;
    let load = scandump::parse_load(iter, call.args[3].as_slice(), limit);
    match load.map_err(Chain::refused_load)? {
        Load::Header(meta) => {
            if existing.is_some() {
                return Err(Error::ItemExists);
            }
            let chain = Chain::from_meta(&meta, limit).map_err(Chain::refused_load)?;
            key.store(chain)?;
        }
        Load::Data { offset, data } => {
            let mut chain = existing.ok_or(Error::NotFound)?;
            chain
                .write_chunk(offset, data)
                .map_err(Chain::refused_load)?;
        }
    }
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
