//! The native data types and their callbacks: RDB save/load, AOF rewrite, memory usage,
//! free, copy, digest and defragmentation. The callbacks are generic over [`ValueType`], so
//! a new type is one impl of it plus one static and one row in `lib.rs`'s `data_types`; the
//! value it holds is a [`Family`] (the types that hold it, its INFO counters). Each callback
//! catches panics: one would abort the server.

pub mod bloom;
pub mod cms;
pub mod counting;
pub mod cuckoo;
pub mod tdigest;
pub mod topk;
pub mod valkey;
pub mod window;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use redis_module::native_types::RedisType;
use redis_module::raw;
use rsbloom_core::error::{bad_data, escaped, Error, Result};
use rsbloom_core::fields::{FieldSink, FieldSource};
use rsbloom_core::memory::relocate::Relocate;
use rsbloom_core::shard::ShardPlace;

use crate::config;
use crate::info::{Counters, Figures};
use crate::size_limit;

/// A family of values (Bloom filters, cuckoo filters): the Redis types a key of the family
/// may hold, and what a value counts for in the family's INFO section.
pub trait Family: Sized + 'static {
    /// Every type holding the family's values.
    fn types() -> &'static [&'static RedisType];
    /// The type a new value is stored as.
    fn type_of(&self) -> &'static RedisType;
    /// The family's INFO counters.
    fn counters() -> &'static Counters;
    /// Items inserted (BF.CARD, CF.INFO's `Number of items inserted`).
    fn items(&self) -> i64;
    /// Memory as MEMORY USAGE reports it. Changes only with [`Family::parts`].
    fn bytes(&self) -> i64;
    /// How many arrays the value holds (Bloom layers, cuckoo sub-filters): cheap to read,
    /// and the only way its memory changes.
    fn parts(&self) -> usize;
    /// Items before the value scales again (valkey-bloom's `capacity_across_objects`); 0
    /// for families that do not count it.
    fn capacity(&self) -> i64 {
        0
    }
    /// What this value counts for in the INFO counters.
    fn figures(&self) -> Figures {
        Figures {
            bytes: self.bytes(),
            items: self.items(),
            parts: self.parts() as i64,
            capacity: self.capacity(),
        }
    }
    /// Counts `e` as a refused load (a LOADCHUNK chunk or header) and hands it on, for
    /// `map_err`.
    fn refused_load(e: Error) -> Error {
        Self::counters().refused_load(&e);
        e
    }
    /// Moves the value's heap blocks where `relocate` says (active defragmentation).
    fn relocate(&mut self, relocate: &mut dyn Relocate);
    /// The place of a shard (Bloom or cuckoo), whose key must hash into the place's slots:
    /// `COPY` and `RESTORE` to a key outside them are refused, as LOADCHUNK is.
    fn shard_place(&self) -> Option<&ShardPlace> {
        None
    }
}

/// What the module must know of a Redis data type to persist, measure and copy its values.
pub trait ValueType: 'static {
    /// What a key of this type holds.
    type Value: Clone + Family;
    /// Nine characters, as Redis requires.
    const NAME: &'static str;
    /// Written with every RDB value; `rdb_load` gets the one the value was written with.
    const ENCODING_VERSION: i32;
    /// What the AOF rewrite emits for a value.
    const REWRITE: Rewrite;

    /// Reads a value written at `encver`, refusing anything over `limit` bytes before
    /// allocating it.
    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<Self::Value>;
    /// Called on the value before [`ValueType::save`] writes it (RDB save, DUMP, the AOF
    /// rewrite's DUMP): a type whose save changes its value (the t-digest compresses, as
    /// RedisBloom's does) does it here, in place.
    fn before_save(_value: &mut Self::Value) {}
    fn save(value: &Self::Value, out: &mut dyn FieldSink);
    /// Hands each `(iterator, data)` chunk of the value's dump, none over `max_chunk` bytes,
    /// to `emit`, in the order `LOADCHUNK` must replay them ([`Rewrite::LoadChunks`] only).
    fn chunks(_value: &Self::Value, _max_chunk: u64, _emit: &mut dyn FnMut(i64, &[u8])) {}
    /// The value as one string for `CMD key <blob>` ([`Rewrite::Blob`] only).
    fn blob(_value: &Self::Value) -> Vec<u8> {
        Vec::new()
    }
    /// The value's memory, as `MEMORY USAGE` reports it.
    fn memory(value: &Self::Value) -> usize;
    /// Hands the value's content to `add` as byte strings for `DEBUG DIGEST`.
    fn digest(value: &Self::Value, add: &mut dyn FnMut(&[u8]));
}

/// How the AOF rewrite writes a value of a type.
pub enum Rewrite {
    /// `CMD key iterator data` once per chunk of [`ValueType::chunks`] (the SCANDUMP
    /// protocol of the filter families), so no command meets `proto-max-bulk-len`.
    LoadChunks(&'static CStr),
    /// `RESTORE key 0 <DUMP payload>`, as RedisBloom rewrites its sketch types (they have no
    /// SCANDUMP), so its AOFs and ours replay the same way.
    Restore,
    /// `CMD key <blob>` with [`ValueType::blob`] (valkey-bloom's `BF.LOAD`).
    Blob(&'static CStr),
}

/// The callback table of type `T`.
pub const fn methods<T: ValueType>() -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load::<T>),
        rdb_save: Some(rdb_save::<T>),
        aof_rewrite: Some(aof_rewrite::<T>),
        mem_usage: Some(mem_usage::<T>),
        digest: Some(digest::<T>),
        free: Some(free::<T>),
        aux_load: None,
        aux_save: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy::<T>),
        defrag: Some(defrag::<T>),
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

/// The RDB stream as a [`FieldSink`].
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

/// The RDB stream as a [`FieldSource`]; a short read (with `HANDLE_IO_ERRORS`) is an error.
struct IoSource(*mut raw::RedisModuleIO);

fn short_read<E>(_: E) -> Error {
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

/// The value behind a callback's pointer.
///
/// # Safety
/// `value` must be a pointer this module handed to Redis for type `T` (from `rdb_load`,
/// `copy` or a command's `set_value`), still alive.
unsafe fn value_of<'a, T: ValueType>(value: *const c_void) -> &'a T::Value {
    &*value.cast::<T::Value>()
}

/// The name of the key `io` reads, escaped for a log line; `?` when the server gives none.
fn key_of(io: *mut raw::RedisModuleIO) -> String {
    key_bytes(io).map_or_else(|| "?".into(), escaped)
}

/// The name of the key `io` reads, if the server gives it.
fn key_bytes<'a>(io: *mut raw::RedisModuleIO) -> Option<&'a [u8]> {
    let key_name = unsafe { raw::RedisModule_GetKeyNameFromIO }?;
    string_bytes(unsafe { key_name(io) })
}

/// A server string's bytes (`None` for a null one).
fn string_bytes<'a>(s: *const raw::RedisModuleString) -> Option<&'a [u8]> {
    let ptr_len = unsafe { raw::RedisModule_StringPtrLen }?;
    if s.is_null() {
        return None;
    }
    let mut len = 0usize;
    let ptr = unsafe { ptr_len(s, &mut len) };
    (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// A shard's key must hash into its slots; `key` is `None` when the server does not say.
fn check_shard_key<F: Family>(value: &F, key: Option<&[u8]>) -> Result<()> {
    match (value.shard_place(), key) {
        (Some(place), Some(key)) => place.check_key(key),
        _ => Ok(()),
    }
}

/// Reads a value: an RDB value at startup or in a full sync, or a `RESTORE` payload; held
/// to `bf.max-filter-bytes` only when a client sent it ([`size_limit::for_load`]). A refusal
/// is logged with the key, the type and the reason (the server says only that the value is
/// bad).
extern "C" fn rdb_load<T: ValueType>(io: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    // SAFETY: `io` is the stream this callback was handed.
    let limit = unsafe { size_limit::for_load(io) };
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        T::load(&mut IoSource(io), encver, limit)
    }));
    let counters = T::Value::counters();
    let refused = |reason: &str| {
        let key = key_of(io);
        log_io(
            io,
            &format!(
                "bf: refusing to load key '{key}' of type {}: {reason}",
                T::NAME
            ),
        );
    };
    // A client's RESTORE of a shard under a key outside its slots (the server's own loads
    // keep what they hold: refusing one would stop a restart).
    let loaded = loaded.map(|r| {
        r.and_then(|value| {
            if unsafe { size_limit::load_from_client(io) } {
                check_shard_key(&value, key_bytes(io))?;
            }
            Ok(value)
        })
    });
    match loaded {
        Ok(Ok(value)) => {
            counters.added(value.figures());
            Box::into_raw(Box::new(value)).cast()
        }
        Ok(Err(e)) => {
            counters.refused_load(&e);
            refused(&e.to_string());
            ptr::null_mut()
        }
        Err(_) => {
            counters.refused_load(&Error::Internal);
            refused("panic while loading (a bug)");
            ptr::null_mut()
        }
    }
}

extern "C" fn rdb_save<T: ValueType>(io: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: as `value_of`; the server hands the value to this callback alone.
    let value = unsafe { &mut *value.cast::<T::Value>() };
    let save = || {
        T::before_save(value);
        T::save(value, &mut IoSink(io))
    };
    if catch_unwind(AssertUnwindSafe(save)).is_err() {
        log_io(io, "bf: panic while saving a filter");
    }
}

/// Rewrites a value to the AOF as its type's [`Rewrite`] says.
extern "C" fn aof_rewrite<T: ValueType>(
    io: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    let value = unsafe { value_of::<T>(value) };
    let result = catch_unwind(AssertUnwindSafe(|| match T::REWRITE {
        Rewrite::LoadChunks(command) => emit_chunks::<T>(io, key, value, command),
        Rewrite::Restore => emit_restore(io, key),
        Rewrite::Blob(command) => emit_blob(io, key, &T::blob(value), command),
    }));
    if result.is_err() {
        log_io(io, "bf: panic while rewriting a filter to the AOF");
    }
}

/// One `command key iterator data` per chunk, each at most `bf.chunk-bytes`.
fn emit_chunks<T: ValueType>(
    io: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: &T::Value,
    command: &CStr,
) {
    let Some(emit) = (unsafe { raw::RedisModule_EmitAOF }) else {
        return;
    };
    T::chunks(value, config::chunk_bytes(), &mut |iter, data| {
        // "slb": the key, the iterator as a long long, the data as pointer + length.
        unsafe {
            emit(
                io,
                command.as_ptr(),
                c"slb".as_ptr(),
                key,
                iter as std::ffi::c_longlong,
                data.as_ptr().cast::<c_char>(),
                data.len(),
            );
        }
    });
}

/// `command key blob`, in one command whatever its size (as valkey-bloom writes it).
fn emit_blob(
    io: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    blob: &[u8],
    command: &CStr,
) {
    if let Some(emit) = unsafe { raw::RedisModule_EmitAOF } {
        // "sb": the key, the blob as pointer + length.
        unsafe {
            emit(
                io,
                command.as_ptr(),
                c"sb".as_ptr(),
                key,
                blob.as_ptr().cast::<c_char>(),
                blob.len(),
            )
        };
    }
}

/// `RESTORE key 0 <payload>` with the payload the server's own `DUMP` gives (its RDB version
/// and checksum included, so exactly RedisBloom's). Unlike RedisBloom, which always asks in
/// db 0 (and so drops keys of other databases from the rewrite), `DUMP` runs in the key's
/// database.
fn emit_restore(io: *mut raw::RedisModuleIO, key: *mut raw::RedisModuleString) {
    let (
        Some(emit),
        Some(new_ctx),
        Some(free_ctx),
        Some(select),
        Some(call),
        Some(reply_type),
        Some(reply_bytes),
        Some(free_reply),
    ) = (unsafe {
        (
            raw::RedisModule_EmitAOF,
            raw::RedisModule_GetThreadSafeContext,
            raw::RedisModule_FreeThreadSafeContext,
            raw::RedisModule_SelectDb,
            raw::RedisModule_Call,
            raw::RedisModule_CallReplyType,
            raw::RedisModule_CallReplyStringPtr,
            raw::RedisModule_FreeCallReply,
        )
    })
    else {
        log_io(
            io,
            "bf: the server lacks the API to rewrite a key as RESTORE",
        );
        return;
    };
    let db = unsafe { raw::RedisModule_GetDbIdFromIO }.map_or(0, |db_of| unsafe { db_of(io) });
    unsafe {
        let ctx = new_ctx(ptr::null_mut());
        select(ctx, db);
        let reply = call(ctx, c"DUMP".as_ptr(), c"s".as_ptr(), key);
        let mut len = 0usize;
        if !reply.is_null() && reply_type(reply) == raw::REDISMODULE_REPLY_STRING as c_int {
            let data = reply_bytes(reply, &mut len);
            emit(
                io,
                c"RESTORE".as_ptr(),
                c"slb".as_ptr(),
                key,
                0 as std::ffi::c_longlong,
                data,
                len,
            );
        } else {
            log_io(
                io,
                "bf: DUMP failed while rewriting a key to the AOF; key left out",
            );
        }
        if !reply.is_null() {
            free_reply(reply);
        }
        free_ctx(ctx);
    }
}

extern "C" fn mem_usage<T: ValueType>(value: *const c_void) -> usize {
    T::memory(unsafe { value_of::<T>(value) })
}

extern "C" fn digest<T: ValueType>(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    let value = unsafe { value_of::<T>(value) };
    let (Some(add), Some(end)) = (unsafe { raw::RedisModule_DigestAddStringBuffer }, unsafe {
        raw::RedisModule_DigestEndSequence
    }) else {
        return;
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        T::digest(value, &mut |bytes| unsafe {
            add(md, bytes.as_ptr().cast(), bytes.len())
        });
        unsafe { end(md) };
    }));
}

extern "C" fn free<T: ValueType>(value: *mut c_void) {
    if !value.is_null() {
        let value = unsafe { Box::from_raw(value.cast::<T::Value>()) };
        T::Value::counters().removed(value.figures());
        drop(value);
    }
}

/// `COPY`: a clone, refused (the server answers `ERR module key failed to copy`) for a shard
/// whose new key is outside its slots.
extern "C" fn copy<T: ValueType>(
    _from: *mut raw::RedisModuleString,
    to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    let value = unsafe { value_of::<T>(value) };
    if check_shard_key(value, string_bytes(to)).is_err() {
        return ptr::null_mut();
    }
    match catch_unwind(AssertUnwindSafe(|| value.clone())) {
        Ok(copy) => {
            T::Value::counters().added(copy.figures());
            Box::into_raw(Box::new(copy)).cast()
        }
        Err(_) => ptr::null_mut(),
    }
}

/// The server's allocator moving blocks for active defragmentation: `DefragAlloc` copies a
/// block to a less fragmented place and frees the old one, or answers null when moving it
/// would not help (then the block stays where it is).
struct Defrag {
    ctx: *mut raw::RedisModuleDefragCtx,
    moved: u64,
    missed: u64,
}

impl Relocate for Defrag {
    fn relocate(&mut self, block: *mut u8) -> Option<*mut u8> {
        let defrag_alloc = unsafe { raw::RedisModule_DefragAlloc }?;
        let moved = unsafe { defrag_alloc(self.ctx, block.cast()) };
        self.moved += !moved.is_null() as u64;
        self.missed += moved.is_null() as u64;
        (!moved.is_null()).then_some(moved.cast())
    }
}

/// Active defragmentation of one value (`activedefrag yes`): the value's box, then every
/// block inside it. The server moves the key's own structures itself.
extern "C" fn defrag<T: ValueType>(
    ctx: *mut raw::RedisModuleDefragCtx,
    _key: *mut raw::RedisModuleString,
    value: *mut *mut c_void,
) -> c_int {
    let mut mover = Defrag {
        ctx,
        moved: 0,
        missed: 0,
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `*value` is a live value of type `T`; a moved box holds the same bytes.
        unsafe {
            if let Some(moved) = mover.relocate((*value).cast()) {
                *value = moved.cast();
            }
            let v = &mut *(*value).cast::<T::Value>();
            v.relocate(&mut mover);
        }
    }));
    T::Value::counters().defragged(mover.moved, mover.missed);
    0
}
