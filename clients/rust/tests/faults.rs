//! Lost replies, through a fault proxy that lets a request reach the server and run, then
//! drops the connection before the reply comes back (tests/common/proxy.rs), on one server
//! with the module, in RESP2 and RESP3: a once-only write is reported unknown and never
//! applied twice; an idempotent one is resent; a reserve whose reply was lost finishes as
//! its own.

mod common;

use common::proxy::Proxy;
use common::{client, cmd, url, RESP3};
use rsbloom_client::{
    BatchKind, BloomOptions, Client, CuckooOptions, Error, ShardedBloom, ShardedCuckoo,
};
use rsbloom_test_support::Server;

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

#[test]
fn a_lost_cuckoo_insert_is_unknown_and_never_applied_twice() {
    let server = Server::start();
    for resp3 in RESP3 {
        let proxy = Proxy::start(server.port);
        let mut direct = client(server.port, resp3);
        let mut faulty = Client::connect(url(proxy.port, resp3)).expect("connect");
        let name = format!("lost{}", resp3 as u8);
        let filter =
            ShardedCuckoo::reserve(&mut direct, &name, 10_000, None, CuckooOptions::default())
                .expect("reserve");
        let batch = items("i", 300);
        proxy.lose_reply_to(b"CF.INSERT");
        let Err(Error::Batch(e)) = filter.madd(&mut faulty, &batch) else {
            panic!("resp3 {resp3}: a lost reply went unreported")
        };
        assert_eq!(proxy.cuts(), 1);
        assert_eq!(e.kind, BatchKind::Ambiguous, "{e:?}");
        assert!(!e.unknown.is_empty());
        for p in 0..batch.len() {
            let unknown = e.unknown.binary_search(&p).is_ok();
            assert_eq!(e.results[p].is_none(), unknown, "{p}: {e:?}");
        }
        // Whatever was reported, every item is stored exactly once: nothing was resent.
        for item in &batch {
            assert_eq!(filter.count(&mut direct, item).expect("count"), 1, "{item}");
        }
        assert_eq!(filter.card(&mut direct).expect("card"), 300);

        // The next batch over a fresh connection goes through.
        let more = items("j", 50);
        assert!(filter
            .madd(&mut faulty, &more)
            .expect("madd")
            .iter()
            .all(|&x| x));

        // CF.DEL alike: unknown, and one copy removed, not two.
        filter.add(&mut direct, &batch[0]).expect("a second copy");
        proxy.lose_reply_to(b"CF.DEL");
        match filter.remove(&mut faulty, &batch[0]) {
            Err(Error::Batch(e)) => {
                assert_eq!((e.kind, e.unknown), (BatchKind::Ambiguous, vec![0]));
                assert_eq!(e.results, [None]);
            }
            other => panic!("a lost CF.DEL answered {other:?}"),
        }
        assert_eq!(filter.count(&mut direct, &batch[0]).expect("count"), 1);
        assert_eq!(proxy.cuts(), 2);
    }
}

#[test]
fn lost_replies_of_idempotent_commands_are_resent() {
    let server = Server::start();
    for resp3 in RESP3 {
        let proxy = Proxy::start(server.port);
        let mut direct = client(server.port, resp3);
        let mut faulty = Client::connect(url(proxy.port, resp3)).expect("connect");
        let name = format!("safe{}", resp3 as u8);

        // The description script's reply lost: resent, its 0 recognised by the call's id.
        proxy.lose_reply_to(b"EVAL");
        let bloom = ShardedBloom::reserve(
            &mut faulty,
            &name,
            0.01,
            10_000,
            Some(4),
            BloomOptions::default(),
        )
        .expect("reserve after a lost description reply");
        assert_eq!(proxy.cuts(), 1);
        let id = bloom.description().id.expect("an id");
        let stored = cmd(server.port, &[b"HGET", name.as_bytes(), b"id"]).expect("HGET");
        assert_eq!(stored, redis::Value::BulkString(id.clone().into_bytes()));
        for shard in bloom.info(&mut direct).expect("info") {
            assert_eq!(shard.id.as_deref(), Some(id.as_str()));
        }

        // A shard reserve's reply lost: its retry meets `item exists`, and the shard's id
        // says it is the call's own.
        proxy.lose_reply_to(b"CF.RESERVE");
        let cuckoo = ShardedCuckoo::reserve(
            &mut faulty,
            format!("c{name}"),
            10_000,
            Some(4),
            CuckooOptions::default(),
        )
        .expect("reserve after a lost shard reply");
        assert_eq!(proxy.cuts(), 2);
        assert_eq!(cuckoo.info(&mut direct).expect("info").len(), 4);

        // Bloom adds and CF.INSERTNX are resent: the batch succeeds, each item once.
        let batch = items("b", 200);
        proxy.lose_reply_to(b"BF.INSERT");
        bloom.madd(&mut faulty, &batch).expect("madd resent");
        assert_eq!(proxy.cuts(), 3);
        assert!(bloom
            .mexists(&mut direct, &batch)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        assert_eq!(bloom.card(&mut direct).expect("card"), 200);
        proxy.lose_reply_to(b"CF.INSERTNX");
        cuckoo.maddnx(&mut faulty, &batch).expect("maddnx resent");
        assert_eq!(proxy.cuts(), 4);
        for item in batch.iter().take(50) {
            assert_eq!(cuckoo.count(&mut direct, item).expect("count"), 1, "{item}");
        }
        // Reads too.
        proxy.lose_reply_to(b"BF.MEXISTS");
        assert!(bloom
            .mexists(&mut faulty, &batch)
            .expect("mexists")
            .iter()
            .all(|&x| x));
        assert_eq!(proxy.cuts(), 5);
    }
}
