//! The cuckoo filter types. `MBbloomCF`: RedisBloom's name and encoding version 4, so its
//! RDB files, DUMP payloads and AOFs load here and go back to RedisBloom. `RSbloomCF`
//! (encoding 1): rsbloom's own, for shards of a logical filter, whose place RedisBloom's
//! value cannot carry. Both hold a [`CuckooFilter`] and share every callback but the RDB
//! value; a CF command takes a key of either.
//!
//! `MBbloomCF` values of encoding versions 0-3 (RedisBloom before v2.2) load too
//! (`rdb::load_legacy`, as RedisBloom loads them); they are written back as version 4.

use std::marker::PhantomData;

use redis_module::native_types::RedisType;
use rsbloom_core::cuckoo::codec::{rdb, scandump, sharded};
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::shard::ShardPlace;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// A cuckoo type's name and RDB value format.
pub trait Format: 'static {
    const NAME: &'static str;
    const ENCODING_VERSION: i32;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CuckooFilter>;
    fn save(filter: &CuckooFilter, out: &mut dyn FieldSink);
}

/// The Redis type of cuckoo filters stored in format `F`.
pub struct CuckooType<F>(PhantomData<F>);

/// Plain filters in RedisBloom's format.
pub struct RedisBloom;
/// Shards in rsbloom's format.
pub struct Shard;

impl Format for RedisBloom {
    const NAME: &'static str = rdb::TYPE_NAME;
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CuckooFilter> {
        match encver {
            0..=3 => rdb::load_legacy(src, limit),
            _ => rdb::load(src, encver, limit),
        }
    }
    fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
        rdb::save(filter, out)
    }
}

impl Format for Shard {
    const NAME: &'static str = sharded::TYPE_NAME;
    const ENCODING_VERSION: i32 = sharded::ENCODING_VERSION;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CuckooFilter> {
        sharded::load(src, encver, limit)
    }
    fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
        sharded::save(filter, out)
    }
}

pub static CUCKOO_TYPE: RedisType = RedisType::new(
    RedisBloom::NAME,
    RedisBloom::ENCODING_VERSION,
    methods::<CuckooType<RedisBloom>>(),
);

pub static CUCKOO_SHARD_TYPE: RedisType = RedisType::new(
    Shard::NAME,
    Shard::ENCODING_VERSION,
    methods::<CuckooType<Shard>>(),
);

static TYPES: [&RedisType; 2] = [&CUCKOO_TYPE, &CUCKOO_SHARD_TYPE];

impl Family for CuckooFilter {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        match self.shard() {
            None => &CUCKOO_TYPE,
            Some(_) => &CUCKOO_SHARD_TYPE,
        }
    }
    fn counters() -> &'static Counters {
        &info::CUCKOO
    }
    fn items(&self) -> i64 {
        // Signed as CF.INFO shows it (a count wrapped below 0 by deletes is -1).
        self.items() as i64
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    fn parts(&self) -> usize {
        self.sub_filters().len()
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        CuckooFilter::relocate(self, mover)
    }
    fn shard_place(&self) -> Option<&ShardPlace> {
        self.shard()
    }
}

impl<F: Format> ValueType for CuckooType<F> {
    type Value = CuckooFilter;
    const NAME: &'static str = F::NAME;
    const ENCODING_VERSION: i32 = F::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::LoadChunks(c"CF.LOADCHUNK");

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CuckooFilter> {
        F::load(src, encver, limit)
    }

    fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
        F::save(filter, out)
    }

    /// The header (with a shard's place), then the slot arrays as SCANDUMP cuts them; also
    /// for a filter that counts no items (SCANDUMP gives nothing for those), as RedisBloom's
    /// rewrite does.
    fn chunks(filter: &CuckooFilter, max_chunk: u64, emit: &mut dyn FnMut(i64, &[u8])) {
        for (iter, data) in scandump::load_calls(filter, max_chunk) {
            emit(iter, &data);
        }
    }

    fn memory(filter: &CuckooFilter) -> usize {
        filter.memory_bytes() as usize
    }

    /// The SCANDUMP header, then each sub-filter's slots.
    fn digest(filter: &CuckooFilter, add: &mut dyn FnMut(&[u8])) {
        add(&sharded::header_of(filter));
        for f in filter.sub_filters() {
            add(f.slots());
        }
    }
}
