//! valkey-bloom's type, `bloomfltr` (encoding version 1; later versions are refused): its RDB
//! value, DUMP payload and AOF rewrite (`BF.LOAD key <blob>`, as valkey-bloom emits), so its
//! datasets load here and go back. The value is the core's [`ValkeyBloom`].
//!
//! A client's RESTORE is held to `bf.bloom-memory-usage-limit` (valkey-bloom's limit, not
//! `bf.max-filter-bytes`); the server's own data to none, as for every type here.

use redis_module::native_types::RedisType;
use rsbloom_core::error::{bad_data, Result};
use rsbloom_core::fields::{FieldSink, FieldSource, Writer};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::valkey::{load_blob, rdb, ValkeyBloom};

use super::{methods, Family, Rewrite, ValueType};
use crate::config::valkey as settings;
use crate::info::{self, Counters};
use crate::size_limit;

pub struct ValkeyType;

pub static VALKEY_TYPE: RedisType = RedisType::new(
    ValkeyType::NAME,
    ValkeyType::ENCODING_VERSION,
    methods::<ValkeyType>(),
);

static TYPES: [&RedisType; 1] = [&VALKEY_TYPE];

/// valkey-bloom's limit for a write whose rsbloom limit is `limit` (none while the server
/// loads or replays its primary: [`size_limit`]).
pub fn limit_of(limit: u64) -> Option<u64> {
    (limit != size_limit::NONE).then(settings::memory_limit)
}

impl Family for ValkeyBloom {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &VALKEY_TYPE
    }
    /// Counted under valkey-bloom's INFO names, and with the Bloom family's figures (INFO
    /// `bf_bloom`).
    fn counters() -> &'static Counters {
        &info::VALKEY_BLOOM
    }
    fn capacity(&self) -> i64 {
        ValkeyBloom::capacity(self)
    }
    fn items(&self) -> i64 {
        self.cardinality()
    }
    fn bytes(&self) -> i64 {
        self.memory_usage() as i64
    }
    fn parts(&self) -> usize {
        self.filters().len()
    }
    /// The value's box is moved by the generic callback; its sub-filters stay put.
    fn relocate(&mut self, _relocate: &mut dyn Relocate) {}
}

impl ValueType for ValkeyType {
    type Value = ValkeyBloom;
    const NAME: &'static str = "bloomfltr";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::Blob(c"BF.LOAD");

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<ValkeyBloom> {
        if encver > rdb::ENCODING_VERSION {
            return Err(bad_data(format!(
                "bloomfltr encoding version {encver} is newer than 1"
            )));
        }
        rdb::load(src, limit_of(limit))
    }

    fn save(bloom: &ValkeyBloom, out: &mut dyn FieldSink) {
        rdb::save(bloom, out)
    }

    fn blob(bloom: &ValkeyBloom) -> Vec<u8> {
        load_blob::encode(bloom)
    }

    fn memory(bloom: &ValkeyBloom) -> usize {
        bloom.memory_usage() as usize
    }

    fn digest(bloom: &ValkeyBloom, add: &mut dyn FnMut(&[u8])) {
        let mut w = Writer::default();
        rdb::save(bloom, &mut w);
        add(&w.0);
    }
}
