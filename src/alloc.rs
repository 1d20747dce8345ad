//! The global allocator: Redis's own (so `INFO memory` and `maxmemory` see our filters), with
//! a `calloc` path for zeroed memory, which the crate's `RedisAlloc` lacks. Without it a new
//! 500 MB filter writes every page up front; with it the pages stay untouched until used.
//!
//! The `Try` forms (`RedisModule_TryAlloc`, `TryCalloc`, `TryRealloc`) answer null where the
//! plain ones would abort the server, so a refused allocation reaches Rust as null: the
//! fallible paths (`rsbloom_core::memory::fallible`, `try_reserve`) turn it into an error,
//! the others end in Rust's allocation-failure abort as before. Redis 7.0 has only
//! `TryAlloc`; there zeroed and grown blocks use the plain forms.
//!
//! Outside a server (unit tests, tools linking the rlib) the Redis functions are never set,
//! and the system allocator serves instead. Inside a server they are set in
//! `RedisModule_OnLoad` before anything is allocated, so one pointer never crosses the two.

use std::alloc::{GlobalAlloc, Layout, System};

use redis_module::raw;

pub struct ModuleAlloc;

/// Redis's jemalloc aligns to the size class; rounding the size up to the alignment makes
/// the block's alignment at least the one asked for.
fn padded(layout: &Layout) -> usize {
    (layout.size() + layout.align() - 1) & !(layout.align() - 1)
}

unsafe impl GlobalAlloc for ModuleAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
            (Some(alloc), _) | (None, Some(alloc)) => alloc(padded(&layout)).cast(),
            (None, None) => System.alloc(layout),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match (raw::RedisModule_TryCalloc, raw::RedisModule_Calloc) {
            (Some(calloc), _) | (None, Some(calloc)) => calloc(1, padded(&layout)).cast(),
            (None, None) => System.alloc_zeroed(layout),
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (raw::RedisModule_TryRealloc, raw::RedisModule_Realloc) {
            (Some(realloc), _) | (None, Some(realloc)) => {
                let new = Layout::from_size_align_unchecked(new_size, layout.align());
                realloc(ptr.cast(), padded(&new)).cast()
            }
            (None, None) => System.realloc(ptr, layout, new_size),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match raw::RedisModule_Free {
            Some(free) => free(ptr.cast()),
            None => System.dealloc(ptr, layout),
        }
    }
}
