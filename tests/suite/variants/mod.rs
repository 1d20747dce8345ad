//! KEYED and BLOCKED Bloom filters (docs/commands/bf.md, docs/safety.md): the options of
//! BF.RESERVE and BF.INSERT, the configs that make them the default, the refusals where the
//! format cannot hold them, BF.INFO's fields, and the secret and layout kept through every
//! path a value travels (RDB, DUMP / RESTORE, SCANDUMP / LOADCHUNK, the AOF, a replica).

mod commands;
mod persistence;
mod secret;

use rsbloom_test_support as common;

use common::*;
use redis::Connection;

/// The options of each variant, as BF.RESERVE and BF.INSERT take them.
pub const VARIANTS: [&[&str]; 3] = [&["KEYED"], &["BLOCKED"], &["BLOCKED", "KEYED"]];

/// The field names of a BF.INFO reply, in order.
pub fn info_names(c: &mut Connection, key: &str) -> Vec<String> {
    bf_info(c, key).into_iter().map(|(name, _)| name).collect()
}

/// BF.INFO's names of a plain non-shard filter, then the variant's own fields.
pub fn expected_names(variant: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = [
        "Capacity",
        "Size",
        "Number of filters",
        "Number of items inserted",
        "Expansion rate",
    ]
    .map(String::from)
    .to_vec();
    for (option, field) in [("KEYED", "Keyed"), ("BLOCKED", "Blocked")] {
        if variant.contains(&option) {
            names.push(field.into());
        }
    }
    names
}

/// The BF.MEXISTS answers for `n` added items (`add:i`) and `n` never added (`other:i`):
/// a filter that lost its secret or layout finds none of the first.
pub fn answers(c: &mut Connection, key: &str, n: usize) -> Vec<i64> {
    let mut items = gen_items("add:", 0..n);
    items.extend(gen_items("other:", 0..n));
    mexists_all(c, key, &items)
}

/// `n` items `add:i` into the filter at `key`.
pub fn fill(c: &mut Connection, key: &str, n: usize) {
    madd_all(c, key, &gen_items("add:", 0..n));
}

pub fn dump(c: &mut Connection, key: &str) -> Vec<u8> {
    as_bytes(&raw(c, &["DUMP", key]))
}
