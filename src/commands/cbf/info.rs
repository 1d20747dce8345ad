//! CBF.CARD, CBF.INFO and CBF.EXPORT.

use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{escaped, Error, Result};

use crate::commands::grammar;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::datatype::Family;

/// CBF.CARD key: adds less deletes (0 for a missing key, as BF.CARD).
pub fn card(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let n = key.read::<CountingFilter>()?.map_or(0, |f| f.items());
    Ok(Reply::Int(n))
}

/// CBF.INFO key: the filter's parameters and counters (a flat array in RESP2, a map in
/// RESP3, as BF.INFO).
pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let f = key.read::<CountingFilter>()?.ok_or(Error::NotFound)?;
    let int = |n: u64| Reply::count(n);
    let mut entries = vec![
        ("Capacity", int(f.capacity())),
        ("Size", Reply::Int(f.bytes())),
        ("Number of items inserted", int(f.count())),
        ("Error rate", Reply::Double(f.error_rate())),
        ("Number of hash functions", int(f.k() as u64)),
        ("Number of counters", int(f.counters_len())),
        ("Counter bits", int(f.counter_bits() as u64)),
        ("Saturated counters", int(f.saturated())),
    ];
    // Only for a keyed filter, as BF.INFO's; the secret itself is never shown.
    if f.keyed() {
        entries.push(("Keyed", Reply::Int(1)));
    }
    Ok(Reply::Map(entries))
}

/// CBF.EXPORT key GUAVA: the Guava filter of the same shape and items, as
/// `BloomFilter.writeTo()` bytes (BF.IMPORT takes them).
pub fn export(call: &Call) -> Result<Reply> {
    let format = &call.args[2];
    if !grammar::is(format, "GUAVA") {
        return Err(Error::Unsupported(format!(
            "unknown format '{}' (supported: GUAVA)",
            escaped(format.as_slice())
        )));
    }
    let key = open_read(call);
    let f = key.read::<CountingFilter>()?.ok_or(Error::NotFound)?;
    Ok(Reply::Bulk(f.export_guava()?))
}
