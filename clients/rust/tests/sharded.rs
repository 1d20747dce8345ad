//! rsbloom-client against real servers with the freshly built module (tests/support): both
//! families on one server and on a cluster of 3 masters and 3 replicas; batches answered in
//! the caller's order, every added item found, the shards on every master, a second handle
//! opening the filter by name, names already taken refused, delete leaving no key, a full
//! shard's refusals, and batches sent over a client whose slot map a reshard made stale.
//! Every test runs in RESP2 and in RESP3 (CF.INSERT answers booleans there, INFO maps).

mod common;

use std::collections::BTreeSet;

use common::{client, cmd, int, items_with_repeats, RESP3};
use rsbloom_client::{
    BatchKind, BloomOptions, Client, CuckooOptions, Error, ShardedBloom, ShardedCuckoo,
};
use rsbloom_core::shard::layout::shard_of_item;
use rsbloom_core::shard::slot::key_slot;
use rsbloom_test_support::cluster::Cluster;
use rsbloom_test_support::Server;

/// Whether `key` exists, asked of its master (`port_of`).
fn exists(port_of: &dyn Fn(&[u8]) -> u16, key: &[u8]) -> bool {
    int(cmd(port_of(key), &[b"EXISTS", key])) == 1
}

/// Everything a Bloom filter does, over `con`, with `other` as a second client.
fn bloom_round(
    con: &mut Client,
    other: &mut Client,
    port_of: &dyn Fn(&[u8]) -> u16,
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
    assert!(opened.description().id.is_some_and(|id| id.len() == 32));
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

    let info = filter.info(con).expect("info");
    let nodes = info
        .iter()
        .map(|s| {
            assert!(s.items > 0 && s.bytes > 0, "{s:?}");
            assert_eq!(
                s.id,
                filter.description().id,
                "each shard records the creation id"
            );
            s.node.clone().unwrap_or_default()
        })
        .collect::<BTreeSet<_>>();
    let keys = filter.keys();
    let count = keys.len() as u64;
    assert_eq!(filter.delete(con).expect("delete"), count + 1);
    assert!(keys.iter().all(|k| !exists(port_of, k)) && !exists(port_of, name.as_bytes()));
    nodes.into_iter().collect()
}

/// Everything a cuckoo filter does, over `con`, with `other` as a second client.
fn cuckoo_round(
    con: &mut Client,
    other: &mut Client,
    port_of: &dyn Fn(&[u8]) -> u16,
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
    // INSERTNX adds what may not be there, and nothing twice.
    assert_eq!(
        filter
            .maddnx(con, &["nx:1", "nx:1", &items[0]])
            .expect("maddnx"),
        [true, false, false]
    );
    assert!(!filter.addnx(con, "nx:1").expect("addnx"));
    assert_eq!(filter.count(con, "nx:1").expect("count"), 1);

    // The module holds each shard to its slots: an item of shard 1 sent to shard 0 is refused.
    let count = filter.keys().len() as u32;
    let stranger = (0..)
        .map(|i| format!("stranger:{i}"))
        .find(|it| shard_of_item(it.as_bytes(), count) == 1)
        .unwrap();
    let key0 = filter.keys()[0].clone();
    let refused = cmd(port_of(&key0), &[b"CF.ADD", &key0, stranger.as_bytes()]);
    let text = refused.expect_err("refused");
    assert!(
        text.contains(&format!(
            "wrong shard: the item's slot {} belongs to shard 1 of {count}, not shard 0",
            key_slot(stranger.as_bytes())
        )),
        "{text}"
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
    let keys = filter.keys();
    assert_eq!(filter.delete(con).expect("delete"), keys.len() as u64 + 1);
    assert!(keys.iter().all(|k| !exists(port_of, k)) && !exists(port_of, name.as_bytes()));
    nodes.into_iter().collect()
}

#[test]
fn both_families_on_one_server() {
    let server = Server::start();
    let port = server.port;
    for resp3 in RESP3 {
        let (mut con, mut other) = (client(port, resp3), client(port, resp3));
        assert!(!con.is_cluster());
        let on = |_: &[u8]| port;
        assert_eq!(
            bloom_round(&mut con, &mut other, &on, "urls", Some(7)),
            [String::new()]
        );
        // The default count: 16 shards.
        assert_eq!(
            cuckoo_round(&mut con, &mut other, &on, "users", None),
            [String::new()]
        );
    }
}

#[test]
fn a_full_shard_refuses_what_it_did_not_store() {
    let server = Server::start();
    for resp3 in RESP3 {
        let mut con = client(server.port, resp3);
        let name = format!("full{}", resp3 as u8);
        let options = CuckooOptions {
            expansion: Some(0),
            ..CuckooOptions::default()
        };
        let filter = ShardedCuckoo::reserve(&mut con, &name, 8, Some(1), options).expect("reserve");
        let items: Vec<String> = (0..60).map(|i| format!("item:{i}")).collect();
        let Err(Error::Batch(e)) = filter.madd(&mut con, &items) else {
            panic!("resp3 {resp3}: 60 items fit in a shard of 8")
        };
        assert_eq!(e.kind, BatchKind::Full, "resp3 {resp3}: {e:?}");
        assert!(e.unknown.is_empty());
        let stored = e.results.iter().filter(|r| **r == Some(true)).count();
        assert!(
            stored > 0 && stored + e.failed.len() == items.len(),
            "resp3 {resp3}: {e:?}"
        );
        for (pos, item) in items.iter().enumerate() {
            let refused = e.failed.iter().find(|(p, _)| *p == pos);
            assert!(
                refused.is_none_or(|(_, c)| matches!(c, Error::Full(_))),
                "{refused:?}"
            );
            assert_eq!(refused.is_none(), e.results[pos] == Some(true));
            // What it said was stored is there; what it refused is not.
            let count = filter.count(&mut con, item).expect("count");
            assert_eq!(
                count >= 1,
                refused.is_none(),
                "resp3 {resp3}: {item}: count {count}"
            );
        }

        // A non-scaling Bloom shard: the array's error entry refuses the rest.
        let bloom = ShardedBloom::reserve(
            &mut con,
            format!("bfull{}", resp3 as u8),
            0.01,
            10,
            Some(1),
            BloomOptions {
                nonscaling: true,
                ..BloomOptions::default()
            },
        )
        .expect("reserve");
        let Err(Error::Batch(e)) = bloom.madd(&mut con, &items) else {
            panic!("60 items in a non-scaling Bloom shard of 10")
        };
        assert_eq!(e.kind, BatchKind::Full, "{e:?}");
        let first = e.failed[0].0;
        assert!(first > 0 && e.failed.len() == items.len() - first, "{e:?}");
        assert!(e.results[..first].iter().all(|r| r.is_some()));
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
    let port_of = |key: &[u8]| cluster.owner(key);
    for resp3 in RESP3 {
        let seed = cluster.live_ports()[0];
        let (mut con, mut other) = (client(seed, resp3), client(seed, resp3));
        assert!(con.is_cluster());
        assert_eq!(
            bloom_round(&mut con, &mut other, &port_of, "urls", None),
            masters
        );
        assert_eq!(
            cuckoo_round(&mut con, &mut other, &port_of, "{tag}users", Some(6)),
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
    let mut con = client(cluster.live_ports()[0], resp3);
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
    let nodes: BTreeSet<_> = cuckoo
        .info(&mut con)
        .expect("info")
        .into_iter()
        .map(|s| s.node)
        .collect();
    assert!(nodes.contains(&Some(format!("127.0.0.1:{}", masters[2].port))));
}

#[test]
fn names_taken_and_unknown_protocols_are_refused() {
    // A server per protocol: the checks read the whole keyspace.
    for resp3 in RESP3 {
        let server = Server::start();
        names_refused(server.port, resp3);
    }
}

fn names_refused(port: u16, resp3: bool) {
    let mut con = client(port, resp3);
    // Any key of that name: nothing is created.
    cmd(port, &[b"SET", b"taken", b"x"]).expect("SET");
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
    assert_eq!(common::all_keys(&[port]), [b"taken".to_vec()]);
    assert_eq!(r.unwrap_err().to_string(), "ERR item exists: 'taken'");

    cmd(
        port,
        &[b"HSET", b"later", b"protocol", b"rsbloom-sharding/2"],
    )
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
