//! The window's guarantees, checked item by item: no false negative inside the window
//! (the last `capacity` items; every item added less than `span` ago), none for any item of
//! a generation still in the window (the slack), and how fast an item is forgotten after
//! that: an item whose generation is `d` generations past the oldest one still in the
//! window is found only when `d` slices hold its bit by chance (at most `2^-d` here) and,
//! from `k` generations past (its slices all emptied), at about the error rate. The slack
//! met in practice is printed (`--nocapture`).

use super::rates::item;
use super::shape::Window;
use super::WindowFilter;
use crate::bloom::ItemHash;
use crate::testkit::Rng;

const LIMIT: u64 = u64::MAX;
const RATES: [f64; 3] = [0.01, 0.001, 0.0001];
/// Old items looked up per check and per generation distance (at most).
const SAMPLE: usize = 2_000;
/// Items `k` or more generations past looked up per check (at most).
const FORGOTTEN: usize = 10_000;

/// A filter fed items `0..`, with the time and the ring's turn count of each add.
struct Run {
    f: WindowFilter,
    times: Vec<u64>,
    turns: Vec<u64>,
    hashes: Vec<ItemHash>,
    /// Per generation distance past the oldest live one (index `d - 1`): (found, looked up).
    profile: Vec<(u64, u64)>,
    /// Items `k` or more generations past: (found, looked up).
    forgotten: (u64, u64),
    /// Per check: items found past the window before the first miss (COUNT: items past
    /// `capacity`; TIME: milliseconds past `span`).
    slack: Vec<i64>,
    checks: u64,
    rng: Rng,
}

impl Run {
    fn new(f: WindowFilter) -> Run {
        let k = f.shape().k as usize;
        Run {
            f,
            times: Vec::new(),
            turns: Vec::new(),
            hashes: Vec::new(),
            profile: vec![(0, 0); k],
            forgotten: (0, 0),
            slack: Vec::new(),
            checks: 0,
            rng: Rng::new(0x5EED),
        }
    }

    fn add(&mut self, now: u64, n: u64) {
        for _ in 0..n {
            let h = self.f.hash(&item(self.times.len() as u64));
            self.f.add_hash(h, now, LIMIT).expect("room");
            self.hashes.push(h);
            self.times.push(self.f.meta().clock_ms);
            self.turns.push(self.f.meta().turns);
        }
    }

    /// Whether item `i` belongs to the window at `now`.
    fn in_window(&self, i: usize, now: u64) -> bool {
        match self.f.meta().window {
            Window::Count => self.times.len() - i <= self.f.meta().capacity as usize,
            Window::Time { span_ms } => self.times[i] + span_ms > self.f.effective_ms(now),
        }
    }

    fn lookup(&self, items: &[usize], now: u64) -> Vec<bool> {
        let hashes: Vec<ItemHash> = items.iter().map(|&i| self.hashes[i]).collect();
        self.f.contains_batch(&hashes, now, false)
    }

    /// Checks every item of the window and of the generations still in it, measures the
    /// slack and samples the older items by generation distance.
    fn check(&mut self, now: u64) {
        self.checks += 1;
        let starts = self.f.starts(now);
        let turns = self.f.meta().turns;
        let n = self.times.len();
        let oldest_live = 63 - starts.leading_zeros() as u64;
        let live = |i: usize| starts != 0 && turns - self.turns[i] <= oldest_live;
        // Newest first: every item of the window or of a live generation answers 1; then
        // on to the first miss.
        let mut i = n;
        let mut first_miss = None;
        while i > 0 && first_miss.is_none() {
            let from = i.saturating_sub(4096);
            let batch: Vec<usize> = (from..i).rev().collect();
            for (&j, found) in batch.iter().zip(self.lookup(&batch, now)) {
                if self.in_window(j, now) || live(j) {
                    assert!(
                        found,
                        "false negative: item {j} of {n} (added at {}, position {}, window \
                         {}) at {now}",
                        self.times[j],
                        turns - self.turns[j],
                        self.in_window(j, now),
                    );
                } else if !found {
                    first_miss = Some(j);
                    break;
                }
            }
            i = from;
        }
        if let Some(miss) = first_miss.filter(|_| starts != 0) {
            let oldest_found = miss + 1;
            let past = match self.f.meta().window {
                Window::Count => (n - oldest_found) as i64 - self.f.meta().capacity as i64,
                Window::Time { span_ms } => {
                    let t = self.times[oldest_found.min(n - 1)];
                    self.f.effective_ms(now) as i64 - t as i64 - span_ms as i64
                }
            };
            self.slack.push(past.max(0));
        }
        if starts == 0 {
            return;
        }
        // Older items, by distance past the oldest generation still in the window: items
        // are in turn order, so each distance is a range.
        let k = self.f.shape().k as u64;
        for d in 1..=k {
            let Some(at) = turns.checked_sub(oldest_live + d) else {
                break;
            };
            let lo = if d == k {
                0
            } else {
                self.turns.partition_point(|&t| t < at)
            };
            let hi = self.turns.partition_point(|&t| t <= at);
            let range: Vec<usize> = (lo..hi).filter(|&j| !self.in_window(j, now)).collect();
            let sample = if d == k { FORGOTTEN } else { SAMPLE };
            let pick: Vec<usize> = (0..sample.min(range.len()))
                .map(|_| range[self.rng.index(range.len())])
                .collect();
            let hits = self.lookup(&pick, now).into_iter().filter(|&b| b).count() as u64;
            let slot = if d == k {
                &mut self.forgotten
            } else {
                &mut self.profile[d as usize - 1]
            };
            slot.0 += hits;
            slot.1 += pick.len() as u64;
        }
    }

    /// Prints the slack and the profile; asserts each distance's share under `2^-d` (and
    /// the rate's noise) and the forgotten items' at most twice the rate.
    fn report(&self, what: &str, rate: f64, unit: &str) {
        let mut slack = self.slack.clone();
        slack.sort_unstable();
        let pick = |q: f64| slack[((slack.len() - 1) as f64 * q) as usize];
        let profile: Vec<String> = self
            .profile
            .iter()
            .enumerate()
            .map(|(d, &(hit, n))| format!("{}:{:.4}", d + 1, hit as f64 / n.max(1) as f64))
            .collect();
        let forgotten = self.forgotten.0 as f64 / self.forgotten.1.max(1) as f64;
        let s = self.f.shape();
        eprintln!(
            "slack {what} at {rate} (k {} l {} g {} quantum {}): {} checks; found past the \
             window before the first miss ({unit}): min {} median {} p90 {} max {}; found \
             share by generations past the oldest live one {}; {}+ past: {:.5} % of {}",
            s.k,
            s.l,
            s.generation,
            self.f.meta().quantum_ms(),
            self.checks,
            pick(0.0),
            pick(0.5),
            pick(0.9),
            pick(1.0),
            profile.join(" "),
            s.k,
            forgotten * 100.0,
            self.forgotten.1,
        );
        for (d, &(hit, n)) in self.profile.iter().enumerate() {
            let share = hit as f64 / n.max(1) as f64;
            let bound = 0.5f64.powi(d as i32 + 1) + 3.0 * (rate / n.max(1) as f64).sqrt();
            assert!(
                share <= bound,
                "{what} {rate}: {d} generations past, {share} found"
            );
        }
        assert!(
            self.forgotten.1 as f64 * rate >= 50.0,
            "{what} {rate}: too few forgotten items looked up"
        );
        assert!(
            forgotten <= 2.0 * rate,
            "{what} {rate}: forgotten items found at {forgotten}"
        );
    }
}

#[test]
fn a_count_window_answers_its_last_capacity_items_after_each_of_100_blocks() {
    let cap = 20_000;
    for rate in RATES {
        let f = WindowFilter::new(Window::Count, rate, cap, LIMIT).unwrap();
        let g = f.shape().generation;
        let mut run = Run::new(f);
        for block in 0..100 {
            run.add(0, cap / 10);
            run.check(0);
            let inside = run.f.items_in_window(0);
            let l = run.f.shape().l as u64;
            if block >= 10 {
                assert!(
                    (cap + 1..=(l + 1) * g).contains(&inside),
                    "{inside} items in the window"
                );
            }
        }
        assert!(run.slack.iter().all(|&s| s >= 0));
        run.report("COUNT", rate, "items");
    }
}

#[test]
fn a_time_window_answers_every_item_of_its_span_under_bursts_and_idle_gaps() {
    let cap = 20_000;
    let span = 60_000;
    for rate in RATES {
        let f = WindowFilter::new(Window::Time { span_ms: span }, rate, cap, LIMIT).unwrap();
        let q = f.meta().quantum_ms();
        let mut run = Run::new(f);
        let mut rng = Rng::new(0x7193);
        let mut now = 1_700_000_000_000u64;
        let step = span / cap;
        // Phases: steady at the capacity, a burst of it all then idle, three idle spans,
        // bursts of a fifth every fifth of a span, steady at half the capacity.
        for phase in 0..5 {
            // A quiet span between phases keeps every span within the capacity.
            now += span;
            run.check(now - span / 2);
            let end = now + 2 * span;
            if phase == 2 {
                now += 3 * span;
                run.check(now);
                continue;
            }
            let mut next_check = now + rng.below(q);
            while now < end {
                match phase {
                    0 => run.add(now, 1),
                    1 => {
                        run.add(now, cap);
                        now += span - step;
                    }
                    3 => {
                        run.add(now, cap / 5);
                        now += span / 5 - step;
                    }
                    _ => {
                        run.add(now, 1);
                        now += step;
                    }
                }
                now += step;
                while next_check <= now {
                    run.check(next_check.max(run.f.meta().clock_ms));
                    next_check += 1 + rng.below(span / 8);
                }
            }
        }
        assert_eq!(run.f.meta().overflows, 0);
        run.report("TIME", rate, "ms");
    }
}

#[test]
fn starts_and_items_in_window_follow_the_generations() {
    let mut f = WindowFilter::new(Window::Count, 0.01, 1_000, LIMIT).unwrap();
    let (g, l) = (f.shape().generation, f.shape().l as u64);
    assert_eq!((f.starts(0), f.items_in_window(0)), (0, 0));
    f.add(b"a", 0, LIMIT).unwrap();
    assert_eq!((f.starts(0), f.items_in_window(0)), (1, 1));
    for i in 1..=g {
        f.add(&item(i), 0, LIMIT).unwrap();
    }
    assert_eq!((f.starts(0), f.items_in_window(0)), (0b11, g + 1));
    for i in 0..10 * g * l {
        f.add(&item(1 << 40 | i), 0, LIMIT).unwrap();
    }
    let all = (1u64 << (l + 1)) - 1;
    assert_eq!(f.starts(0), all);
    let inside = f.items_in_window(0);
    assert!(inside > 1_000 && inside <= (l + 1) * g, "{inside}");

    let span = 10_000;
    let mut f = WindowFilter::new(Window::Time { span_ms: span }, 0.01, 1_000, LIMIT).unwrap();
    let t = 5_000_000;
    let few = f.shape().generation / 2;
    for i in 0..few {
        f.add(&item(i), t, LIMIT).unwrap();
    }
    assert_eq!((f.starts(t), f.items_in_window(t)), (1, few));
    assert_eq!(f.items_in_window(t + span - 1), few);
    assert_eq!(f.starts(t + span - 1), 1);
    assert_eq!((f.starts(t + span), f.items_in_window(t + span)), (0, 0));
    // A generation's items leave together, when its last add is a span old.
    let q = f.meta().quantum_ms();
    f.add(b"later", t + q, LIMIT).unwrap();
    assert_eq!(f.starts(t + q), 0b11);
    assert_eq!(f.items_in_window(t + span), 1);
    assert_eq!(f.starts(t + span), 0b1);
    assert!(f.contains(b"later", t + q + span - 1) && !f.contains(b"later", t + q + span));
    // Time never goes back: an earlier moment is taken as the latest seen.
    assert_eq!(f.starts(0), f.starts(t + q));
}

#[test]
fn a_time_window_fed_over_its_capacity_counts_overflows_and_keeps_every_item() {
    let span = 10_000;
    let cap = 1_000;
    let f = WindowFilter::new(Window::Time { span_ms: span }, 0.01, cap, LIMIT).unwrap();
    let mut run = Run::new(f);
    let mut now = 1_000_000;
    // At the capacity: no overflow.
    for _ in 0..3 * cap {
        run.add(now, 1);
        now += span / cap;
    }
    run.check(now);
    assert_eq!(run.f.meta().overflows, 0);
    // Three times the capacity per span, then a burst of ten times it: every item of the
    // span still answers 1; only the error rate suffers.
    for i in 0..9 * cap {
        run.add(now, 1);
        now += span / (3 * cap);
        if i % 997 == 0 {
            run.check(now);
        }
    }
    let before = run.f.meta().overflows;
    assert!(before > 0);
    run.add(now, 10 * cap);
    run.check(now);
    run.check(now + span - 1);
    assert!(run.f.meta().overflows > before);
    assert_eq!(run.f.meta().added, 22 * cap);
}

/// A TIME window forgets by time, not only by generations: after an idle period, the items
/// of before it answer as never-added ones do once adds resume (a server down for an hour
/// forgets what expired meanwhile).
#[test]
fn an_idle_period_ages_the_items_before_it() {
    let span = 60_000;
    let cap = 20_000;
    for rate in RATES {
        let f = WindowFilter::new(Window::Time { span_ms: span }, rate, cap, LIMIT).unwrap();
        let q = f.meta().quantum_ms();
        let k = f.shape().k as u64;
        let mut run = Run::new(f);
        let mut now = 1_700_000_000_000u64;
        for _ in 0..2 * cap {
            run.add(now, 1);
            now += span / cap;
        }
        let before = run.times.len();
        // Idle for longer than the span and k quanta, then steady again for a span.
        now += span + (k + 1) * q;
        let mut found = 0u64;
        let mut looked = 0u64;
        for i in 0..cap {
            run.add(now, 1);
            now += span / cap;
            if i % 2_000 == 1_999 {
                run.check(now);
                let old: Vec<usize> = (before - cap as usize..before).collect();
                found += run.lookup(&old, now).into_iter().filter(|&b| b).count() as u64;
                looked += old.len() as u64;
            }
        }
        let share = found as f64 / looked as f64;
        eprintln!("idle {rate}: items of before the idle period found at {share:.6} of {looked}");
        assert!(
            share <= 2.0 * rate,
            "{rate}: items of before the idle period found at {share}"
        );
    }
}
