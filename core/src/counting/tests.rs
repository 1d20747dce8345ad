//! The counting filter against exact models: a multiset of items, the Guava Bloom layer of
//! the same shape, and false-positive rates over a million never-added items.

use std::collections::HashMap;

use super::codec::{self, Load};
use super::filter::{CountingFilter, CountingMeta};
use crate::bloom::codec::writeto;
use crate::bloom::keyed::Secret;
use crate::bloom::{guava, Layer};
use crate::error::Error;
use crate::fields::{Reader, Writer};
use crate::testkit::Rng;

const NO_LIMIT: u64 = u64::MAX;

fn item(i: u64) -> Vec<u8> {
    format!("item:{i}").into_bytes()
}

/// The Guava (`RSbloom--`) layer of the same shape holding `items`.
fn guava_layer(f: &CountingFilter, items: impl IntoIterator<Item = Vec<u8>>) -> Layer {
    let m = f.meta();
    let mut layer = Layer::new(m.capacity, m.error_rate, m.k, m.words).unwrap();
    for i in items {
        layer.insert(guava::hash(&i));
    }
    layer
}

#[test]
fn non_zero_counters_are_the_guava_filters_bits() {
    for bits in [4, 8] {
        let mut f = CountingFilter::new(0.01, 1000, bits, NO_LIMIT).unwrap();
        let mut kept = Vec::new();
        for i in 0..1000 {
            f.add(&item(i)).unwrap();
        }
        // Delete every third item: the bits are those of the rest (no collision removed a
        // count, since every deleted item was added).
        for i in 0..1000 {
            if i % 3 == 0 {
                assert!(f.delete(&item(i)));
            } else {
                kept.push(item(i));
            }
        }
        let layer = guava_layer(&f, kept.clone());
        let words: Vec<u64> = f.guava_words().collect();
        assert_eq!(words, layer.words(), "bits {bits}");
        // The export is Guava's writeTo of those words, and imports as that filter.
        let bytes = f.export_guava().unwrap();
        let header = writeto::parse_header(&bytes).unwrap();
        assert_eq!(
            (header.k as u32, header.words as u64),
            (f.k(), f.meta().words)
        );
        let chain = writeto::import(&bytes, None, None, NO_LIMIT).unwrap();
        assert_eq!(chain.layers()[0].words(), layer.words());
        for i in 0..3000 {
            assert_eq!(chain.contains(&item(i)), f.contains(&item(i)), "item {i}");
        }
        assert_eq!(
            f.nonzero(),
            words.iter().map(|w| w.count_ones() as u64).sum::<u64>()
        );
    }
}

#[test]
fn shape_is_an_rsbloom_layer_held_under_the_rate() {
    let m = CountingMeta::new(0.01, 1000, 4);
    let s = guava::Sizing::scaling(1000, 0.01);
    assert_eq!((m.k, m.words), (s.k, s.words));
    // 4-bit counters: four times the bits.
    let f = CountingFilter::from_meta(&m, NO_LIMIT).unwrap();
    assert_eq!(f.data_len(), m.words * 32);
    let f8 = CountingFilter::new(0.01, 1000, 8, NO_LIMIT).unwrap();
    assert_eq!(f8.data_len(), m.words * 64);
}

/// A multiset model over random adds and deletes of a small item set, with collisions
/// forced by a small filter and saturation by 4-bit counters.
#[test]
fn random_adds_and_deletes_against_a_multiset() {
    for (bits, capacity, seed) in [(4, 200, 1), (4, 50, 2), (8, 200, 3), (4, 5000, 4)] {
        let mut f = CountingFilter::new(0.05, capacity, bits, NO_LIMIT).unwrap();
        let mut model: HashMap<u64, u64> = HashMap::new();
        let mut rng = Rng::new(seed);
        let universe = capacity * 2;
        let mut saturated_seen = false;
        for step in 0..40_000 {
            let i = rng.below(universe) % (1 + rng.below(universe));
            let held: u64 = model.values().sum();
            if rng.below(3) != 0 {
                match f.add(&item(i)) {
                    Ok(new) => {
                        assert!(!new || model.get(&i).copied().unwrap_or(0) == 0);
                        *model.entry(i).or_default() += 1;
                    }
                    Err(Error::Full) => {
                        assert!(held >= capacity);
                        assert_eq!(model.get(&i).copied().unwrap_or(0), 0);
                    }
                    Err(e) => panic!("{e}"),
                }
            } else if model.get(&i).copied().unwrap_or(0) > 0 {
                // Only deletes of added items: those never take another's counts.
                assert!(f.delete(&item(i)), "step {step}: added item not deletable");
                *model.get_mut(&i).unwrap() -= 1;
            }
            assert_eq!(f.count(), model.values().sum::<u64>(), "step {step}");
            saturated_seen |= f.saturated() > 0;
            if step % 97 == 0 {
                for (&j, &n) in &model {
                    let c = f.count_of(&item(j));
                    if n > 0 {
                        assert!(f.contains(&item(j)), "step {step}: false negative {j}");
                    }
                    // COUNT never below the true count, unless a counter is stuck at its
                    // maximum (then it reads the maximum).
                    let max = (1u64 << bits) - 1;
                    assert!(c >= n.min(max), "step {step}: count {c} < {n} for {j}");
                }
            }
        }
        if bits == 4 && capacity == 50 {
            assert!(saturated_seen, "no counter saturated");
        }
    }
}

#[test]
fn saturated_counters_stick_and_never_lose_an_item() {
    let mut f = CountingFilter::new(0.01, 100, 4, NO_LIMIT).unwrap();
    for n in 1..=20u64 {
        assert_eq!(f.add(b"hot").unwrap(), n == 1);
        assert_eq!(f.count_of(b"hot"), n.min(15));
    }
    let distinct: std::collections::BTreeSet<u64> = guava::hash(b"hot")
        .probes(f.k(), f.counters_len())
        .collect();
    assert_eq!(f.saturated(), distinct.len() as u64);
    // Deleted more times than added: stuck counters are never decremented.
    for _ in 0..25 {
        assert!(f.delete(b"hot"));
    }
    assert!(f.contains(b"hot"));
    assert_eq!(f.count_of(b"hot"), 15);
    assert_eq!(f.count(), 0);
    // 8-bit counters count to 255.
    let mut f = CountingFilter::new(0.01, 1000, 8, NO_LIMIT).unwrap();
    for _ in 0..300 {
        f.add(b"hot").unwrap();
    }
    assert_eq!(f.count_of(b"hot"), 255);
    for _ in 0..254 {
        assert!(f.delete(b"hot"));
    }
    assert!(f.contains(b"hot"));
}

#[test]
fn deletes_of_absent_items_change_nothing_and_full_refuses_new_items() {
    let mut f = CountingFilter::new(0.001, 10, 4, NO_LIMIT).unwrap();
    let empty = f.clone();
    assert!(!f.delete(b"never"));
    assert_eq!(f, empty);
    for i in 0..10 {
        assert!(f.add(&item(i)).unwrap());
    }
    let full = f.clone();
    assert_eq!(f.add(b"new"), Err(Error::Full));
    assert_eq!(f, full);
    // A present item is still counted; a delete makes room.
    assert_eq!(f.add(&item(3)), Ok(false));
    assert_eq!(f.count(), 11);
    assert!(f.delete(&item(3)) && f.delete(&item(4)));
    assert_eq!(f.add(b"new"), Ok(true));
}

#[test]
fn batches_answer_like_single_items() {
    // 2 MB and more of counters take the prefetching path.
    for capacity in [5000, 500_000] {
        let mut single = CountingFilter::new(0.01, capacity, 4, NO_LIMIT).unwrap();
        let mut batch = single.clone();
        let hashes: Vec<_> = (0..3000).map(|i| guava::hash(&item(i % 2000))).collect();
        let expected: Vec<_> = hashes.iter().map(|&h| single.add_hash(h)).collect();
        let mut got = Vec::new();
        batch.add_batch(&hashes, true, |r| got.push(r));
        assert_eq!(got, expected);
        assert_eq!(batch, single);
        let probe: Vec<_> = (0..5000).map(|i| guava::hash(&item(i))).collect();
        let one: Vec<bool> = probe.iter().map(|&h| single.contains_hash(h)).collect();
        assert_eq!(batch.contains_batch(&probe, true), one);
        assert_eq!(batch.contains_batch(&probe, false), one);
        let dels: Vec<bool> = probe.iter().map(|&h| single.delete_hash(h)).collect();
        assert_eq!(batch.delete_batch(&probe, true), dels);
        assert_eq!(batch, single);
    }
    // A batch stops after its first refusal.
    let mut f = CountingFilter::new(0.01, 10, 4, NO_LIMIT).unwrap();
    let hashes: Vec<_> = (0..20).map(|i| guava::hash(&item(i))).collect();
    let mut got = Vec::new();
    f.add_batch(&hashes, true, |r| got.push(r));
    assert_eq!(got.len(), 11);
    assert_eq!(got[10], Err(Error::Full));
    assert_eq!(f.count(), 10);
}

/// False positives among `n` never-added items.
fn false_positive_rate(f: &CountingFilter, n: u64) -> f64 {
    let hits = (0..n)
        .filter(|i| f.contains(format!("out:{i}").as_bytes()))
        .count();
    hits as f64 / n as f64
}

/// Full filters at 1 %, 0.1 % and 0.01 %, then with half their items deleted: a million
/// never-added queries each, at or under the rate asked for.
#[test]
fn false_positive_rates_at_capacity_and_after_deleting_half() {
    let capacity = 100_000;
    for p in [0.01, 0.001, 0.0001] {
        let mut f = CountingFilter::new(p, capacity, 4, NO_LIMIT).unwrap();
        for i in 0..capacity {
            assert!(f.add(&item(i)).is_ok());
        }
        let full = false_positive_rate(&f, 1_000_000);
        for i in (0..capacity).step_by(2) {
            assert!(f.delete(&item(i)));
        }
        for i in (1..capacity).step_by(2) {
            assert!(f.contains(&item(i)), "false negative after deletes");
        }
        let half = false_positive_rate(&f, 1_000_000);
        eprintln!(
            "counting filter {capacity} @ {p}: {:.4} % full, {:.4} % after deleting half, \
             {:.2} bytes per item",
            full * 100.0,
            half * 100.0,
            f.memory_bytes() as f64 / capacity as f64
        );
        assert!(full <= p, "{p}: full rate {full}");
        assert!(half <= p / 4.0, "{p}: rate {half} after deleting half");
    }
}

#[test]
fn rdb_value_and_chunks_round_trip() {
    for bits in [4, 8] {
        let mut f = CountingFilter::new(0.01, 300, bits, NO_LIMIT).unwrap();
        for i in 0..300 {
            f.add(&item(i % 40)).unwrap();
        }
        assert!(f.saturated() > 0 || bits == 8);
        let mut out = Writer::default();
        codec::save(&f, &mut out);
        let back = codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION, NO_LIMIT).unwrap();
        assert_eq!(back, f);
        // Every truncation is refused; so is another version.
        for cut in 0..out.0.len() {
            let mut r = Reader(&out.0[..cut]);
            assert!(codec::load(&mut r, 1, NO_LIMIT).is_err(), "cut {cut}");
        }
        assert!(codec::load(&mut Reader(&out.0), 2, NO_LIMIT).is_err());
        // The size limit is checked before anything is allocated.
        let e = codec::load(&mut Reader(&out.0), 1, 100).unwrap_err();
        assert!(matches!(e, Error::TooLarge { .. }), "{e:?}");
        // SCANDUMP / LOADCHUNK in small chunks.
        let mut copy: Option<CountingFilter> = None;
        for (iter, data) in codec::load_calls(&f, 37) {
            match codec::parse_load(iter, &data, NO_LIMIT, copy.is_some()).unwrap() {
                Load::Header(meta) => {
                    copy = Some(CountingFilter::from_meta(&meta, NO_LIMIT).unwrap())
                }
                Load::Data { offset, data } => {
                    copy.as_mut().unwrap().write_chunk(offset, data).unwrap()
                }
            }
        }
        assert_eq!(copy.as_ref(), Some(&f));
        let header = codec::encode_header(&f.meta());
        let mut longer = header.clone();
        longer.push(0);
        assert!(codec::decode_header(&longer, NO_LIMIT).is_err());
        assert!(codec::decode_header(&header[..header.len() - 1], NO_LIMIT).is_err());
    }
}

#[test]
fn inconsistent_parameters_are_refused() {
    let good = CountingMeta::new(0.01, 1000, 4);
    assert!(good.validate(NO_LIMIT).is_ok());
    let cases: Vec<fn(&mut CountingMeta)> = vec![
        |m| m.error_rate = 0.0,
        |m| m.error_rate = f64::NAN,
        |m| m.error_rate = 1.0,
        |m| m.capacity = 0,
        |m| m.capacity = u64::MAX,
        |m| m.counter_bits = 2,
        |m| m.counter_bits = 16,
        |m| m.k += 1,
        |m| m.words += 1,
        |m| m.words = u64::MAX,
        |m| m.k = 0,
    ];
    for (i, mutate) in cases.iter().enumerate() {
        let mut m = good;
        mutate(&mut m);
        assert!(m.validate(NO_LIMIT).is_err(), "case {i} accepted");
    }
}

/// A plain filter's header is the one of before keyed filters, byte for byte (flags 0, seven
/// fields); a keyed one sets flag 1 and adds its secret, and round-trips through the RDB value
/// and SCANDUMP with its secret and its answers; an unknown flag is refused.
#[test]
fn keyed_filters_round_trip_and_plain_ones_keep_their_bytes() {
    let plain = CountingFilter::new(0.01, 1000, 4, NO_LIMIT).unwrap();
    let m = plain.meta();
    let mut old = b"RSCB\x01".to_vec();
    let mut fields = Writer::default();
    for v in [0, 4, 1000] {
        crate::fields::FieldSink::put_u64(&mut fields, v);
    }
    crate::fields::FieldSink::put_f64(&mut fields, 0.01);
    for v in [m.k as u64, m.words, 0] {
        crate::fields::FieldSink::put_u64(&mut fields, v);
    }
    old.extend_from_slice(&fields.0);
    assert_eq!(codec::encode_header(&m), old);

    let secret = Secret::from_words([7, 11]);
    let mut keyed = CountingFilter::new(0.01, 1000, 4, NO_LIMIT)
        .unwrap()
        .with_secret(secret);
    for i in 0..500 {
        keyed.add(&item(i)).unwrap();
    }
    assert!(keyed.keyed() && !plain.keyed());
    assert_ne!(keyed.hash(b"x"), plain.hash(b"x"));
    let mut out = Writer::default();
    codec::save(&keyed, &mut out);
    let back = codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION, NO_LIMIT).unwrap();
    assert_eq!(back, keyed);
    assert!((0..500).all(|i| back.contains(&item(i))));
    let header = codec::encode_header(&keyed.meta());
    assert_eq!(header.len(), old.len() + 16);
    let meta = codec::decode_header(&header, NO_LIMIT).unwrap();
    assert_eq!(meta.secret, Some(secret));
    let mut unknown = header.clone();
    unknown[5] = 2;
    assert!(codec::decode_header(&unknown, NO_LIMIT).is_err());
    assert!(matches!(
        keyed.export_guava(),
        Err(Error::VariantNotExportable("Guava"))
    ));
}
