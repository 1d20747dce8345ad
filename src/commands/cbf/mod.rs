//! The counting Bloom filter family's commands (`CBF.*`): their rows (`rows.rs`), one file
//! per group of commands, and how a creation is replicated. Arguments are read with the BF
//! family's grammar and, where they apply, its error texts.

pub mod add;
pub mod del;
pub mod exists;
pub mod info;
pub mod merge;
pub mod reserve;
pub mod rows;
pub mod scandump;

use redis_module::Context;
use rsbloom_core::counting::codec::encode_header;
use rsbloom_core::counting::CountingFilter;

use super::argv::Arg;

/// Replicates the creation of `filter` at `key`, then `items` if any: the SCANDUMP header of
/// the filter as it was created (empty) as `CBF.LOADCHUNK key 1 <header>`, then
/// `CBF.MADD key items...` (Redis wraps the two in MULTI/EXEC). The header pins every
/// parameter, so a replica or an AOF replay never fills in defaults of its own.
pub fn replicate_creation(ctx: &Context, key: &Arg, filter: &CountingFilter, items: &[Arg]) {
    let mut meta = filter.meta();
    meta.count = 0;
    let header = encode_header(&meta);
    ctx.replicate("CBF.LOADCHUNK", &[key.as_slice(), b"1", &header][..]);
    if !items.is_empty() {
        let mut args: Vec<&[u8]> = vec![key.as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        ctx.replicate("CBF.MADD", args.as_slice());
    }
}
