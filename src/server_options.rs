//! Which server hosts the module, for the module options and config names only some servers
//! define.
//!
//! Valkey answers `redis_version:7.2.4` (and `RedisModule_GetServerVersion` says the same) for
//! compatibility with Redis clients, so its own version is read from the `valkey_version` field
//! of `INFO server`, which Redis does not have.

use std::ffi::c_int;

use redis_module::{raw, Context, ModuleOptions};
use rsbloom_core::double_text::Style;

/// Valkey's `VALKEYMODULE_OPTIONS_HANDLE_ATOMIC_SLOT_MIGRATION` (valkeymodule.h, Valkey 9.0).
/// Without it, Valkey 9 refuses `CLUSTER MIGRATESLOTS` for every slot of the cluster while
/// this module is loaded. Redis defines no such bit (its options end at bit 3 up to 8.2) and
/// may give bit 5 another meaning: it is set on Valkey 9 and newer only.
///
/// rsbloom can take it: the target receives the slots as the AOF rewrite writes them (each
/// filter as its `BF.LOADCHUNK` / `CF.LOADCHUNK` chunks, what an AOF load replays), then the
/// commands the source propagates (what a replica receives); the module keeps no state
/// outside its keys (no key index, no server-event handlers), so keys that exist on the target
/// before it owns their slot, or that vanish from it when an import fails, need nothing from it.
pub const HANDLE_ATOMIC_SLOT_MIGRATION: c_int = 1 << 5;

/// The first Valkey with atomic slot migration.
const ATOMIC_SLOT_MIGRATION_SINCE: (u32, u32, u32) = (9, 0, 0);

/// `major.minor.patch` of a version field (a suffix after the patch number is ignored).
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch_text = parts.next()?;
    let digits = patch_text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(patch_text.len());
    let patch = patch_text[..digits].parse().ok()?;
    Some((major, minor, patch))
}

/// The first Redis that registers unprefixed module configs and `name|alias` names.
const UNPREFIXED_CONFIGS_SINCE: (u32, u32, u32) = (8, 0, 0);

/// The hosting server's versions, from `INFO server`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Server {
    /// `redis_version` (Valkey answers 7.2.4 there).
    pub redis: Option<(u32, u32, u32)>,
    /// `valkey_version`, `None` on Redis.
    pub valkey: Option<(u32, u32, u32)>,
}

impl Server {
    pub fn of(ctx: &Context) -> Server {
        let info = ctx.server_info("server");
        let field = |name: &str| {
            let value = info.field(name)?;
            parse_version(value.try_as_str().ok()?)
        };
        Server {
            redis: field("redis_version"),
            valkey: field("valkey_version"),
        }
    }

    /// Redis 8 and newer register a module config under its name as given
    /// (`REDISMODULE_CONFIG_UNPREFIXED`) with an alias after a `|`. Valkey (9.1 included)
    /// refuses the `|` and ignores the flag's bit (it registers `bf.bf-error-rate`).
    pub fn has_unprefixed_configs(self) -> bool {
        self.valkey.is_none() && self.redis.is_some_and(|v| v >= UNPREFIXED_CONFIGS_SINCE)
    }
}

/// How the server writes a double on RESP2 (`addReplyDouble`'s bulk string), where that is
/// known: Redis 7.0 (`%.17g`), Redis 7.2 to 8.2 and Valkey 8.0 to 9.1 (`d2string`). Read in
/// the sources of Redis 7.0.15, 7.2, 7.4.1 and Valkey 8.0.1, and checked byte for byte against
/// Redis 7.0.15, 7.4.1, 8.2.3 and Valkey 8.1.8, 9.1.2 by `tests/suite/server/double_replies.rs`.
/// On any other server (`None`) the module's doubles go through `RedisModule_ReplyWithDouble`.
pub fn double_style(server: Server) -> Option<Style> {
    match (server.valkey, server.redis) {
        (Some(v), _) => ((8, 0, 0)..(9, 2, 0))
            .contains(&v)
            .then_some(Style::D2string),
        (None, Some(r)) if ((7, 0, 0)..(7, 1, 0)).contains(&r) => Some(Style::Printf17g),
        (None, Some(r)) if ((7, 2, 0)..(8, 3, 0)).contains(&r) => Some(Style::D2string),
        _ => None,
    }
}

/// Whether a server of this Valkey version (`None`: Redis) gives
/// [`HANDLE_ATOMIC_SLOT_MIGRATION`] its meaning.
pub fn has_atomic_slot_migration(valkey: Option<(u32, u32, u32)>) -> bool {
    valkey.is_some_and(|v| v >= ATOMIC_SLOT_MIGRATION_SINCE)
}

/// Declare the module's options (one call: each call replaces the previous set). Short reads
/// in rdb_load become errors (RESTORE answers "Bad data format"), not aborts, everywhere;
/// atomic slot migration where the server has it, noted in the server's log.
pub fn declare_options(ctx: &Context, server: Server) {
    let valkey = server.valkey;
    let mut options = ModuleOptions::HANDLE_IO_ERRORS.bits();
    if has_atomic_slot_migration(valkey) {
        options |= HANDLE_ATOMIC_SLOT_MIGRATION;
        if let Some((major, minor, patch)) = valkey {
            ctx.log_notice(&format!(
                "bf: Valkey {major}.{minor}.{patch}: declaring support for atomic slot migration"
            ));
        }
    }
    if let Some(set) = unsafe { raw::RedisModule_SetModuleOptions } {
        unsafe { set(ctx.ctx, options) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("9.1.2"), Some((9, 1, 2)));
        assert_eq!(parse_version("9.0.0-rc1"), Some((9, 0, 0)));
        assert_eq!(parse_version(" 10.2.33\r"), Some((10, 2, 33)));
        assert_eq!(parse_version("unstable"), None);
        assert_eq!(parse_version("9.1"), None);
        assert_eq!(parse_version("x.1.2"), None);
    }

    #[test]
    fn only_valkey_9_and_later_get_the_bit() {
        assert!(!has_atomic_slot_migration(None));
        assert!(!has_atomic_slot_migration(Some((8, 1, 8))));
        assert!(!has_atomic_slot_migration(Some((8, 99, 99))));
        assert!(has_atomic_slot_migration(Some((9, 0, 0))));
        assert!(has_atomic_slot_migration(Some((9, 1, 2))));
        assert!(has_atomic_slot_migration(Some((10, 0, 0))));
    }

    #[test]
    fn double_styles_of_the_known_servers_only() {
        let server = |redis, valkey| Server { redis, valkey };
        let style = |redis, valkey| double_style(server(redis, valkey));
        assert_eq!(style(Some((7, 0, 15)), None), Some(Style::Printf17g));
        assert_eq!(style(Some((7, 2, 0)), None), Some(Style::D2string));
        assert_eq!(style(Some((7, 4, 1)), None), Some(Style::D2string));
        assert_eq!(style(Some((8, 2, 3)), None), Some(Style::D2string));
        assert_eq!(
            style(Some((7, 2, 4)), Some((8, 1, 8))),
            Some(Style::D2string)
        );
        assert_eq!(
            style(Some((7, 2, 4)), Some((9, 1, 2))),
            Some(Style::D2string)
        );
        assert_eq!(style(Some((6, 2, 14)), None), None);
        assert_eq!(style(Some((7, 1, 0)), None), None);
        assert_eq!(style(Some((8, 4, 0)), None), None);
        assert_eq!(style(Some((7, 2, 4)), Some((7, 2, 11))), None);
        assert_eq!(style(Some((7, 2, 4)), Some((9, 2, 0))), None);
        assert_eq!(style(None, None), None);
    }

    #[test]
    fn only_redis_8_and_later_get_unprefixed_configs() {
        let server = |redis, valkey| Server { redis, valkey };
        assert!(!server(Some((7, 0, 15)), None).has_unprefixed_configs());
        assert!(!server(Some((7, 4, 1)), None).has_unprefixed_configs());
        assert!(server(Some((8, 0, 0)), None).has_unprefixed_configs());
        assert!(server(Some((8, 2, 3)), None).has_unprefixed_configs());
        assert!(!server(Some((7, 2, 4)), Some((9, 1, 2))).has_unprefixed_configs());
        assert!(!server(Some((8, 0, 0)), Some((9, 1, 2))).has_unprefixed_configs());
        assert!(!server(None, None).has_unprefixed_configs());
    }
}
