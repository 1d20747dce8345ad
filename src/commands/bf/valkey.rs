//! valkey-bloom's dialect of the BF commands: on a key of its type (`bloomfltr`), and when a
//! missing key is created in its format (`bf.new-filter-format valkey`, or a BF.INSERT with
//! SEED, TIGHTENING or VALIDATESCALETO, which only valkey-bloom has and which its
//! replication stream and AOF carry), the commands parse, answer, err and replicate as
//! valkey-bloom 1.0 does. Every other key goes on to rsbloom's own commands unchanged.
//!
//! valkey-bloom parses numbers with Rust's `str::parse` on the argument, replies integers for
//! booleans (RESP3 too), and replicates a creation as
//! `BF.INSERT key CAPACITY c ERROR fp TIGHTENING t SEED <32 bytes> NONSCALING|EXPANSION e
//! [ITEMS ...]` so that replicas hold the same seed; adds go verbatim.

use std::ffi::CString;

use redis_module::raw;
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result, ValkeyError};
use rsbloom_core::valkey::object::max_scaled_capacity;
use rsbloom_core::valkey::subfilter::Seed;
use rsbloom_core::valkey::{load_blob, Shape, ValkeyBloom, FIXED_SEED};

use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_read, open_write, Key, Writing};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config::valkey as settings;
use crate::datatype::valkey::{limit_of, mark_seen, seen};

/// valkey-bloom's keyspace events.
const ADD_EVENT: &str = "bloom.add";
const RESERVE_EVENT: &str = "bloom.reserve";

/// Missing keys are created as `bloomfltr` (`bf.new-filter-format valkey`).
fn creates_valkey() -> bool {
    crate::config::new_filters_valkey()
}

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

/// No `bloomfltr` value has existed and none is to be created: the key cannot be one, and
/// rsbloom's own command runs without a second look at it.
fn not_ours() -> bool {
    !seen() && !creates_valkey()
}

/// The key's filter if it is valkey-bloom's; None for a missing key or any other type.
fn held(key: &Key) -> Option<&ValkeyBloom> {
    key.read::<ValkeyBloom>().ok().flatten()
}

/// The key holds a value of another module or of the server's own types: valkey-bloom's
/// BF.EXISTS and BF.MEXISTS answer WRONGTYPE there (RedisBloom's, and rsbloom's on its
/// own dialect, answer 0).
fn holds_no_bloom(key: &Key) -> bool {
    !key.is_empty() && key.read::<ValkeyBloom>().is_err() && key.read::<Chain>().is_err()
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
    let items: Vec<&[u8]> = items.iter().map(Arg::as_slice).collect();
    bloom.add_batch(&items, limit, |result| {
        if let Ok(a) = result {
            added |= a;
            done += 1;
        }
        each(result);
    });
    (done, added)
}

/// Opens the filter at the call's key for an add; a missing key is created with `shape()`
/// when `create` says so. None: not this dialect's key.
fn add_items_to(
    call: &Call,
    first_item: usize,
    create: Option<&dyn Fn() -> Result<Shape>>,
    nocreate: bool,
    each: impl FnMut(Result<bool>),
) -> Result<Option<()>> {
    let key = open_write(call);
    let limit = limit_of(call.size_limit());
    let items = &call.args[first_item..];
    let (mut bloom, created) = match key.write::<ValkeyBloom>() {
        Ok(Some(bloom)) => (bloom, false),
        Ok(None) => {
            let Some(shape) = create else {
                return Ok(None);
            };
            if nocreate {
                return Err(ValkeyError::NotFound.into());
            }
            let bloom = ValkeyBloom::create(shape()?, limit)?;
            mark_seen();
            (key.store(bloom)?, true)
        }
        Err(_) => return Ok(None),
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
    Ok(Some(()))
}

fn int(result: Result<bool>) -> Reply {
    match result {
        Ok(added) => Reply::Int(added as i64),
        Err(e) => Reply::Error(e),
    }
}

fn configured_if_valkey() -> Option<&'static dyn Fn() -> Result<Shape>> {
    creates_valkey().then_some(&configured_shape as &dyn Fn() -> Result<Shape>)
}

/// BF.ADD on a valkey-bloom key.
pub fn add(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    let mut reply = Reply::Null;
    let handled = add_items_to(call, 2, configured_if_valkey(), false, |r| {
        reply = match r {
            Ok(a) => Reply::Int(a as i64),
            Err(e) => Reply::Error(e),
        }
    })?;
    Ok(handled.map(|()| reply))
}

/// BF.MADD (and BF.INSERT's items) on a valkey-bloom key: one answer per processed item,
/// an error last if one stopped them.
pub fn madd(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    madd_from(call, 2, configured_if_valkey(), false)
}

fn madd_from(
    call: &Call,
    first_item: usize,
    create: Option<&dyn Fn() -> Result<Shape>>,
    nocreate: bool,
) -> Result<Option<Reply>> {
    let mut replies = Vec::new();
    let handled = add_items_to(call, first_item, create, nocreate, |r| replies.push(int(r)))?;
    Ok(handled.map(|()| Reply::Array(replies)))
}

/// BF.EXISTS on a valkey-bloom key.
pub fn exists(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    let key = open_read(call);
    Ok(match held(&key) {
        Some(b) => Some(Reply::Int(b.exists(call.args[2].as_slice()) as i64)),
        None if creates_valkey() && key.is_empty() => Some(Reply::Int(0)),
        None if creates_valkey() && holds_no_bloom(&key) => return Err(Error::WrongType),
        None => None,
    })
}

/// BF.MEXISTS on a valkey-bloom key.
pub fn mexists(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    let key = open_read(call);
    let items = &call.args[2..];
    Ok(match held(&key) {
        Some(b) => {
            let items: Vec<&[u8]> = items.iter().map(Arg::as_slice).collect();
            let found = b.exists_batch(&items);
            Some(Reply::Array(
                found.into_iter().map(|f| Reply::Int(f as i64)).collect(),
            ))
        }
        None if creates_valkey() && key.is_empty() => {
            Some(Reply::Array(items.iter().map(|_| Reply::Int(0)).collect()))
        }
        None if creates_valkey() && holds_no_bloom(&key) => return Err(Error::WrongType),
        None => None,
    })
}

/// BF.CARD on a valkey-bloom key.
pub fn card(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    let key = open_read(call);
    Ok(held(&key).map(|b| Reply::Int(b.cardinality())))
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

/// BF.INFO on a valkey-bloom key: its fields, names and order; a plain array in RESP3 too.
pub fn info(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    let key = open_read(call);
    let Some(b) = held(&key) else {
        return Ok(None);
    };
    let scaling = b.expansion > 0;
    let expansion = || match scaling {
        true => Reply::Int(b.expansion as i64),
        false => Reply::Null,
    };
    if let Some(field) = call.args.get(2) {
        let field = text(field).to_uppercase();
        return Ok(Some(match field.as_str() {
            "CAPACITY" => Reply::Int(b.capacity()),
            "SIZE" => Reply::Int(b.memory_usage() as i64),
            "FILTERS" => Reply::Int(b.filters().len() as i64),
            "ITEMS" => Reply::Int(b.cardinality()),
            "ERROR" => Reply::Double(b.fp_rate),
            "TIGHTENING" if scaling => Reply::Double(b.tightening),
            "EXPANSION" => expansion(),
            "MAXSCALEDCAPACITY" if scaling => max_scaled(b)?,
            _ => return Err(ValkeyError::InvalidInfoValue.into()),
        }));
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
    Ok(Some(Reply::Array(out)))
}

/// BF.RESERVE when the key holds a valkey-bloom filter or one would be created.
pub fn reserve(call: &Call) -> Result<Option<Reply>> {
    if not_ours() {
        return Ok(None);
    }
    {
        let key = open_read(call);
        let ours = held(&key).is_some()
            || (creates_valkey() && key.is_empty() && !names_own_option(&call.args[4..]));
        if !ours {
            return Ok(None);
        }
    }
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
    let key = open_write(call);
    if held(&key).is_some() {
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
    mark_seen();
    let stored = key.store(bloom)?;
    replicate_creation(call, &stored, &[]);
    notify(call, RESERVE_EVENT);
    Ok(Some(Reply::Ok))
}

/// BF.INSERT's words that only valkey-bloom has: a missing key given one is created in its
/// format (its replication stream and AOF replay that way).
fn names_valkey_option(args: &[Arg]) -> bool {
    args.iter()
        .take_while(|a| !grammar::is(a, "ITEMS"))
        .any(|a| {
            grammar::is(a, "SEED")
                || grammar::is(a, "TIGHTENING")
                || grammar::is(a, "VALIDATESCALETO")
        })
}

/// BF.RESERVE's and BF.INSERT's words that only rsbloom has (SHARD, KEYED, BLOCKED): a
/// missing key given one is created as rsbloom's own filter, whatever
/// `bf.new-filter-format` says (valkey-bloom has no such filters).
fn names_own_option(args: &[Arg]) -> bool {
    args.iter()
        .take_while(|a| !grammar::is(a, "ITEMS"))
        .any(|a| {
            ["SHARD", "SHARDID", "SHARDSECRET", "KEYED", "BLOCKED"]
                .iter()
                .any(|w| grammar::is(a, w))
        })
}

/// BF.INSERT on a valkey-bloom key, or creating one.
pub fn insert(call: &Call) -> Result<Option<Reply>> {
    if not_ours() && !names_valkey_option(&call.args[2..]) {
        return Ok(None);
    }
    {
        let key = open_read(call);
        let options = &call.args[2..];
        let ours = held(&key).is_some()
            || (key.is_empty()
                && !names_own_option(options)
                && (creates_valkey() || names_valkey_option(options)));
        if !ours {
            return Ok(None);
        }
    }
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
    let reply = madd_from(call, idx.min(argc), Some(&shape), nocreate)?;
    // The key was checked above; another type cannot have appeared since.
    Ok(Some(reply.unwrap_or(Reply::Error(Error::WrongType))))
}

/// BF.LOAD key blob: valkey-bloom's AOF form of a filter, onto a missing key.
pub fn load(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    if key.read::<ValkeyBloom>()?.is_some() {
        return Err(ValkeyError::KeyExists.into());
    }
    let bloom = load_blob::decode(call.args[2].as_slice(), limit_of(call.size_limit()))?;
    mark_seen();
    key.store(bloom)?;
    call.ctx.replicate_verbatim();
    notify(call, RESERVE_EVENT);
    Ok(Reply::Ok)
}
