//! The Bloom filter types. Both hold a [`Chain`] and share every callback but the RDB value.
//!
//! `RSbloom--` holds Guava-scheme filters in our format; `MBbloom--` (RedisBloom's name and
//! encoding version) holds RedisBloom-scheme filters in RedisBloom's format, so its RDB
//! files, DUMP payloads and AOFs load here and go back.

use std::marker::PhantomData;

use redis_module::native_types::RedisType;
use rsbloom_core::bloom::codec::{mbbloom, native, scandump};
use rsbloom_core::bloom::{Chain, Scheme};
use rsbloom_core::error::Result;
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::shard::ShardPlace;

use super::{methods, Family, Rewrite, ValueType};
use crate::info::{self, Counters};

/// A Bloom type's name and RDB value format.
pub trait Format: 'static {
    const NAME: &'static str;
    const ENCODING_VERSION: i32;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<Chain>;
    fn save(chain: &Chain, out: &mut dyn FieldSink);
}

/// The Redis type of Bloom filters stored in format `F`.
pub struct BloomType<F>(PhantomData<F>);

/// Guava-scheme filters in our own format.
pub struct Native;
/// RedisBloom-scheme filters in RedisBloom's format.
pub struct RedisBloom;

impl Format for Native {
    const NAME: &'static str = native::TYPE_NAME;
    const ENCODING_VERSION: i32 = native::ENCODING_VERSION;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<Chain> {
        native::load(src, encver, limit)
    }
    fn save(chain: &Chain, out: &mut dyn FieldSink) {
        native::save(chain, out)
    }
}

impl Format for RedisBloom {
    const NAME: &'static str = mbbloom::TYPE_NAME;
    const ENCODING_VERSION: i32 = mbbloom::ENCODING_VERSION;
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<Chain> {
        mbbloom::load(src, encver, limit)
    }
    fn save(chain: &Chain, out: &mut dyn FieldSink) {
        mbbloom::save(chain, out)
    }
}

pub static BLOOM_TYPE: RedisType = RedisType::new(
    Native::NAME,
    Native::ENCODING_VERSION,
    methods::<BloomType<Native>>(),
);

pub static REDISBLOOM_TYPE: RedisType = RedisType::new(
    RedisBloom::NAME,
    RedisBloom::ENCODING_VERSION,
    methods::<BloomType<RedisBloom>>(),
);

/// Both Bloom types: a BF command takes a key of either.
static TYPES: [&RedisType; 2] = [&BLOOM_TYPE, &REDISBLOOM_TYPE];

impl Family for Chain {
    fn types() -> &'static [&'static RedisType] {
        &TYPES
    }
    fn type_of(&self) -> &'static RedisType {
        type_of(self.scheme())
    }
    fn counters() -> &'static Counters {
        &info::BLOOM
    }
    fn items(&self) -> i64 {
        // Clamped as BF.CARD clamps it (loaded data may claim any count).
        self.count().min(i64::MAX as u64) as i64
    }
    fn bytes(&self) -> i64 {
        self.memory_bytes() as i64
    }
    fn parts(&self) -> usize {
        self.layers().len()
    }
    fn relocate(&mut self, mover: &mut dyn Relocate) {
        Chain::relocate(self, mover)
    }
    fn shard_place(&self) -> Option<&ShardPlace> {
        self.shard()
    }
}

/// The type that holds filters of this scheme.
pub fn type_of(scheme: Scheme) -> &'static RedisType {
    match scheme {
        Scheme::Guava => &BLOOM_TYPE,
        Scheme::RedisBloom => &REDISBLOOM_TYPE,
    }
}

impl<F: Format> ValueType for BloomType<F> {
    type Value = Chain;
    const NAME: &'static str = F::NAME;
    const ENCODING_VERSION: i32 = F::ENCODING_VERSION;
    const REWRITE: Rewrite = Rewrite::LoadChunks(c"BF.LOADCHUNK");

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<Chain> {
        F::load(src, encver, limit)
    }

    fn save(chain: &Chain, out: &mut dyn FieldSink) {
        F::save(chain, out)
    }

    /// The SCANDUMP steps from the header on.
    fn chunks(chain: &Chain, max_chunk: u64, emit: &mut dyn FnMut(i64, &[u8])) {
        let mut iter = 0i64;
        loop {
            let (next, data) = scandump::dump_step(chain, iter, max_chunk);
            if next == 0 {
                break;
            }
            emit(next, &data);
            iter = next;
        }
    }

    fn memory(chain: &Chain) -> usize {
        chain.memory_bytes() as usize
    }

    /// The SCANDUMP header, then each layer's bits.
    fn digest(chain: &Chain, add: &mut dyn FnMut(&[u8])) {
        add(&scandump::header_of(chain));
        for layer in chain.layers() {
            add(&layer.le_bytes());
        }
    }
}
