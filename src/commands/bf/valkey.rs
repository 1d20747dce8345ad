//! valkey-bloom's dialect of the BF commands: on a key of its type (`bloomfltr`), and when a
//! missing key is created in its format (`bf.new-filter-format valkey`, or a BF.INSERT with
//! SEED, TIGHTENING or VALIDATESCALETO, which only valkey-bloom has and which its
//! replication stream and AOF carry), the commands parse, answer, err and replicate as
//! valkey-bloom 1.0 does. `dialect.rs` decides which keys come here; each handler takes the
//! key its command opened.
//!
//! valkey-bloom parses numbers with Rust's `str::parse` on the argument, replies integers for
//! booleans (RESP3 too), and replicates a creation as
//! `BF.INSERT key CAPACITY c ERROR fp TIGHTENING t SEED <32 bytes> NONSCALING|EXPANSION e
//! [ITEMS ...]` so that replicas hold the same seed; adds go verbatim.

use std::ffi::CString;

use redis_module::raw;
use rsbloom_core::error::{Error, Result, ValkeyError};
use rsbloom_core::valkey::object::max_scaled_capacity;
use rsbloom_core::valkey::subfilter::Seed;
use rsbloom_core::valkey::{load_blob, Shape, ValkeyBloom, FIXED_SEED};

use super::dialect::BloomKey;
use crate::commands::argv::Arg;
use crate::commands::key::{open_write, Writing};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config::valkey as settings;
use crate::datatype::valkey::limit_of;

/// valkey-bloom's keyspace events.
const ADD_EVENT: &str = "bloom.add";
const RESERVE_EVENT: &str = "bloom.reserve";

fn notify(call: &Call, event: &str) {
    let Some(notify) = (unsafe { raw::RedisModule_NotifyKeyspaceEvent }) else {
        return;
    };
    let name = CString::new(event).unwrap_or_default();
    unsafe {
        notify(
            call.ctx.ctx,
            raw::REDISMODULE_NOTIFY_GENERIC,
            name.as_ptr(),
            call.key().raw(),
        )
    };
}

fn text(arg: &Arg) -> String {
    String::from_utf8_lossy(arg.as_slice()).into_owned()
}

fn parse_fp(arg: &Arg) -> Result<f64> {
    match text(arg).parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        Ok(_) => Err(ValkeyError::ErrorRateRange.into()),
        Err(_) => Err(ValkeyError::BadErrorRate.into()),
    }
}

fn parse_tightening(arg: &Arg) -> Result<f64> {
    match text(arg).parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        Ok(_) => Err(ValkeyError::TighteningRatioRange.into()),
        Err(_) => Err(ValkeyError::BadTighteningRatio.into()),
    }
}

fn parse_capacity(arg: &Arg) -> Result<i64> {
    match text(arg).parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(0) => Err(ValkeyError::CapacityNotPositive.into()),
        _ => Err(ValkeyError::BadCapacity.into()),
    }
}

fn parse_expansion(arg: &Arg) -> Result<u32> {
    match text(arg).parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValkeyError::BadExpansion.into()),
    }
}

/// 32 random bytes (a new filter's seed with `bf.bloom-use-random-seed yes`).
fn random_seed() -> Result<Seed> {
    rsbloom_core::random::bytes::<32>()
}

/// The configured shape of a new filter (what BF.ADD / BF.MADD create).
fn configured_shape() -> Result<Shape> {
    let random = settings::use_random_seed();
    Ok(Shape {
        capacity: settings::capacity().max(1) as u64,
        fp_rate: settings::fp_rate(),
        tightening: settings::tightening(),
        expansion: settings::expansion(),
        seed: if random { random_seed()? } else { FIXED_SEED },
        seed_random: random,
    })
}

/// Sends a creation to replicas and the AOF in valkey-bloom's BF.INSERT form.
fn replicate_creation(call: &Call, bloom: &ValkeyBloom, items: &[Arg]) {
    let capacity = bloom.capacity().to_string();
    let fp = bloom.fp_rate.to_string();
    let tightening = bloom.tightening.to_string();
    let seed = bloom.seed();
    let expansion = bloom.expansion.to_string();
    let mut args: Vec<&[u8]> = vec![
        call.key().as_slice(),
        b"CAPACITY",
        capacity.as_bytes(),
        b"ERROR",
        fp.as_bytes(),
        b"TIGHTENING",
        tightening.as_bytes(),
        b"SEED",
        &seed,
    ];
    if bloom.expansion == 0 {
        args.push(b"NONSCALING");
    } else {
        args.extend([&b"EXPANSION"[..], expansion.as_bytes()]);
    }
    if !items.is_empty() {
        args.push(b"ITEMS");
        args.extend(items.iter().map(Arg::as_slice));
    }
    call.ctx.replicate("BF.INSERT", args.as_slice());
}

/// Adds `items` in order (each hashed once), stopping at the first error; `each` gets every
/// result.
fn add_items(
    bloom: &mut Writing<ValkeyBloom>,
    items: &[Arg],
    limit: Option<u64>,
    mut each: impl FnMut(Result<bool>),
) -> (usize, bool) {
    let (mut done, mut added) = (0, false);
    bloom.add_batch(items, limit, |result| {
        if let Ok(a) = result {
            added |= a;
            done += 1;
        }
        each(result);
    });
    (done, added)
}

/// Adds to the filter at the call's key; a missing key is created with `shape()` unless
/// `nocreate`.
fn add_items_to(
    call: &Call,
    key: &BloomKey,
    first_item: usize,
    shape: &dyn Fn() -> Result<Shape>,
    nocreate: bool,
    each: impl FnMut(Result<bool>),
) -> Result<()> {
    let limit = limit_of(call.size_limit());
    let items = &call.args[first_item..];
    let (mut bloom, created) = match key.write::<ValkeyBloom>()? {
        Some(bloom) => (bloom, false),
        None => {
            if nocreate {
                return Err(ValkeyError::NotFound.into());
            }
            let bloom = ValkeyBloom::create(shape()?, limit)?;
            (key.store(bloom)?, true)
        }
    };
    let (done, added) = add_items(&mut bloom, items, limit, each);
    if created {
        replicate_creation(call, &bloom, &items[..done]);
    } else if added {
        if done == items.len() {
            call.ctx.replicate_verbatim();
        } else {
            let args: Vec<&[u8]> = call.args[1..first_item + done]
                .iter()
                .map(Arg::as_slice)
                .collect();
            call.ctx.replicate(call.command.name_str(), args.as_slice());
        }
    }
    if added {
        notify(call, ADD_EVENT);
    }
    if created {
        notify(call, RESERVE_EVENT);
    }
    Ok(())
}

fn int(result: Result<bool>) -> Reply {
    match result {
        Ok(added) => Reply::Int(added as i64),
        Err(e) => Reply::Error(e),
    }
}

/// BF.ADD in valkey-bloom's dialect.
pub fn add(call: &Call, key: &BloomKey) -> Result<Reply> {
    let mut reply = Reply::Null;
    add_items_to(call, key, 2, &configured_shape, false, |r| reply = int(r))?;
    Ok(reply)
}

/// BF.MADD in valkey-bloom's dialect.
pub fn madd(call: &Call, key: &BloomKey) -> Result<Reply> {
    madd_from(call, key, 2, &configured_shape, false)
}

/// BF.MADD's and BF.INSERT's items: one answer per processed item, an error last if one
/// stopped them.
fn madd_from(
    call: &Call,
    key: &BloomKey,
    first_item: usize,
    shape: &dyn Fn() -> Result<Shape>,
    nocreate: bool,
) -> Result<Reply> {
    // Answers as flags until an error ends them (most batches): no `Reply` per item.
    let mut added = Vec::with_capacity(call.args.len().saturating_sub(first_item));
    let mut error = None;
    add_items_to(call, key, first_item, shape, nocreate, |r| match r {
        Ok(a) => added.push(a),
        Err(e) => error = Some(e),
    })?;
    Ok(match error {
        None => Reply::Flags(added),
        Some(e) => {
            let mut replies: Vec<Reply> = added.into_iter().map(|a| Reply::Int(a as i64)).collect();
            replies.push(Reply::Error(e));
            Reply::Array(replies)
        }
    })
}

/// BF.EXISTS in valkey-bloom's dialect: WRONGTYPE on a key of another type (RedisBloom's
/// answers 0).
pub fn exists(call: &Call, key: &BloomKey) -> Result<Reply> {
    Ok(match key.read::<ValkeyBloom>()? {
        Some(b) => Reply::Int(b.exists(call.args[2].as_slice()) as i64),
        None => Reply::Int(0),
    })
}

/// BF.MEXISTS in valkey-bloom's dialect: WRONGTYPE on a key of another type.
pub fn mexists(call: &Call, key: &BloomKey) -> Result<Reply> {
    let items = &call.args[2..];
    Ok(match key.read::<ValkeyBloom>()? {
        Some(b) => Reply::Flags(b.exists_batch(items)),
        None => Reply::Flags(vec![false; items.len()]),
    })
}

/// BF.CARD in valkey-bloom's dialect.
pub fn card(key: &BloomKey) -> Result<Reply> {
    Ok(Reply::Int(
        key.read::<ValkeyBloom>()?.map_or(0, |b| b.cardinality()),
    ))
}

fn max_scaled(b: &ValkeyBloom) -> Result<Reply> {
    let max = max_scaled_capacity(
        b.starting_capacity(),
        b.fp_rate,
        None,
        b.tightening,
        b.expansion,
        settings::memory_limit(),
    )?;
    Ok(Reply::Int(max))
}

/// BF.INFO in valkey-bloom's dialect: its fields, names and order; a plain array in RESP3
/// too.
pub fn info(call: &Call, key: &BloomKey) -> Result<Reply> {
    let b = key.read::<ValkeyBloom>()?.ok_or(Error::NotFound)?;
    let scaling = b.expansion > 0;
    let expansion = || match scaling {
        true => Reply::Int(b.expansion as i64),
        false => Reply::Null,
    };
    if let Some(field) = call.args.get(2) {
        let field = text(field).to_uppercase();
        return Ok(match field.as_str() {
            "CAPACITY" => Reply::Int(b.capacity()),
            "SIZE" => Reply::Int(b.memory_usage() as i64),
            "FILTERS" => Reply::Int(b.filters().len() as i64),
            "ITEMS" => Reply::Int(b.cardinality()),
            "ERROR" => Reply::Double(b.fp_rate),
            "TIGHTENING" if scaling => Reply::Double(b.tightening),
            "EXPANSION" => expansion(),
            "MAXSCALEDCAPACITY" if scaling => max_scaled(b)?,
            _ => return Err(ValkeyError::InvalidInfoValue.into()),
        });
    }
    let mut out = vec![
        Reply::Simple("Capacity"),
        Reply::Int(b.capacity()),
        Reply::Simple("Size"),
        Reply::Int(b.memory_usage() as i64),
        Reply::Simple("Number of filters"),
        Reply::Int(b.filters().len() as i64),
        Reply::Simple("Number of items inserted"),
        Reply::Int(b.cardinality()),
        Reply::Simple("Error rate"),
        Reply::Double(b.fp_rate),
        Reply::Simple("Expansion rate"),
        expansion(),
    ];
    if scaling {
        out.push(Reply::Simple("Tightening ratio"));
        out.push(Reply::Double(b.tightening));
        out.push(Reply::Simple("Max scaled capacity"));
        out.push(max_scaled(b)?);
    }
    Ok(Reply::Array(out))
}

/// BF.RESERVE when the key holds a valkey-bloom filter or one would be created.
pub fn reserve(call: &Call, key: &BloomKey) -> Result<Reply> {
    let args = call.args;
    if args.len() > 6 {
        return Err(call.wrong_arity());
    }
    let fp_rate = parse_fp(&args[2])?;
    let capacity = parse_capacity(&args[3])?;
    let mut expansion = settings::expansion();
    if args.len() > 4 {
        match text(&args[4]).to_uppercase().as_str() {
            "NONSCALING" if args.len() == 5 => expansion = 0,
            "EXPANSION" if args.len() == 6 => expansion = parse_expansion(&args[5])?,
            _ => return Err(ValkeyError::Generic.into()),
        }
    }
    if key.read::<ValkeyBloom>()?.is_some() {
        return Err(ValkeyError::ItemExists.into());
    }
    let random = settings::use_random_seed();
    let shape = Shape {
        capacity: capacity as u64,
        fp_rate,
        tightening: settings::tightening(),
        expansion,
        seed: if random { random_seed()? } else { FIXED_SEED },
        seed_random: random,
    };
    let bloom = ValkeyBloom::create(shape, limit_of(call.size_limit()))?;
    let stored = key.store(bloom)?;
    replicate_creation(call, &stored, &[]);
    notify(call, RESERVE_EVENT);
    Ok(Reply::Ok)
}

/// BF.INSERT on a valkey-bloom key, or creating one.
pub fn insert(call: &Call, key: &BloomKey) -> Result<Reply> {
    let args = call.args;
    let argc = args.len();
    let mut fp_rate = settings::fp_rate();
    let mut tightening = settings::tightening();
    let mut capacity = settings::capacity();
    let mut expansion = settings::expansion();
    let mut seed: Option<(Seed, bool)> =
        (!settings::use_random_seed()).then_some((FIXED_SEED, false));
    let mut scale_to = None;
    let mut nocreate = false;
    let mut items_given = false;
    let mut idx = 2;
    let value = |idx: usize| -> Result<&Arg> {
        if idx >= argc - 1 {
            return Err(call.wrong_arity());
        }
        Ok(&args[idx + 1])
    };
    while idx < argc {
        match text(&args[idx]).to_uppercase().as_str() {
            "ERROR" => {
                fp_rate = parse_fp(value(idx)?)?;
                idx += 1;
            }
            "TIGHTENING" => {
                tightening = parse_tightening(value(idx)?)?;
                idx += 1;
            }
            "CAPACITY" => {
                capacity = parse_capacity(value(idx)?)?;
                idx += 1;
            }
            "SEED" => {
                let raw: Seed = value(idx)?
                    .as_slice()
                    .try_into()
                    .map_err(|_| ValkeyError::InvalidSeed)?;
                seed = Some((raw, raw != FIXED_SEED));
                idx += 1;
            }
            "NOCREATE" => nocreate = true,
            "NONSCALING" => expansion = 0,
            "EXPANSION" => {
                expansion = parse_expansion(value(idx)?)?;
                idx += 1;
            }
            "VALIDATESCALETO" => {
                scale_to = Some(parse_capacity(value(idx)?)?);
                idx += 1;
            }
            "ITEMS" => {
                idx += 1;
                items_given = true;
                break;
            }
            _ => return Err(ValkeyError::UnknownArgument.into()),
        }
        idx += 1;
    }
    if idx == argc && items_given {
        return Err(call.wrong_arity());
    }
    let limit = limit_of(call.size_limit());
    if let Some(target) = scale_to {
        if expansion == 0 {
            return Err(ValkeyError::NonScalingWithScaleTo.into());
        }
        if let Some(limit) = limit {
            max_scaled_capacity(
                capacity,
                fp_rate,
                Some(target),
                tightening,
                expansion,
                limit,
            )?;
        }
    }
    let shape = || -> Result<Shape> {
        let (seed, seed_random) = match seed {
            Some(s) => s,
            None => (random_seed()?, true),
        };
        Ok(Shape {
            capacity: capacity as u64,
            fp_rate,
            tightening,
            expansion,
            seed,
            seed_random,
        })
    };
    madd_from(call, key, idx.min(argc), &shape, nocreate)
}

/// BF.LOAD key blob: valkey-bloom's AOF form of a filter, onto a missing key.
pub fn load(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    if key.read::<ValkeyBloom>()?.is_some() {
        return Err(ValkeyError::KeyExists.into());
    }
    let bloom = load_blob::decode(call.args[2].as_slice(), limit_of(call.size_limit()))?;
    key.store(bloom)?;
    call.ctx.replicate_verbatim();
    notify(call, RESERVE_EVENT);
    Ok(Reply::Ok)
}
