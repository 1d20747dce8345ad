//! Command arguments as Redis hands them over: borrowed for the call, never retained or
//! copied (the crate's `RedisString` retains and frees each one, and needs a `Vec`).

use std::ffi::c_int;

use redis_module::{raw, RedisString};

/// One argument of the current command.
#[repr(transparent)]
pub struct Arg(*mut raw::RedisModuleString);

impl Arg {
    /// The arguments of a command call. `argv` must be Redis's array of `argc` strings,
    /// valid for the whole call (it is, for a command callback).
    ///
    /// # Safety
    /// `argv` points to `argc` live `RedisModuleString` pointers, or is null.
    pub unsafe fn slice<'a>(argv: *mut *mut raw::RedisModuleString, argc: c_int) -> &'a [Arg] {
        if argv.is_null() || argc <= 0 {
            return &[];
        }
        // `Arg` is a transparent wrapper of the pointer, so the array is an array of `Arg`.
        std::slice::from_raw_parts(argv.cast::<Arg>(), argc as usize)
    }

    pub fn as_slice(&self) -> &[u8] {
        RedisString::string_as_slice(self.0)
    }

    pub fn raw(&self) -> *mut raw::RedisModuleString {
        self.0
    }
}

/// Batches in the core take their items as `AsRef<[u8]>`: the arguments themselves, without
/// a vector of slices made first.
impl AsRef<[u8]> for Arg {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}
