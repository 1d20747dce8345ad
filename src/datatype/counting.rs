//! The counting Bloom filter type, `RSbloomCB` (rsbloom's own, encoding version 1; format
//! in `rsbloom_core::counting::codec`). The AOF rewrite writes a filter as CBF.LOADCHUNK
//! calls, as the Bloom and cuckoo filters are written.

use redis_module::native_types::RedisType;
use rsbloom_core::counting::codec;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// The Redis type of counting Bloom filters.
pub struct CountingType;

pub static COUNTING_TYPE: RedisType = RedisType::new(
    CountingType::NAME,
    CountingType::ENCODING_VERSION,
    methods::<CountingType>(),
);

static TYPES: [&RedisType; 1] = [&COUNTING_TYPE];

impl Family for CountingFilter {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &COUNTING_TYPE
    }
    fn counters() -> &'static Counters {
        &info::CBF
    }
    fn items(&self) -> i64 {
        self.count().min(i64::MAX as u64) as i64
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    fn parts(&self) -> usize {
        1
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        CountingFilter::relocate(self, mover)
    }
}

impl ValueType for CountingType {
    type Value = CountingFilter;
    const NAME: &'static str = codec::TYPE_NAME;
    const ENCODING_VERSION: i32 = codec::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::LoadChunks(c"CBF.LOADCHUNK");

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CountingFilter> {
        codec::load(src, encver, limit)
    }

    fn save(filter: &CountingFilter, out: &mut dyn FieldSink) {
        codec::save(filter, out)
    }

    /// The header, then the counters as SCANDUMP cuts them.
    fn chunks(filter: &CountingFilter, max_chunk: u64, emit: &mut dyn FnMut(i64, &[u8])) {
        for (iter, data) in codec::load_calls(filter, max_chunk) {
            emit(iter, &data);
        }
    }

    fn memory(filter: &CountingFilter) -> usize {
        filter.memory_bytes() as usize
    }

    /// The SCANDUMP header, then the counters.
    fn digest(filter: &CountingFilter, add: &mut dyn FnMut(&[u8])) {
        add(&codec::encode_header(&filter.meta()));
        if let Some(data) = filter.read_chunk(0, filter.data_len()) {
            add(&data);
        }
    }
}
