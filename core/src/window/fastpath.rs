//! The lookup that reads a few of a block's words ([`WindowFilter::found`]) answers as the
//! one that reads them all ([`WindowFilter::mask`] then [`WindowFilter::has_run`]), for
//! every start mask, over seeded random filters: fresh, dense, turned so blocks are stale,
//! of every `k` the shapes reach, and for items in the window, past it and never added.

use super::shape::Window;
use super::WindowFilter;
use crate::testkit::Rng;

const LIMIT: u64 = u64::MAX;

/// A filter of a random shape fed a random sequence that fills it to a random degree,
/// sometimes far past its capacity (blocks left behind by the turns read as stale).
fn random_filter(rng: &mut Rng) -> WindowFilter {
    let window = if rng.below(2) == 0 {
        Window::Count
    } else {
        Window::Time {
            span_ms: 1 + rng.below(10_000),
        }
    };
    let rate = 10f64.powf(-0.3 - rng.below(8_000) as f64 / 1_000.0);
    let scale = [20, 500, 4_000][rng.index(3)];
    let capacity = 1 + rng.below(scale);
    let mut f = WindowFilter::new(window, rate, capacity, LIMIT).expect("a small filter");
    let mut now = rng.below(1 << 40);
    for _ in 0..rng.below(3 * capacity + 2) {
        let step = if rng.below(50) == 0 { 100_000 } else { 3 };
        now += rng.below(step);
        f.add(&rng.below(capacity * 4).to_le_bytes(), now, LIMIT)
            .expect("no limit");
    }
    f
}

/// Start masks to ask with: the live ones, none, all, and random ones (bits past the ring
/// included, which no run can use).
fn start_masks(f: &WindowFilter, rng: &mut Rng) -> [u64; 5] {
    let now = f.meta().clock_ms + rng.below(f.meta().span_ms().unwrap_or(1) * 2);
    [
        f.starts(now),
        0,
        u64::MAX,
        rng.next_u64(),
        rng.next_u64() & rng.next_u64(),
    ]
}

#[test]
fn the_sentinel_lookup_answers_as_the_full_mask_does() {
    let mut rng = Rng::new(0x5E47);
    let (mut checks, mut found, mut ks) = (0u64, 0u64, [false; 64]);
    for case in 0..400 {
        let f = random_filter(&mut rng);
        ks[f.shape().k as usize] = true;
        let starts = start_masks(&f, &mut rng);
        for i in 0..300 {
            // Items of the sequence (some in the window, some past it) and never-added ones.
            let item = if i % 2 == 0 {
                rng.below(f.meta().capacity * 4)
            } else {
                (1 << 50) + rng.next_u64() % (1 << 40)
            };
            let p = f.probe(f.hash(&item.to_le_bytes()));
            let mask = f.mask(p);
            for &s in &starts {
                let want = f.has_run(mask, s);
                assert_eq!(
                    f.found(&p, s),
                    want,
                    "case {case}, item {item}, starts {s:#x}"
                );
                checks += 1;
                found += want as u64;
            }
        }
    }
    // The cases reach both answers often, and many values of k.
    assert!(
        found > checks / 50 && found < checks / 2,
        "{found} of {checks}"
    );
    assert!(ks.iter().filter(|&&k| k).count() >= 15, "few k met");
}

/// Every run a dense mask can have, at every start: a block whose words are all ones
/// but for chosen zeros answers as the reference does, at every head position.
#[test]
fn the_sentinel_lookup_agrees_on_chosen_patterns() {
    let mut rng = Rng::new(0xB10C);
    for &(rate, window) in &[
        (0.3, Window::Count),
        (0.01, Window::Count),
        (1e-9, Window::Count),
        (0.01, Window::Time { span_ms: 1_000 }),
    ] {
        let mut f = WindowFilter::new(window, rate, 64, LIMIT).expect("a small filter");
        let n = f.shape().slices as usize;
        for turn in 0..2 * n {
            for _ in 0..40 {
                // Set each slice's word to ones or zeros at random in the probed block.
                let h = f.hash(&rng.next_u64().to_le_bytes());
                let p = f.probe(h);
                let density = rng.below(9);
                let pattern: Vec<u64> = (0..n)
                    .map(|_| if rng.below(8) < density { u64::MAX } else { 0 })
                    .collect();
                let turns = f.meta().turns;
                let at = f.block_of(&p);
                let block = &mut f.words_mut()[at..at + n + 1];
                block[0] = turns.wrapping_sub(rng.below(3) * rng.below(n as u64 + 2));
                block[1..].copy_from_slice(&pattern);
                let mask = f.mask(p);
                for s in [u64::MAX, rng.next_u64(), 1, 1 << rng.below(64)] {
                    assert_eq!(
                        f.found(&p, s),
                        f.has_run(mask, s),
                        "turn {turn}, {pattern:?}"
                    );
                }
            }
            // Turn the ring once (a full generation of adds at one moment).
            for i in 0..f.shape().generation {
                f.add(&(turn as u64 * 1_000 + i).to_le_bytes(), 0, LIMIT)
                    .expect("no limit");
            }
        }
    }
}
