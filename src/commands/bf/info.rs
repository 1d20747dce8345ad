//! BF.INFO, BF.CARD and BF.DEBUG: read-only views of a filter.

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::dialect::{BloomKey, Dialect};
use super::valkey;
use crate::commands::grammar;
use crate::commands::key::open_read;
use crate::commands::reply::{format_g, resp3, Reply};
use crate::commands::shard::shard_fields;
use crate::commands::Call;

/// BF.INFO's fields: the keyword that selects one, and RedisBloom's name for it.
const FIELDS: [(&str, &str); 5] = [
    ("CAPACITY", "Capacity"),
    ("SIZE", "Size"),
    ("FILTERS", "Number of filters"),
    ("ITEMS", "Number of items inserted"),
    ("EXPANSION", "Expansion rate"),
];

fn field_value(chain: &Chain, keyword: &str) -> Reply {
    match keyword {
        "CAPACITY" => Reply::count(chain.capacity()),
        "SIZE" => Reply::count(chain.memory_bytes()),
        "FILTERS" => Reply::count(chain.layers().len() as u64),
        "ITEMS" => Reply::count(chain.count()),
        _ if chain.is_scaling() => Reply::count(chain.expansion_rate() as u64),
        _ => Reply::Null,
    }
}

/// BF.INFO key [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION]
pub fn info(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_read(call)?;
    match key.dialect() {
        Dialect::Valkey => valkey::info(call, &key),
        Dialect::Own => info_own(call, key.read::<Chain>()?.ok_or(Error::NotFound)?),
    }
}

/// BF.INFO on rsbloom's or RedisBloom's filter.
fn info_own(call: &Call, chain: &Chain) -> Result<Reply> {
    let selected: Vec<_> = match call.args.get(2) {
        None => FIELDS.to_vec(),
        Some(arg) => {
            let field = FIELDS
                .iter()
                .find(|(kw, _)| grammar::is(arg, kw))
                .ok_or(Error::InvalidInfoField)?;
            vec![*field]
        }
    };
    let whole = selected.len() > 1;
    let mut entries: Vec<_> = selected
        .into_iter()
        .map(|(kw, name)| (name, field_value(chain, kw)))
        .collect();
    if let (true, Some(place)) = (whole, chain.shard()) {
        entries.extend(shard_fields(place));
    }
    // rsbloom's variants, appended only when set (a plain filter's reply is RedisBloom's).
    // The secret itself is never shown.
    if whole && chain.is_keyed() {
        entries.push(("Keyed", Reply::Int(1)));
    }
    if whole && chain.is_blocked() {
        entries.push(("Blocked", Reply::Int(1)));
    }
    // RedisBloom answers one field with a bare one-element array in RESP2, a map in RESP3.
    if entries.len() == 1 && !resp3(call.ctx) {
        return Ok(Reply::Array(entries.into_iter().map(|(_, v)| v).collect()));
    }
    Ok(Reply::Map(entries))
}

/// BF.CARD key: items added; 0 for a missing key.
pub fn card(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_read(call)?;
    match key.dialect() {
        Dialect::Valkey => valkey::card(&key),
        Dialect::Own => Ok(Reply::count(key.read::<Chain>()?.map_or(0, Chain::count))),
    }
}

/// BF.DEBUG key: the total count, then one line per layer in RedisBloom's format.
pub fn debug(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let chain = key.read::<Chain>()?.ok_or(Error::NotFound)?;
    let mut lines = vec![Reply::Bulk(format!("size:{}", chain.count()).into_bytes())];
    for layer in chain.layers() {
        let line = format!(
            "bytes:{} bits:{} hashes:{} hashwidth:64 capacity:{} size:{} ratio:{}",
            layer.bytes(),
            layer.bit_size(),
            layer.k(),
            layer.capacity(),
            layer.count(),
            format_g(layer.error())
        );
        lines.push(Reply::Bulk(line.into_bytes()));
    }
    Ok(Reply::Array(lines))
}
