//! The one clear log line when the module cannot load because another module already owns
//! the name `bf`: Redis 8's full distribution and Redis Stack load RedisBloom, Valkey's
//! bundles load valkey-bloom, and both register `bf` with the same commands and types.
//!
//! The server's module header refuses a busy name inside `RedisModule_Init`, before any of
//! our code runs, and the server then only logs "initialization failed". What it does next
//! is `dlclose` this library, which runs the function below: by then the module API is
//! bound (the refusal happens after binding it), so the name can be checked and logged.

use std::ffi::c_char;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};

use redis_module::raw;

/// Set when `RedisModule_OnLoad` got as far as our `init`: from there on, failures log
/// their own reason.
static REACHED_INIT: AtomicBool = AtomicBool::new(false);

pub fn reached_init() {
    REACHED_INIT.store(true, Ordering::Relaxed);
}

const ADVICE: &std::ffi::CStr = c"bf: rsbloom is not loaded: another module named 'bf' is already loaded (RedisBloom, which Redis 8's full distribution and Redis Stack load, or valkey-bloom, which Valkey's bundles load); it owns the name and the commands and types under it (BF.*, and with RedisBloom CF.*, CMS.*, TOPK.*, TDIGEST.*). Load one or the other: remove the other module's loadmodule line (MODULE LIST shows what is loaded). rsbloom reads RedisBloom's data, see docs/migrating-from-redisbloom.md 'Running on Redis 8 / Valkey bundles'";

#[used]
#[link_section = ".fini_array"]
static ON_UNLOAD_LIBRARY: extern "C" fn() = report_busy_name;

extern "C" fn report_busy_name() {
    if REACHED_INIT.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY: the pointers are the server's API table entries, written by the module header
    // while the load was attempted (or still None if it never got that far); they stay valid
    // while the server runs, and this runs on the server's main thread inside its dlclose.
    unsafe {
        let (Some(busy), Some(log)) = (raw::RedisModule_IsModuleNameBusy, raw::RedisModule_Log)
        else {
            return;
        };
        if busy(c"bf".as_ptr()) != 0 {
            log(
                ptr::null_mut(),
                c"warning".as_ptr(),
                c"%s".as_ptr(),
                ADVICE.as_ptr() as *const c_char,
            );
        }
    }
}
