//! The sliding-window family's commands (`APBF.*`): their rows (`rows.rs`), one file per
//! group of commands, the clock and how writes are replicated.
//!
//! Time is the primary's: an add takes the server's clock (never earlier than the latest
//! time the filter has seen). A TIME window's add that moves the window's clock is
//! replicated as `APBF.INSERTAT key <ms> items...`, so a replica and an AOF replay apply it
//! at the primary's moment; one at the window's clock (a burst within one millisecond) goes
//! as it came, and a replica or a replay takes it at the window's clock, which is the
//! primary's (`add.rs`: only adds change a window's clock, and every one is replicated; the
//! RDB value, DUMP and SCANDUMP header carry it exactly). Lookups are reads: they ask at the
//! local clock (or the filter's latest time, if later) without changing anything, so servers
//! whose clocks agree answer alike, and a server loading an RDB an hour later forgets what
//! expired meanwhile.

pub mod add;
pub mod exists;
pub mod info;
pub mod reserve;
pub mod rows;
pub mod scandump;

use std::ffi::c_char;

use redis_module::{raw, Context};
use rsbloom_core::decimal;
use rsbloom_core::window::codec::encode_header;
use rsbloom_core::window::WindowFilter;

use super::argv::Arg;

/// The server's clock in milliseconds since the epoch.
pub fn now_ms() -> u64 {
    // SAFETY: a plain call into the server, which fills the function table at load.
    let ms = unsafe { raw::RedisModule_Milliseconds.map_or(0, |f| f()) };
    ms.max(0) as u64
}

/// Replicates the creation of `filter` (as it was made, empty) at `key` as
/// `APBF.LOADCHUNK key 1 <header>`: the header pins every parameter, so a replica or an AOF
/// replay never fills in defaults or chooses a shape of its own.
pub fn replicate_creation(ctx: &Context, key: &Arg, filter: &WindowFilter) {
    let header = encode_header(filter);
    ctx.replicate("APBF.LOADCHUNK", &[key.as_slice(), b"1", &header][..]);
}

/// Replicates adds of `items` at `ms` as `APBF.INSERTAT key ms items...`, passing the
/// command's own argument strings (the crate's `replicate` copies every one into a new string
/// first: two thirds of a timed add's cost). The moment goes as its digits (`b`: the server
/// makes one string of them, where `l` formats the number itself at several times the cost),
/// and one item as one string (`s`: a vector, `v`, makes the server grow its argument array).
pub fn replicate_insertat(ctx: &Context, key: &Arg, ms: u64, items: &[Arg]) {
    let Some(replicate) = (unsafe { raw::RedisModule_Replicate }) else {
        return;
    };
    let mut buf = [0u8; 20];
    let digits = decimal::digits(ms.min(i64::MAX as u64), &mut buf);
    // SAFETY: "sbs" is a string, a buffer with its length and a string; "sbv" a string, a
    // buffer with its length and a vector of `items.len()` strings, as given; `Arg` is a
    // transparent `RedisModuleString` pointer, valid for the whole command; the server copies
    // the buffer before returning.
    unsafe {
        if let [item] = items {
            replicate(
                ctx.ctx,
                c"APBF.INSERTAT".as_ptr(),
                c"sbs".as_ptr(),
                key.raw(),
                digits.as_ptr().cast::<c_char>(),
                digits.len(),
                item.raw(),
            );
        } else {
            replicate(
                ctx.ctx,
                c"APBF.INSERTAT".as_ptr(),
                c"sbv".as_ptr(),
                key.raw(),
                digits.as_ptr().cast::<c_char>(),
                digits.len(),
                items.as_ptr().cast::<*mut raw::RedisModuleString>(),
                items.len(),
            );
        }
    }
}
