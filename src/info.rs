//! The module's own INFO sections (`INFO bf`, `INFO bf_bloom`, `INFO everything`): the
//! module's section `bf` with rsbloom's version (`bf_version`, the crate's, where `MODULE
//! LIST` shows RedisBloom's number); then per family, the keys, their memory and items, and
//! what was refused since the server started. Exporters turn these fields into metrics.
//!
//! The figures are kept as running totals, so INFO costs the same with a million keys as
//! with one: a value adds its figures when it appears (created by a command, loaded from an
//! RDB, RESTORE or full sync, copied), a write adds the difference it made (see
//! `commands::key::Writing`), and `free` takes the value's figures away. `free` may run on a
//! background thread (FLUSHALL ASYNC, lazy freeing), hence the atomics.

use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

use redis_module::{raw, Context};
use rsbloom_core::error::Error;

/// What one value counts for.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Figures {
    /// As MEMORY USAGE reports the value (BF.INFO / CF.INFO `Size`).
    pub bytes: i64,
    /// Items inserted (BF.CARD, CF.INFO `Number of items inserted`).
    pub items: i64,
}

/// One family's running totals.
pub struct Counters {
    /// The INFO section's name (`bf_<name>`) and its fields' prefix.
    name: &'static CStr,
    keys: AtomicI64,
    bytes: AtomicI64,
    items: AtomicI64,
    refused_loads: AtomicU64,
    size_refusals: AtomicU64,
    defrag_moves: AtomicU64,
    /// Adds refused because a sliding window was full (`bf_apbf` only).
    full_refusals: Option<AtomicU64>,
}

impl Counters {
    const fn new(name: &'static CStr) -> Counters {
        Counters {
            name,
            keys: AtomicI64::new(0),
            bytes: AtomicI64::new(0),
            items: AtomicI64::new(0),
            refused_loads: AtomicU64::new(0),
            size_refusals: AtomicU64::new(0),
            defrag_moves: AtomicU64::new(0),
            full_refusals: None,
        }
    }

    /// A family whose adds may be refused for want of room (`<name>_full_refusals`).
    const fn with_full_refusals(mut self) -> Counters {
        self.full_refusals = Some(AtomicU64::new(0));
        self
    }

    /// A value appeared (a key created, loaded or copied).
    pub fn added(&self, f: Figures) {
        self.keys.fetch_add(1, Relaxed);
        self.bytes.fetch_add(f.bytes, Relaxed);
        self.items.fetch_add(f.items, Relaxed);
    }

    /// A value was freed.
    pub fn removed(&self, f: Figures) {
        self.keys.fetch_sub(1, Relaxed);
        self.bytes.fetch_sub(f.bytes, Relaxed);
        self.items.fetch_sub(f.items, Relaxed);
    }

    /// A value's items changed by `delta`.
    pub fn items_changed(&self, delta: i64) {
        self.items.fetch_add(delta, Relaxed);
    }

    /// A value's memory changed by `delta`.
    pub fn bytes_changed(&self, delta: i64) {
        self.bytes.fetch_add(delta, Relaxed);
    }

    /// A value or a LOADCHUNK chunk was refused (bad data, or over the size limit).
    pub fn refused_load(&self, e: &Error) {
        self.refused_loads.fetch_add(1, Relaxed);
        self.refused(e);
    }

    /// Active defragmentation moved `blocks` heap blocks of a value.
    pub fn defragged(&self, blocks: u64) {
        self.defrag_moves.fetch_add(blocks, Relaxed);
    }

    /// Counts `e` if it is a refusal by `bf.max-filter-bytes`, or an add a full sliding
    /// window refused (its growth stopped by the limit, or out of layers).
    pub fn refused(&self, e: &Error) {
        if matches!(e, Error::TooLarge { .. } | Error::ApbfFull { .. }) {
            self.size_refusals.fetch_add(1, Relaxed);
        }
        if let (Some(full), Error::ApbfFull { .. } | Error::ApbfMaxLayers) =
            (&self.full_refusals, e)
        {
            full.fetch_add(1, Relaxed);
        }
    }
}

/// The Bloom family (`RSbloom--` and `MBbloom--` keys).
pub static BLOOM: Counters = Counters::new(c"bloom");
/// The cuckoo family (`MBbloomCF` keys).
pub static CUCKOO: Counters = Counters::new(c"cuckoo");

/// Count-Min Sketches (`CMSk-TYPE` keys).
pub static CMS: Counters = Counters::new(c"cms");
/// Top-K lists (`TopK-TYPE` keys).
pub static TOPK: Counters = Counters::new(c"topk");
/// t-digests (`TDIS-TYPE` keys).
pub static TDIGEST: Counters = Counters::new(c"tdigest");

/// Counting Bloom filters (`RSbloomCB` keys).
pub static CBF: Counters = Counters::new(c"cbf");
/// Sliding-window filters (`RSbloomAP` keys).
pub static APBF: Counters = Counters::new(c"apbf").with_full_refusals();

/// Every family's counters, in INFO order.
static FAMILIES: [&Counters; 7] = [&BLOOM, &CUCKOO, &CMS, &TOPK, &TDIGEST, &CBF, &APBF];

fn field(ctx: *mut raw::RedisModuleInfoCtx, name: &str, value: i64) {
    let Some(add) = (unsafe { raw::RedisModule_InfoAddFieldLongLong }) else {
        return;
    };
    let Ok(name) = CString::new(name) else {
        return;
    };
    unsafe { add(ctx, name.as_ptr().cast_mut(), value) };
}

fn text_field(ctx: *mut raw::RedisModuleInfoCtx, name: &CStr, value: &CStr) {
    let Some(add) = (unsafe { raw::RedisModule_InfoAddFieldCString }) else {
        return;
    };
    unsafe { add(ctx, name.as_ptr().cast_mut(), value.as_ptr().cast_mut()) };
}

/// Adds the section `name` (`bf_<name>`; an empty name is the module's own section, `bf`)
/// if the caller asked for it.
fn section(ctx: *mut raw::RedisModuleInfoCtx, name: &CStr) -> bool {
    let Some(add) = (unsafe { raw::RedisModule_InfoAddSection }) else {
        return false;
    };
    unsafe { add(ctx, name.as_ptr() as *mut c_char) == raw::REDISMODULE_OK as i32 }
}

/// Registers [`add_sections`] as the module's INFO callback (in place of the one the
/// `redis-module` crate registers before `init`, which has nothing to add).
pub fn register(ctx: &Context) -> Result<(), String> {
    let register = unsafe { raw::RedisModule_RegisterInfoFunc }.ok_or("no RegisterInfoFunc")?;
    match unsafe { register(ctx.ctx, Some(add_sections)) } {
        s if s == raw::REDISMODULE_OK as c_int => Ok(()),
        _ => Err("the server refused the INFO callback".into()),
    }
}

/// The INFO callback: the module's section `bf` (`bf_version`), then one section per family, `bf_<family>`, its fields `bf_<family>_*`
/// (the server prefixes the module's name). A section the caller did not ask for is
/// skipped by the server (`InfoAddSection` answers an error). Catches panics, as every
/// callback does: one would abort the server.
extern "C" fn add_sections(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if section(ctx, c"") {
            text_field(ctx, c"version", crate::VERSION);
        }
        for c in FAMILIES {
            if section(ctx, c.name) {
                add_fields(ctx, c);
            }
        }
    }));
}

fn add_fields(ctx: *mut raw::RedisModuleInfoCtx, c: &Counters) {
    let name = c.name.to_string_lossy();
    let signed = |a: &AtomicI64| a.load(Relaxed).max(0);
    let unsigned = |a: &AtomicU64| a.load(Relaxed).min(i64::MAX as u64) as i64;
    for (field_name, value) in [
        ("keys", signed(&c.keys)),
        ("memory_bytes", signed(&c.bytes)),
        ("items", signed(&c.items)),
        ("refused_loads", unsigned(&c.refused_loads)),
        ("size_limit_refusals", unsigned(&c.size_refusals)),
        ("defrag_moves", unsigned(&c.defrag_moves)),
    ] {
        field(ctx, &format!("{name}_{field_name}"), value);
    }
    if let Some(full) = &c.full_refusals {
        field(ctx, &format!("{name}_full_refusals"), unsigned(full));
    }
}
