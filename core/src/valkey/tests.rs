//! The sub-filter, the scaling object and both codecs against the `bloomfilter` crate 3.0.2
//! (the crate valkey-bloom 1.0 builds its filters with), on seeded random shapes and items.

use super::load_blob;
use super::object::{fp_rate_at, Shape, ValkeyBloom, CRATE_BLOOM_BYTES, FIXED_SEED};
use super::rdb;
use super::subfilter::{bitmap_bytes, SubFilter, HEADER_BYTES};
use crate::bloom::batch::PREFETCH_MIN_BYTES;
use crate::error::{Error, ValkeyError};
use crate::fields::{Reader, Writer};
use crate::testkit::Rng;
use bloomfilter::Bloom;

fn seed(rng: &mut Rng) -> [u8; 32] {
    rng.bytes(32).try_into().unwrap()
}

fn shape(rng: &mut Rng) -> (u64, f64) {
    let capacity = 1 + rng.below(5000);
    // Rates from 0.5 down to about 1e-12, and a few near the ends of (0, 1).
    let fp = match rng.below(10) {
        0 => 0.999,
        1 => 1e-300,
        _ => 0.5f64.powf(1.0 + rng.below(4000) as f64 / 100.0),
    };
    (capacity, fp)
}

fn items(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = rng.below(40) as usize;
            rng.bytes(len)
        })
        .collect()
}

#[test]
fn the_crates_bloom_struct_has_the_size_valkey_bloom_counts() {
    assert_eq!(size_of::<Bloom<[u8]>>() as u64, CRATE_BLOOM_BYTES);
}

#[test]
fn new_sub_filters_are_the_crates_byte_for_byte() {
    let mut rng = Rng::new(0x7a1e);
    for _ in 0..300 {
        let (capacity, fp) = shape(&mut rng);
        let s = seed(&mut rng);
        let ours = SubFilter::new(capacity, fp, &s).unwrap();
        let theirs = Bloom::<[u8]>::new_for_fp_rate_with_seed(capacity as usize, fp, &s).unwrap();
        assert_eq!(
            ours.as_bytes(),
            theirs.as_slice(),
            "capacity {capacity} fp {fp}"
        );
        assert_eq!(ours.k(), theirs.number_of_hash_functions());
        assert_eq!(ours.seed(), theirs.seed());
        assert_eq!(
            ours.bitmap_bytes() as usize,
            Bloom::<[u8]>::compute_bitmap_size(capacity as usize, fp)
        );
    }
}

#[test]
fn adds_set_the_crates_bits_and_checks_answer_as_the_crate() {
    let mut rng = Rng::new(0x5eed);
    for round in 0..60 {
        let (capacity, fp) = shape(&mut rng);
        let capacity = capacity.min(800);
        let s = if round % 5 == 0 {
            FIXED_SEED
        } else {
            seed(&mut rng)
        };
        let mut ours = SubFilter::new(capacity, fp, &s).unwrap();
        let mut theirs =
            Bloom::<[u8]>::new_for_fp_rate_with_seed(capacity as usize, fp, &s).unwrap();
        let added = items(&mut rng, capacity as usize);
        for item in &added {
            assert_eq!(ours.check(item), theirs.check(item));
            ours.set(item);
            theirs.set(item);
        }
        assert_eq!(ours.as_bytes(), theirs.as_slice());
        for item in items(&mut rng, 2000) {
            assert_eq!(ours.check(&item), theirs.check(&item));
        }
    }
}

#[test]
fn the_crates_bytes_decode_and_come_back_unchanged() {
    let mut rng = Rng::new(44);
    for _ in 0..50 {
        let (capacity, fp) = shape(&mut rng);
        let capacity = capacity.min(500);
        let mut theirs =
            Bloom::<[u8]>::new_for_fp_rate_with_seed(capacity as usize, fp, &seed(&mut rng))
                .unwrap();
        for item in items(&mut rng, capacity as usize / 2) {
            theirs.set(&item);
        }
        let ours = SubFilter::decode(theirs.as_slice(), 3, capacity as i64).unwrap();
        assert_eq!(ours.as_bytes(), theirs.as_slice());
        let back = Bloom::<[u8]>::from_slice(ours.as_bytes()).unwrap();
        for item in items(&mut rng, 500) {
            assert_eq!(ours.check(&item), back.check(&item));
        }
    }
}

/// valkey-bloom's rules written over the crate: the reference for the scaling object.
fn reference_add(filters: &mut Vec<(Bloom<[u8]>, i64, i64)>, item: &[u8], shape: &Shape) -> bool {
    if filters.iter().any(|f| f.0.check(item)) {
        return false;
    }
    let count = filters.len() as i32;
    let last = filters.last_mut().unwrap();
    if last.1 < last.2 {
        last.0.set(item);
        last.1 += 1;
        return true;
    }
    let rate = shape.fp_rate * shape.tightening.powi(count);
    let capacity = last.2 * shape.expansion as i64;
    let mut next =
        Bloom::<[u8]>::new_for_fp_rate_with_seed(capacity as usize, rate, &shape.seed).unwrap();
    next.set(item);
    filters.push((next, 1, capacity));
    true
}

fn random_shape(rng: &mut Rng) -> Shape {
    Shape {
        capacity: 1 + rng.below(60),
        fp_rate: [0.01, 0.1, 0.001, 0.5][rng.index(4)],
        tightening: [0.5, 0.9, 0.1][rng.index(3)],
        expansion: 1 + rng.below(4) as u32,
        seed: seed(rng),
        seed_random: true,
    }
}

#[test]
fn scaling_matches_valkey_blooms_rules_over_the_crate() {
    let mut rng = Rng::new(0xb10);
    for _ in 0..40 {
        let shape = random_shape(&mut rng);
        let mut ours = ValkeyBloom::create(shape, None).unwrap();
        let first = Bloom::<[u8]>::new_for_fp_rate_with_seed(
            shape.capacity as usize,
            shape.fp_rate,
            &shape.seed,
        )
        .unwrap();
        let mut theirs = vec![(first, 0i64, shape.capacity as i64)];
        for item in items(&mut rng, 400) {
            let expected = reference_add(&mut theirs, &item, &shape);
            assert_eq!(ours.add(&item, None).unwrap(), expected);
        }
        assert_eq!(ours.filters().len(), theirs.len());
        for (a, b) in ours.filters().iter().zip(&theirs) {
            assert_eq!(a.as_bytes(), b.0.as_slice());
            assert_eq!((a.num_items, a.capacity), (b.1, b.2));
        }
        for item in items(&mut rng, 500) {
            assert_eq!(ours.exists(&item), theirs.iter().any(|f| f.0.check(&item)));
        }
    }
}

#[test]
fn memory_usage_counts_as_valkey_bloom_does() {
    let shape = Shape {
        capacity: 100,
        fp_rate: 0.01,
        tightening: 0.5,
        expansion: 2,
        seed: FIXED_SEED,
        seed_random: false,
    };
    let mut b = ValkeyBloom::create(shape, None).unwrap();
    // 48 (object) + 1 slot * 8 + 208 (its filter structs) + 120 bytes of bits.
    assert_eq!(b.memory_usage(), 48 + 8 + 208 + 120);
    let mut i = 0u32;
    while b.filters().len() < 2 {
        b.add(&i.to_le_bytes(), None).unwrap();
        i += 1;
    }
    // The vector grew from 1 to 4 slots; the second filter holds 200 at 0.005.
    let bits = Bloom::<[u8]>::compute_bitmap_size(200, 0.005) as u64;
    assert_eq!(b.memory_usage(), 48 + 4 * 8 + 2 * 208 + 120 + bits);
}

#[test]
fn a_non_scaling_filter_refuses_past_its_capacity_and_limits_hold() {
    let mut rng = Rng::new(9);
    let mut shape = random_shape(&mut rng);
    shape.expansion = 0;
    shape.capacity = 5;
    let mut b = ValkeyBloom::create(shape, None).unwrap();
    let mut refused = None;
    for item in items(&mut rng, 100) {
        if let Err(e) = b.add(&item, None) {
            refused = Some(e);
            break;
        }
    }
    assert_eq!(refused, Some(Error::Valkey(ValkeyError::NonScalingFull)));
    assert_eq!(b.cardinality(), 5);
    shape.capacity = 1_000_000;
    assert_eq!(
        ValkeyBloom::create(shape, Some(1000)),
        Err(Error::Valkey(ValkeyError::ExceedsMemoryLimit))
    );
    assert!(fp_rate_at(0.01, 2000, 0.5).is_err());
}

fn filled(rng: &mut Rng) -> ValkeyBloom {
    let shape = random_shape(rng);
    let mut b = ValkeyBloom::create(shape, None).unwrap();
    for item in items(rng, 300) {
        b.add(&item, None).unwrap();
    }
    b
}

fn rdb_bytes(b: &ValkeyBloom) -> Vec<u8> {
    let mut w = Writer::default();
    rdb::save(b, &mut w);
    w.0
}

#[test]
fn rdb_values_round_trip_byte_for_byte() {
    let mut rng = Rng::new(1234);
    for _ in 0..20 {
        let b = filled(&mut rng);
        let bytes = rdb_bytes(&b);
        let back = rdb::load(&mut Reader(&bytes), None).unwrap();
        assert_eq!(rdb_bytes(&back), bytes);
        assert_eq!(back.cardinality(), b.cardinality());
        assert_eq!(back.capacity(), b.capacity());
        for item in items(&mut rng, 200) {
            assert_eq!(back.exists(&item), b.exists(&item));
        }
    }
}

#[test]
fn blobs_round_trip_and_carry_the_same_filter() {
    let mut rng = Rng::new(77);
    for _ in 0..20 {
        let b = filled(&mut rng);
        let blob = load_blob::encode(&b);
        let back = load_blob::decode(&blob, None).unwrap();
        assert_eq!(load_blob::encode(&back), blob);
        assert_eq!(rdb_bytes(&back), rdb_bytes(&b));
        // bincode ignores what follows the value.
        let mut longer = blob.clone();
        longer.extend_from_slice(b"tail");
        assert!(load_blob::decode(&longer, None).is_ok());
    }
}

#[test]
fn every_truncation_of_either_format_is_refused() {
    let mut rng = Rng::new(5);
    let b = filled(&mut rng);
    let bytes = rdb_bytes(&b);
    for cut in 0..bytes.len() {
        assert!(
            rdb::load(&mut Reader(&bytes[..cut]), None).is_err(),
            "cut {cut}"
        );
    }
    let blob = load_blob::encode(&b);
    for cut in 0..blob.len() {
        assert!(load_blob::decode(&blob[..cut], None).is_err(), "cut {cut}");
    }
}

/// The RDB value of one sub-filter whose crate bytes `patch` may change.
fn one_filter_value(patch: impl Fn(&mut Vec<u8>), capacity: u64, seed_random: u64) -> Vec<u8> {
    let f = SubFilter::new(100, 0.01, &FIXED_SEED).unwrap();
    let mut raw = f.as_bytes().to_vec();
    patch(&mut raw);
    let mut w = Writer::default();
    use crate::fields::FieldSink;
    w.put_u64(1);
    w.put_u64(2);
    w.put_f64(0.01);
    w.put_f64(0.5);
    w.put_u64(seed_random);
    w.put_bytes(&raw);
    w.put_u64(capacity);
    w.put_u64(0);
    w.0
}

#[test]
fn hostile_rdb_values_are_refused() {
    let load = |v: Vec<u8>, limit| rdb::load(&mut Reader(&v), limit).map(|_| ());
    assert!(load(one_filter_value(|_| {}, 100, 0), None).is_ok());
    // k of 0 and k huge.
    assert!(load(
        one_filter_value(|r| r[9..13].copy_from_slice(&0u32.to_le_bytes()), 100, 0),
        None
    )
    .is_err());
    assert!(load(
        one_filter_value(
            |r| r[9..13].copy_from_slice(&u32::MAX.to_le_bytes()),
            100,
            0
        ),
        None
    )
    .is_err());
    // A recorded length that disagrees with the bits, a wrong version, no bits at all.
    assert!(load(one_filter_value(|r| r[1] ^= 1, 100, 0), None).is_err());
    assert!(load(one_filter_value(|r| r[0] = 2, 100, 0), None).is_err());
    assert!(load(one_filter_value(|r| r.truncate(HEADER_BYTES), 100, 0), None).is_err());
    // Capacity 0; fixed-seed mode with another seed.
    assert!(load(one_filter_value(|_| {}, 0, 0), None).is_err());
    assert!(load(one_filter_value(|r| r[20] ^= 1, 100, 0), None).is_err());
    assert!(load(one_filter_value(|r| r[20] ^= 1, 100, 1), None).is_ok());
    // Over a client's limit, fine without one.
    assert!(load(one_filter_value(|_| {}, 100, 0), Some(300)).is_err());
    // No sub-filters; a count past what the input holds.
    let mut v = one_filter_value(|_| {}, 100, 0);
    v[..8].copy_from_slice(&0u64.to_le_bytes());
    assert!(load(v.clone(), None).is_err());
    v[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(load(v, None).is_err());
}

#[test]
fn hostile_blobs_are_refused_with_valkey_blooms_errors() {
    let mut rng = Rng::new(6);
    let b = filled(&mut rng);
    let blob = load_blob::encode(&b);
    let err = |v: &[u8]| load_blob::decode(v, None).err();
    assert_eq!(err(&[]), Some(ValkeyError::DecodeFailed.into()));
    let mut v = blob.clone();
    v[0] = 2;
    assert_eq!(err(&v), Some(ValkeyError::DecodeUnsupportedVersion.into()));
    let mut v = blob.clone();
    v[21] = 2; // the bool
    assert_eq!(err(&v), Some(ValkeyError::DecodeFailed.into()));
    let mut v = blob.clone();
    v[22..30].copy_from_slice(&u64::MAX.to_le_bytes()); // the sub-filter count
    assert_eq!(err(&v), Some(ValkeyError::DecodeFailed.into()));
    let mut v = blob.clone();
    v[5..13].copy_from_slice(&1.5f64.to_le_bytes()); // the error rate
    assert_eq!(err(&v), Some(ValkeyError::ErrorRateRange.into()));
    let mut v = blob.clone();
    v[13..21].copy_from_slice(&0f64.to_le_bytes()); // the tightening ratio
    assert_eq!(err(&v), Some(ValkeyError::ErrorRateRange.into()));
    let mut v = blob.clone();
    v[30 + 8 + 9] = 0; // the first sub-filter's k, low byte
    v[30 + 8 + 10] = 0;
    assert_eq!(err(&v), Some(ValkeyError::DecodeFailed.into()));
    assert_eq!(
        load_blob::decode(&blob, Some(100)).err(),
        Some(ValkeyError::ExceedsMemoryLimit.into())
    );
}

#[test]
fn random_mutations_never_panic() {
    let mut rng = Rng::new(0xf00d);
    let b = filled(&mut rng);
    let bytes = rdb_bytes(&b);
    let blob = load_blob::encode(&b);
    for _ in 0..3000 {
        let v = crate::testkit::mutate(&mut rng, &bytes, crate::testkit::Mutation::after(0));
        if let Ok(x) = rdb::load(&mut Reader(&v), Some(1 << 24)) {
            let _ = x.clone().add(b"x", Some(1 << 24));
        }
        let v = crate::testkit::mutate(&mut rng, &blob, crate::testkit::Mutation::after(1));
        if let Ok(mut x) = load_blob::decode(&v, Some(1 << 24)) {
            let _ = x.add(b"x", Some(1 << 24));
        }
    }
}

#[test]
fn the_fuzz_harness_survives_mutated_seeds_and_past_findings() {
    let mut rng = Rng::new(0xfa22);
    let b = filled(&mut rng);
    let mut rdb_input = vec![0u8];
    rdb_input.extend(rdb_bytes(&b));
    let mut blob_input = vec![1u8];
    blob_input.extend(load_blob::encode(&b));
    for base in [&rdb_input, &blob_input] {
        crate::testkit::survive(base, crate::testkit::valkey::value);
        for _ in 0..2000 {
            let v = crate::testkit::mutate(&mut rng, base, crate::testkit::Mutation::after(1));
            crate::testkit::survive(&v, crate::testkit::valkey::value);
        }
    }
    crate::testkit::replay_regressions(&[("valkey_value", crate::testkit::valkey::value)]);
}

/// A BF.LOAD blob of one sub-filter of `bits_bytes` bytes of bits (k 7, fixed seed) claiming
/// `capacity` and `num_items`, at error rate 0.01, tightening `tightening`, expansion 2.
fn one_filter_blob(bits_bytes: usize, capacity: i64, num_items: i64, tightening: f64) -> Vec<u8> {
    let mut raw = vec![1u8];
    raw.extend_from_slice(&(bits_bytes as u64).to_le_bytes());
    raw.extend_from_slice(&7u32.to_le_bytes());
    raw.extend_from_slice(&FIXED_SEED);
    raw.resize(HEADER_BYTES + bits_bytes, 0);
    let mut v = vec![1u8];
    v.extend_from_slice(&2u32.to_le_bytes());
    v.extend_from_slice(&0.01f64.to_le_bytes());
    v.extend_from_slice(&tightening.to_le_bytes());
    v.push(0);
    v.extend_from_slice(&1u64.to_le_bytes());
    v.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    v.extend_from_slice(&raw);
    v.extend_from_slice(&num_items.to_le_bytes());
    v.extend_from_slice(&capacity.to_le_bytes());
    v
}

#[test]
fn counts_and_capacities_no_filter_can_hold_are_refused_at_load() {
    // The fuzz finding: a 266-byte sub-filter claiming capacity 7.1e17 and 2.5e18 items at
    // tightening 1.4e-154, whose first add overflowed a size sum.
    let found = one_filter_blob(
        221,
        710_000_000_000_000_000,
        2_500_000_000_000_000_000,
        1.4e-154,
    );
    assert_eq!(
        load_blob::decode(&found, None).err(),
        Some(ValkeyError::DecodeFailed.into())
    );
    let mut input = vec![1u8];
    input.extend(&found);
    crate::testkit::survive(&input, crate::testkit::valkey::value);
    // 120 bytes of bits hold capacity 100 at 0.01 (bitmap_bytes gives 120): more items than
    // the capacity, or a capacity the bits cannot hold at the object's rate, is refused.
    assert!(load_blob::decode(&one_filter_blob(120, 100, 100, 0.5), None).is_ok());
    assert!(load_blob::decode(&one_filter_blob(120, 100, 101, 0.5), None).is_err());
    assert!(load_blob::decode(&one_filter_blob(120, 101, 0, 0.5), None).is_err());
    // The RDB value: the same rules.
    let load = |v: Vec<u8>| rdb::load(&mut Reader(&v), None).map(|_| ());
    assert!(load(one_filter_value(|_| {}, 100, 0)).is_ok());
    assert!(load(one_filter_value(|_| {}, 101, 0)).is_err());
    assert!(load(one_filter_value(|_| {}, 1 << 62, 0)).is_err());
}

#[test]
fn every_filter_valkey_bloom_makes_is_plausible() {
    let mut rng = Rng::new(0x91a);
    for _ in 0..30 {
        let b = filled(&mut rng);
        // (The vector capacity a blob gives is its own: only the sub-filters are compared.)
        let again = load_blob::decode(&load_blob::encode(&b), None).unwrap();
        assert_eq!(again.filters(), b.filters());
        let again = rdb::load(&mut Reader(&rdb_bytes(&b)), None).unwrap();
        assert_eq!(again.filters(), b.filters());
    }
}

/// Adds `added` to `one` one by one, and to a copy in batches of 100: the same answers and
/// the same filter after. The answers.
fn adds_in_batches_of_100_as_singles(one: &mut ValkeyBloom, added: &[Vec<u8>]) -> Vec<bool> {
    let mut batch = one.clone();
    let singles: Vec<bool> = added.iter().map(|i| one.add(i, None).unwrap()).collect();
    let mut batched = Vec::new();
    for chunk in added.chunks(100) {
        batch.add_batch(chunk, None, |r| batched.push(r.unwrap()));
    }
    assert_eq!(batched, singles);
    assert_eq!(&batch, one);
    singles
}

#[test]
fn batches_hash_once_and_answer_as_single_commands() {
    // A filter that has scaled five times (six sub-filters), and one past the prefetch
    // threshold (2 MiB of bits): batch adds leave the same bytes as one add after another,
    // batch lookups answer as one lookup after another.
    let mut rng = Rng::new(0x5ca1e);
    for capacity in [10u64, 3_000_000] {
        let shape = Shape {
            capacity,
            fp_rate: 0.01,
            tightening: 0.5,
            expansion: 2,
            seed: seed(&mut rng),
            seed_random: true,
        };
        let n = (capacity * 63) as usize;
        let added = items(&mut rng, n.min(700));
        let mut one = ValkeyBloom::create(shape, None).unwrap();
        adds_in_batches_of_100_as_singles(&mut one, &added);
        if capacity == 10 {
            assert_eq!(one.filters().len(), 6, "scaled five times");
        }
        let mut probe = items(&mut rng, 300);
        probe.extend(added.iter().take(300).cloned());
        let refs: Vec<&[u8]> = probe.iter().map(Vec::as_slice).collect();
        let expected: Vec<bool> = probe.iter().map(|i| one.exists(i)).collect();
        assert_eq!(one.exists_batch(&refs), expected);
        assert!(expected[300..].iter().all(|&x| x));
    }
}

#[test]
fn a_sub_filter_keyed_otherwise_is_still_found() {
    // Only loaded data can hold one: the object hashes the item again for it.
    let mut rng = Rng::new(0xa11);
    let mut b = filled(&mut rng);
    while b.filters().len() < 2 {
        b = filled(&mut rng);
    }
    let mut blob = load_blob::encode(&b);
    // The second sub-filter's seed: after the header (30 bytes), the first sub-filter (its
    // length, bytes, two counts) and the second's length and first 13 bytes.
    let first_len = b.filters()[0].as_bytes().len();
    let at = 30 + 8 + first_len + 16 + 8 + 13;
    blob[at] ^= 0xff;
    let mut other = load_blob::decode(&blob, None).unwrap();
    assert!(!other.filters()[1].same_keys(&other.filters()[0]));
    let fresh = items(&mut rng, 50);
    for item in &fresh {
        if other.add(item, None).unwrap() {
            assert!(other.exists(item));
        }
    }
    let refs: Vec<&[u8]> = fresh.iter().map(Vec::as_slice).collect();
    assert!(other.exists_batch(&refs).iter().all(|&x| x));
}

#[test]
fn batches_on_a_large_sub_filter_fill_it_scale_and_answer_as_single_adds() {
    // One sub-filter past the prefetch threshold, 40 items short of its capacity: a batch of
    // 100 fills it on the path that keeps bit positions, scales mid-batch and goes on in the
    // general path; with k 20 (above what that path keeps) every add takes the general one.
    // Either way, the bytes and answers of one add after another.
    let mut rng = Rng::new(0xf111);
    for (k, fp) in [(7u32, 0.01f64), (20, 0.000_001)] {
        let capacity = 2_000_000i64;
        let bits_bytes = bitmap_bytes(capacity as u64, fp) as usize;
        let mut blob = one_filter_blob(bits_bytes, capacity, capacity - 40, 0.5);
        // The sub-filter's k (after the object header, the count, the length, the version
        // and the bit array's length) and its error rate, as this k's filter records them.
        blob[1 + 4..1 + 12].copy_from_slice(&fp.to_le_bytes());
        let k_at = 1 + 4 + 8 + 8 + 1 + 8 + 8 + 1 + 8;
        blob[k_at..k_at + 4].copy_from_slice(&k.to_le_bytes());
        let mut one = load_blob::decode(&blob, None).unwrap();
        assert_eq!(one.filters()[0].k(), k);
        assert!(one.filters()[0].bitmap_bytes() >= PREFETCH_MIN_BYTES);
        let mut added = items(&mut rng, 300);
        added.push(added[10].clone());
        let singles = adds_in_batches_of_100_as_singles(&mut one, &added);
        assert!(!singles[300], "the repeated item is found");
        assert_eq!(one.filters().len(), 2, "scaled once");
        let refs: Vec<&[u8]> = added.iter().map(Vec::as_slice).collect();
        let found = one.exists_batch(&refs);
        assert!(found.iter().all(|&f| f));
    }
}
