//! BF.MERGE destination source [source ...] (rsbloom's own; RedisBloom has no merge).
//!
//! The checks, before anything is written: the destination's type; each source in order
//! (missing: `ERR not found`, BF.INFO's and BF.SCANDUMP's reply for a missing filter; another
//! type: WRONGTYPE); the shapes ([`rsbloom_core::bloom::merge`]); for a destination
//! created, the size limit and, if the sources are shards, the key's slot. A source naming
//! the destination adds nothing to it (it is part of the union already); naming it while it
//! is missing is a missing source.

use rsbloom_core::bloom::merge::{merge_into, union};
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use crate::commands::key::{open_named, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;

pub fn merge(call: &Call) -> Result<Reply> {
    let dest_name = call.key().as_slice();
    let dest_key = open_write(call);
    let exists = dest_key.read::<Chain>()?.is_some();
    // The source keys stay open while their filters are read.
    let mut open = Vec::with_capacity(call.args.len() - 2);
    let mut sources: Vec<&Chain> = Vec::with_capacity(call.args.len() - 2);
    for name in &call.args[2..] {
        if name.as_slice() == dest_name {
            if !exists {
                return Err(Error::NotFound);
            }
            continue;
        }
        let key = open_named(call, name, false);
        sources.push(key.read::<Chain>()?.ok_or(Error::NotFound)?);
        open.push(key);
    }
    match dest_key.write::<Chain>()? {
        Some(mut dest) => merge_into(&mut dest, &sources)?,
        None => {
            let chain = union(&sources, call.size_limit())?;
            if let Some(place) = chain.shard() {
                place.check_key(dest_name)?;
            }
            dest_key.store(chain)?;
        }
    }
    // Deterministic given its inputs, which a replica and an AOF replay hold too.
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
