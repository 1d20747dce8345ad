//! What the server is told about the configs, once, while the module loads (after the load
//! arguments, whose values become the defaults), then `RedisModule_LoadConfigs`, which applies
//! the config file's lines (or each default) through the setters, in registration order.
//!
//! The eight settings RedisBloom 8 has too are string configs with RedisBloom 8's checks and
//! texts. Where the server takes unprefixed names with an alias (Redis 8), each is one config
//! named RedisBloom's way with rsbloom's `bf.` name as its alias, so a RedisBloom 8
//! `redis.conf` starts rsbloom; elsewhere (Redis 7, Valkey) it is `bf.<name>` alone and
//! RedisBloom's names are load arguments only. One config for both names, not two sharing a
//! value: the server applies every registered config's default at load, so a second config
//! would overwrite the first's config-file value with its default.
//!
//! The rest are registered through `redis_module`'s helpers under `bf.<name>`.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use redis_module::configuration::{
    register_bool_configuration, register_enum_configuration, register_i64_configuration,
    register_string_configuration, ConfigurationFlags,
};
use redis_module::{raw, Context};

use super::settings::{Setting, Value};
use super::*;

/// The eight are registered under RedisBloom's names (with `bf.<name>` as the alias).
static UNPREFIXED: AtomicBool = AtomicBool::new(false);

/// The strings the getters last returned (the server copies a config's value at once, and
/// does not free it): each is freed by the next get of the same setting.
static HELD: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Registers every config and applies the config file. `unprefixed`: the server takes
/// unprefixed names and aliases (see [`crate::server_options::has_unprefixed_configs`]).
pub fn register(ctx: &Context, unprefixed: bool) -> Result<(), String> {
    // SAFETY: reading the API table the module header filled in.
    let (Some(_), Some(load)) = (unsafe { raw::RedisModule_RegisterStringConfig }, unsafe {
        raw::RedisModule_LoadConfigs
    }) else {
        // A server without module configs: load arguments only.
        return Ok(());
    };
    UNPREFIXED.store(unprefixed, Ordering::Relaxed);
    for setting in Setting::ALL {
        register_setting(ctx, setting)?;
    }
    register_others(ctx);
    // SAFETY: ctx is the context OnLoad got; configs may only be loaded inside OnLoad.
    if unsafe { load(ctx.ctx) } != raw::REDISMODULE_OK as c_int {
        return Err("the configs could not be loaded (see the lines above)".to_string());
    }
    Ok(())
}

fn register_setting(ctx: &Context, setting: Setting) -> Result<(), String> {
    let default = setting.text(&format_rate);
    let default = CString::new(default).map_err(|e| e.to_string())?;
    let privdata = Setting::ALL.iter().position(|&s| s == setting).unwrap_or(0) as *mut c_void;
    let try_register = |name: String, flags: u32| -> bool {
        let Ok(name) = CString::new(name) else {
            return false;
        };
        // SAFETY: checked non-null in `register`; the strings outlive the call (the server
        // copies them); privdata is an index, not a pointer.
        unsafe {
            raw::RedisModule_RegisterStringConfig.map(|f| {
                f(
                    ctx.ctx,
                    name.as_ptr(),
                    default.as_ptr(),
                    flags,
                    Some(get_setting),
                    Some(set_setting),
                    None,
                    privdata,
                )
            }) == Some(raw::REDISMODULE_OK as c_int)
        }
    };
    let own = setting.own_name();
    if UNPREFIXED.load(Ordering::Relaxed) {
        let names = format!("{}|bf.{own}", setting.redisbloom_name());
        if try_register(names, raw::REDISMODULE_CONFIG_UNPREFIXED) {
            return Ok(());
        }
        // Only the first can fail here (the server refuses the flag or the alias): the rest
        // follow it under `bf.` names.
        ctx.log_warning(&format!(
            "bf: the server refused the config name '{}': RedisBloom 8's config names are \
             load arguments only",
            setting.redisbloom_name()
        ));
        UNPREFIXED.store(false, Ordering::Relaxed);
    }
    if try_register(own.to_string(), raw::REDISMODULE_CONFIG_DEFAULT) {
        Ok(())
    } else {
        Err(format!("cannot register the config bf.{own}"))
    }
}

/// The name a setting's error texts give: the one it is registered under.
fn shown_name(setting: Setting) -> String {
    if UNPREFIXED.load(Ordering::Relaxed) {
        setting.redisbloom_name().to_string()
    } else {
        format!("bf.{}", setting.own_name())
    }
}

fn setting_of(privdata: *mut c_void) -> Setting {
    Setting::ALL[(privdata as usize).min(Setting::ALL.len() - 1)]
}

/// A string the module owns (freed with `RedisModule_FreeString`).
fn create_string(text: &str) -> *mut raw::RedisModuleString {
    // SAFETY: the API table is filled in; a null context makes a string the module frees.
    unsafe {
        match raw::RedisModule_CreateString {
            Some(create) => create(std::ptr::null_mut(), text.as_ptr().cast(), text.len()),
            None => std::ptr::null_mut(),
        }
    }
}

/// An error rate as the server writes a double (RedisBloom shows a rate it was given as a
/// load argument, or capped, so).
fn format_rate(p: f64) -> String {
    // SAFETY: the API table is filled in; the string is read, then freed.
    unsafe {
        let (Some(create), Some(free)) = (
            raw::RedisModule_CreateStringFromDouble,
            raw::RedisModule_FreeString,
        ) else {
            return p.to_string();
        };
        let s = create(std::ptr::null_mut(), p);
        let text = string_text(s).unwrap_or_else(|| p.to_string());
        free(std::ptr::null_mut(), s);
        text
    }
}

/// The bytes of a server string as text (`None`: not UTF-8, so no number).
///
/// # Safety
/// `s` is a live server string.
unsafe fn string_text(s: *const raw::RedisModuleString) -> Option<String> {
    let ptr_len = raw::RedisModule_StringPtrLen?;
    let mut len = 0usize;
    let ptr = ptr_len(s, &mut len);
    if ptr.is_null() {
        return None;
    }
    let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
    std::str::from_utf8(bytes).ok().map(str::to_string)
}

unsafe extern "C" fn get_setting(
    _name: *const c_char,
    privdata: *mut c_void,
) -> *mut raw::RedisModuleString {
    let setting = setting_of(privdata);
    let s = create_string(&setting.text(&format_rate));
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.resize(Setting::ALL.len(), 0);
    let i = privdata as usize % Setting::ALL.len();
    let old = std::mem::replace(&mut held[i], s as usize) as *mut raw::RedisModuleString;
    if !old.is_null() {
        if let Some(free) = raw::RedisModule_FreeString {
            free(std::ptr::null_mut(), old);
        }
    }
    s
}

unsafe extern "C" fn set_setting(
    _name: *const c_char,
    val: *mut raw::RedisModuleString,
    privdata: *mut c_void,
    err: *mut *mut raw::RedisModuleString,
) -> c_int {
    let setting = setting_of(privdata);
    // The server's number grammar, as RedisBloom reads these values.
    let value = if setting.is_rate() {
        let mut p = 0f64;
        (raw::string_to_double(val, &mut p) == raw::Status::Ok).then_some(Value::Rate(p))
    } else {
        let mut v = 0i64;
        (raw::string_to_longlong(val, &mut v) == raw::Status::Ok).then_some(Value::Int(v))
    };
    let text = string_text(val);
    match setting.set(&shown_name(setting), value, text.as_deref()) {
        Ok(()) => raw::REDISMODULE_OK as c_int,
        Err(e) => {
            if !err.is_null() {
                *err = create_string(&e.to_string());
            }
            raw::REDISMODULE_ERR as c_int
        }
    }
}

/// rsbloom's own configs, `bf.<name>`, their defaults what the load arguments left.
fn register_others(ctx: &Context) {
    let flags = || ConfigurationFlags::DEFAULT;
    let int = |name: &str, value: &'static AtomicI64, min: i64, max: i64| {
        let default = value.load(Ordering::Relaxed);
        register_i64_configuration(ctx, name, value, default, min, max, flags(), None);
    };
    int(
        "max-filter-bytes",
        &MAX_FILTER_BYTES,
        MIN_BYTES,
        MAX_FILTER_BYTES_LIMIT,
    );
    int("chunk-bytes", &CHUNK_BYTES, MIN_BYTES, MAX_CHUNK_BYTES);
    int(
        "cbf-initial-size",
        &CBF_INITIAL_SIZE,
        1,
        CBF_MAX_INITIAL_SIZE,
    );
    int("apbf-capacity", &APBF_CAPACITY, 1, APBF_MAX_CAPACITY);
    let bits = CBF_COUNTER_BITS.0.load(Ordering::Relaxed);
    register_i64_configuration(
        ctx,
        "cbf-counter-bits",
        &CBF_COUNTER_BITS,
        bits,
        4,
        8,
        flags(),
        None,
    );
    for (name, rate) in [
        ("cbf-error-rate", &CBF_ERROR_RATE),
        ("apbf-error-rate", &APBF_ERROR_RATE),
    ] {
        let default = rate.get().to_string();
        register_string_configuration(ctx, name, rate, &default, flags(), None);
    }
    let prefetch = BATCH_PREFETCH.load(Ordering::Relaxed);
    register_bool_configuration(
        ctx,
        "batch-prefetch",
        &BATCH_PREFETCH,
        prefetch,
        flags(),
        None,
    );
    for (name, value) in [
        ("keyed-default", &KEYED_DEFAULT),
        ("blocked-default", &BLOCKED_DEFAULT),
    ] {
        let default = value.load(Ordering::Relaxed);
        register_bool_configuration(ctx, name, value, default, flags(), None);
    }
    let format = NEW_FILTER_FORMAT.load();
    register_enum_configuration(
        ctx,
        "new-filter-format",
        &NEW_FILTER_FORMAT,
        format,
        flags(),
        None,
    );
    super::valkey::register(ctx);
}
