//! Pinned answers and bytes: seeded sequences of adds (one at a time and in batches),
//! lookups and clock moves over COUNT and TIME windows (bursts into layers included) give
//! the answers and RDB values they gave when encoding version 2 was fixed (digests recorded
//! at commit 4fafc1d). A faster path that changed a bit, an answer or a byte fails here.

use super::harness::encode_value;
use super::shape::Window;
use super::WindowFilter;
use crate::testkit::Rng;

/// FNV-1a, 64 bits: a digest of everything a sequence produced.
struct Digest(u64);

impl Digest {
    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn bit(&mut self, b: bool) {
        self.eat(&[b as u8]);
    }
}

/// One seeded sequence: its window, then adds, batches, lookups and clock moves; the digest
/// of every answer and of the RDB value after each phase; the adds that went to burst
/// layers and the ring's turns past a whole ring (what the sequences reached).
fn run(seed: u64) -> (u64, u64, u64) {
    let mut rng = Rng::new(seed);
    let mut d = Digest(0xcbf2_9ce4_8422_2325);
    let capacity = [50, 400, 3_000][rng.index(3)];
    let rate = [0.1, 0.01, 0.001, 0.0001][rng.index(4)];
    let span_ms = 1 + rng.below(5_000);
    let window = if seed.is_multiple_of(2) {
        Window::Count
    } else {
        Window::Time { span_ms }
    };
    let mut f = WindowFilter::new(window, rate, capacity, u64::MAX).expect("a small filter");
    let mut now = 1_700_000_000_000 + rng.below(1 << 20);
    for phase in 0..6 {
        for _ in 0..capacity {
            now = match rng.below(40) {
                0 => now.saturating_sub(rng.below(2_000)),
                1 => now + rng.below(4 * span_ms),
                _ => now + rng.below(3),
            };
            // Items from a pool a little larger than the window, so some are still in it.
            let item = rng.below(capacity * 3).to_le_bytes();
            match rng.below(10) {
                0 => {
                    let hashes: Vec<_> = (0..rng.below(30))
                        .map(|_| f.hash(&rng.below(capacity * 3).to_le_bytes()))
                        .collect();
                    let (added, refused) = f.add_batch(&hashes, now, rng.below(2) == 0, u64::MAX);
                    assert!(refused.is_none());
                    added.iter().for_each(|&a| d.bit(a));
                }
                1..=3 => {
                    let hashes: Vec<_> = (0..rng.below(30))
                        .map(|_| f.hash(&rng.below(capacity * 3).to_le_bytes()))
                        .collect();
                    let at = now + rng.below(span_ms);
                    let found = f.contains_batch(&hashes, at, rng.below(2) == 0);
                    found.iter().for_each(|&a| d.bit(a));
                    for h in &hashes {
                        d.bit(f.contains_hash(*h, at));
                    }
                }
                _ => d.bit(f.add(&item, now, u64::MAX).expect("no limit")),
            }
        }
        // A burst of a TIME window's capacity within a moment, every other phase: layers.
        if phase % 2 == 1 && window != Window::Count {
            for i in 0..capacity * 2 {
                let item = (1_000_000 + i + phase * capacity * 2).to_le_bytes();
                d.bit(f.add(&item, now, u64::MAX).expect("no limit"));
            }
        }
        d.eat(&encode_value(&f));
        d.eat(&f.items_in_window(now).to_le_bytes());
    }
    let m = f.meta();
    (
        d.0,
        m.overflows,
        m.turns.saturating_sub(m.shape.slices as u64),
    )
}

#[test]
fn seeded_sequences_give_the_pinned_answers_and_bytes() {
    let runs: Vec<_> = (0..16).map(run).collect();
    // The sequences reach burst layers and turn their rings more than once around.
    assert!(runs.iter().any(|r| r.1 > 0), "no add went to a burst layer");
    assert!(
        runs.iter().filter(|r| r.2 > 0).count() >= 8,
        "rings hardly turned"
    );
    let got: Vec<u64> = runs.iter().map(|r| r.0).collect();
    let pinned: [u64; 16] = [
        13216318412779712478,
        4740205923801559791,
        1836189113837174623,
        6706410752170042539,
        11718112903915490522,
        190652499240772709,
        2708863459977914579,
        3599924290096588395,
        4393600935593356097,
        757411641943252694,
        571629615228805996,
        17408696017379482051,
        4010854182454042087,
        6946912265115361232,
        14564174670326848497,
        4498356924633189201,
    ];
    assert_eq!(got, pinned, "answers or bytes changed");
}
