//! Issue 44's contract (/work/spec-44.md) against a real cluster of 3 masters and 3 replicas,
//! every test in RESP2 and RESP3: no stale answers after a filter is deleted and remade
//! under a client, a batch error keeping every other shard's outcome, a reserve that fails
//! leaving nothing behind (and never touching a key it did not make), keyed routing.

mod common;

use std::time::Duration;

use common::{all_keys, client, client_retrying, cmd, int, master_ports, RESP3};
use redis::Value;
use rsbloom_client::{
    BatchKind, BloomOptions, CuckooOptions, Error, Routing, ShardedBloom, ShardedCuckoo,
};
use rsbloom_core::shard::layout::shard_of_item;
use rsbloom_test_support::cluster::Cluster;

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

#[test]
fn a_stale_description_never_answers_absent() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    for resp3 in RESP3 {
        let (mut a, mut b) = (client(seed, resp3), client(seed, resp3));
        let name = format!("stale{}", resp3 as u8);

        // Bloom: A's first batch after the swap is a read.
        let old = ShardedBloom::reserve(&mut a, &name, 0.01, 10_000, Some(16), Default::default())
            .expect("reserve");
        assert!(
            ShardedBloom::open(&mut b, &name)
                .expect("open")
                .delete(&mut b)
                .expect("delete")
                > 0
        );
        let new = ShardedBloom::reserve(&mut b, &name, 0.01, 10_000, Some(4), Default::default())
            .expect("reserve again");
        let added = items("b", 200);
        assert!(new.madd(&mut b, &added).expect("madd").iter().all(|&x| x));
        let seen = old
            .mexists(&mut a, &added)
            .expect("mexists under a stale description");
        assert!(
            seen.iter().all(|&x| x),
            "resp3 {resp3}: absent answers: {seen:?}"
        );
        assert_eq!(
            old.description().shards,
            4,
            "the handle took the new description"
        );
        assert_eq!(old.description().id, new.description().id);
        let more = items("a", 100);
        assert!(old.madd(&mut a, &more).expect("madd").iter().all(|&x| x));
        assert!(new
            .mexists(&mut b, &more)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        assert_eq!(new.card(&mut b).expect("card"), 300);

        // Cuckoo: A's first batch after the swap is a write, refused `ERR not found` by the
        // old shard keys, rerun under the new description.
        let cname = format!("{name}c");
        let old = ShardedCuckoo::reserve(&mut a, &cname, 10_000, Some(16), Default::default())
            .expect("reserve");
        ShardedCuckoo::open(&mut b, &cname)
            .expect("open")
            .delete(&mut b)
            .expect("delete");
        let new = ShardedCuckoo::reserve(&mut b, &cname, 10_000, Some(4), Default::default())
            .expect("reserve again");
        assert!(new.madd(&mut b, &added).expect("madd").iter().all(|&x| x));
        assert!(old
            .madd(&mut a, &more)
            .expect("madd after the swap")
            .iter()
            .all(|&x| x));
        assert!(old
            .mexists(&mut a, &added)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        for item in more.iter().take(20) {
            assert_eq!(
                new.count(&mut b, item).expect("count"),
                1,
                "{item} added once"
            );
        }
        assert_eq!(new.card(&mut b).expect("card"), 300);
    }
}

#[test]
fn a_batch_error_keeps_every_other_shards_outcome() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    for resp3 in RESP3 {
        // A shard deleted by hand: its writes fail `ERR not found` once the reruns run out.
        let mut con = client_retrying(seed, resp3, Duration::from_millis(800));
        let name = format!("gap{}", resp3 as u8);
        let cuckoo = ShardedCuckoo::reserve(&mut con, &name, 10_000, Some(8), Default::default())
            .expect("reserve");
        let lost = cuckoo.keys()[3].clone();
        assert_eq!(int(cmd(cluster.owner(&lost), &[b"DEL", &lost])), 1);
        let batch = items("x", 400);
        let Err(Error::Batch(e)) = cuckoo.madd(&mut con, &batch) else {
            panic!("a batch over a missing shard succeeded")
        };
        assert_eq!(e.kind, BatchKind::Failed, "{e:?}");
        assert!(e.unknown.is_empty());
        let on_lost: Vec<usize> = (0..batch.len())
            .filter(|&p| shard_of_item(batch[p].as_bytes(), 8) == 3)
            .collect();
        assert!(!on_lost.is_empty());
        assert_eq!(
            e.failed.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
            on_lost
        );
        for (_, cause) in &e.failed {
            assert!(
                matches!(cause, Error::Server(t) if t.contains("not found")),
                "{cause:?}"
            );
        }
        for (p, item) in batch.iter().enumerate() {
            let applied = !on_lost.contains(&p);
            assert_eq!(e.results[p], applied.then_some(true), "{p}");
            let want = applied as u64;
            assert_eq!(cuckoo.count(&mut con, item).expect("count"), want, "{item}");
        }
        // The documented limit: a hand-deleted shard reads as empty.
        let seen = cuckoo.mexists(&mut con, &batch).expect("mexists");
        assert!((0..batch.len()).all(|p| seen[p] != on_lost.contains(&p)));

        // Bloom alike, with the other shards' answers (new / not new) kept.
        let bloom = ShardedBloom::reserve(
            &mut con,
            format!("b{name}"),
            0.01,
            10_000,
            Some(8),
            Default::default(),
        )
        .expect("reserve");
        bloom.madd(&mut con, &batch[..100]).expect("madd");
        let lost = bloom.keys()[5].clone();
        assert_eq!(int(cmd(cluster.owner(&lost), &[b"DEL", &lost])), 1);
        let Err(Error::Batch(e)) = bloom.madd(&mut con, &batch) else {
            panic!("a batch over a missing shard succeeded")
        };
        assert_eq!(e.kind, BatchKind::Failed);
        for (p, item) in batch.iter().enumerate() {
            let shard = shard_of_item(item.as_bytes(), 8);
            let want = match shard {
                5 => None,
                _ => Some(p >= 100),
            };
            assert_eq!(e.results[p], want, "{item} on shard {shard}");
            assert_eq!(e.failed.iter().any(|(f, _)| *f == p), shard == 5);
        }
    }
}

#[test]
fn a_failed_reserve_leaves_nothing_behind_and_nothing_of_others_touched() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    let masters = master_ports(&cluster);
    for resp3 in RESP3 {
        let mut con = client(seed, resp3);
        let name = format!("taken{}", resp3 as u8);
        // Shard 2's key, made beforehand by someone else (a plain filter: no Shard id).
        let keys = rsbloom_core::shard::layout::shard_keys(name.as_bytes(), 6);
        let owner = cluster.owner(&keys[2]);
        cmd(owner, &[b"BF.RESERVE", &keys[2], b"0.01", b"100"]).expect("BF.RESERVE");
        cmd(owner, &[b"BF.ADD", &keys[2], b"theirs"]).expect("BF.ADD");
        let before = all_keys(&masters);
        let r = ShardedBloom::reserve(
            &mut con,
            &name,
            0.01,
            1_000,
            Some(6),
            BloomOptions::default(),
        );
        assert!(
            matches!(r, Err(Error::Server(ref t)) if t.contains("item exists")),
            "{r:?}"
        );
        assert_eq!(
            all_keys(&masters),
            before,
            "only the other filter's key is left"
        );
        assert_eq!(int(cmd(owner, &[b"BF.EXISTS", &keys[2], b"theirs"])), 1);
        let r = ShardedCuckoo::reserve(&mut con, &name, 1_000, Some(6), CuckooOptions::default());
        assert!(r.is_err(), "{r:?}");
        assert_eq!(all_keys(&masters), before);
        cmd(owner, &[b"DEL", &keys[2]]).expect("DEL");

        // A reserve of our own that the module refuses (a capacity over its limit) too.
        let r = ShardedCuckoo::reserve(&mut con, &name, 1 << 40, Some(2), CuckooOptions::default());
        assert!(r.is_err(), "{r:?}");
        assert_eq!(all_keys(&masters), Vec::<Vec<u8>>::new());
    }
}

#[test]
fn keyed_routing_places_items_by_hmac_and_the_module_holds_shards_to_it() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    for resp3 in RESP3 {
        let mut con = client(seed, resp3);
        let name = format!("keyed{}", resp3 as u8);
        let options = BloomOptions::default().keyed_routing();
        let filter = ShardedBloom::reserve(&mut con, &name, 0.01, 10_000, Some(8), options)
            .expect("reserve");
        let Routing::Keyed(secret) = filter.description().routing else {
            panic!("not keyed: {:?}", filter.description())
        };
        // The description says so, for every client.
        let fields = cmd(
            cluster.owner(name.as_bytes()),
            &[b"HGETALL", name.as_bytes()],
        )
        .expect("HGETALL");
        let Value::Array(fields) = fields else {
            panic!("{fields:?}")
        };
        let text: Vec<String> = fields
            .iter()
            .map(|v| match v {
                Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
                other => format!("{other:?}"),
            })
            .collect();
        let field = |f: &str| {
            text.iter()
                .position(|t| t == f)
                .map(|i| text[i + 1].clone())
        };
        assert_eq!(field("routing").as_deref(), Some("keyed"));
        let hex: String = secret.bytes().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(field("routing_secret"), Some(hex));

        let batch = items("k", 500);
        assert!(filter
            .madd(&mut con, &batch)
            .expect("madd")
            .iter()
            .all(|&x| x));
        assert!(filter
            .mexists(&mut con, &batch)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        let keys = filter.keys();
        let shard = |item: &str| ((secret.slot(item.as_bytes()) as u32 + 1) * 8 - 1) / 16_384;
        for item in &batch {
            let key = &keys[shard(item) as usize];
            assert_eq!(
                int(cmd(
                    cluster.owner(key),
                    &[b"BF.EXISTS", key, item.as_bytes()]
                )),
                1
            );
        }
        // An item sent to its CRC16 shard instead is refused by the keyed shard.
        let aimed = batch
            .iter()
            .find(|it| shard_of_item(it.as_bytes(), 8) != shard(it))
            .expect("routings differ for some item");
        let key = &keys[shard_of_item(aimed.as_bytes(), 8) as usize];
        let refused = cmd(cluster.owner(key), &[b"BF.ADD", key, aimed.as_bytes()]);
        assert!(
            matches!(refused, Err(ref t) if t.contains("wrong shard")),
            "{refused:?}"
        );

        // A second client routes alike from the description.
        let mut other = client(seed, resp3);
        let opened = ShardedBloom::open(&mut other, &name).expect("open");
        assert_eq!(opened.description(), filter.description());
        assert!(opened
            .mexists(&mut other, &batch)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        let cuckoo = ShardedCuckoo::reserve(
            &mut con,
            format!("c{name}"),
            10_000,
            Some(8),
            CuckooOptions::default().keyed_routing(),
        )
        .expect("reserve");
        assert!(cuckoo
            .madd(&mut con, &batch)
            .expect("madd")
            .iter()
            .all(|&x| x));
        assert_eq!(cuckoo.card(&mut con).expect("card"), 500);
        assert!(matches!(cuckoo.description().routing, Routing::Keyed(_)));
    }
}

#[test]
fn ask_redirections_mid_migration_run_each_command_once() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for resp3 in RESP3 {
        let mut con = client(seed, resp3);
        let async_con = rt.block_on(common::async_client(seed, resp3));
        let name = format!("ask{}", resp3 as u8);
        let filter = ShardedCuckoo::reserve(&mut con, &name, 10_000, Some(4), Default::default())
            .expect("reserve");
        // Shard 1's key goes to another master; its slot stays MIGRATING / IMPORTING, so a
        // command sent to the old owner is answered ASK.
        let key = filter.keys()[1].clone();
        let slot = rsbloom_core::shard::slot::key_slot(&key).to_string();
        let masters = cluster.masters();
        let source = masters
            .iter()
            .find(|m| m.port == cluster.owner(&key))
            .unwrap();
        let target = masters.iter().find(|m| m.port != source.port).unwrap();
        let (s, t) = (source.port, target.port);
        cmd(
            t,
            &[
                b"CLUSTER",
                b"SETSLOT",
                slot.as_bytes(),
                b"IMPORTING",
                source.id.as_bytes(),
            ],
        )
        .expect("IMPORTING");
        cmd(
            s,
            &[
                b"CLUSTER",
                b"SETSLOT",
                slot.as_bytes(),
                b"MIGRATING",
                target.id.as_bytes(),
            ],
        )
        .expect("MIGRATING");
        let port = t.to_string();
        cmd(
            s,
            &[
                b"MIGRATE",
                b"127.0.0.1",
                port.as_bytes(),
                &key,
                b"0",
                b"5000",
            ],
        )
        .expect("MIGRATE");

        let on_shard1: Vec<String> = (0..)
            .map(|i| format!("m:{i}"))
            .filter(|it| shard_of_item(it.as_bytes(), 4) == 1)
            .take(40)
            .collect();
        let (first, second) = on_shard1.split_at(20);
        let mut batch = items("other", 30);
        batch.extend(first.iter().cloned());
        assert!(filter
            .madd(&mut con, &batch)
            .expect("madd via ASK")
            .iter()
            .all(|&x| x));
        let async_filter: rsbloom_client::aio::ShardedCuckoo = filter.clone().into();
        let added = rt
            .block_on(async_filter.madd(&async_con, second))
            .expect("async madd via ASK");
        assert!(added.iter().all(|&x| x));
        let seen = rt
            .block_on(async_filter.mexists(&async_con, &on_shard1))
            .expect("mexists");
        assert!(seen.iter().all(|&x| x));

        // Both clients went by ASK: the target saw ASKING from each (and the test's none).
        let stats = cmd(t, &[b"INFO", b"commandstats"]).expect("INFO");
        let Value::BulkString(stats) = stats else {
            panic!("{stats:?}")
        };
        let stats = String::from_utf8_lossy(&stats).into_owned();
        let asking = stats
            .lines()
            .find_map(|l| l.strip_prefix("cmdstat_asking:calls="))
            .and_then(|v| v.split(',').next()?.parse::<u64>().ok())
            .unwrap_or(0);
        assert!(asking >= 2, "ASKING calls on the target: {asking}");

        // The migration ends: every item is in the moved shard, once.
        for port in masters.iter().map(|m| m.port) {
            cmd(
                port,
                &[
                    b"CLUSTER",
                    b"SETSLOT",
                    slot.as_bytes(),
                    b"NODE",
                    target.id.as_bytes(),
                ],
            )
            .expect("SETSLOT NODE");
        }
        let others_there = batch[..30]
            .iter()
            .filter(|it| shard_of_item(it.as_bytes(), 4) == 1)
            .count() as u64;
        assert_eq!(common::inserted(t, &key), 40 + others_there);
        for item in &on_shard1 {
            assert_eq!(filter.count(&mut con, item).expect("count"), 1, "{item}");
        }
        assert_eq!(filter.card(&mut con).expect("card"), 70);
        // (Shard 1's key of the next name shares this slot: its hash tag is the same.)
        assert_eq!(filter.delete(&mut con).expect("delete"), 5);
    }
}
