//! rsbloom-client against real servers with the freshly built module (tests/support): both
//! families on one server and on a cluster of 3 masters and 3 replicas; batches answered in
//! the caller's order, every added item found, the shards on every master, a second handle
//! opening the filter by name, names already taken refused, delete leaving no key, and
//! batches sent over a connection whose slot map a reshard made stale. Every test runs in
//! RESP2 and in RESP3 (whose replies differ: CF.INSERT answers booleans there).

use std::collections::BTreeSet;

use redis::Value;
use rsbloom_client::{BloomOptions, CuckooOptions, Error, ShardedBloom, ShardedCuckoo, Transport};
use rsbloom_core::shard::layout::shard_of_item;
use rsbloom_core::shard::slot::key_slot;
use rsbloom_test_support::cluster::Cluster;
use rsbloom_test_support::Server;

/// The protocols every test runs in: RESP3 when true.
const RESP3: [bool; 2] = [false, true];

/// A connection to `server` in RESP2, or in RESP3.
fn conn(server: &Server, resp3: bool) -> redis::Connection {
    match resp3 {
        true => server.conn_resp3(),
        false => server.conn(),
    }
}

/// `n` items with every third one a repeat of an earlier one, so that a batch's answers
/// show whether they came back in the caller's order.
fn items_with_repeats(prefix: &str, n: usize) -> (Vec<String>, Vec<bool>) {
    let mut items: Vec<String> = Vec::with_capacity(n);
    let mut fresh = Vec::with_capacity(n);
    for i in 0..n {
        if i % 3 == 2 {
            items.push(items[i / 2].clone());
            fresh.push(false);
        } else {
            items.push(format!("{prefix}:{i}"));
            fresh.push(true);
        }
    }
    (items, fresh)
}

fn exists<C: Transport>(con: &mut C, key: &[u8]) -> bool {
    let v = con
        .connection()
        .req_command(redis::cmd("EXISTS").arg(key))
        .expect("EXISTS");
    v == Value::Int(1)
}

/// Everything a Bloom filter does, over `con`, with `other` as a second client.
fn bloom_round<C: Transport>(
    con: &mut C,
    other: &mut C,
    name: &str,
    shards: Option<u32>,
) -> Vec<String> {
    let filter = ShardedBloom::reserve(con, name, 0.001, 20_000, shards, BloomOptions::default())
        .expect("reserve");
    let (items, fresh) = items_with_repeats("url", 6_000);
    let mut answers = Vec::new();
    for batch in items.chunks(1_000) {
        answers.extend(filter.madd(con, batch).expect("madd"));
    }
    assert_eq!(answers, fresh, "BF.INSERT answers in the caller's order");
    assert!(filter
        .mexists(con, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    let strangers: Vec<String> = (0..2_000).map(|i| format!("stranger:{i}")).collect();
    let false_positives = filter
        .mexists(con, &strangers)
        .expect("mexists")
        .iter()
        .filter(|&&a| a)
        .count();
    assert!(
        false_positives < 20,
        "{false_positives} false positives of 2,000 at 0.1 %"
    );
    assert_eq!(filter.card(con).expect("card"), 4_000);
    assert!(filter.add(con, "one more").expect("add"));
    assert!(filter.exists(con, "one more").expect("exists"));

    // A second client knows only the name.
    let opened = ShardedBloom::open(other, name).expect("open");
    assert_eq!(opened.keys(), filter.keys());
    assert_eq!(opened.description(), filter.description());
    assert!(opened
        .mexists(other, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    assert!(matches!(
        ShardedCuckoo::open(other, name),
        Err(Error::Family { .. })
    ));
    let again = ShardedBloom::reserve(other, name, 0.01, 10, Some(2), BloomOptions::default());
    assert!(matches!(again, Err(Error::Exists(_))), "{again:?}");

    let nodes = filter
        .info(con)
        .expect("info")
        .into_iter()
        .map(|s| {
            assert!(s.items > 0 && s.bytes > 0, "{s:?}");
            s.node.unwrap_or_default()
        })
        .collect::<BTreeSet<_>>();
    let keys = filter.keys().to_vec();
    let count = keys.len() as u64;
    assert_eq!(filter.delete(con).expect("delete"), count + 1);
    assert!(keys.iter().all(|k| !exists(con, k)) && !exists(con, name.as_bytes()));
    nodes.into_iter().collect()
}

/// Everything a cuckoo filter does, over `con`, with `other` as a second client.
fn cuckoo_round<C: Transport>(
    con: &mut C,
    other: &mut C,
    name: &str,
    shards: Option<u32>,
) -> Vec<String> {
    let filter = ShardedCuckoo::reserve(con, name, 20_000, shards, CuckooOptions::default())
        .expect("reserve");
    let (items, _) = items_with_repeats("user", 6_000);
    for batch in items.chunks(1_000) {
        assert!(filter.madd(con, batch).expect("madd").iter().all(|&a| a));
    }
    // Every third item repeats an earlier one, which may itself be a repeat: items[2] is
    // "user:1", repeated at 5, 11, 23, ... 3071 (12 copies in all); "user:0" is added once.
    let copies = |it: &String| items.iter().filter(|x| *x == it).count() as u64;
    assert_eq!(copies(&items[2]), 12);
    assert_eq!(filter.count(con, &items[2]).expect("count"), 12);
    assert_eq!(filter.count(con, &items[0]).expect("count"), 1);
    let mut probe = items[..10].to_vec();
    probe.insert(3, "never added".to_string());
    let answers = filter.mexists(con, &probe).expect("mexists");
    assert_eq!(answers.iter().filter(|&&a| !a).count(), 1, "{answers:?}");
    assert!(!answers[3]);
    assert!(filter
        .mexists(con, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    assert_eq!(filter.card(con).expect("card"), 6_000);
    assert!(filter.remove(con, &items[2]).expect("remove"));
    assert_eq!(filter.count(con, &items[2]).expect("count"), 11);
    assert!(!filter.remove(con, "never added").expect("remove"));

    // The module holds each shard to its slots: an item of shard 1 sent to shard 0 is refused.
    let count = filter.keys().len() as u32;
    let stranger = (0..)
        .map(|i| format!("stranger:{i}"))
        .find(|it| shard_of_item(it.as_bytes(), count) == 1)
        .unwrap();
    let refused = con
        .connection()
        .req_command(redis::cmd("CF.ADD").arg(&filter.keys()[0]).arg(&stranger));
    assert_eq!(
        refused
            .and_then(Value::extract_error)
            .map_err(|e| e.detail().unwrap_or_default().to_string()),
        Err(format!(
            "wrong shard: the item's slot {} belongs to shard 1 of {count}, not shard 0",
            key_slot(stranger.as_bytes())
        )),
    );

    let opened = ShardedCuckoo::open(other, name).expect("open");
    assert_eq!(opened.keys(), filter.keys());
    assert!(opened
        .mexists(other, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    assert!(matches!(
        ShardedBloom::open(other, name),
        Err(Error::Family { .. })
    ));
    let again = ShardedCuckoo::reserve(other, name, 10, Some(2), CuckooOptions::default());
    assert!(matches!(again, Err(Error::Exists(_))), "{again:?}");

    let nodes = filter
        .info(con)
        .expect("info")
        .into_iter()
        .map(|s| s.node.unwrap_or_default())
        .collect::<BTreeSet<_>>();
    let keys = filter.keys().to_vec();
    assert_eq!(filter.delete(con).expect("delete"), keys.len() as u64 + 1);
    assert!(keys.iter().all(|k| !exists(con, k)) && !exists(con, name.as_bytes()));
    nodes.into_iter().collect()
}

#[test]
fn both_families_on_one_server() {
    let server = Server::start();
    for resp3 in RESP3 {
        let (mut con, mut other) = (conn(&server, resp3), conn(&server, resp3));
        assert_eq!(
            bloom_round(&mut con, &mut other, "urls", Some(7)),
            [String::new()]
        );
        // The default count: 16 shards.
        assert_eq!(
            cuckoo_round(&mut con, &mut other, "users", None),
            [String::new()]
        );
    }
}

#[test]
fn a_full_shard_answers_false_for_what_it_did_not_store() {
    let server = Server::start();
    for resp3 in RESP3 {
        let mut con = conn(&server, resp3);
        let name = format!("full{}", resp3 as u8);
        let options = CuckooOptions {
            expansion: Some(0),
            ..CuckooOptions::default()
        };
        let filter = ShardedCuckoo::reserve(&mut con, &name, 8, Some(1), options).expect("reserve");
        let items: Vec<String> = (0..60).map(|i| format!("item:{i}")).collect();
        let added = filter.madd(&mut con, &items).expect("madd");
        let stored = added.iter().filter(|&&a| a).count();
        assert!(
            stored > 0 && stored < items.len(),
            "resp3 {resp3}: {added:?}"
        );
        for (item, &a) in items.iter().zip(&added) {
            let count = filter.count(&mut con, item).expect("count");
            assert_eq!(
                count >= 1,
                a,
                "resp3 {resp3}: {item} answered {a}, count {count}"
            );
        }
        filter.delete(&mut con).expect("delete");
    }
}

#[test]
fn both_families_on_a_cluster_spread_over_every_master() {
    let cluster = Cluster::start();
    let masters: Vec<String> = cluster
        .masters()
        .iter()
        .map(|m| format!("127.0.0.1:{}", m.port))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for resp3 in RESP3 {
        let (mut con, mut other) = (cluster.client_with(resp3), cluster.client_with(resp3));
        assert_eq!(bloom_round(&mut con, &mut other, "urls", None), masters);
        assert_eq!(
            cuckoo_round(&mut con, &mut other, "{tag}users", Some(6)),
            masters
        );
    }
}

#[test]
fn batches_survive_a_reshard_under_a_stale_slot_map() {
    for resp3 in RESP3 {
        batches_survive_a_reshard(resp3);
    }
}

/// One cluster per protocol: the reshard moves its slots once.
fn batches_survive_a_reshard(resp3: bool) {
    let cluster = Cluster::start();
    let mut con = cluster.client_with(resp3);
    let bloom = ShardedBloom::reserve(
        &mut con,
        "b",
        0.001,
        60_000,
        Some(12),
        BloomOptions::default(),
    )
    .expect("reserve");
    let cuckoo = ShardedCuckoo::reserve(&mut con, "c", 60_000, Some(12), CuckooOptions::default())
        .expect("reserve");
    let items: Vec<String> = (0..6_000).map(|i| format!("item:{i}")).collect();
    let (before, after) = items.split_at(3_000);
    assert!(bloom
        .madd(&mut con, before)
        .expect("madd")
        .iter()
        .all(|&a| a));
    assert!(cuckoo
        .madd(&mut con, before)
        .expect("madd")
        .iter()
        .all(|&a| a));

    // A third of the slots move; `con` still holds the old map, so its commands meet MOVED.
    let masters = cluster.masters();
    let from: Vec<&str> = masters[..2].iter().map(|m| m.id.as_str()).collect();
    cluster.reshard(&from, &masters[2].id, 5_000);

    let new = bloom.madd(&mut con, after).expect("madd after the reshard");
    assert_eq!(
        new.iter().filter(|&&a| !a).count(),
        0,
        "adds answered once each"
    );
    assert!(cuckoo
        .madd(&mut con, after)
        .expect("madd")
        .iter()
        .all(|&a| a));
    assert!(bloom
        .mexists(&mut con, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    assert!(cuckoo
        .mexists(&mut con, &items)
        .expect("mexists")
        .iter()
        .all(|&a| a));
    // No write ran twice: the cuckoo shards hold each item once.
    assert_eq!(cuckoo.card(&mut con).expect("card"), 6_000);
    assert_eq!(bloom.card(&mut con).expect("card"), 6_000);
}

#[test]
fn names_taken_and_unknown_protocols_are_refused() {
    // A server per protocol: the checks read the whole keyspace.
    for resp3 in RESP3 {
        let server = Server::start();
        names_refused(conn(&server, resp3));
    }
}

fn names_refused(mut con: redis::Connection) {
    // Any key of that name: nothing is created.
    let _: () = redis::cmd("SET")
        .arg("taken")
        .arg("x")
        .query(&mut con)
        .expect("SET");
    let r = ShardedBloom::reserve(
        &mut con,
        "taken",
        0.01,
        100,
        Some(3),
        BloomOptions::default(),
    );
    assert!(
        matches!(r, Err(Error::Exists(ref n)) if n == "taken"),
        "{r:?}"
    );
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut con).expect("KEYS");
    assert_eq!(keys, ["taken"]);
    assert_eq!(r.unwrap_err().to_string(), "ERR item exists: 'taken'");

    let _: () = redis::cmd("HSET")
        .arg("later")
        .arg("protocol")
        .arg("rsbloom-sharding/2")
        .query(&mut con)
        .expect("HSET");
    let r = ShardedCuckoo::open(&mut con, "later");
    assert!(
        matches!(r, Err(Error::Protocol { ref protocol, .. }) if protocol == "rsbloom-sharding/2")
    );
    assert!(matches!(
        ShardedBloom::open(&mut con, "nothing"),
        Err(Error::NotFound(_))
    ));
    for bad in [0.0, 1.0, f64::NAN] {
        let r = ShardedBloom::reserve(&mut con, "x", bad, 100, None, BloomOptions::default());
        assert!(matches!(r, Err(Error::Argument(_))), "{bad}: {r:?}");
    }
    let r = ShardedCuckoo::reserve(&mut con, "x", 100, Some(16_385), CuckooOptions::default());
    assert!(matches!(r, Err(Error::Argument(_))), "{r:?}");
}
