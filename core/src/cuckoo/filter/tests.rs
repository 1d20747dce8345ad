//! The filter against RedisBloom's facts: hashing (every line of `murmur64a_cf.tsv`),
//! geometry, the kick walk and its undo (against a plain model), growth, delete, counters
//! and compaction.

use super::*;
use crate::cuckoo::meta::MAX_BUCKETS;
use crate::testkit::Rng;

const NO_LIMIT: u64 = u64::MAX;

fn limits() -> Limits {
    Limits::new(NO_LIMIT)
}

fn vectors(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors/redisbloom-cf")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every line: the hash, fingerprint and both bucket indices, and RedisBloom's check of
/// them: two adds into `n` one-slot buckets leave `fp` exactly at `i1` and `i2` (the second
/// add is refused as full when they coincide).
#[test]
fn murmur64a_cf_matches_every_line() {
    let text = vectors("murmur64a_cf.tsv");
    let mut lines = 0;
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let item = unhex(cols[0]);
        let want: Vec<u64> = cols[2..].iter().map(|c| c.parse().unwrap()).collect();
        let (fp, n, i1, i2) = (want[0], want[1], want[2], want[3]);
        let h = CfHash::of(&item);
        assert_eq!(h.h1, u64::from_str_radix(cols[1], 16).unwrap(), "{line}");
        assert_eq!(h.fp as u64, fp, "{line}");
        assert_eq!((h.h1 % n, h.h2 % n), (i1, i2), "{line}");

        let mut f = CuckooFilter::new(n, 1, 1, 0, NO_LIMIT).unwrap();
        f.add(&item, &limits()).unwrap();
        let second = f.add(&item, &limits());
        assert_eq!(second.is_err(), i1 == i2, "{line}");
        let slots = f.sub_filters()[0].slots();
        for (at, &s) in slots.iter().enumerate() {
            let expected = if at as u64 == i1 || at as u64 == i2 {
                fp
            } else {
                0
            };
            assert_eq!(s as u64, expected, "{line}: slot {at}");
        }
        lines += 1;
    }
    assert_eq!(lines, 285);
}

#[test]
fn geometry_and_parameters_are_redisbloom_s() {
    let buckets = |capacity, bs| {
        CuckooFilter::new(capacity, bs, 20, 1, NO_LIMIT)
            .unwrap()
            .num_buckets()
    };
    assert_eq!(buckets(1000, 2), 512);
    assert_eq!(buckets(1001, 3), 512);
    assert_eq!(buckets(3000, 255), 16);
    assert_eq!(buckets(4, 2), 2);
    assert_eq!(buckets(1024, 2), 512);
    let expansion = |e| {
        CuckooFilter::new(100, 2, 20, e, NO_LIMIT)
            .unwrap()
            .expansion()
    };
    assert_eq!(
        [0, 1, 2, 3, 5, 32767, 32768].map(expansion),
        [0, 1, 2, 4, 8, 32768, 32768]
    );
    assert_eq!(
        CuckooFilter::new(100, 2, 20, 32769, NO_LIMIT),
        Err(Error::CfExpansionRange)
    );
    assert_eq!(
        CuckooFilter::new(3, 2, 20, 1, NO_LIMIT),
        Err(Error::CfCannotCreateFilter)
    );
    assert_eq!(
        CuckooFilter::new(100, 0, 20, 1, NO_LIMIT),
        Err(Error::CfBucketSizeRange { max: 255 })
    );
    // Over 2^56 - 1 buckets: RedisBloom's own refusal, whatever the limit.
    for (capacity, bs) in [(1 << 57, 2), (u64::MAX, 2), (u64::MAX, 255), (1 << 63, 1)] {
        assert_eq!(
            CuckooFilter::new(capacity, bs, 20, 1, NO_LIMIT),
            Err(Error::CfTooManyBuckets)
        );
    }
    assert_eq!((MAX_BUCKETS * 2) / 2, MAX_BUCKETS);
    // Absurd but representable sizes meet the limit before any allocation.
    let err = CuckooFilter::new(1_000_000_000_000_000, 2, 20, 1, 1 << 30).unwrap_err();
    assert!(matches!(err, Error::TooLarge { needed, .. } if needed > 1 << 49));
    let f = CuckooFilter::new(1000, 2, 20, 1, 1080).unwrap();
    assert_eq!(f.memory_bytes(), 1080);
    assert!(CuckooFilter::new(1000, 2, 20, 1, 1079).is_err());
}

/// The insert of RedisBloom's description, written the plain way: the kick walk on a copy
/// of the newest sub-filter, recording its path, and thrown away when it fails.
fn model_add(f: &mut CuckooFilter, h: CfHash) -> bool {
    for s in f.filters.iter_mut().rev() {
        if let Some(at) = s.free_slot_for(h.h1, h.h2) {
            s.put(at, h.fp);
            f.items += 1;
            return true;
        }
    }
    let bs = f.bucket_size as usize;
    let Some(last) = f.filters.last_mut() else {
        return false;
    };
    let mut copy = last.clone();
    let (mut hand, mut b, mut v) = (h.fp, copy.index(h.h1), 0);
    for _ in 0..f.max_iterations {
        hand = copy.swap(b, v, hand);
        b = copy.index(b ^ alt_offset(hand));
        if let Some(at) = copy.free_slot(b) {
            copy.put(at, hand);
            *last = copy;
            f.items += 1;
            return true;
        }
        v = (v + 1) % bs;
    }
    false
}

#[test]
fn kicks_and_their_undo_match_the_plain_model() {
    let mut rng = Rng::new(7);
    for round in 0..60 {
        let bs = 1 + rng.index(4) as u8;
        let iterations = rng.index(40) as u16;
        let capacity = 2 * bs as u64 + rng.below(300);
        let mut f = CuckooFilter::new(capacity, bs, iterations, 0, NO_LIMIT).unwrap();
        let mut model = f.clone();
        for i in 0..capacity * 2 {
            let h = CfHash::of(&(round * 100_000 + i).to_le_bytes());
            let before = f.clone();
            let ours = f.add_hash(h, &limits());
            let theirs = model_add(&mut model, h);
            assert_eq!(ours.is_ok(), theirs, "round {round} item {i}");
            if ours.is_err() {
                assert_eq!(ours, Err(Error::CfFull));
                assert_eq!(f, before, "a failed walk left traces");
            }
            assert_eq!(f, model, "round {round} item {i}");
        }
    }
}

/// Bucket counts that are not powers of two (only loaded data has them: odd expansions, RDB
/// values) take items into free slots only, since RedisBloom's walk there strands
/// fingerprints where no lookup finds them. Every acknowledged add stays found; a refused
/// one leaves the filter as it was.
#[test]
fn odd_bucket_counts_never_lose_an_acknowledged_item() {
    for (buckets, expansion) in [(3, 0), (5, 0), (12, 0), (3, 3)] {
        let meta = CuckooMeta {
            num_buckets: buckets,
            items: 0,
            deletes: 0,
            bucket_size: 2,
            max_iterations: 7,
            expansion,
            num_filters: 1,
        };
        let mut f = CuckooFilter::from_meta(&meta, NO_LIMIT).unwrap();
        let tight = Limits {
            bytes: NO_LIMIT,
            max_expansions: 3,
        };
        let mut acknowledged = Vec::new();
        for i in 0..200u32 {
            let h = CfHash::of(&i.to_le_bytes());
            let before = f.clone();
            match f.add_hash(h, &tight) {
                Ok(()) => acknowledged.push(h),
                Err(_) => assert_eq!(f, before, "{buckets} buckets, item {i}"),
            }
            assert!(
                acknowledged.iter().all(|&a| f.contains_hash(a)),
                "{buckets} buckets: an acknowledged item is lost after item {i}"
            );
        }
        assert!(!acknowledged.is_empty() && acknowledged.len() < 200);
        let sizes: Vec<u64> = f.sub_filters().iter().map(|s| s.buckets()).collect();
        let expected = if expansion == 0 {
            vec![buckets]
        } else {
            vec![3, 9, 27]
        };
        assert_eq!(sizes, expected);
    }
}

#[test]
fn growth_follows_the_expansion_and_respects_every_bound() {
    let mut f = CuckooFilter::new(64, 4, 100, 4, NO_LIMIT).unwrap();
    for i in 0..2000u32 {
        f.add(&i.to_le_bytes(), &limits()).unwrap();
    }
    let sizes: Vec<u64> = f.sub_filters().iter().map(|s| s.buckets()).collect();
    assert_eq!(sizes, vec![16, 64, 256, 1024]);
    assert_eq!(f.items(), 2000);
    assert!((0..2000u32).all(|i| f.exists(&i.to_le_bytes())));

    // The byte limit: growth refused before allocating, the filter unchanged.
    let limit = memory_for(2, 8 + 8);
    let mut f = CuckooFilter::new(8, 2, 20, 1, limit).unwrap();
    let bounded = Limits::new(limit);
    let mut refused = None;
    for i in 0..100u32 {
        if let Err(e) = f.add(&i.to_le_bytes(), &bounded) {
            refused = Some(e);
            break;
        }
    }
    assert!(matches!(refused, Some(Error::TooLarge { .. })));
    assert_eq!(f.sub_filters().len(), 2);
    assert!(f.memory_bytes() <= limit);

    // The sub-filter bound holds inside one batch (RedisBloom's one-per-command check
    // would let a single CF.INSERT grow to 50 sub-filters).
    let mut f = CuckooFilter::new(4, 2, 20, 1, NO_LIMIT).unwrap();
    assert!(f.check_expansions(32).is_ok());
    let hashes: Vec<CfHash> = (0..200u32).map(|i| CfHash::of(&i.to_le_bytes())).collect();
    let mut results = Vec::new();
    f.add_batch(&hashes, false, &limits(), true, |r| results.push(r));
    assert_eq!(f.sub_filters().len(), 32);
    assert!(results.contains(&Err(Error::CfMaxExpansions)));
    assert_eq!(f.check_expansions(32), Err(Error::CfMaxExpansions));
    // RedisBloom's behaviour is one `max_expansions` away.
    let mut f = CuckooFilter::new(4, 2, 20, 1, NO_LIMIT).unwrap();
    let loose = Limits {
        bytes: NO_LIMIT,
        max_expansions: MAX_FILTERS,
    };
    f.add_batch(&hashes, false, &loose, false, |r| assert_eq!(r, Ok(true)));
    assert_eq!(f.sub_filters().len(), 50);

    // Expansion 0 never grows.
    let mut f = CuckooFilter::new(8, 2, 20, 0, NO_LIMIT).unwrap();
    let outcomes: Vec<_> = (0..20u32)
        .map(|i| f.add(&i.to_le_bytes(), &limits()))
        .collect();
    assert!(outcomes.contains(&Err(Error::CfFull)));
    assert_eq!(f.sub_filters().len(), 1);
}

#[test]
fn nx_counts_and_duplicates() {
    let mut f = CuckooFilter::new(100, 2, 20, 1, NO_LIMIT).unwrap();
    for _ in 0..3 {
        f.add(b"dup", &limits()).unwrap();
    }
    assert_eq!(f.count(b"dup"), 3);
    assert_eq!(f.add_nx(b"dup", &limits()), Ok(false));
    assert_eq!(f.add_nx(b"new", &limits()), Ok(true));
    assert_eq!(f.items(), 4);
    // Two buckets: an even fingerprint's buckets coincide and count twice.
    let item = (0u32..)
        .map(|i| i.to_le_bytes())
        .find(|i| CfHash::of(i).fp.is_multiple_of(2))
        .unwrap();
    let mut f = CuckooFilter::new(4, 2, 20, 0, NO_LIMIT).unwrap();
    f.add(&item, &limits()).unwrap();
    assert_eq!(f.count(&item), 2);
}

#[test]
fn delete_takes_the_newest_copy_and_compacts() {
    let mut f = CuckooFilter::new(8, 2, 20, 1, NO_LIMIT).unwrap();
    let items: Vec<[u8; 4]> = (0..40u32).map(|i| i.to_le_bytes()).collect();
    for i in &items {
        f.add(i, &limits()).unwrap();
    }
    let filters = f.sub_filters().len();
    assert!(filters > 2);
    assert!(!f.delete(b"absent"));
    assert_eq!((f.items(), f.deletes()), (40, 0));
    // The newest sub-filter holding a copy loses it.
    let last = items
        .iter()
        .rev()
        .find(|i| f.sub_filters().last().unwrap().contains(CfHash::of(*i)))
        .unwrap();
    let copies_before = f.sub_filters().last().unwrap().count(CfHash::of(last));
    assert!(f.delete(last));
    // 1 delete is not over 10 % of 39 items: no compaction yet.
    assert_eq!((f.items(), f.deletes()), (39, 1));
    assert_eq!(
        f.sub_filters().last().unwrap().count(CfHash::of(last)),
        copies_before - 1
    );
    // Deleting until deletes exceed 10 % of the items compacts and resets the count.
    let mut compacted = false;
    for i in items.iter().take(10) {
        if f.delete(i) && f.deletes() == 0 {
            compacted = true;
            break;
        }
    }
    assert!(compacted);
    assert!(f.sub_filters().len() <= filters);
    for i in items.iter().skip(10) {
        if i != last {
            assert!(f.exists(i), "compaction lost an item");
        }
    }
    // CF.COMPACT moves everything it can and frees the empty newest sub-filters.
    let mut f = CuckooFilter::new(8, 2, 20, 1, NO_LIMIT).unwrap();
    for i in &items {
        f.add(i, &limits()).unwrap();
    }
    for i in items.iter().take(30) {
        f.filters.iter_mut().rev().any(|s| s.delete(CfHash::of(i)));
    }
    f.compact(true);
    assert_eq!(f.sub_filters().len(), 2);
    assert!(items.iter().skip(30).all(|i| f.exists(i)));
}

#[test]
fn item_count_wraps_like_redisbloom_s() {
    // A header may claim 0 items over slots that hold fingerprints.
    let meta = CuckooMeta {
        num_buckets: 1,
        items: 0,
        deletes: 0,
        bucket_size: 1,
        max_iterations: 20,
        expansion: 1,
        num_filters: 1,
    };
    let mut f = CuckooFilter::from_meta(&meta, NO_LIMIT).unwrap();
    f.write_chunk(0, &[CfHash::of(b"zz").fp]).unwrap();
    assert!(f.delete(b"zz"));
    assert_eq!((f.items(), f.deletes()), (u64::MAX, 1));
    assert_eq!(f.info().fields()[3], ("Number of items inserted", -1));
}
