//! The blocked layout (`BLOCKED`): all k probes of an item fall in one 512-bit block (eight
//! words, one cache line when the array is line-aligned), so an add or a positive lookup
//! costs one memory miss instead of k.
//!
//! The block is `h1`'s multiply-high reduction to the block count (no division). The k bit
//! positions inside it are 9-bit fields of `h2`, seven per word; when they run out the next
//! word is `fmix64` of `h2` plus a multiple of the golden ratio, so each field is a fresh,
//! independent draw (probes are taken with replacement, as the sizing assumes).
//!
//! The bit arithmetic itself (which block, which bits) is in [`block`](super::block), the
//! leaf both this sizing and the layer use.
//!
//! Blocks are whole 8-word units of the layer's word vector: the layer's word count is a
//! multiple of 8 and block `b` is words `8b..8b+8`. Large arrays come page-aligned from the
//! allocator, so there a block is exactly one cache line.
//!
//! Items are not spread evenly over blocks (their number per block is Poisson), and crowded
//! blocks answer "present" more often, so a blocked layer needs more bits than a classic one
//! for the same rate; [`Sizing::blocked`] finds how many from the predicted rate.

use super::block::{BLOCK_BITS, BLOCK_WORDS};
use super::guava;
use super::layer::MAX_HASHES;

/// The expected false-positive rate of a blocked layer holding `n` items in `blocks` blocks
/// with `k` probes each: the chance that a query's block (holding Poisson(n / blocks) items)
/// has all k of its probes set, where j items with k probes each (with replacement) leave a
/// given bit clear with probability `(1 - 1/512)^(j k)`.
pub fn predicted_rate(n: f64, blocks: f64, k: u32) -> f64 {
    let lambda = n / blocks;
    let clear_per_probe = 1.0 - 1.0 / BLOCK_BITS as f64;
    let last = (lambda + 12.0 * lambda.sqrt() + 40.0).ceil() as u64;
    // Poisson weights in log space: e^-lambda underflows for crowded blocks.
    let (ln_lambda, mut ln_weight, mut rate) = (lambda.ln(), -lambda, 0.0);
    for j in 0..=last {
        if j > 0 {
            ln_weight += ln_lambda - (j as f64).ln();
        }
        let set = 1.0 - clear_per_probe.powf((j * k as u64) as f64);
        rate += ln_weight.exp() * set.powi(k as i32);
    }
    rate
}

/// A blocked layer's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    pub k: u32,
    /// 64-bit words, a multiple of [`BLOCK_WORDS`].
    pub words: u64,
}

/// A blocked layer may take at most this many times a classic layer's bits: beyond, the rate
/// asked for is below what 512-bit blocks reach at any sane cost, and the layer keeps that
/// best effort (only rates far below 1e-9 get there).
const MAX_GROWTH: u64 = 4;

impl Sizing {
    /// The smallest blocked layer of `capacity` items whose predicted rate (with its best k)
    /// is within `error`: a binary search over the block count, from a classic layer's bits
    /// for that rate up to [`MAX_GROWTH`] times them. Runs only at creation.
    pub fn blocked(capacity: u64, error: f64) -> Sizing {
        let classic = guava::Sizing::guava(capacity, error);
        let n = capacity.max(1) as f64;
        let ks = 1..=classic.k.saturating_add(2).min(MAX_HASHES);
        let best = |blocks: u64| {
            ks.clone()
                .map(|k| (predicted_rate(n, blocks as f64, k), k))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap_or((1.0, 1))
        };
        let mut lo = classic.words.div_ceil(BLOCK_WORDS).max(1);
        let mut hi = lo.saturating_mul(MAX_GROWTH);
        if best(lo).0 > error {
            // Invariant: `hi` meets the rate (or is the bound); `lo` does not.
            if best(hi).0 <= error {
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if best(mid).0 <= error {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
            }
            lo = hi;
        }
        Sizing {
            k: best(lo).1,
            words: lo.saturating_mul(BLOCK_WORDS),
        }
    }

    /// The shape of a layer of a scaling filter whose part of the rate is `share`: held under
    /// the same margin as a classic scaling layer.
    pub fn blocked_scaling(capacity: u64, share: f64) -> Sizing {
        Sizing::blocked(capacity, share * guava::SCALING_MARGIN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::layer::Layer;
    use crate::bloom::ItemHash;
    use crate::testkit::Rng;

    #[test]
    fn sizing_meets_the_rate_with_whole_blocks_and_is_the_smallest() {
        for &p in &[0.25, 0.05, 0.01, 0.001, 1e-4] {
            for &n in &[1u64, 10, 1000, 100_000, 10_000_000] {
                let s = Sizing::blocked(n, p);
                assert_eq!(s.words % BLOCK_WORDS, 0);
                let blocks = s.words / BLOCK_WORDS;
                assert!(
                    predicted_rate(n as f64, blocks as f64, s.k) <= p,
                    "n {n} p {p}"
                );
                let classic = guava::Sizing::guava(n, p);
                assert!(s.words >= classic.words, "n {n} p {p}");
                if blocks > 1 && s.words > classic.words.div_ceil(8) * 8 {
                    let fewer = (blocks - 1) as f64;
                    let any_k =
                        (1..=classic.k + 2).any(|k| predicted_rate(n as f64, fewer, k) <= p);
                    assert!(!any_k, "n {n} p {p}: one block fewer would do");
                }
            }
        }
    }

    /// What a blocked layer costs over a classic one (Guava's sizing) for a million items;
    /// docs/performance.md quotes these figures.
    #[test]
    fn extra_bits_at_one_percent_and_a_tenth_of_one() {
        let extra = |p: f64| {
            let (b, c) = (
                Sizing::blocked(1_000_000, p),
                guava::Sizing::guava(1_000_000, p),
            );
            let pct = (b.words as f64 / c.words as f64 - 1.0) * 100.0;
            println!(
                "p {p}: classic {} words k {}, blocked {} words k {}: +{pct:.1} %",
                c.words, c.k, b.words, b.k
            );
            pct
        };
        let (one, tenth) = (extra(0.01), extra(0.001));
        // +3.2 % (k 6 for Guava's 7) and +7.7 % (k 9 for 10) when written.
        assert!((3.0..3.5).contains(&one), "{one}");
        assert!((7.5..8.0).contains(&tenth), "{tenth}");
    }

    /// A layer sized for the rate, filled to capacity with seeded items, answers a seeded
    /// million never-added items within 1.1x of the rate, and near its prediction: with
    /// random hash words, Guava's murmur3 words and keyed words (h2 derived from h1).
    #[test]
    fn measured_rate_meets_the_target() {
        let secret = crate::bloom::keyed::Secret::from_words([0x005E_C7E7, 1]);
        for (p, seed) in [(0.01, 11u64), (0.001, 12)] {
            for hasher in 0..3 {
                let n = 200_000u64;
                let s = Sizing::blocked(n, p);
                let mut layer = Layer::new(n, p, s.k, s.words).unwrap().blocked();
                let mut rng = Rng::new(seed);
                let mut hash = |tag: u64| {
                    let item = [tag.to_le_bytes(), rng.next_u64().to_le_bytes()].concat();
                    match hasher {
                        0 => ItemHash {
                            h1: rng.next_u64(),
                            h2: rng.next_u64(),
                            mask: i64::MAX as u64,
                        },
                        1 => crate::bloom::guava::hash(&item),
                        _ => secret.hash(&item),
                    }
                };
                for _ in 0..n {
                    layer.insert(hash(0));
                }
                // 10,000 expected positives: the sample's own spread is 1 %.
                let probes = (10.0 / p) as u32 * 1000;
                let hits = (0..probes).filter(|_| layer.contains(hash(1))).count();
                let rate = hits as f64 / probes as f64;
                let predicted = predicted_rate(n as f64, (s.words / 8) as f64, s.k);
                let what =
                    format!("p {p}, hasher {hasher}: measured {rate}, predicted {predicted}");
                assert!(rate <= 1.1 * p, "{what}");
                assert!((rate / predicted - 1.0).abs() < 0.1, "{what}");
            }
        }
    }
}
