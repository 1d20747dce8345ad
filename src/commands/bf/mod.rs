//! The Bloom family's commands (`BF.*`), on keys of either Bloom type: their rows
//! (`rows.rs`), one file per group of commands, and how a creation is replicated.

pub mod add;
pub mod dialect;
pub mod exists;
pub mod info;
pub mod merge;
pub mod options;
pub mod reserve;
pub mod rows;
pub mod scandump;
pub mod transfer;
pub mod valkey;
pub mod valkey_rows;

use redis_module::Context;
use rsbloom_core::bloom::codec::scandump::header_of_meta;
use rsbloom_core::bloom::Chain;

use super::argv::Arg;

/// Replicates the creation of `chain` at `key`, then `items` if any: the SCANDUMP header of
/// the filter as it was created (its first layer, empty) as `BF.LOADCHUNK key 1 <header>`,
/// then `BF.MADD key items...`; Redis wraps the two in MULTI/EXEC. The header pins the type
/// and every parameter, so a replica or an AOF replay never fills in defaults or a
/// `bf.new-filter-format` of its own.
pub fn replicate_creation(ctx: &Context, key: &Arg, chain: &Chain, items: &[Arg]) {
    let mut meta = chain.meta();
    meta.layers.truncate(1);
    for layer in &mut meta.layers {
        layer.count = 0;
    }
    let header = header_of_meta(&meta);
    ctx.replicate("BF.LOADCHUNK", &[key.as_slice(), b"1", &header][..]);
    if !items.is_empty() {
        let mut args: Vec<&[u8]> = vec![key.as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        ctx.replicate("BF.MADD", args.as_slice());
    }
}
