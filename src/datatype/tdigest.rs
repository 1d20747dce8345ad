//! The t-digest type, `TDIS-TYPE`: RedisBloom's name and encoding version 0, so its RDB
//! files, DUMP payloads and AOFs load here and go back to RedisBloom.
//!
//! Saving compresses the digest first, in place, as RedisBloom's save does (INFO shows it).
//! A digest of one observation is saved with its value, where RedisBloom drops it
//! (`rsbloom_core::tdigest::codec`).

use redis_module::native_types::RedisType;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::tdigest::codec;
use rsbloom_core::tdigest::TDigest;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// The Redis type of t-digests.
pub struct TDigestType;

pub static TDIGEST_TYPE: RedisType = RedisType::new(
    TDigestType::NAME,
    TDigestType::ENCODING_VERSION,
    methods::<TDigestType>(),
);

static TYPES: [&RedisType; 1] = [&TDIGEST_TYPE];

impl Family for TDigest {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &TDIGEST_TYPE
    }
    fn counters() -> &'static Counters {
        &info::TDIGEST
    }
    /// Observations.
    fn items(&self) -> i64 {
        self.size()
    }
    fn bytes(&self) -> i64 {
        self.memory_usage()
    }
    /// One node buffer, allocated whole at creation: the memory never changes (TDIGEST.MERGE
    /// stores a new value).
    fn parts(&self) -> usize {
        1
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        TDigest::relocate(self, mover)
    }
}

impl ValueType for TDigestType {
    type Value = TDigest;
    const NAME: &'static str = codec::TYPE_NAME;
    const ENCODING_VERSION: i32 = codec::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::Restore;

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<TDigest> {
        codec::load(src, encver, limit)
    }

    /// RedisBloom compresses before it writes; so does this (the digest changes in place).
    fn before_save(digest: &mut TDigest) {
        digest.compress();
    }

    fn save(digest: &TDigest, out: &mut dyn FieldSink) {
        codec::save(digest, out)
    }

    /// RedisBloom's figure: 8 bytes and the two node arrays.
    fn memory(digest: &TDigest) -> usize {
        digest.memory_usage() as usize
    }

    /// The RDB value's fields, as bytes.
    fn digest(digest: &TDigest, add: &mut dyn FnMut(&[u8])) {
        let mut w = rsbloom_core::fields::Writer::default();
        codec::save(digest, &mut w);
        add(&w.0);
    }
}
