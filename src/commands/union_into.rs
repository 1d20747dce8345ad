//! The body BF.MERGE and CBF.MERGE share: `destination source [source ...]`, the destination
//! becoming the union (or sum) of itself and the sources, all of one family.
//!
//! The checks, before anything is written: the destination's type; each source in order
//! (missing: `ERR not found`, what the families' INFO commands answer for a missing key;
//! another type: WRONGTYPE); then the family's own (`merge` for an existing destination,
//! `create` for a missing one: shapes, sums, the size limit). A source naming the destination
//! adds nothing (it is part of the result already; counting it twice would double a counting
//! filter's counts); naming it while it is missing is a missing source. A source named twice
//! counts once too (`CBF.MERGE d a a` adds `a` once): the union is of the keys named, each
//! once, whatever the repeats.

use std::collections::HashSet;

use rsbloom_core::error::{Error, Result};

use crate::commands::key::{open_named, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::datatype::Family;

pub fn union_into<F: Family>(
    call: &Call,
    merge: fn(&mut F, &[&F]) -> Result<()>,
    create: impl FnOnce(&[&F], u64) -> Result<F>,
) -> Result<Reply> {
    let dest_name = call.key().as_slice();
    let dest_key = open_write(call);
    let exists = dest_key.read::<F>()?.is_some();
    // The source keys stay open while their values are read.
    let mut open = Vec::with_capacity(call.args.len() - 2);
    let mut sources: Vec<&F> = Vec::with_capacity(call.args.len() - 2);
    let mut named: HashSet<&[u8]> = HashSet::with_capacity(call.args.len() - 2);
    for name in &call.args[2..] {
        if name.as_slice() == dest_name {
            if !exists {
                return Err(Error::NotFound);
            }
            continue;
        }
        if !named.insert(name.as_slice()) {
            continue;
        }
        let key = open_named(call, name, false);
        sources.push(key.read::<F>()?.ok_or(Error::NotFound)?);
        open.push(key);
    }
    match dest_key.write::<F>()? {
        Some(mut dest) => merge(&mut dest, &sources)?,
        None => {
            dest_key.store(create(&sources, call.size_limit())?)?;
        }
    }
    // Deterministic given its inputs, which a replica and an AOF replay hold too.
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
