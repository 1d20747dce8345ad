//! CBF.MERGE destination source [source ...]: the sum of counting filters of one shape.
//!
//! The checks, before anything is written: the destination's type; each source in order
//! (missing: `ERR not found`, as CBF.INFO and CBF.DEL answer; another type: WRONGTYPE);
//! the shapes and every counter's sum ([`rsbloom_core::counting::merge`]); for a
//! destination created, the size limit. A source naming the destination adds nothing more
//! (it is part of the sum already; counting it twice would double its counts); naming it
//! while it is missing is a missing source.

use rsbloom_core::counting::merge::{merge_into, union};
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::key::{open_named, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;

pub fn merge(call: &Call) -> Result<Reply> {
    let dest_name = call.key().as_slice();
    let dest_key = open_write(call);
    let exists = dest_key.read::<CountingFilter>()?.is_some();
    // The source keys stay open while their filters are read.
    let mut open = Vec::with_capacity(call.args.len() - 2);
    let mut sources: Vec<&CountingFilter> = Vec::with_capacity(call.args.len() - 2);
    for name in &call.args[2..] {
        if name.as_slice() == dest_name {
            if !exists {
                return Err(Error::NotFound);
            }
            continue;
        }
        let key = open_named(call, name, false);
        sources.push(key.read::<CountingFilter>()?.ok_or(Error::NotFound)?);
        open.push(key);
    }
    match dest_key.write::<CountingFilter>()? {
        Some(mut dest) => merge_into(&mut dest, &sources)?,
        None => {
            let filter = union(&sources, call.size_limit())?;
            dest_key.store(filter)?;
        }
    }
    // Deterministic given its inputs, which a replica and an AOF replay hold too.
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
