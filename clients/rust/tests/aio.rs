//! The async API (`rsbloom_client::aio`) against real servers, in RESP2 and RESP3, with many
//! batches at once on one runtime and one client: reserve, madd, mexists, a stale
//! description, a batch error keeping other shards' outcomes, a lost CF.INSERT reply.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::proxy::Proxy;
use common::{async_client, client, cmd, inserted, int, url, RESP3};
use rsbloom_client::aio::{Client, ShardedBloom, ShardedCuckoo};
use rsbloom_client::{BatchKind, Error, Options};
use rsbloom_core::shard::layout::shard_of_item;
use rsbloom_test_support::cluster::Cluster;
use rsbloom_test_support::Server;

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// `tasks` batches of `each` items at once, each task adding its own items then looking
/// them up; every answer checked.
async fn many_batches_at_once(con: &Client, bloom: &ShardedBloom, cuckoo: &ShardedCuckoo) {
    let (tasks, each) = (24, 250);
    let mut handles = Vec::new();
    for t in 0..tasks {
        let (con, bloom, cuckoo) = (con.clone(), bloom.clone(), cuckoo.clone());
        handles.push(tokio::spawn(async move {
            let batch = items(&format!("t{t}"), each);
            let new = bloom.madd(&con, &batch).await.expect("madd");
            assert!(new.iter().all(|&x| x), "task {t}");
            assert!(cuckoo
                .madd(&con, &batch)
                .await
                .expect("madd")
                .iter()
                .all(|&x| x));
            let seen = bloom.mexists(&con, &batch).await.expect("mexists");
            assert!(seen.iter().all(|&x| x), "task {t}");
            assert!(cuckoo
                .mexists(&con, &batch)
                .await
                .expect("mexists")
                .iter()
                .all(|&x| x));
        }));
    }
    for h in handles {
        h.await.expect("task");
    }
    assert_eq!(bloom.card(con).await.expect("card"), tasks * each as u64);
    assert_eq!(cuckoo.card(con).await.expect("card"), tasks * each as u64);
}

#[test]
fn async_batches_at_once_on_a_cluster_and_a_stale_description() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    let rt = runtime();
    for resp3 in RESP3 {
        rt.block_on(async {
            let con = async_client(seed, resp3).await;
            assert!(con.is_cluster());
            let name = format!("a{}", resp3 as u8);
            let bloom =
                ShardedBloom::reserve(&con, &name, 0.01, 100_000, Some(16), Default::default())
                    .await
                    .expect("reserve");
            let cuckoo =
                ShardedCuckoo::reserve(&con, format!("c{name}"), 100_000, None, Default::default())
                    .await
                    .expect("reserve");
            assert!(
                ShardedBloom::reserve(&con, &name, 0.01, 10, None, Default::default())
                    .await
                    .is_err()
            );
            many_batches_at_once(&con, &bloom, &cuckoo).await;
            let opened = ShardedBloom::open(&con, &name).await.expect("open");
            assert_eq!(opened.description(), bloom.description());

            // Another client (blocking) deletes the filter and makes a 4-shard one.
            let mut b = client(seed, resp3);
            let old = rsbloom_client::ShardedBloom::open(&mut b, &name).expect("open");
            old.delete(&mut b).expect("delete");
            let new = rsbloom_client::ShardedBloom::reserve(
                &mut b,
                &name,
                0.01,
                10_000,
                Some(4),
                Default::default(),
            )
            .expect("reserve again");
            let added = items("b", 200);
            new.madd(&mut b, &added).expect("madd");
            let mut lookups = Vec::new();
            for _ in 0..8 {
                let (con, bloom, added) = (con.clone(), bloom.clone(), added.clone());
                lookups.push(tokio::spawn(
                    async move { bloom.mexists(&con, &added).await },
                ));
            }
            for l in lookups {
                let seen = l.await.expect("task").expect("mexists");
                assert!(seen.iter().all(|&x| x), "resp3 {resp3}: {seen:?}");
            }
            let more = items("a", 100);
            assert!(bloom
                .madd(&con, &more)
                .await
                .expect("madd")
                .iter()
                .all(|&x| x));
            assert!(new
                .mexists(&mut b, &more)
                .expect("mexists")
                .iter()
                .all(|&x| x));
            assert_eq!(bloom.description().shards, 4);
            assert_eq!(bloom.clone().delete(&con).await.expect("delete"), 5);
        });
    }
}

#[test]
fn async_batch_errors_keep_other_shards_outcomes() {
    let cluster = Cluster::start();
    let seed = cluster.live_ports()[0];
    let rt = runtime();
    for resp3 in RESP3 {
        rt.block_on(async {
            let options = Options {
                retry_timeout: Duration::from_millis(800),
                ..Options::default()
            };
            let con = Client::connect_with(url(seed, resp3), options)
                .await
                .expect("connect");
            let name = format!("gap{}", resp3 as u8);
            let cuckoo = ShardedCuckoo::reserve(&con, &name, 100_000, Some(8), Default::default())
                .await
                .expect("reserve");
            let lost = cuckoo.keys()[6].clone();
            assert_eq!(int(cmd(cluster.owner(&lost), &[b"DEL", &lost])), 1);
            let mut tasks = Vec::new();
            let mut stored = 0;
            for t in 0..8 {
                let (con, cuckoo) = (con.clone(), cuckoo.clone());
                tasks.push(tokio::spawn(async move {
                    let batch = items(&format!("t{t}"), 300);
                    (cuckoo.madd(&con, &batch).await, batch)
                }));
            }
            for t in tasks {
                let (got, batch) = t.await.expect("task");
                let Err(Error::Batch(e)) = got else {
                    panic!("resp3 {resp3}: {got:?}")
                };
                assert_eq!(e.kind, BatchKind::Failed);
                for (p, item) in batch.iter().enumerate() {
                    let on_lost = shard_of_item(item.as_bytes(), 8) == 6;
                    assert_eq!(e.results[p], (!on_lost).then_some(true), "{item}");
                    assert_eq!(e.failed.iter().any(|(f, _)| *f == p), on_lost, "{item}");
                }
                for (p, item) in batch.iter().enumerate().step_by(15) {
                    // (A count may exceed 1 by a fingerprint another item shares; the exact
                    // check is the card below.)
                    let count = cuckoo.count(&con, item).await.expect("count");
                    assert_eq!(count > 0, e.results[p].is_some(), "{item}: {count}");
                }
                stored += e.results.iter().flatten().count() as u64;
            }
            // Every item said stored, once: the other shards' insert counts add up to them.
            let keys = cuckoo.keys();
            let others = keys.iter().filter(|k| **k != lost);
            let counted: u64 = others.map(|k| inserted(cluster.owner(k), k)).sum();
            assert_eq!(counted, stored);
        });
    }
}

#[test]
fn async_lost_cuckoo_inserts_are_unknown_and_applied_once() {
    let server = Server::start();
    let rt = runtime();
    for resp3 in RESP3 {
        rt.block_on(async {
            let proxy = Arc::new(Proxy::start(server.port));
            let direct = async_client(server.port, resp3).await;
            let faulty = Client::connect(url(proxy.port, resp3))
                .await
                .expect("connect");
            let name = format!("lost{}", resp3 as u8);
            let filter = ShardedCuckoo::reserve(&direct, &name, 100_000, None, Default::default())
                .await
                .expect("reserve");
            // Warm: the connection exists before the fault, so the fault hits a write.
            filter.madd(&faulty, &["warm"]).await.expect("madd");
            proxy.lose_reply_to(b"CF.INSERT");
            let mut tasks = Vec::new();
            for t in 0..6 {
                let (faulty, filter) = (faulty.clone(), filter.clone());
                tasks.push(tokio::spawn(async move {
                    let batch = items(&format!("t{t}"), 200);
                    (filter.madd(&faulty, &batch).await, batch)
                }));
            }
            let (mut stored, mut unknown_stored, mut ambiguous) = (1, 0, 0);
            for t in tasks {
                let (got, batch) = t.await.expect("task");
                let results = match got {
                    Ok(added) => added.into_iter().map(Some).collect(),
                    Err(Error::Batch(e)) => {
                        assert_eq!(e.kind, BatchKind::Ambiguous, "{e:?}");
                        assert!(e.failed.is_empty(), "{e:?}");
                        ambiguous += 1;
                        for p in 0..batch.len() {
                            assert_eq!(e.results[p].is_none(), e.unknown.binary_search(&p).is_ok());
                        }
                        e.results
                    }
                    Err(other) => panic!("resp3 {resp3}: {other:?}"),
                };
                // Whatever was reported, no item is stored twice; what was said stored is
                // there; an unknown one ran (its request reached the server) or did not.
                for (item, result) in batch.iter().zip(results) {
                    let count = filter.count(&direct, item).await.expect("count");
                    match result {
                        Some(added) => assert!(added && count == 1, "{item}: {count}"),
                        None => {
                            assert!(count <= 1, "{item} stored {count} times");
                            unknown_stored += count;
                        }
                    }
                    stored += result.is_some() as u64;
                }
            }
            assert!(ambiguous >= 1 && proxy.cuts() == 1, "{ambiguous} ambiguous");
            assert!(
                unknown_stored > 0,
                "the lost request ran: its items are unknown, not lost"
            );
            assert_eq!(
                filter.card(&direct).await.expect("card"),
                stored + unknown_stored
            );
        });
    }
}
