//! CBF.MERGE's core: the sum of counting filters of one shape.
//!
//! Counters add up, so the result is the filter every source's adds (less deletes) would
//! have made in one, and deleting an item once per add still works. A sum past a counter's
//! largest value is refused for the whole merge, nothing changed: CBF.ADD lets one counter
//! stick at its maximum (its true count unknown, never decremented again), but a merge
//! would stick counters by the thousand at once, silently; the caller chooses instead (wider
//! counters, or fewer sources). A counter already stuck at its maximum merges only with
//! zeros (the sum of the two is known to pass it otherwise).

use super::filter::{CountingFilter, CountingMeta};
use crate::error::{Error, Result};

/// A filter's shape: its parameters with the count zeroed. Compared as a whole, so a
/// parameter `CountingMeta` gains later takes part without a change here.
fn shape(filter: &CountingFilter) -> CountingMeta {
    CountingMeta {
        count: 0,
        ..filter.meta()
    }
}

/// Names the first parameter two unequal shapes differ in ("their parameters" for one this
/// function does not know, so nothing secret reaches a reply).
fn difference(a: &CountingMeta, b: &CountingMeta) -> String {
    // Keyed or not, and which secret: named, never shown (as BF.MERGE names them).
    match (&a.secret, &b.secret) {
        (Some(x), Some(y)) if x != y => return "secret (keyed with different secrets)".into(),
        (Some(_), None) | (None, Some(_)) => return "keying (KEYED and unkeyed)".into(),
        _ => {}
    }
    if a.counter_bits != b.counter_bits {
        format!("counter bits ({} and {})", a.counter_bits, b.counter_bits)
    } else if a.capacity != b.capacity {
        format!("capacity ({} and {})", a.capacity, b.capacity)
    } else if a.error_rate != b.error_rate {
        format!("error rate ({} and {})", a.error_rate, b.error_rate)
    } else if a.k != b.k {
        format!("number of hashes ({} and {})", a.k, b.k)
    } else if a.words != b.words {
        format!("size ({} and {} words)", a.words, b.words)
    } else {
        "their parameters".to_string()
    }
}

/// Refuses, naming what differs, unless every filter of `others` has `first`'s shape.
pub fn check_shapes(first: &CountingFilter, others: &[&CountingFilter]) -> Result<()> {
    let want = shape(first);
    for other in others {
        let got = shape(other);
        if got != want {
            return Err(Error::MergeMismatch(difference(&want, &got)));
        }
    }
    Ok(())
}

/// The top bit of every counter of a word of `counter_bits`-bit counters.
fn top_bits(counter_bits: u32) -> u64 {
    match counter_bits {
        4 => 0x8888_8888_8888_8888,
        _ => 0x8080_8080_8080_8080,
    }
}

/// The counter-by-counter sum of two words (`top` from [`top_bits`]), and whether some
/// counter's sum did not fit. The low bits of each counter add without reaching the next
/// counter; the top bit and its carry out are added apart.
#[inline]
fn add_counters(a: u64, b: u64, top: u64) -> (u64, bool) {
    let low = (a & !top) + (b & !top);
    let sum = low ^ ((a ^ b) & top);
    // The carry out of a counter's top bit: both top bits set, or one and a carry into it.
    let carry = ((a & b) | ((a | b) & !sum)) & top;
    (sum, carry != 0)
}

/// Word `i` of the sum of `dest` and `sources`, or `None` if a counter would not fit.
#[inline]
fn summed(dest: &CountingFilter, sources: &[&CountingFilter], i: usize, top: u64) -> Option<u64> {
    let mut acc = dest.counters[i];
    for source in sources {
        let (sum, over) = add_counters(acc, source.counters[i], top);
        if over {
            return None;
        }
        acc = sum;
    }
    Some(acc)
}

/// Adds every source's counters and count to `dest`'s. Every shape and every sum is checked
/// first (a pass that writes nothing): a refusal changes nothing, and the pass that writes
/// cannot fail. Linear in the counters, word by word.
pub fn merge_into(dest: &mut CountingFilter, sources: &[&CountingFilter]) -> Result<()> {
    check_shapes(dest, sources)?;
    let bits = dest.meta.counter_bits;
    let (top, len) = (top_bits(bits), dest.counters.len());
    if (0..len).any(|i| summed(dest, sources, i, top).is_none()) {
        return Err(Error::MergeOverflow { bits });
    }
    for i in 0..len {
        dest.counters[i] = summed(dest, sources, i, top).ok_or(Error::Internal)?;
    }
    dest.saturated = dest.saturated_in_words(0..len);
    dest.meta.count = sources
        .iter()
        .fold(dest.meta.count, |n, s| n.saturating_add(s.meta.count));
    Ok(())
}

/// A new filter, the sum of `sources` (at least one) in the first one's shape: refused
/// before anything is allocated when the shapes differ or the filter would be over `limit`.
pub fn union(sources: &[&CountingFilter], limit: u64) -> Result<CountingFilter> {
    let (first, rest) = sources.split_first().ok_or(Error::Internal)?;
    check_shapes(first, rest)?;
    let mut dest = CountingFilter::from_meta(&shape(first), limit)?;
    merge_into(&mut dest, sources)?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    const NO_LIMIT: u64 = u64::MAX;

    /// The sum counter by counter, one at a time.
    fn scalar_sum(a: u64, b: u64, bits: u32) -> (u64, bool) {
        let max = (1u64 << bits) - 1;
        let (mut out, mut over) = (0u64, false);
        for lane in 0..64 / bits {
            let s = lane * bits;
            let sum = ((a >> s) & max) + ((b >> s) & max);
            over |= sum > max;
            out |= (sum & max) << s;
        }
        (out, over)
    }

    #[test]
    fn word_sums_match_counter_by_counter_sums() {
        let mut rng = Rng::new(43);
        for bits in [4, 8] {
            for round in 0..20_000 {
                // Sparse words too, so that sums that fit are common.
                let sparse = |r: &mut Rng| r.next_u64() & r.next_u64() & r.next_u64();
                let (a, b) = match round % 3 {
                    0 => (rng.next_u64(), rng.next_u64()),
                    1 => (sparse(&mut rng), sparse(&mut rng)),
                    _ => (rng.next_u64(), sparse(&mut rng)),
                };
                let (sum, over) = add_counters(a, b, top_bits(bits));
                let (want, want_over) = scalar_sum(a, b, bits);
                assert_eq!(over, want_over, "{a:x} + {b:x} at {bits} bits");
                if !over {
                    assert_eq!(sum, want, "{a:x} + {b:x} at {bits} bits");
                }
            }
        }
    }

    fn items(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|_| rng.bytes(12)).collect()
    }

    #[test]
    fn counts_add_up_and_deleting_every_add_empties_the_sum() {
        let mut rng = Rng::new(44);
        for bits in [4, 8] {
            let (a_items, b_items) = (items(&mut rng, 300), items(&mut rng, 400));
            let mut a = CountingFilter::new(0.01, 1000, bits, NO_LIMIT).unwrap();
            let mut b = a.clone();
            for i in &a_items {
                a.add(i).unwrap();
            }
            for i in &b_items {
                b.add(i).unwrap();
            }
            // One item in both.
            b.add(&a_items[0]).unwrap();
            let merged = union(&[&a, &b], NO_LIMIT).unwrap();
            assert_eq!(merged.count(), 701);
            for (i, w) in merged.counter_words().iter().enumerate() {
                let (want, _) = scalar_sum(a.counter_words()[i], b.counter_words()[i], bits);
                assert_eq!(*w, want, "word {i}");
            }
            assert!(a_items.iter().chain(&b_items).all(|i| merged.contains(i)));
            assert!(merged.count_of(&a_items[0]) >= 2);
            // Into an existing copy of `a`: the same filter.
            let mut into = a.clone();
            merge_into(&mut into, &[&b]).unwrap();
            assert_eq!(into, merged);
            let mut emptied = merged.clone();
            for i in a_items.iter().chain(&b_items).chain([&a_items[0]]) {
                assert!(emptied.delete(i), "a delete found nothing");
            }
            assert_eq!(emptied.count(), 0);
            assert!(emptied.counter_words().iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn an_overflowing_sum_is_refused_and_changes_nothing() {
        let mut a = CountingFilter::new(0.01, 100, 4, NO_LIMIT).unwrap();
        let mut b = a.clone();
        for _ in 0..9 {
            a.add(b"x").unwrap();
        }
        for _ in 0..6 {
            b.add(b"x").unwrap();
        }
        // 9 + 6 = 15 fits in 4 bits: the counters saturate.
        let fits = union(&[&a, &b], NO_LIMIT).unwrap();
        assert_eq!(fits.count_of(b"x"), 15);
        assert_eq!(fits.saturated(), u64::from(fits.k()));
        b.add(b"x").unwrap();
        b.add(b"y").unwrap();
        let mut dest = a.clone();
        let err = merge_into(&mut dest, &[&b]).unwrap_err();
        assert_eq!(err, Error::MergeOverflow { bits: 4 });
        assert_eq!(dest, a);
        assert_eq!(dest.count(), 9);
        assert!(union(&[&a, &b], NO_LIMIT).is_err());
        // Over several sources: each fits with the destination, their sum does not.
        let mut c = CountingFilter::new(0.01, 100, 4, NO_LIMIT).unwrap();
        for _ in 0..5 {
            c.add(b"x").unwrap();
        }
        let mut dest = a.clone();
        assert!(merge_into(&mut dest, &[&c, &c]).is_err());
        assert_eq!(dest, a);
    }

    #[test]
    fn every_shape_difference_is_refused_by_name() {
        let a = CountingFilter::new(0.01, 1000, 4, NO_LIMIT).unwrap();
        let cases = [
            ("counter bits", CountingFilter::new(0.01, 1000, 8, NO_LIMIT)),
            ("capacity", CountingFilter::new(0.01, 1001, 4, NO_LIMIT)),
            ("error rate", CountingFilter::new(0.011, 1000, 4, NO_LIMIT)),
        ];
        for (name, other) in cases {
            let other = other.unwrap();
            let mut dest = a.clone();
            match merge_into(&mut dest, &[&other]) {
                Err(Error::MergeMismatch(what)) => assert!(what.starts_with(name), "{what}"),
                r => panic!("{name}: {r:?}"),
            }
            assert_eq!(dest, a);
            assert!(union(&[&other, &a], NO_LIMIT).is_err());
        }
        let limit = a.memory_bytes() - 1;
        assert!(matches!(union(&[&a], limit), Err(Error::TooLarge { .. })));
    }
}
