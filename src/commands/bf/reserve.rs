//! BF.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING] [SHARD name index count]
//! [SHARDID id] [SHARDSECRET hex] [KEYED | UNKEYED] [BLOCKED | UNBLOCKED]
//!
//! RedisBloom 8's checks in its order: the error rate, the capacity, NONSCALING, EXPANSION
//! (missing, not an integer, conflicting with NONSCALING, out of range), then rsbloom's
//! SHARD (its values, then the key's slot against the shard's), then the key's type and
//! existence. Words that are not options are refused after those checks (RedisBloom
//! ignores them).

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::dialect::{reserve_creates, BloomKey, Dialect};
use super::options::{self, Creation};
use super::{replicate_creation, valkey};
use crate::commands::grammar::{Found, Keywords};
use crate::commands::reply::Reply;
use crate::commands::shard::PlaceWords;
use crate::commands::Call;

pub fn reserve(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_write(call)?;
    match key.creating(|configured| reserve_creates(configured, &call.args[4..])) {
        Dialect::Valkey => valkey::reserve(call, &key),
        Dialect::Own => reserve_own(call, &key),
    }
}

/// BF.RESERVE in rsbloom's grammar.
fn reserve_own(call: &Call, key: &BloomKey) -> Result<Reply> {
    let argv = call.args;
    // RedisBloom's bound of 7 arguments holds, with SHARD's four words on top (the row's
    // arity lets those through).
    // ... and one for each of KEYED, BLOCKED, UNKEYED and UNBLOCKED (rsbloom's).
    let given = Keywords::new(&argv[4..], options::RESERVE);
    let given_place = PlaceWords::of(&given, || call.wrong_arity());
    let extra_words = given_place.as_ref().map_or(0, PlaceWords::words)
        + ["KEYED", "BLOCKED", "UNKEYED", "UNBLOCKED"]
            .iter()
            .filter(|w| given.flag(w))
            .count();
    if argv.len() > 7 + extra_words {
        return Err(call.wrong_arity());
    }
    let mut new = Creation::defaults();
    new.error_rate = options::reserve_error_rate(&argv[2])?;
    new.capacity = options::reserve_capacity(&argv[3])?;
    let words = Keywords::new(&argv[4..], options::RESERVE);
    new.nonscaling |= words.flag("NONSCALING");
    match words.value("EXPANSION") {
        Found::Absent => {}
        Found::Last => return Err(Error::NoExpansion),
        Found::Value(arg) => {
            let n = options::reserve_expansion(arg)?;
            if n == 0 {
                new.nonscaling = true;
            } else if new.nonscaling {
                return Err(Error::NonScalingCannotExpand);
            }
            new.expansion = options::expansion_checked(n)?;
        }
    }
    new.shard = given_place?.place(call.key())?;
    if words.flag("KEYED") {
        new.ask_keyed();
    }
    if words.flag("BLOCKED") {
        new.ask_blocked();
    }
    if words.flag("UNKEYED") {
        new.ask_unkeyed();
    }
    if words.flag("UNBLOCKED") {
        new.ask_unblocked();
    }
    words.all_known()?;

    if key.read::<Chain>()?.is_some() {
        return Err(Error::ItemExists);
    }
    let chain = key.store(new.create(call.size_limit())?)?;
    replicate_creation(call.ctx, call.key(), &chain, &[]);
    call.notify();
    Ok(Reply::Ok)
}
