//! The Count-Min Sketch type, `CMSk-TYPE`: RedisBloom's name, registered at encoding version
//! 0 so that sketches of 4-byte counters go back to every RedisBloom byte for byte; RedisBloom
//! 8.12's version 1 loads too (see `rsbloom_core::cms::codec` for why rsbloom does not write
//! it). The AOF rewrite writes `RESTORE key 0 <DUMP>` per key, as RedisBloom's does.

use redis_module::native_types::RedisType;
use rsbloom_core::cms::codec;
use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// The Redis type of Count-Min Sketches.
pub struct CmsType;

pub static CMS_TYPE: RedisType = RedisType::new(
    CmsType::NAME,
    CmsType::ENCODING_VERSION,
    methods::<CmsType>(),
);

static TYPES: [&RedisType; 1] = [&CMS_TYPE];

impl Family for CountMinSketch {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &CMS_TYPE
    }
    fn counters() -> &'static Counters {
        &info::CMS
    }
    /// The total of increments, signed as CMS.INFO shows it.
    fn items(&self) -> i64 {
        self.count() as i64
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    /// One array, sized once: a sketch's memory never changes.
    fn parts(&self) -> usize {
        1
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        CountMinSketch::relocate(self, mover)
    }
}

impl ValueType for CmsType {
    type Value = CountMinSketch;
    const NAME: &'static str = codec::TYPE_NAME;
    const ENCODING_VERSION: i32 = codec::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::Restore;

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CountMinSketch> {
        codec::load(src, encver, limit)
    }

    fn save(sketch: &CountMinSketch, out: &mut dyn FieldSink) {
        codec::save(sketch, out)
    }

    fn memory(sketch: &CountMinSketch) -> usize {
        sketch.memory_bytes() as usize
    }

    /// The RDB value: the dimensions, the total and the counters.
    fn digest(sketch: &CountMinSketch, add: &mut dyn FnMut(&[u8])) {
        let mut w = rsbloom_core::fields::Writer::default();
        codec::save(sketch, &mut w);
        add(&w.0);
    }
}
