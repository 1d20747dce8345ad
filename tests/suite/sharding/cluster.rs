//! On a real cluster: `redis-cli --cluster reshard` moves a shard's slot (MIGRATE, i.e. DUMP
//! and RESTORE) and the new owner holds the same shard, place included; on Valkey 9 (when
//! it is the server under test) atomic slot migration (the AOF rewrite's LOADCHUNK chunks)
//! does too.

use super::*;
use common::cluster::{key_slot, Cluster};
use std::time::{Duration, Instant};

/// A key of shard 0's slots in one of the first `within` slots (those a reshard of that
/// many slots from the first master moves), with a tag of its own.
fn early_key(name: &str, within: u16) -> String {
    (0..)
        .map(|j| format!("{{s{j}}}{name}"))
        .find(|k| key_slot(k.as_bytes()) < within)
        .unwrap()
}

fn is_valkey_9(c: &mut Connection) -> bool {
    let info = info_section(c, "server");
    info.lines()
        .find_map(|l| l.strip_prefix("valkey_version:"))
        .and_then(|v| v.trim().split('.').next()?.parse::<u32>().ok())
        .is_some_and(|major| major >= 9)
}

/// Creates a Bloom and a cuckoo shard 0 of 3 at `keys` on `port`, with items.
fn create(cluster: &Cluster, keys: &[String; 2]) -> Vec<Vec<u8>> {
    let port = cluster.owner(keys[0].as_bytes());
    let mut c = cluster.conn(port);
    let own = items(0, true, 200);
    for (command, key) in [("BF", &keys[0]), ("CF", &keys[1])] {
        let mut args = vec![
            format!("{command}.INSERT").into_bytes(),
            key.clone().into_bytes(),
        ];
        args.extend(shard_args(0).map(String::into_bytes));
        args.push(b"ITEMS".to_vec());
        args.extend(own.iter().cloned());
        raw(&mut c, &args);
    }
    keys.iter().map(|k| dump(&mut c, k)).collect()
}

/// The keys' owner (not `old`) holds the same values and routes as shard 0.
fn assert_moved(cluster: &Cluster, keys: &[String; 2], want: &[Vec<u8>], old: u16) {
    let port = cluster.owner(keys[0].as_bytes());
    assert_ne!(port, old, "the slot did not move");
    let mut c = cluster.conn(port);
    for ((family, key), dumped) in [("bf", &keys[0]), ("cf", &keys[1])].into_iter().zip(want) {
        assert_eq!(&dump(&mut c, key), dumped, "{key} on its new owner");
        let command = if family == "bf" { "BF.INFO" } else { "CF.INFO" };
        assert_eq!(place_fields(&mut c, command, key), expected_place(0));
        assert_routes(&mut c, family, key, 0);
    }
}

#[test]
fn a_reshard_keeps_a_shards_place() {
    let cluster = Cluster::start();
    let masters = cluster.masters();
    let first = masters.iter().find(|m| m.owns(0)).expect("slot 0's owner");
    let target = masters.iter().find(|m| m.id != first.id).unwrap();
    let keys = [early_key("bf", 40), early_key("cf", 40)];
    let want = create(&cluster, &keys);
    cluster.reshard(&[&first.id], &target.id, 64);
    assert_moved(&cluster, &keys, &want, first.port);

    // Valkey 9: the same slot onwards by atomic slot migration.
    let mut c = cluster.conn(target.port);
    if !is_valkey_9(&mut c) {
        eprintln!("not Valkey 9: atomic slot migration not tested");
        return;
    }
    let third = masters
        .iter()
        .find(|m| m.id != first.id && m.id != target.id)
        .unwrap();
    let slot = key_slot(keys[0].as_bytes());
    let slot2 = key_slot(keys[1].as_bytes());
    let mut args = vec![
        "CLUSTER".to_string(),
        "MIGRATESLOTS".into(),
        "SLOTSRANGE".into(),
    ];
    for s in [slot, slot2] {
        args.extend([s.to_string(), s.to_string()]);
    }
    if slot == slot2 {
        args.truncate(5);
    }
    args.extend(["NODE".into(), third.id.clone()]);
    expect_ok(&mut c, &args);
    let deadline = Instant::now() + Duration::from_secs(60);
    while cluster.owner(keys[0].as_bytes()) == target.port
        || cluster.owner(keys[1].as_bytes()) == target.port
    {
        assert!(Instant::now() < deadline, "the migration did not end");
        std::thread::sleep(Duration::from_millis(100));
    }
    cluster.wait_ready(Duration::from_secs(30));
    assert_moved(&cluster, &keys, &want, target.port);
}
