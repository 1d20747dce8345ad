//! The Top-K type, `TopK-TYPE`: RedisBloom's name and encoding version 0, so its RDB files,
//! DUMP payloads and AOFs load here and go back to RedisBloom (see `rsbloom_core::topk::codec`
//! for what rsbloom writes where RedisBloom writes pointers). The AOF rewrite is
//! `RESTORE key 0 <DUMP>`, as RedisBloom's.

use redis_module::native_types::RedisType;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource, Writer};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::topk::codec;
use rsbloom_core::topk::TopK;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// The Redis type of Top-K sketches.
pub struct TopKType;

pub static TOPK_TYPE: RedisType = RedisType::new(
    TopKType::NAME,
    TopKType::ENCODING_VERSION,
    methods::<TopKType>(),
);

static TYPES: [&RedisType; 1] = [&TOPK_TYPE];

impl Family for TopK {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &TOPK_TYPE
    }
    fn counters() -> &'static Counters {
        &info::TOPK
    }
    /// A sketch counts no items (its counts are estimates, not insertions).
    fn items(&self) -> i64 {
        0
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    fn parts(&self) -> usize {
        1
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        TopK::relocate(self, mover)
    }
}

impl ValueType for TopKType {
    type Value = TopK;
    const NAME: &'static str = codec::TYPE_NAME;
    const ENCODING_VERSION: i32 = codec::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::Restore;

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<TopK> {
        codec::load(src, encver, limit)
    }

    fn save(topk: &TopK, out: &mut dyn FieldSink) {
        codec::save(topk, out)
    }

    fn memory(topk: &TopK) -> usize {
        topk.memory_bytes() as usize
    }

    /// The RDB value as one string.
    fn digest(topk: &TopK, add: &mut dyn FnMut(&[u8])) {
        let mut w = Writer::default();
        codec::save(topk, &mut w);
        add(&w.0);
    }
}
