//! What valkey-bloom 1.0 registers for the nine commands it has: upper-case names (so
//! `COMMAND`, `ACL CAT bloom` and `cmdstat_BF.ADD` read as on valkey-bloom), its flags
//! (`fast` on every command but BF.LOAD), arity -1 (the commands check their arguments
//! themselves) and its ACL categories. rsbloom registers these in place of its RedisBloom
//! rows' when `bf.new-filter-format` is `valkey` as the module loads (a load argument or the
//! config file): commands can only be registered then. Clients are unaffected either way:
//! the server looks command names up in any case.

use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rows;
use crate::commands::row::Command;

/// One command as valkey-bloom registers it.
pub struct ValkeyRow {
    pub name: &'static std::ffi::CStr,
    pub flags: &'static std::ffi::CStr,
    /// Its built-in ACL categories (the family's `bloom` is added to them).
    pub acl: &'static str,
    /// The fewest arguments it takes (with the command name) where that is fewer than
    /// RedisBloom's arity allows: BF.INSERT takes a key alone, where RedisBloom's grammar
    /// needs `ITEMS item`. Every other bound is the row's own arity.
    pub fewer_args: Option<usize>,
}

const fn row(
    name: &'static std::ffi::CStr,
    flags: &'static std::ffi::CStr,
    acl: &'static str,
    fewer_args: Option<usize>,
) -> ValkeyRow {
    ValkeyRow {
        name,
        flags,
        acl,
        fewer_args,
    }
}

const WRITE: &std::ffi::CStr = c"write fast deny-oom";
const READ: &std::ffi::CStr = c"readonly fast";

static ROWS: [(&Command, ValkeyRow); 9] = [
    (&rows::ADD, row(c"BF.ADD", WRITE, "write fast", None)),
    (&rows::MADD, row(c"BF.MADD", WRITE, "write fast", None)),
    (&rows::EXISTS, row(c"BF.EXISTS", READ, "read fast", None)),
    (&rows::MEXISTS, row(c"BF.MEXISTS", READ, "read fast", None)),
    (&rows::CARD, row(c"BF.CARD", READ, "read fast", None)),
    (
        &rows::RESERVE,
        row(c"BF.RESERVE", WRITE, "write fast", None),
    ),
    (&rows::INFO, row(c"BF.INFO", READ, "read fast", None)),
    (
        &rows::INSERT,
        row(c"BF.INSERT", WRITE, "write fast", Some(2)),
    ),
    (
        &rows::LOAD,
        row(c"BF.LOAD", c"write deny-oom", "write", None),
    ),
];

/// Set at registration when valkey-bloom's rows were registered.
static REGISTERED: AtomicBool = AtomicBool::new(false);

/// Decides, as the module loads, whose metadata the BF commands get.
pub fn choose(valkey: bool) {
    REGISTERED.store(valkey, Ordering::Relaxed);
}

/// valkey-bloom's row for `command`, when its rows are the ones registered.
pub fn of(command: &Command) -> Option<&'static ValkeyRow> {
    if !REGISTERED.load(Ordering::Relaxed) {
        return None;
    }
    ROWS.iter()
        .find(|(c, _)| ptr::eq(*c, command))
        .map(|(_, r)| r)
}

/// Whether `command` with `argc` arguments reaches its handler under valkey-bloom's rows
/// beyond what its own arity allows (BF.INSERT key, BF.INSERT key word).
pub fn allows(command: &Command, argc: usize) -> bool {
    of(command)
        .and_then(|r| r.fewer_args)
        .is_some_and(|min| argc >= min)
}
