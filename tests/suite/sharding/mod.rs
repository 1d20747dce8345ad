//! Shards of a logical filter (docs/sharding.md): BF.* and CF.* keys made with `SHARD name
//! index count`, which refuse items of other shards, show their place in INFO and keep it
//! through every path a value travels (RDB, DUMP / RESTORE, SCANDUMP / LOADCHUNK, the AOF
//! rewrite, replicas, a cluster's reshard and Valkey 9's atomic slot migration).

mod cluster;
mod commands;
mod persistence;

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};
use rsbloom_core::shard::{layout, ShardPlace};

/// The logical filter of these tests: 3 shards of `urls`.
pub const NAME: &str = "urls";
pub const COUNT: u32 = 3;

/// Shard `i`'s key by the protocol's naming (`{3}urls:0`, `{1}urls:1`, `{0}urls:2`).
pub fn shard_key(i: u32) -> String {
    String::from_utf8(layout::shard_keys(NAME.as_bytes(), COUNT)[i as usize].clone()).unwrap()
}

/// `SHARD urls i 3` as arguments.
pub fn shard_args(i: u32) -> [String; 4] {
    [
        "SHARD".into(),
        NAME.into(),
        i.to_string(),
        COUNT.to_string(),
    ]
}

/// The creation id and the routing secret of the keyed shards these tests make.
pub const ID: &str = "7f3a0c11d2e94b5a8e6f0a1b2c3d4e5f";
pub const SECRET: &str = "00112233445566778899aabbccddeeff";

/// Shard `i`'s place: plain, or with [`ID`] and keyed routing by [`SECRET`].
pub fn place_of(i: u32, keyed: bool) -> ShardPlace {
    let place = ShardPlace::new(NAME.as_bytes(), i.into(), COUNT.into()).unwrap();
    match keyed {
        false => place,
        true => place
            .with_id(ID.as_bytes())
            .unwrap()
            .with_secret_hex(SECRET.as_bytes())
            .unwrap(),
    }
}

/// `n` items shard `i` routes (`own`) or refuses.
pub fn items(i: u32, own: bool, n: usize) -> Vec<Vec<u8>> {
    items_of(&place_of(i, false), own, n)
}

/// `n` items `place` routes (`own`) or refuses.
pub fn items_of(place: &ShardPlace, own: bool, n: usize) -> Vec<Vec<u8>> {
    (0..)
        .map(|j| format!("item:{j}").into_bytes())
        .filter(|item| place.check_item(item).is_ok() == own)
        .take(n)
        .collect()
}

/// The exact refusal of `item` by shard `i`.
pub fn wrong_shard(i: u32, item: &[u8]) -> String {
    let place = ShardPlace::new(NAME.as_bytes(), i.into(), COUNT.into()).unwrap();
    place.check_item(item).unwrap_err().to_string()
}

/// `BF.RESERVE` / `CF.RESERVE` of shard `i` at its key.
pub fn reserve(con: &mut Connection, family: &str, i: u32) -> String {
    reserve_as(con, family, i, false)
}

/// As [`reserve`], with `SHARDID` and `SHARDSECRET` when `keyed`.
pub fn reserve_as(con: &mut Connection, family: &str, i: u32, keyed: bool) -> String {
    let key = shard_key(i);
    let mut args: Vec<String> = match family {
        "bf" => vec![
            "BF.RESERVE".into(),
            key.clone(),
            "0.01".into(),
            "1000".into(),
        ],
        _ => vec!["CF.RESERVE".into(), key.clone(), "1000".into()],
    };
    args.extend(shard_args(i));
    if keyed {
        args.extend([
            "SHARDID".into(),
            ID.into(),
            "SHARDSECRET".into(),
            SECRET.into(),
        ]);
    }
    expect_ok(con, &args);
    key
}

/// `BF.INFO` / `CF.INFO` as (name, value) pairs (RESP2).
pub fn info(con: &mut Connection, command: &str, key: &str) -> Vec<(String, Value)> {
    match raw(con, &[command, key]) {
        Value::Array(items) => items
            .chunks(2)
            .map(|p| (as_text(&p[0]), p[1].clone()))
            .collect(),
        other => panic!("{command} {key} answered {other:?}"),
    }
}

/// The shard pairs INFO ends with (from `Shard of`), as text.
pub fn place_fields(con: &mut Connection, command: &str, key: &str) -> Vec<(String, String)> {
    let all = info(con, command, key);
    let from = all
        .iter()
        .position(|(n, _)| n == "Shard of")
        .unwrap_or(all.len());
    all[from..]
        .iter()
        .map(|(n, v)| {
            let v = match v {
                Value::Int(n) => n.to_string(),
                other => as_text(other),
            };
            (n.clone(), v)
        })
        .collect()
}

/// What shard `i` of 3 shows.
pub fn expected_place(i: u32) -> Vec<(String, String)> {
    expected_place_as(i, false)
}

/// What shard `i` of 3 shows, keyed (an id, keyed routing, never the secret) or not.
pub fn expected_place_as(i: u32, keyed: bool) -> Vec<(String, String)> {
    let place = place_of(i, keyed);
    let (first, last) = place.slots();
    let mut fields = vec![
        ("Shard of".into(), NAME.into()),
        ("Shard".into(), i.to_string()),
        ("Shards".into(), COUNT.to_string()),
        ("Shard slots".into(), format!("{first}-{last}")),
    ];
    if keyed {
        fields.push(("Shard id".into(), ID.into()));
    }
    let routing = if keyed { "keyed" } else { "slot" };
    fields.push(("Shard routing".into(), routing.into()));
    fields
}

/// `DUMP key`'s payload.
pub fn dump(con: &mut Connection, key: &str) -> Vec<u8> {
    as_bytes(&raw(con, &["DUMP", key]))
}

/// The shard at `key` refuses an item of another shard and accepts its own: the place is
/// in force, not only shown.
pub fn assert_routes(con: &mut Connection, family: &str, key: &str, i: u32) {
    assert_routes_as(con, family, key, &place_of(i, false))
}

/// As [`assert_routes`], for the shard `place` names.
pub fn assert_routes_as(con: &mut Connection, family: &str, key: &str, place: &ShardPlace) {
    let wrong = &items_of(place, false, 1)[0];
    let own = &items_of(place, true, 1)[0];
    let exists = if family == "bf" {
        "BF.EXISTS"
    } else {
        "CF.EXISTS"
    };
    let args: [&[u8]; 3] = [exists.as_bytes(), key.as_bytes(), wrong];
    expect_err(
        con,
        &args,
        &place.check_item(wrong).unwrap_err().to_string(),
    );
    let args: [&[u8]; 3] = [exists.as_bytes(), key.as_bytes(), own];
    raw(con, &args);
}
