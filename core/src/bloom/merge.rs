//! BF.MERGE's core: the union of Bloom filters of one shape.
//!
//! Two filters merge when everything but their item counts is equal: format and hashing,
//! error rate, expansion, shard place, and per layer bit size, k, capacity and error. The
//! union of two such filters is their bits ORed, layer by layer: an item either filter
//! answers present for, the union does too, and a query the union answers present for has
//! all its probes set in one layer, so its false-positive rate is that of the ORed bits.
//!
//! The union's true item count per layer is unknown (the parts may share items). It is
//! estimated from the bits set ([`merged_count`]), because the count drives growth (a full
//! last layer makes the next add grow the chain) and BF.CARD.

use std::iter::once;

use super::meta::ChainMeta;
use super::Chain;
use crate::error::{Error, Result};

/// A filter's shape: its persisted parameters with every layer's count zeroed. Compared as a
/// whole, not field by field, so a parameter `ChainMeta` gains later (a hashing key, a
/// layout) takes part in the comparison without a change here.
fn shape(chain: &Chain) -> ChainMeta {
    let mut meta = chain.meta();
    for layer in &mut meta.layers {
        layer.count = 0;
    }
    meta
}

/// Names the first parameter two unequal shapes differ in, for the refusal's text. Only
/// public parameters are named with their values; anything else (a parameter this function
/// does not know) is "their parameters", so a secret never reaches a reply.
fn difference(a: &ChainMeta, b: &ChainMeta) -> String {
    if a.scheme != b.scheme {
        return "format (RSbloom-- and MBbloom--)".to_string();
    }
    if a.shard != b.shard {
        return "shard place".to_string();
    }
    // Keyed or not, and which secret: named, never shown.
    match (&a.variant.secret, &b.variant.secret) {
        (Some(x), Some(y)) if x != y => return "secret (keyed with different secrets)".into(),
        (Some(_), None) | (None, Some(_)) => return "keying (KEYED and unkeyed)".into(),
        _ => {}
    }
    if a.variant.blocked != b.variant.blocked {
        return "layout (BLOCKED and classic)".to_string();
    }
    if a.error_rate != b.error_rate {
        return format!("error rate ({} and {})", a.error_rate, b.error_rate);
    }
    if (a.expansion, a.growth) != (b.expansion, b.growth) {
        return format!("expansion ({} and {})", a.expansion, b.expansion);
    }
    if a.layers.len() != b.layers.len() {
        return format!(
            "number of layers ({} and {})",
            a.layers.len(),
            b.layers.len()
        );
    }
    for (i, (x, y)) in a.layers.iter().zip(&b.layers).enumerate() {
        // What a user chose first (capacity, rate), then what follows from it.
        let field = if x.capacity != y.capacity {
            format!("capacity ({} and {})", x.capacity, y.capacity)
        } else if x.error != y.error {
            format!("error rate ({} and {})", x.error, y.error)
        } else if x.bit_size != y.bit_size {
            format!("bit size ({} and {})", x.bit_size, y.bit_size)
        } else if x.k != y.k {
            format!("number of hashes ({} and {})", x.k, y.k)
        } else if x.bpe != y.bpe {
            format!("bits per entry ({} and {})", x.bpe, y.bpe)
        } else {
            continue;
        };
        return format!("layer {i}'s {field}");
    }
    "their parameters".to_string()
}

/// Refuses, naming what differs, unless every filter of `others` has `first`'s shape.
pub fn check_shapes(first: &Chain, others: &[&Chain]) -> Result<()> {
    let want = shape(first);
    for other in others {
        let got = shape(other);
        if got != want {
            return Err(Error::MergeMismatch(difference(&want, &got)));
        }
    }
    Ok(())
}

/// The item count of a merged layer of `bits` bits and `k` probes per item, `ones` of the
/// bits set, whose parts counted `counts`, at most `capacity`.
///
/// The estimate from the bits set, `n = -(m / k) ln(1 - X / m)` (Swamidass and Baldi),
/// rounded, clamped between the largest part (the union holds at least its items) and the
/// sum of the parts (it holds at most theirs), and at most the capacity: a union of more
/// items than a layer was sized for is full, so the next add grows the chain (or a
/// non-scaling filter refuses new items), as it would have had they been added one by one.
/// All bits set (the estimate infinite) gives the upper bound.
pub fn merged_count(
    bits: u64,
    k: u32,
    ones: u64,
    counts: impl IntoIterator<Item = u64>,
    capacity: u64,
) -> u64 {
    let (largest, sum) = counts
        .into_iter()
        .fold((0u64, 0u64), |(l, s), c| (l.max(c), s.saturating_add(c)));
    let high = sum.min(capacity).max(largest);
    if bits == 0 || k == 0 {
        return high;
    }
    let fill = ones.min(bits) as f64 / bits as f64;
    let estimate = (-(bits as f64) / f64::from(k) * (-fill).ln_1p()).round();
    if estimate.is_nan() || estimate >= high as f64 {
        high
    } else if estimate <= largest as f64 {
        largest
    } else {
        estimate as u64
    }
}

/// ORs every source into `dest`, each layer's count set by [`merged_count`] over `dest`'s
/// and the sources' counts. Every shape is checked first: a refusal changes nothing, and
/// once writing starts nothing can fail. Linear in the bits: one pass per source, word by
/// word, and one to count the bits set.
pub fn merge_into(dest: &mut Chain, sources: &[&Chain]) -> Result<()> {
    check_shapes(dest, sources)?;
    for (i, layer) in dest.layers.iter_mut().enumerate() {
        let own = layer.count();
        for source in sources {
            layer.or_bits(&source.layers[i]);
        }
        let counts = once(own).chain(sources.iter().map(|s| s.layers[i].count()));
        let count = merged_count(
            layer.bit_size(),
            layer.k(),
            layer.ones(),
            counts,
            layer.capacity(),
        );
        layer.set_count(count);
    }
    Ok(())
}

/// A new filter, the union of `sources` (at least one) in the first one's shape: refused
/// before anything is allocated when the shapes differ or the filter would be over `limit`
/// (`bf.max-filter-bytes`); an allocation the allocator refuses is an error too.
pub fn union(sources: &[&Chain], limit: u64) -> Result<Chain> {
    let (first, rest) = sources.split_first().ok_or(Error::Internal)?;
    check_shapes(first, rest)?;
    let mut dest = Chain::from_meta(&shape(first), limit)?;
    merge_into(&mut dest, sources)?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::Scheme;
    use crate::shard::ShardPlace;
    use crate::testkit::Rng;

    const NO_LIMIT: u64 = u64::MAX;

    fn item(rng: &mut Rng) -> Vec<u8> {
        rng.next_u64().to_le_bytes().to_vec()
    }

    fn filled(scheme: Scheme, expansion: u32, items: &[Vec<u8>]) -> Chain {
        let mut c = Chain::create(scheme, 0.01, 500, expansion, NO_LIMIT).unwrap();
        for i in items {
            c.add(i, NO_LIMIT).unwrap();
        }
        c
    }

    #[test]
    fn a_non_scaling_union_has_exactly_the_bits_of_all_items_added() {
        let mut rng = Rng::new(40);
        for scheme in [Scheme::Guava, Scheme::RedisBloom] {
            let a_items: Vec<_> = (0..200).map(|_| item(&mut rng)).collect();
            let b_items: Vec<_> = (0..250).map(|_| item(&mut rng)).collect();
            let a = filled(scheme, 0, &a_items);
            let b = filled(scheme, 0, &b_items);
            let all: Vec<_> = a_items.iter().chain(&b_items).cloned().collect();
            let direct = filled(scheme, 0, &all);
            let merged = union(&[&a, &b], NO_LIMIT).unwrap();
            assert_eq!(merged.layers()[0].words(), direct.layers()[0].words());
            assert!(all.iter().all(|i| merged.contains(i)));
            // Disjoint random items: the estimate is within a few percent of 450.
            let n = merged.count();
            assert!((430..=450).contains(&n), "count {n}");
            // Merging into an existing copy of `a` gives the same filter.
            let mut into = a.clone();
            merge_into(&mut into, &[&b]).unwrap();
            assert_eq!(into, merged);
        }
    }

    #[test]
    fn a_scaling_union_finds_every_item_at_the_rate_its_bits_predict() {
        let mut rng = Rng::new(41);
        // Both grow to four layers (500 + 1000 + 2000 + 4000).
        let a_items: Vec<_> = (0..4000).map(|_| item(&mut rng)).collect();
        let b_items: Vec<_> = (0..3700).map(|_| item(&mut rng)).collect();
        let a = filled(Scheme::Guava, 2, &a_items);
        let b = filled(Scheme::Guava, 2, &b_items);
        assert_eq!((a.layers().len(), b.layers().len()), (4, 4));
        let merged = union(&[&a, &b], NO_LIMIT).unwrap();
        assert!(a_items.iter().chain(&b_items).all(|i| merged.contains(i)));
        for (i, l) in merged.layers().iter().enumerate() {
            let or: Vec<u64> = a.layers()[i]
                .words()
                .iter()
                .zip(b.layers()[i].words())
                .map(|(x, y)| x | y)
                .collect();
            assert_eq!(l.words(), &or[..], "layer {i}");
        }
        // A layer's false-positive rate is its fill to the k-th power; the chain's at most
        // their sum.
        let predicted: f64 = merged
            .layers()
            .iter()
            .map(|l| (l.ones() as f64 / l.bit_size() as f64).powi(l.k() as i32))
            .sum();
        let queries = 200_000;
        let positives = (0..queries)
            .filter(|_| merged.contains(&item(&mut rng)))
            .count();
        let rate = positives as f64 / queries as f64;
        assert!(
            rate <= predicted * 1.15 + 0.0005,
            "rate {rate}, predicted {predicted}"
        );
        // Full older layers stay full; the count never exceeds a layer's capacity.
        for l in merged.layers() {
            assert!(l.count() <= l.capacity());
        }
        assert!(merged.layers()[..3].iter().all(|l| l.is_full()));
    }

    #[test]
    fn the_count_estimate_is_clamped_between_the_largest_part_and_the_sum() {
        let (m, k) = (9600u64, 7u32);
        // 1000 items in 9600 bits at k = 7 set about 9600 (1 - e^(-7000/9600)) ~ 4962.
        let ones = 4962;
        let n = merged_count(m, k, ones, [600, 600], 5000);
        assert!((990..=1010).contains(&n), "{n}");
        // Identical parts: the bits say 1000, the sum 2000; the estimate wins.
        assert!((990..=1010).contains(&merged_count(m, k, ones, [1000, 1000], 5000)));
        // The estimate below the largest part: the part.
        assert_eq!(merged_count(m, k, 10, [1000, 3], 5000), 1000);
        // Above the sum: the sum. Above the capacity: the capacity.
        assert_eq!(merged_count(m, k, ones, [300, 300], 5000), 600);
        assert_eq!(merged_count(m, k, ones, [600, 600], 800), 800);
        // Every bit set: the upper bound. Nothing set: the largest part (0).
        assert_eq!(merged_count(m, k, m, [700, 600], 1000), 1000);
        assert_eq!(merged_count(m, k, 0, [0, 0], 1000), 0);
        // A loaded count above the capacity is never lowered below itself.
        assert_eq!(merged_count(m, k, m, [2000], 1000), 2000);
    }

    #[test]
    fn every_shape_difference_is_refused_by_name_and_changes_nothing() {
        let mut rng = Rng::new(42);
        let items: Vec<_> = (0..900).map(|_| item(&mut rng)).collect();
        let base = filled(Scheme::Guava, 2, &items);
        assert_eq!(base.layers().len(), 2);
        let meta = base.meta();
        let place = ShardPlace::new(b"f", 0, 2).unwrap();
        type Mutation = Box<dyn Fn(&mut ChainMeta)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("error rate", Box::new(|m| m.error_rate = 0.02)),
            ("expansion", Box::new(|m| m.expansion = 4)),
            ("number of layers", Box::new(|m| m.layers.truncate(1))),
            (
                "layer 1's bit size",
                Box::new(|m| m.layers[1].bit_size += 64),
            ),
            (
                "layer 0's number of hashes",
                Box::new(|m| m.layers[0].k += 1),
            ),
            (
                "layer 1's capacity",
                Box::new(|m| m.layers[1].capacity += 1),
            ),
            (
                "layer 0's error rate",
                Box::new(|m| m.layers[0].error = 0.004),
            ),
            (
                "format",
                Box::new(|m| {
                    m.scheme = Scheme::RedisBloom;
                    m.growth = m.expansion;
                    for l in &mut m.layers {
                        l.bpe = 9.5;
                    }
                }),
            ),
            (
                "shard place",
                Box::new(move |m| m.shard = Some(Box::new(place.clone()))),
            ),
        ];
        for (name, mutate) in &cases {
            let mut m = meta.clone();
            mutate(&mut m);
            let other = Chain::from_meta(&m, NO_LIMIT).unwrap();
            let mut dest = base.clone();
            let err = merge_into(&mut dest, &[&other]).unwrap_err();
            let Error::MergeMismatch(what) = &err else {
                panic!("{name}: {err:?}")
            };
            assert!(what.starts_with(name), "{name}: {what}");
            assert_eq!(dest, base, "{name}: changed");
            // Either order, and as a source of a new filter.
            assert!(matches!(
                union(&[&base, &other], NO_LIMIT),
                Err(Error::MergeMismatch(_))
            ));
            assert!(matches!(
                union(&[&other, &base], NO_LIMIT),
                Err(Error::MergeMismatch(_))
            ));
        }
        // Counts alone do not make a difference.
        let mut fewer = meta.clone();
        fewer.layers[1].count = 1;
        let other = Chain::from_meta(&fewer, NO_LIMIT).unwrap();
        assert!(check_shapes(&base, &[&other]).is_ok());
        // A refusal after the first matching source changes nothing either.
        let mut m = meta.clone();
        m.layers[0].k += 1;
        let bad = Chain::from_meta(&m, NO_LIMIT).unwrap();
        let twin = filled(Scheme::Guava, 2, &items[..600]);
        let mut dest = base.clone();
        assert!(merge_into(&mut dest, &[&twin, &bad]).is_err());
        assert_eq!(dest, base);
    }

    #[test]
    fn keying_secrets_and_layouts_are_refused_by_name_without_the_secret() {
        use crate::bloom::keyed::Secret;
        use crate::bloom::meta::Variant;
        let make = |secret: Option<Secret>, blocked: bool| {
            let variant = Variant { secret, blocked };
            let mut c =
                Chain::create_variant(Scheme::Guava, variant, 0.01, 1000, 2, NO_LIMIT).unwrap();
            c.add(b"x", NO_LIMIT).unwrap();
            c
        };
        let (s1, s2) = (Secret::from_words([1, 2]), Secret::from_words([3, 4]));
        let cases = [
            (make(Some(s1), false), make(Some(s2), false), "secret"),
            (make(Some(s1), false), make(None, false), "keying"),
            (make(None, false), make(Some(s1), false), "keying"),
            (make(None, true), make(None, false), "layout"),
            (make(Some(s1), true), make(Some(s1), false), "layout"),
        ];
        for (a, b, name) in cases {
            let mut dest = a.clone();
            let err = merge_into(&mut dest, &[&b]).unwrap_err();
            let Error::MergeMismatch(what) = &err else {
                panic!("{name}: {err:?}")
            };
            assert!(what.starts_with(name), "{name}: {what}");
            assert_eq!(dest, a, "{name}: changed");
        }
        // The same secret and layout merge (a COPY of a keyed blocked filter, say).
        let (a, b) = (make(Some(s1), true), make(Some(s1), true));
        let mut dest = a.clone();
        merge_into(&mut dest, &[&b]).unwrap();
        assert!(dest.contains(b"x"));
    }

    #[test]
    fn a_new_union_over_the_limit_is_refused_before_allocating() {
        let a = Chain::new(0.01, 100_000, 0, NO_LIMIT).unwrap();
        let limit = a.memory_bytes() - 1;
        assert!(matches!(
            union(&[&a, &a], limit),
            Err(Error::TooLarge { limit: l, .. }) if l == limit
        ));
        assert!(union(&[&a], a.memory_bytes()).is_ok());
    }
}
