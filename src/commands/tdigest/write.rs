//! TDIGEST.CREATE, RESET, ADD and MERGE: RedisBloom 8's checks in its order, replicated
//! verbatim (every result is determined by the command and the digests it reads).

use rsbloom_core::error::{Error, Result};
use rsbloom_core::tdigest::{TDigest, DEFAULT_COMPRESSION};

use super::digest;
use crate::commands::argv::Arg;
use crate::commands::grammar::{self, is, Keywords, Opt};
use crate::commands::key::{open_named, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;

/// RedisBloom's compression argument: an integer, positive.
fn compression(arg: &Arg) -> Result<i64> {
    let c = grammar::integer(arg).ok_or(Error::TdBadCompression)?;
    if c <= 0 {
        return Err(Error::TdCompressionRange);
    }
    Ok(c)
}

/// Writes are replicated as sent, and announced as the command's keyspace event.
fn done(call: &Call) -> Result<Reply> {
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}

/// TDIGEST.CREATE key [COMPRESSION compression]
pub fn create(call: &Call) -> Result<Reply> {
    let argv = call.args;
    if argv.len() == 3 {
        return Err(call.wrong_arity());
    }
    let key = open_write(call);
    if key.read::<TDigest>()?.is_some() {
        return Err(Error::TdKeyExists);
    }
    let mut c = DEFAULT_COMPRESSION;
    if argv.len() == 4 {
        // RedisBloom looks for the word in either place, then reads the last word.
        if !is(&argv[2], "COMPRESSION") && !is(&argv[3], "COMPRESSION") {
            return Err(Error::TdWrongKeyword);
        }
        c = compression(&argv[3])?;
    }
    key.store(TDigest::new(c, call.size_limit())?)?;
    done(call)
}

/// TDIGEST.RESET key
pub fn reset(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    digest(&key)?.reset();
    done(call)
}

/// Values parsed on the stack up to this many (TDIGEST.ADD allocates nothing then).
const STACK_VALUES: usize = 128;

/// TDIGEST.ADD key value [value ...]: every value checked before any is added.
pub fn add(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    let mut d = digest(&key)?;
    let args = &call.args[2..];
    let mut stack = [0f64; STACK_VALUES];
    let mut heap = Vec::new();
    let values: &mut [f64] = if args.len() <= STACK_VALUES {
        &mut stack[..args.len()]
    } else {
        heap.resize(args.len(), 0.0);
        &mut heap
    };
    for (v, arg) in values.iter_mut().zip(args) {
        // A match, not `ok_or`: that builds (and drops) the error for every value.
        *v = match grammar::double(arg) {
            Some(x) if !x.is_nan() => x,
            _ => return Err(Error::TdBadValue),
        };
        if v.is_infinite() {
            return Err(Error::TdValueNotFinite);
        }
    }
    for (done_count, &v) in values.iter().enumerate() {
        if let Err(e) = d.add(v, 1) {
            // Weights past 2^63 - 1: the values before stay (as in RedisBloom) and only they
            // are replicated, so a replica ends in the same state.
            drop(d);
            if done_count > 0 {
                let mut processed: Vec<&[u8]> = vec![call.key().as_slice()];
                processed.extend(args[..done_count].iter().map(Arg::as_slice));
                call.ctx.replicate("TDIGEST.ADD", &processed[..]);
                call.notify();
            }
            return Err(e);
        }
    }
    drop(d);
    done(call)
}

const MERGE_OPTIONS: &[Opt] = &[
    Opt {
        name: "COMPRESSION",
        values: 1,
        letters: &[],
    },
    Opt {
        name: "OVERRIDE",
        values: 0,
        letters: &[],
    },
];

/// TDIGEST.MERGE destination numkeys source [source ...] [COMPRESSION c] [OVERRIDE]
///
/// The new digest's compression: COMPRESSION's; else the existing destination's (without
/// OVERRIDE); else the largest of the sources'. The destination's own values go in first
/// unless OVERRIDE; then each source's (a key may come several times, the destination
/// too). Every source is compressed on the way, as in RedisBloom.
pub fn merge(call: &Call) -> Result<Reply> {
    let argv = call.args;
    let dest = call.key();
    let dest_compression = {
        let key = open_named(call, dest, false);
        key.read::<TDigest>()?.map(TDigest::compression)
    };
    let numkeys = grammar::integer(&argv[2]).ok_or(Error::TdBadNumkeys)?;
    if numkeys <= 0 {
        return Err(Error::TdNumkeysRange);
    }
    if numkeys > argv.len() as i64 - 3 {
        return Err(call.wrong_arity());
    }
    let (sources, rest) = argv[3..].split_at(numkeys as usize);
    let words = Keywords::new(rest, MERGE_OPTIONS);
    let given = match words.value("COMPRESSION") {
        grammar::Found::Last => return Err(call.wrong_arity()),
        grammar::Found::Value(v) => Some(compression(v)?),
        grammar::Found::Absent => None,
    };
    let override_ = words.flag("OVERRIDE");
    if !rest.is_empty() && given.is_none() && !override_ {
        return Err(Error::TdWrongKeyword);
    }
    let mut max = 0;
    for name in sources {
        let c = if name.as_slice() == dest.as_slice() {
            dest_compression.ok_or(Error::TdKeyMissing)?
        } else {
            let key = open_named(call, name, false);
            key.read::<TDigest>()?
                .ok_or(Error::TdKeyMissing)?
                .compression()
        };
        max = max.max(c);
    }
    words.all_known()?;
    let kept = if override_ { None } else { dest_compression };
    let c = given.or(kept).unwrap_or(max);
    let mut to = TDigest::new(c, call.size_limit()).map_err(|e| match e {
        Error::TdAllocFailed => Error::TdMergeAllocFailed,
        e => e,
    })?;
    if dest_compression.is_some() && !override_ {
        let key = open_named(call, dest, true);
        if let Some(mut start) = key.write::<TDigest>()? {
            // RedisBloom ignores this merge's result (it cannot fail on a fresh digest).
            let _ = to.merge_from(&mut start);
        }
    }
    for name in sources {
        let key = open_named(call, name, true);
        let mut from = key.write::<TDigest>()?.ok_or(Error::TdKeyMissing)?;
        to.merge_from(&mut from)?;
    }
    // As RedisBloom: a new value (an existing destination is deleted first, its TTL with it).
    let key = open_write(call);
    key.store(to)?;
    done(call)
}
