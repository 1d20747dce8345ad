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
    /// Arrays held (Bloom layers or sub-filters, cuckoo sub-filters).
    pub parts: i64,
    /// Items the value holds before it scales again (BF.INFO `Capacity`; 0 where the
    /// family has none).
    pub capacity: i64,
}

impl Figures {
    /// What changed from `before` to these figures, field by field (wrapping, as loaded
    /// values may claim counts at the ends of the range).
    pub fn since(self, before: Figures) -> Figures {
        Figures {
            bytes: self.bytes.wrapping_sub(before.bytes),
            items: self.items.wrapping_sub(before.items),
            parts: self.parts.wrapping_sub(before.parts),
            capacity: self.capacity.wrapping_sub(before.capacity),
        }
    }
}

/// One family's running totals.
pub struct Counters {
    /// The INFO section's name (`bf_<name>`) and its fields' prefix.
    name: &'static CStr,
    keys: AtomicI64,
    bytes: AtomicI64,
    items: AtomicI64,
    parts: AtomicI64,
    capacity: AtomicI64,
    refused_loads: AtomicU64,
    size_refusals: AtomicU64,
    defrag_moves: AtomicU64,
    defrag_misses: AtomicU64,
    /// The counters that also count everything counted here (valkey-bloom's figures are a
    /// part of the Bloom family's).
    also: Option<&'static Counters>,
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
            parts: AtomicI64::new(0),
            capacity: AtomicI64::new(0),
            refused_loads: AtomicU64::new(0),
            size_refusals: AtomicU64::new(0),
            defrag_moves: AtomicU64::new(0),
            defrag_misses: AtomicU64::new(0),
            also: None,
            full_refusals: None,
        }
    }

    /// Counters whose every figure `to` counts too.
    const fn part_of(mut self, to: &'static Counters) -> Counters {
        self.also = Some(to);
        self
    }

    /// Runs `f` on these counters and on those that also count them.
    fn each(&self, f: impl Fn(&Counters)) {
        f(self);
        if let Some(also) = self.also {
            also.each(f);
        }
    }

    /// A family whose adds may be refused for want of room (`<name>_full_refusals`).
    const fn with_full_refusals(mut self) -> Counters {
        self.full_refusals = Some(AtomicU64::new(0));
        self
    }

    /// A value appeared (a key created, loaded or copied).
    pub fn added(&self, f: Figures) {
        self.each(|c| {
            c.keys.fetch_add(1, Relaxed);
            c.changed(f);
        });
    }

    /// A value was freed.
    pub fn removed(&self, f: Figures) {
        self.each(|c| {
            c.keys.fetch_sub(1, Relaxed);
            c.changed(Figures::default().since(f));
        });
    }

    /// A value's items changed by `delta`.
    pub fn items_changed(&self, delta: i64) {
        self.each(|c| {
            c.items.fetch_add(delta, Relaxed);
        });
    }

    /// A value's parts changed: its figures moved by `delta` (items are counted apart, by
    /// [`items_changed`](Self::items_changed), so `delta.items` is 0).
    pub fn grew(&self, delta: Figures) {
        self.each(|c| c.changed(delta));
    }

    fn changed(&self, f: Figures) {
        self.bytes.fetch_add(f.bytes, Relaxed);
        self.items.fetch_add(f.items, Relaxed);
        self.parts.fetch_add(f.parts, Relaxed);
        self.capacity.fetch_add(f.capacity, Relaxed);
    }

    /// A value or a LOADCHUNK chunk was refused (bad data, or over the size limit).
    pub fn refused_load(&self, e: &Error) {
        self.each(|c| {
            c.refused_loads.fetch_add(1, Relaxed);
        });
        self.refused(e);
    }

    /// Active defragmentation moved `moved` heap blocks of a value and left `missed` where
    /// they were (the server found no better place).
    pub fn defragged(&self, moved: u64, missed: u64) {
        self.each(|c| {
            c.defrag_moves.fetch_add(moved, Relaxed);
            c.defrag_misses.fetch_add(missed, Relaxed);
        });
    }

    /// Counts `e` if it is a refusal by `bf.max-filter-bytes`, or an add a full sliding
    /// window refused (its growth stopped by the limit, or out of layers).
    pub fn refused(&self, e: &Error) {
        if matches!(e, Error::TooLarge { .. } | Error::ApbfFull { .. }) {
            self.each(|c| {
                c.size_refusals.fetch_add(1, Relaxed);
            });
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
/// valkey-bloom's filters (`bloomfltr` keys), a part of the Bloom family: INFO shows them
/// under valkey-bloom's own sections and names as well ([`add_valkey_sections`]).
pub static VALKEY_BLOOM: Counters = Counters::new(c"bloom_valkey").part_of(&BLOOM);
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

/// A running total as INFO shows it: never below 0 (a total briefly negative while a value
/// is replaced reads as none).
fn signed(a: &AtomicI64) -> i64 {
    a.load(Relaxed).max(0)
}

/// A count as INFO's signed field holds it.
fn unsigned(a: &AtomicU64) -> i64 {
    a.load(Relaxed).min(i64::MAX as u64) as i64
}

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

/// The INFO callback: the module's section `bf` (`bf_version`), then one section per family,
/// `bf_<family>`, its fields `bf_<family>_*` (the server prefixes the module's name). A section the caller did not ask for is
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
        add_valkey_sections(ctx);
    }));
}

/// valkey-bloom's two sections and their fields, under its names (`bf_bloom_core_metrics`,
/// `bf_bloom_defrag_metrics`), for its users' dashboards: its filters only.
fn add_valkey_sections(ctx: *mut raw::RedisModuleInfoCtx) {
    let c = &VALKEY_BLOOM;
    if section(ctx, c"bloom_core_metrics") {
        field(ctx, "bloom_total_memory_bytes", signed(&c.bytes));
        field(ctx, "bloom_num_objects", signed(&c.keys));
        field(ctx, "bloom_num_filters_across_objects", signed(&c.parts));
        field(ctx, "bloom_num_items_across_objects", signed(&c.items));
        field(ctx, "bloom_capacity_across_objects", signed(&c.capacity));
    }
    if section(ctx, c"bloom_defrag_metrics") {
        field(ctx, "bloom_defrag_hits", unsigned(&c.defrag_moves));
        field(ctx, "bloom_defrag_misses", unsigned(&c.defrag_misses));
    }
}

fn add_fields(ctx: *mut raw::RedisModuleInfoCtx, c: &Counters) {
    let name = c.name.to_string_lossy();
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
