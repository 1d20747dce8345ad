//! The native data types and their callbacks: RDB save/load, AOF rewrite, memory usage,
//! free, copy and digest. Each callback catches panics: one would abort the server.
//!
//! `RSbloom--` holds Guava-scheme filters in our format; `MBbloom--` (RedisBloom's name and
//! encoding version) holds RedisBloom-scheme filters in RedisBloom's format, so its RDB
//! files, DUMP payloads and AOFs load here and go back. Both hold a [`Chain`]; only the
//! RDB callbacks differ.

use std::ffi::{c_char, c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use redis_module::{native_types::RedisType, raw};

use crate::codec::{chunks, rdb, redisbloom, FieldSink, FieldSource};
use crate::config;
use crate::error::{bad_data, Result};
use crate::filter::{Chain, Scheme};

/// Nine characters, as Redis requires.
pub const TYPE_NAME: &str = "RSbloom--";
/// RedisBloom's type name, used only for filters in its format.
pub const REDISBLOOM_TYPE_NAME: &str = "MBbloom--";

pub static BLOOM_TYPE: RedisType = RedisType::new(
    TYPE_NAME,
    rdb::ENCODING_VERSION,
    methods(rdb_load, rdb_save),
);

pub static REDISBLOOM_TYPE: RedisType = RedisType::new(
    REDISBLOOM_TYPE_NAME,
    redisbloom::ENCODING_VERSION,
    methods(rdb_load_redisbloom, rdb_save_redisbloom),
);

/// The type that holds filters of this scheme.
pub fn type_of(scheme: Scheme) -> &'static RedisType {
    match scheme {
        Scheme::Guava => &BLOOM_TYPE,
        Scheme::RedisBloom => &REDISBLOOM_TYPE,
    }
}

type RdbLoad = extern "C" fn(*mut raw::RedisModuleIO, c_int) -> *mut c_void;
type RdbSave = extern "C" fn(*mut raw::RedisModuleIO, *mut c_void);

const fn methods(load: RdbLoad, save: RdbSave) -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(load),
        rdb_save: Some(save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: Some(digest),
        free: Some(free),
        aux_load: None,
        aux_save: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        mem_usage2: None,
        free_effort2: None,
        unlink2: None,
        copy2: None,
        aux_save2: None,
    }
}

/// Logs through the IO's context (the server log) at warning level.
fn log_io(io: *mut raw::RedisModuleIO, message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    let level = c"warning";
    if let Some(log) = unsafe { raw::RedisModule_LogIOError } {
        unsafe { log(io, level.as_ptr(), c"%s".as_ptr(), text.as_ptr()) };
    }
}

struct IoSink(*mut raw::RedisModuleIO);

impl FieldSink for IoSink {
    fn put_u64(&mut self, value: u64) {
        raw::save_unsigned(self.0, value);
    }
    fn put_f64(&mut self, value: f64) {
        raw::save_double(self.0, value);
    }
    fn put_bytes(&mut self, bytes: &[u8]) {
        raw::save_slice(self.0, bytes);
    }
}

struct IoSource(*mut raw::RedisModuleIO);

fn short_read<E>(_: E) -> crate::error::Error {
    bad_data("short read")
}

impl FieldSource for IoSource {
    fn get_u64(&mut self) -> Result<u64> {
        raw::load_unsigned(self.0).map_err(short_read)
    }
    fn get_f64(&mut self) -> Result<f64> {
        raw::load_double(self.0).map_err(short_read)
    }
    fn with_bytes(&mut self, use_bytes: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let buffer = raw::load_string_buffer(self.0).map_err(short_read)?;
        use_bytes(buffer.as_ref())
    }
}

type Loader = fn(&mut dyn FieldSource, i32, u64) -> Result<Chain>;
type Saver = fn(&Chain, &mut dyn FieldSink);

extern "C" fn rdb_load(io: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    load_with(io, encver, rdb::load)
}

extern "C" fn rdb_load_redisbloom(io: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    load_with(io, encver, redisbloom::load)
}

extern "C" fn rdb_save(io: *mut raw::RedisModuleIO, value: *mut c_void) {
    save_with(io, value, rdb::save)
}

extern "C" fn rdb_save_redisbloom(io: *mut raw::RedisModuleIO, value: *mut c_void) {
    save_with(io, value, redisbloom::save)
}

fn load_with(io: *mut raw::RedisModuleIO, encver: c_int, load: Loader) -> *mut c_void {
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        load(&mut IoSource(io), encver, config::max_filter_bytes())
    }));
    match loaded {
        Ok(Ok(chain)) => Box::into_raw(Box::new(chain)).cast(),
        Ok(Err(e)) => {
            log_io(io, &format!("bf: refusing to load a filter: {e}"));
            ptr::null_mut()
        }
        Err(_) => {
            log_io(io, "bf: panic while loading a filter; refused");
            ptr::null_mut()
        }
    }
}

fn save_with(io: *mut raw::RedisModuleIO, value: *mut c_void, save: Saver) {
    let chain = unsafe { &*value.cast::<Chain>() };
    if catch_unwind(AssertUnwindSafe(|| save(chain, &mut IoSink(io)))).is_err() {
        log_io(io, "bf: panic while saving a filter");
    }
}

/// Rewrites a filter as the SCANDUMP sequence of `BF.LOADCHUNK` commands, each chunk at most
/// `bf.chunk-bytes`, so a replay never meets `proto-max-bulk-len`.
extern "C" fn aof_rewrite(
    io: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    let chain = unsafe { &*value.cast::<Chain>() };
    let Some(emit) = (unsafe { raw::RedisModule_EmitAOF }) else {
        return;
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let max = config::chunk_bytes();
        let mut iter = 0i64;
        while let Ok((next, data)) = chunks::dump_step(chain, iter, max) {
            if next == 0 {
                break;
            }
            // "slb": the key, the iterator as a long long, the data as pointer + length.
            unsafe {
                emit(
                    io,
                    c"BF.LOADCHUNK".as_ptr(),
                    c"slb".as_ptr(),
                    key,
                    next as std::ffi::c_longlong,
                    data.as_ptr().cast::<c_char>(),
                    data.len(),
                );
            }
            iter = next;
        }
    }));
    if result.is_err() {
        log_io(io, "bf: panic while rewriting a filter to the AOF");
    }
}

extern "C" fn mem_usage(value: *const c_void) -> usize {
    let chain = unsafe { &*value.cast::<Chain>() };
    chain.memory_bytes() as usize
}

extern "C" fn digest(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    let chain = unsafe { &*value.cast::<Chain>() };
    let (Some(add), Some(end)) = (unsafe { raw::RedisModule_DigestAddStringBuffer }, unsafe {
        raw::RedisModule_DigestEndSequence
    }) else {
        return;
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let header = chunks::header_of(chain);
        unsafe { add(md, header.as_ptr().cast(), header.len()) };
        for layer in chain.layers() {
            let words = layer.le_bytes();
            unsafe { add(md, words.as_ptr().cast(), words.len()) };
        }
        unsafe { end(md) };
    }));
}

extern "C" fn free(value: *mut c_void) {
    if !value.is_null() {
        drop(unsafe { Box::from_raw(value.cast::<Chain>()) });
    }
}

extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    let chain = unsafe { &*value.cast::<Chain>() };
    match catch_unwind(AssertUnwindSafe(|| chain.clone())) {
        Ok(copy) => Box::into_raw(Box::new(copy)).cast(),
        Err(_) => ptr::null_mut(),
    }
}
