//! BF.SCANDUMP and BF.LOADCHUNK: a filter as a header plus data chunks, and back.

use redis_module::Context;

use rsbloom_core::bloom::codec::scandump::{self, Load};
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::{read_filter, store_filter, write_filter};
use crate::commands::argv::Arg;
use crate::commands::parse::iterator;
use crate::commands::reply::Reply;
use crate::commands::{arity, notify, open_read, open_write};
use crate::config;

/// BF.SCANDUMP key iterator -> [next iterator, data]
pub fn scandump(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.scandump")?;
    let iter = iterator(&argv[2])?;
    let key = open_read(ctx, &argv[1]);
    let chain = read_filter(&key)?.ok_or(Error::NotFound)?;
    let (next, data) = scandump::dump_step(chain, iter, config::chunk_bytes())?;
    Ok(Reply::Array(vec![Reply::Int(next), Reply::Bulk(data)]))
}

/// BF.LOADCHUNK key iterator data: iterator 1 creates the key from a header, later
/// iterators write a data chunk into it.
pub fn loadchunk(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 4, 4, "bf.loadchunk")?;
    let iter = iterator(&argv[2])?;
    let limit = config::max_filter_bytes();
    let key = open_write(ctx, &argv[1]);
    // A key of another type is WRONGTYPE whatever the data holds, so it is checked first.
    let existing = write_filter(&key)?;
    match scandump::parse_load(iter, argv[3].as_slice(), limit)? {
        Load::Header(meta) => {
            if existing.is_some() {
                return Err(Error::ItemExists);
            }
            store_filter(&key, Chain::from_meta(&meta, limit)?)?;
        }
        Load::Data { offset, data } => {
            let chain = existing.ok_or(Error::NotFound)?;
            chain.write_chunk(offset, data)?;
        }
    }
    ctx.replicate_verbatim();
    notify(ctx, c"bf.loadchunk", &argv[1]);
    Ok(Reply::Ok)
}
