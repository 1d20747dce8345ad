//! Unit tests and property tests of the t-digest and its codec.

use super::codec;
use super::*;
use crate::fields::Reader;
use crate::testkit::tdigest::{encode_value, value, LIMIT};
use crate::testkit::{mutate, survive, Mutation, Rng};

fn digest(compression: i64, values: &[f64]) -> TDigest {
    let mut d = TDigest::new(compression, LIMIT).unwrap();
    d.add_values(values).unwrap();
    d
}

fn load(bytes: &[u8]) -> Result<TDigest> {
    let mut r = Reader(bytes);
    let d = codec::load(&mut r, 0, LIMIT)?;
    if !r.rest().is_empty() {
        return Err(crate::error::bad_data("trailing bytes"));
    }
    Ok(d)
}

#[test]
fn capacity_and_limits() {
    assert_eq!(capacity(100, LIMIT).unwrap(), 610);
    // RedisBloom 8.8's TDIGEST.INFO at compression 100 (8.2.3 and 2.8.2: 9768).
    assert_eq!(memory_usage(610), 9840);
    assert_eq!(capacity(1, LIMIT).unwrap(), 16);
    assert_eq!(capacity(i64::MAX, u64::MAX), Err(Error::TdAllocFailed));
    assert_eq!(capacity(1_000_000_000, u64::MAX), Err(Error::TdAllocFailed));
    assert!(matches!(
        capacity(100_000_000, LIMIT),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn empty_and_single() {
    let mut d = digest(50, &[]);
    assert!(d.min().is_nan() && d.quantile(0.5).is_nan() && d.cdf(1.0).is_nan());
    assert_eq!(d.rank(1.0, false), -2);
    let mut d = digest(50, &[42.5]);
    assert_eq!(d.min(), 42.5);
    assert!(d.quantiles(&[0.5])[0].is_nan());
    assert_eq!(d.rank(42.5, false), 0);
    assert_eq!(d.rank(42.5, true), 0);
    assert_eq!(d.rank(40.0, false), -1);
    assert_eq!(d.rank(50.0, false), 1);
    assert_eq!(d.by_rank(0, false), 42.5);
    assert_eq!(d.by_rank(1, false), f64::INFINITY);
}

#[test]
fn single_value_survives_the_codec_and_reads_redisbloom_form() {
    let d = digest(50, &[42.5]);
    let bytes = encode_value(&d);
    // Ours: one merged node of weight 1 that RedisBloom reads with its value.
    assert_eq!(&bytes[32..40], &1u64.to_le_bytes());
    assert_eq!(&bytes[40..48], &0u64.to_le_bytes());
    let back = load(&bytes).unwrap();
    assert_eq!(back, d);
    // RedisBloom's lossy form: unmerged_nodes 1, no node; min = max = the value.
    let mut rb = bytes[..56].to_vec();
    rb[32..40].copy_from_slice(&0u64.to_le_bytes());
    rb[40..48].copy_from_slice(&1u64.to_le_bytes());
    rb.extend_from_slice(&0f64.to_le_bytes());
    rb.extend_from_slice(&1f64.to_le_bytes());
    let back = load(&rb).unwrap();
    assert_eq!(back.single_value(), Some(42.5));
    assert_eq!(back, d);
}

#[test]
fn round_trips() {
    let mut rng = Rng::new(3);
    for c in [1, 10, 100, 500] {
        for n in [0usize, 1, 2, 5, 100, 3000] {
            let values: Vec<f64> = (0..n).map(|_| rng.below(100000) as f64 / 7.0).collect();
            let mut d = digest(c, &values);
            d.compress();
            let bytes = encode_value(&d);
            let back = load(&bytes).unwrap();
            assert_eq!(back, d, "compression {c}, {n} values");
            value(&bytes);
        }
    }
}

#[test]
fn hostile_fields_are_refused() {
    let base = encode_value(&{
        let mut d = digest(1, &(0..40).map(f64::from).collect::<Vec<_>>());
        d.compress();
        d
    });
    assert!(load(&base).is_ok());
    let set = |at: usize, v: u64| {
        let mut b = base.clone();
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        load(&b)
    };
    for bad in [-1.0f64, 0.0, f64::NAN, f64::INFINITY, 1.5, 1e15] {
        assert!(set(0, bad.to_bits()).is_err(), "compression {bad}");
    }
    assert!(set(24, 20_000).is_err(), "capacity over the nodes");
    assert!(set(40, 1_000_000).is_err(), "a million unmerged nodes");
    assert!(set(32, 17).is_err(), "merged nodes over the capacity");
    for cut in 0..base.len() {
        assert!(load(&base[..cut]).is_err());
    }
}

#[test]
fn mutated_values_never_panic() {
    let mut rng = Rng::new(23);
    let bases: Vec<Vec<u8>> = [
        digest(1, &(0..40).map(f64::from).collect::<Vec<_>>()),
        digest(20, &[1.0]),
        digest(100, &[]),
        digest(5, &(0..200).map(|i| (i % 7) as f64).collect::<Vec<_>>()),
    ]
    .iter()
    .map(encode_value)
    .collect();
    let words: Vec<u64> = [
        0.0f64,
        1.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        1e15,
        16.0,
        f64::MAX,
    ]
    .iter()
    .map(|v| v.to_bits())
    .chain([0, 1, 16, 20_000, 1_000_000, u64::MAX])
    .collect();
    let mut accepted = 0;
    for i in 0..20_000 {
        let base = &bases[i % bases.len()];
        let input = mutate(
            &mut rng,
            base,
            Mutation {
                keep: 0,
                words: &words,
                word_span: base.len(),
            },
        );
        if load(&input).is_ok() {
            accepted += 1;
        }
        survive(&input, value);
    }
    assert!(accepted > 100, "only {accepted} mutants accepted");
}

#[test]
fn merge_overflow_is_an_error() {
    let mut d = digest(10, &[1.0, 2.0, 3.0]);
    for _ in 0..70 {
        let mut a = d.clone();
        let mut b = d.clone();
        let mut to = TDigest::new(10, LIMIT).unwrap();
        let r = to.merge_from(&mut a).and_then(|_| to.merge_from(&mut b));
        if r.is_err() {
            assert_eq!(r, Err(Error::TdOverflow));
            return;
        }
        d = to;
    }
    panic!("weights never overflowed");
}

#[test]
fn fuzz_regressions_replay() {
    let seen = crate::testkit::replay_regressions(&[("tdigest_value", value)]);
    assert!(seen < 100_000);
}

#[test]
fn weights_near_the_limit_end_in_an_overflow_error() {
    // t-digest-c's total weight is a double: near 2^63 a compression rounds the added
    // observations away, and values above the huge centroid never merge (q(1 - q) is 0
    // there), so the buffer fills up and adding fails, as in RedisBloom.
    let mut d = TDigest::new(10, LIMIT).unwrap();
    d.add(5.0, i64::MAX - 1023).unwrap();
    d.compress();
    let mut result = Ok(());
    for i in 0..10_000 {
        result = d.add(10.0 + i as f64, 1);
        if result.is_err() {
            break;
        }
    }
    assert_eq!(result, Err(Error::TdOverflow));
    assert!(d.quantile(0.5).is_finite());
}

/// The fields of a RedisBloom t-digest value (merged nodes written, unmerged only counted).
#[allow(clippy::too_many_arguments)]
fn redisbloom_fields(
    compression: f64,
    (min, max): (f64, f64),
    merged: &[(f64, f64)],
    unmerged: u64,
    total_compressions: u64,
    (mw, uw): (f64, f64),
) -> Vec<u8> {
    let mut w = crate::fields::Writer::default();
    use crate::fields::FieldSink;
    w.put_f64(compression);
    w.put_f64(min);
    w.put_f64(max);
    w.put_u64(6 * compression as u64 + 10);
    w.put_u64(merged.len() as u64);
    w.put_u64(unmerged);
    w.put_u64(total_compressions);
    w.put_f64(mw);
    w.put_f64(uw);
    merged.iter().for_each(|n| w.put_f64(n.0));
    merged.iter().for_each(|n| w.put_f64(n.1));
    w.0
}

/// RedisBloom 2.8.2's digest after RESTORE of its own one-observation save (of 5) and
/// `TDIGEST.ADD k 8.5 9.5`: its zeroed node (mean 0, weight 0) kept, the merged weight 3.
/// It loads, answers as RedisBloom answered (recorded from the live server), and writes
/// back the same bytes.
#[test]
fn redisbloom_ghost_node_state_loads_and_answers_as_redisbloom() {
    let bytes = redisbloom_fields(
        100.0,
        (5.0, 9.5),
        &[(0.0, 0.0), (8.5, 1.0), (9.5, 1.0)],
        0,
        1,
        (3.0, 0.0),
    );
    let mut d = load(&bytes).unwrap();
    assert_eq!(encode_value(&d), bytes);
    assert_eq!(
        (d.info().merged_nodes, d.info().merged_weight, d.size()),
        (3, 3, 3)
    );
    assert_eq!(
        d.quantiles(&[0.0, 0.2, 0.5, 0.9, 1.0]),
        [8.5, 8.5, 9.5, 9.5, 9.5]
    );
    let cdfs: Vec<f64> = [0.0, 5.0, 8.5, 9.0, 9.5, 10.0]
        .iter()
        .map(|&v| d.cdf(v))
        .collect();
    assert_eq!(cdfs, [0.0, 0.0, 1.0 / 6.0, 1.0 / 3.0, 5.0 / 6.0, 1.0]);
    let ranks: Vec<i64> = [0.0, 5.0, 8.5, 9.0, 9.5]
        .iter()
        .map(|&v| d.rank(v, false))
        .collect();
    assert_eq!(ranks, [-1, 0, 0, 1, 2]);
    assert_eq!(encode_value(&d), bytes, "queries changed nothing");
}

/// `TDIGEST.MERGE m 2 g1 g2` of two such restored digests: two weight-0 nodes, a total
/// weight of 0, so RedisBloom never compresses and writes them as unmerged; then
/// `TDIGEST.ADD m 1 2 3` merges the two into a node of mean 0/0, a NaN (x86's, sign set).
#[test]
fn redisbloom_unmerged_zero_weight_and_nan_mean_states_load() {
    let bytes = redisbloom_fields(100.0, (0.0, 0.0), &[], 2, 0, (0.0, 0.0));
    let mut d = load(&bytes).unwrap();
    assert_eq!(encode_value(&d), bytes);
    assert_eq!((d.info().unmerged_nodes, d.size()), (2, 0));
    assert!(d.quantile(0.5).is_nan());
    assert_eq!(d.rank(0.0, false), -2);
    d.add_values(&[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(d.quantiles(&[0.0, 0.5, 1.0]), [1.0, 2.0, 3.0]);
    let nan = f64::from_bits(0xfff8_0000_0000_0000);
    let after = redisbloom_fields(
        100.0,
        (0.0, 3.0),
        &[(nan, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 1.0)],
        0,
        1,
        (3.0, 0.0),
    );
    assert_eq!(
        encode_value(&d),
        after,
        "RedisBloom 2.8.2's DUMP after the ADD"
    );
    let mut back = load(&after).unwrap();
    assert_eq!(encode_value(&back), after);
    assert_eq!(back.quantiles(&[0.0, 0.5, 1.0]), [1.0, 2.0, 3.0]);
    crate::testkit::tdigest::exercise(&mut back);
}

/// What RedisBloom's writers cannot produce stays refused: a merged weight two over the
/// nodes' sum or under it, unmerged nodes after merged ones, or with a weight over 1.
#[test]
fn unreachable_weight_states_stay_refused() {
    let nodes = [(0.0, 0.0), (8.5, 1.0), (9.5, 1.0)];
    for mw in [1.0, 4.0] {
        let bytes = redisbloom_fields(100.0, (5.0, 9.5), &nodes, 0, 1, (mw, 0.0));
        assert!(load(&bytes).is_err(), "merged weight {mw}");
    }
    let bytes = redisbloom_fields(100.0, (5.0, 9.5), &nodes, 1, 1, (3.0, 1.0));
    assert!(load(&bytes).is_err());
    let bytes = redisbloom_fields(100.0, (0.0, 1.0), &[], 3, 0, (0.0, 2.0));
    assert!(load(&bytes).is_err());
    let bytes = redisbloom_fields(1.0, (0.0, 1.0), &[], 17, 0, (0.0, 0.0));
    assert!(load(&bytes).is_err(), "unmerged nodes over the capacity");
}

/// The t-digest-c merge of values near ±f64::MAX overflows a mean to infinity; the digest
/// saves and loads again.
#[test]
fn overflowed_means_survive_the_codec() {
    let mut d = digest(1, &[]);
    for i in 0..200 {
        let v = if i % 2 == 0 { f64::MAX } else { -f64::MAX };
        d.add_values(&[v]).unwrap();
    }
    d.compress();
    assert!(
        d.merged_nodes().iter().any(|n| !n.mean.is_finite()),
        "{:?}",
        d.merged_nodes()
    );
    let bytes = encode_value(&d);
    let mut back = load(&bytes).unwrap();
    assert_eq!(encode_value(&back), bytes);
    crate::testkit::tdigest::exercise(&mut back);
}

/// t-digest-c's walk of QUANTILE in doubles, step by step (the form `value_at_index` had
/// before its integer skip): the reference the fast walk must match bit for bit.
fn reference_quantiles(d: &mut TDigest, qs: &[f64]) -> Vec<f64> {
    d.compress();
    let nodes = d.merged_nodes().to_vec();
    let n = nodes.len();
    let mw = d.merged_weight;
    let (min, max) = (d.min, d.max);
    let mut out = Vec::new();
    let mut start = 0;
    while start < qs.len() {
        let mut end = start;
        while end + 1 < qs.len() && qs[end] <= qs[end + 1] {
            end += 1;
        }
        let left = if n > 0 { nodes[0].weight as f64 } else { 0.0 };
        let mut so_far = left / 2.0;
        let mut pos = 0;
        for &q in &qs[start..=end] {
            let index = q * mw as f64;
            out.push(match n {
                0 => f64::NAN,
                1 => nodes[0].mean,
                _ if left > 1.0 && index < left / 2.0 => {
                    min + (index - 1.0) / (left / 2.0 - 1.0) * (nodes[0].mean - min)
                }
                _ if index > mw.wrapping_sub(1) as f64 => max,
                _ => 'walk: {
                    let rw = nodes[n - 1].weight as f64;
                    let rm = nodes[n - 1].mean;
                    if rw > 1.0 && mw as f64 - index <= rw / 2.0 {
                        break 'walk max
                            - (mw as f64 - index - 1.0) / (rw / 2.0 - 1.0) * (max - rm);
                    }
                    while pos + 1 < n {
                        let (w, wn) = (nodes[pos].weight as f64, nodes[pos + 1].weight as f64);
                        let (m, mn) = (nodes[pos].mean, nodes[pos + 1].mean);
                        let dw = (w + wn) / 2.0;
                        if so_far + dw > index {
                            let mut lu = 0.0;
                            if w == 1.0 {
                                if index - so_far < 0.5 {
                                    break 'walk m;
                                }
                                lu = 0.5;
                            }
                            let mut ru = 0.0;
                            if wn == 1.0 {
                                if so_far + dw - index <= 0.5 {
                                    break 'walk mn;
                                }
                                ru = 0.5;
                            }
                            let z1 = index - so_far - lu;
                            let z2 = so_far + dw - index - ru;
                            break 'walk weighted_average(m, z2, mn, z1);
                        }
                        so_far += dw;
                        pos += 1;
                    }
                    let z1 = index - mw as f64 - rw / 2.0;
                    let z2 = rw / 2.0 - z1;
                    weighted_average(rm, z1, max, z2)
                }
            });
        }
        start = end + 1;
    }
    out
}

/// t-digest-c's CDF walk between the end centroids, in its own order of tests (the form
/// `cdf` had before its loop was tightened).
fn reference_cdf_walk(nodes: &[Centroid], val: f64, mw: f64) -> f64 {
    let n = nodes.len();
    let mut so_far = 0.0;
    let mut it = 0;
    while it + 1 < n {
        let m = nodes[it].mean;
        if m == val {
            let mut dw = 0.0;
            while it < n && nodes[it].mean == val {
                dw += nodes[it].weight as f64;
                it += 1;
            }
            return (so_far + dw / 2.0) / mw;
        }
        let mn = nodes[it + 1].mean;
        if m <= val && val < mn {
            let (w, wn) = (nodes[it].weight as f64, nodes[it + 1].weight as f64);
            if mn - m > 0.0 {
                let (mut le, mut re) = (0.0, 0.0);
                if w == 1.0 {
                    if wn == 1.0 {
                        return (so_far + 1.0) / mw;
                    }
                    le = 0.5;
                } else if wn == 1.0 {
                    re = 0.5;
                }
                let dw = (w + wn) / 2.0;
                return (so_far + w / 2.0 + le + (dw - le - re) * (val - m) / (mn - m)) / mw;
            }
            return (so_far + (w + wn) / 2.0) / mw;
        }
        so_far += nodes[it].weight as f64;
        it += 1;
    }
    1.0 - 0.5 / mw
}

/// Digests of many shapes: few and many values, weights of 1, larger ones, ones past 2^52
/// (where the quantile walk stays in doubles), repeated values, and some left pending.
fn shaped_digests(rng: &mut Rng) -> Vec<TDigest> {
    let mut out = Vec::new();
    for round in 0..60 {
        let compression = [1, 2, 5, 20, 100, 300][round % 6];
        let mut d = TDigest::new(compression, LIMIT).unwrap();
        let count = 2 + rng.index([3, 30, 700, 5000][round % 4]);
        let distinct = 1 + rng.below(if round % 5 == 0 { 8 } else { 1 << 40 });
        for _ in 0..count {
            let v = (rng.below(distinct) as f64 - (distinct / 3) as f64) * 0.37;
            let w = match round % 3 {
                0 => 1,
                1 => 1 + rng.below(1000) as i64,
                _ => 1 + rng.below(1 << 50) as i64,
            };
            if d.add(v, w).is_err() {
                break;
            }
        }
        if round % 2 == 0 {
            d.compress();
        }
        out.push(d);
    }
    out
}

/// Quantiles that land on the walk's brackets: half-integer indexes near each centroid's
/// edges, the ends, and random ones, in runs that go up and down.
fn probing_quantiles(d: &mut TDigest, rng: &mut Rng) -> Vec<f64> {
    d.compress();
    let mw = d.merged_weight as f64;
    let mut qs = vec![0.0, 1.0, 0.5, 1e-9, 1.0 - 1e-9];
    let mut through = 0.0;
    for c in d.merged_nodes() {
        for x in [
            through,
            through + c.weight as f64 / 2.0,
            through + c.weight as f64,
        ] {
            for delta in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                let q = (x + delta) / mw;
                if (0.0..=1.0).contains(&q) {
                    qs.push(q);
                }
            }
        }
        through += c.weight as f64;
    }
    for _ in 0..40 {
        qs.push(rng.below(1 << 53) as f64 / (1u64 << 53) as f64);
    }
    // Shuffled into runs of a few ascending quantiles each.
    let mut out = Vec::new();
    while !qs.is_empty() {
        let take = (1 + rng.index(4)).min(qs.len());
        let mut run: Vec<f64> = (0..take)
            .map(|_| qs.swap_remove(rng.index(qs.len())))
            .collect();
        run.sort_by(f64::total_cmp);
        out.extend(run);
    }
    out
}

#[test]
fn quantile_walk_matches_the_step_by_step_walk() {
    let mut rng = Rng::new(31);
    for mut d in shaped_digests(&mut rng) {
        let qs = probing_quantiles(&mut d, &mut rng);
        let mut pending = d.clone();
        let want = reference_quantiles(&mut d, &qs);
        let got = pending.quantiles(&qs);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "digest {:?}", d.info());
        for (&q, &w) in qs.iter().zip(&want) {
            assert_eq!(
                d.quantile(q).to_bits(),
                if q * d.merged_weight as f64 >= 1.0 {
                    w.to_bits()
                } else {
                    d.min.to_bits()
                }
            );
        }
    }
}

#[test]
fn cdf_walk_matches_the_step_by_step_walk() {
    let mut rng = Rng::new(32);
    for mut d in shaped_digests(&mut rng) {
        let mut pending = d.clone();
        d.compress();
        let nodes = d.merged_nodes().to_vec();
        if nodes.len() < 2 {
            continue;
        }
        let mw = d.merged_weight as f64;
        let mut vals = vec![d.min, d.max];
        for pair in nodes.windows(2) {
            let (a, b) = (pair[0].mean, pair[1].mean);
            vals.extend([
                a,
                b,
                (a + b) / 2.0,
                a + (b - a) * 0.01,
                f64::from_bits(b.to_bits() - 1),
            ]);
        }
        for &v in &vals {
            let inside = v >= nodes[0].mean && v <= nodes[nodes.len() - 1].mean;
            if inside && v >= d.min && v <= d.max {
                let want = reference_cdf_walk(&nodes, v, mw);
                assert_eq!(
                    d.cdf(v).to_bits(),
                    want.to_bits(),
                    "cdf({v}) of {:?}",
                    d.info()
                );
            }
            // A digest with values pending answers as the same digest compressed.
            assert_eq!(pending.cdf(v).to_bits(), d.cdf(v).to_bits());
        }
    }
}
