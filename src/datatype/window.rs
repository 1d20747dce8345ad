//! The sliding-window filter type, `RSbloomAP` (rsbloom's own, encoding version 2 with a
//! TIME window's burst layers; version 1 values load as windows without layers; format in
//! `rsbloom_core::window::codec`). The AOF rewrite writes a filter as APBF.LOADCHUNK calls,
//! as the Bloom, cuckoo and counting filters are written: the header carries the window's
//! times and layers, so a replay forgets what expired meanwhile.

use redis_module::native_types::RedisType;
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::window::codec;
use rsbloom_core::window::WindowFilter;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// The Redis type of sliding-window filters.
pub struct WindowType;

pub static WINDOW_TYPE: RedisType = RedisType::new(
    WindowType::NAME,
    WindowType::ENCODING_VERSION,
    methods::<WindowType>(),
);

static TYPES: [&RedisType; 1] = [&WINDOW_TYPE];

impl Family for WindowFilter {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        &WINDOW_TYPE
    }
    fn counters() -> &'static Counters {
        &info::APBF
    }
    fn items(&self) -> i64 {
        self.meta().added.min(i64::MAX as u64) as i64
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    /// Changes whenever a burst layer comes or goes (the memory changes only then).
    fn parts(&self) -> usize {
        self.layer_changes() as usize
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        WindowFilter::relocate(self, mover)
    }
}

impl ValueType for WindowType {
    type Value = WindowFilter;
    const NAME: &'static str = codec::TYPE_NAME;
    const ENCODING_VERSION: i32 = codec::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::LoadChunks(c"APBF.LOADCHUNK");

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<WindowFilter> {
        codec::load(src, encver, limit)
    }

    fn save(filter: &WindowFilter, out: &mut dyn FieldSink) {
        codec::save(filter, out)
    }

    /// The header, then the words as SCANDUMP cuts them.
    fn chunks(filter: &WindowFilter, max_chunk: u64, emit: &mut dyn FnMut(i64, &[u8])) {
        for (iter, data) in codec::load_calls(filter, max_chunk) {
            emit(iter, &data);
        }
    }

    fn memory(filter: &WindowFilter) -> usize {
        filter.memory_bytes() as usize
    }

    /// The SCANDUMP header, then the words.
    fn digest(filter: &WindowFilter, add: &mut dyn FnMut(&[u8])) {
        add(&codec::encode_header(filter));
        if let Some(data) = filter.read_chunk(0, filter.data_len()) {
            add(&data);
        }
    }
}
