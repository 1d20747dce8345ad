//! Batched lookups in a big layer with many of them in flight at once.
//!
//! A lookup reads its probes one after another and stops at the first clear bit, so in a
//! filter at its designed load it needs about two of its k cache lines, and which second
//! line it needs is known only once the first has arrived. Prefetching whole items ahead
//! either fetches lines nobody reads (all k) or leaves later probes to wait alone (the first
//! few). Here each of [`LANES`] lanes carries one lookup: a lane asks for the line of its
//! next probe and steps aside, and is served again after every other lane had its turn, by
//! when the line has mostly arrived. Only the lines a lookup reads are fetched, and about
//! [`LANES`] misses are outstanding at any time, which is what memory latency needs.

use super::layer::Layer;
use super::probe::ItemHash;
use crate::memory::prefetch::prefetch;

/// Lookups in flight: about the number of cache misses one core keeps outstanding. On the
/// 1 GiB filter (AMD EPYC VM) 8, 12, 16, 24 and 32 lanes gave 45, 44, 36, 33 and 34 ns per
/// lookup: 16 is where the gain levels off.
pub const LANES: usize = 16;

/// One lookup under way, waiting for the line of its current probe.
#[derive(Clone, Copy)]
struct Lane {
    /// Index of the item in the caller's list; `usize::MAX` marks an idle lane.
    item: usize,
    /// Probes still to check after the current one.
    left: u32,
    /// The unmasked value of the next probe, and the step to the one after: the sequence of
    /// `ItemHash::probe_values`, stepped by hand (a parked iterator cost 6 to 15 more
    /// instructions per item); the tests hold both to the same answers.
    next: u64,
    step: u64,
    mask: u64,
    /// Where the current probe lands.
    word: usize,
    bit: u64,
}

const IDLE: Lane = Lane {
    item: usize::MAX,
    left: 0,
    next: 0,
    step: 0,
    mask: 0,
    word: 0,
    bit: 0,
};

/// Looks up `hashes[j]` for each `j` of `items` in `layer` and reports each answer as
/// `answer(j, found)`, in no particular order. The answers are [`Layer::contains`]'s.
pub fn contains_each(
    layer: &Layer,
    hashes: &[ItemHash],
    items: &[usize],
    mut answer: impl FnMut(usize, bool),
) {
    let words = layer.words();
    let k = layer.k();
    // Starts the lookup of item `j`: its first probe's line is requested now.
    let start = |j: usize| {
        let h = hashes[j];
        let (word, bit) = layer.position(h.h1 & h.mask);
        prefetch(words, word);
        Lane {
            item: j,
            left: k.saturating_sub(1),
            next: h.h1.wrapping_add(h.h2),
            step: h.h2,
            mask: h.mask,
            word,
            bit,
        }
    };
    let mut queue = items.iter().copied();
    let mut lanes = [IDLE; LANES];
    let mut busy = 0;
    for lane in &mut lanes {
        match queue.next() {
            Some(j) => *lane = start(j),
            None => break,
        }
        busy += 1;
    }
    while busy > 0 {
        for lane in &mut lanes {
            if lane.item == usize::MAX {
                continue;
            }
            let set = words[lane.word] & lane.bit != 0;
            if set && lane.left > 0 {
                // Move on to the next probe and come back for it next round.
                (lane.word, lane.bit) = layer.position(lane.next & lane.mask);
                prefetch(words, lane.word);
                lane.next = lane.next.wrapping_add(lane.step);
                lane.left -= 1;
                continue;
            }
            answer(lane.item, set);
            match queue.next() {
                Some(j) => *lane = start(j),
                None => {
                    *lane = IDLE;
                    busy -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::{guava, Scheme};
    use crate::testkit::Rng;

    /// A layer with about half its bits set, so lookups stop at every probe number.
    fn half_full(k: u32, words: u64) -> Layer {
        let mut layer = Layer::new(u64::MAX, 0.01, k, words).unwrap();
        layer.write_bytes(0, &Rng::new(0x1A7E5).bytes(words as usize * 8));
        layer
    }

    #[test]
    fn answers_like_one_lookup_at_a_time() {
        for k in [1, 2, 7, 30] {
            let mut layer = half_full(k, 97);
            let hashes: Vec<ItemHash> = (0..1000u32)
                .map(|i| guava::hash(&i.to_le_bytes()))
                .collect();
            // Some items present for sure: all their probes set.
            hashes.iter().step_by(3).for_each(|&h| layer.insert(h));
            for n in [0, 1, LANES - 1, LANES, LANES + 1, 100, 1000] {
                // Every other item of the first n, as a chain passes the items still pending.
                let items: Vec<usize> = (0..n).filter(|j| j % 2 == 0 || n < 50).collect();
                let mut got = vec![None; hashes.len()];
                contains_each(&layer, &hashes, &items, |j, found| {
                    assert!(
                        got[j].replace(found).is_none(),
                        "k {k}: item {j} answered twice"
                    );
                });
                for (j, answer) in got.iter().enumerate() {
                    let expected = items.contains(&j).then(|| layer.contains(hashes[j]));
                    assert_eq!(*answer, expected, "k {k}, {n} items: item {j}");
                }
                let found = items.iter().filter(|&&j| got[j] == Some(true)).count();
                assert!(
                    n < 100 || (found > 0 && found < items.len()),
                    "k {k}: {found}"
                );
            }
        }
    }

    #[test]
    fn both_schemes_probe_the_same_bits() {
        let layer = half_full(7, 1 << 10);
        let hashes: Vec<ItemHash> = (0..500u32)
            .map(|i| Scheme::RedisBloom.hash(&i.to_be_bytes()))
            .collect();
        let items: Vec<usize> = (0..hashes.len()).collect();
        let mut got = vec![false; hashes.len()];
        contains_each(&layer, &hashes, &items, |j, f| got[j] = f);
        let expected: Vec<bool> = hashes.iter().map(|&h| layer.contains(h)).collect();
        assert_eq!(got, expected);
    }
}
