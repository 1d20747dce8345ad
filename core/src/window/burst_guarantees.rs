//! A TIME window under bursts of 2, 4, 10 and 30 times its capacity within one span, then
//! quiet spans (adds at half the capacity's pace), at 1 % and 0.1 %, times passed in: at
//! every moment checked, every item added within the span answers 1 and never-added items
//! answer 1 at no more than twice the rate; the memory follows the items in the span and is
//! the reserved size again within one span of the moment no span holds more than the
//! capacity; growth stops at the limit with an error that changes nothing. The figures are
//! printed (`--nocapture`).

use super::rates::{fp_rate_of, item};
use super::shape::Window;
use super::WindowFilter;
use crate::bloom::ItemHash;
use crate::error::Error;

const CAPACITY: u64 = 10_000;
const SPAN_MS: u64 = 100_000;
const QUERIES: u64 = 200_000;
const LIMIT: u64 = u64::MAX;
const T0: u64 = 1_700_000_000_000;

/// A window fed items `0..` with the time of each add.
struct Fed {
    f: WindowFilter,
    times: Vec<u64>,
    hashes: Vec<ItemHash>,
    /// Per add: the adds in the span ending at it (itself included).
    in_span: Vec<u64>,
    /// The oldest add still in the span of the latest.
    oldest: usize,
    rate: f64,
    /// Worst false-positive rate met, and where.
    worst: (f64, String),
    /// Most bytes met per item of the fullest span of the last span (whole window / the most
    /// adds a span ending in the last span held, at least the capacity).
    most_bytes_per_item: f64,
    checks: u64,
}

impl Fed {
    fn new(rate: f64) -> Fed {
        let f = WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT)
            .expect("a window");
        Fed {
            f,
            times: Vec::new(),
            hashes: Vec::new(),
            in_span: Vec::new(),
            oldest: 0,
            rate,
            worst: (0.0, String::new()),
            most_bytes_per_item: 0.0,
            checks: 0,
        }
    }

    fn add(&mut self, now: u64) {
        let h = self.f.hash(&item(self.times.len() as u64));
        self.f.add_hash(h, now, LIMIT).expect("room");
        self.times.push(now);
        self.hashes.push(h);
        while self.times[self.oldest] + SPAN_MS <= now {
            self.oldest += 1;
        }
        self.in_span.push((self.times.len() - self.oldest) as u64);
    }

    /// The most adds a span ending within the last span of `now` held.
    fn fullest_span(&self, now: u64) -> u64 {
        let from = self.times.partition_point(|&x| x + SPAN_MS <= now);
        self.in_span[from..].iter().copied().max().unwrap_or(0)
    }

    /// `n` adds spread evenly over `[from, from + over)`.
    fn spread(&mut self, from: u64, over: u64, n: u64, mut each: impl FnMut(&mut Fed, u64)) {
        for i in 0..n {
            let now = from + i * over / n;
            self.add(now);
            each(self, i + 1);
        }
    }

    /// Every item of the span answers 1; the false-positive rate, the memory.
    fn check(&mut self, now: u64, moment: &str) {
        self.checks += 1;
        let from = self.times.partition_point(|&x| x + SPAN_MS <= now);
        let found = self.f.contains_batch(&self.hashes[from..], now, false);
        if let Some(miss) = found.iter().position(|&b| !b) {
            panic!(
                "{moment}: item {} added at {} is missing at {now}",
                from + miss,
                self.times[from + miss]
            );
        }
        let fp = fp_rate_of(&self.f, now, self.checks, QUERIES);
        if fp >= self.worst.0 {
            self.worst = (fp, format!("{moment} ({} layers)", self.f.layers().len()));
        }
        let fullest = self.fullest_span(now).max(CAPACITY) as f64;
        let per_item = self.f.memory_bytes() as f64 / fullest;
        self.most_bytes_per_item = self.most_bytes_per_item.max(per_item);
        assert!(
            fp <= 2.0 * self.rate,
            "{moment}: never-added items found at {fp}, over twice {}",
            self.rate
        );
    }

    /// The moment from which no span holds more than the capacity: one past the end of the
    /// last stretch where one did (0 if none did).
    fn calm_from(&self) -> u64 {
        let c = CAPACITY as usize;
        let mut r = 0;
        for j in c..self.times.len() {
            // Adds j - c ..= j are c + 1 adds; within one span, the spans ending from
            // times[j] until add j - c expires hold more than the capacity.
            if self.times[j - c] + SPAN_MS > self.times[j] {
                r = r.max(self.times[j - c] + SPAN_MS);
            }
        }
        r
    }
}

/// A burst of `multiple` times the capacity over a tenth of a span, after a span at half
/// the capacity's pace, then three spans at half the pace.
fn burst_then_quiet(rate: f64, multiple: u64) {
    let mut fed = Fed::new(rate);
    let reserved = fed.f.memory_bytes();
    let half = CAPACITY / 2;
    fed.spread(T0, SPAN_MS, half, |_, _| {});
    assert!(fed.f.layers().is_empty());
    // The burst, checked at each quarter.
    let start = T0 + SPAN_MS;
    let n = multiple * CAPACITY;
    let over = SPAN_MS / 10;
    let mut peak = 0u64;
    fed.spread(start, over, n, |fed, done| {
        if done % (n / 4) == 0 {
            let now = fed.times[fed.times.len() - 1];
            fed.check(now, &format!("{multiple}x: {done} of the burst"));
            peak = peak.max(fed.f.memory_bytes());
        }
    });
    let after_burst = fed.f.memory_bytes();
    let layers = fed.f.layers().len();
    let m = fed.f.meta();
    assert!(layers > 0 && m.overflows > 0, "{multiple}x: no layer grew");
    // Re-adding an item of the burst's layers answers 0: it is in the window.
    let last = fed.hashes[fed.hashes.len() - 1];
    assert_eq!(fed.f.add_hash(last, start + over, LIMIT), Ok(false));
    fed.times.push(start + over);
    fed.hashes.push(last);
    // Three quiet spans, checked every eighth of a span.
    let quiet = start + over;
    let mut back = None;
    for step in 0..24 {
        let from = quiet + step * SPAN_MS / 8;
        fed.spread(from, SPAN_MS / 8, half / 8, |_, _| {});
        let now = from + SPAN_MS / 8 - 1;
        fed.check(now, &format!("{multiple}x: quiet {}/8 span", step + 1));
        if back.is_none() && fed.f.layers().is_empty() {
            back = Some(fed.times[fed.times.len() - 1]);
            assert_eq!(fed.f.memory_bytes(), reserved);
        }
    }
    let calm = fed.calm_from();
    let back = back.expect("the burst layers never went");
    // The layers go at the first add a span after the last add they took, which is before
    // the calm moment: within one span of it (plus the pace's gap between adds).
    let gap = SPAN_MS / half;
    assert!(
        back <= calm + SPAN_MS + gap,
        "{multiple}x: reserved size again at {} ms after the calm moment",
        back - calm
    );
    assert!(fed.f.layers().is_empty() && fed.f.memory_bytes() == reserved);
    eprintln!(
        "burst {multiple}x at {rate}: reserved {reserved} B; right after the burst {after_burst} \
         B ({:.1}x, {layers} layers, {:.2} B per item of the span), peak {peak} B; most B per \
         item of the fullest span {:.2}; reserved size again {:.2} spans after the burst ({:.2} after the \
         calm moment); worst false positives {:.4} % ({:.2} of the rate) at {}",
        after_burst as f64 / reserved as f64,
        after_burst as f64 / (n + half) as f64,
        fed.most_bytes_per_item,
        (back - start - over) as f64 / SPAN_MS as f64,
        back.saturating_sub(calm) as f64 / SPAN_MS as f64,
        fed.worst.0 * 100.0,
        fed.worst.0 / rate,
        fed.worst.1,
    );
    // Memory follows the items of the span (the layers go a span after their last add: the
    // fullest span of the last one): at most what the levels' doubling costs.
    let reserved_per_item = reserved as f64 / CAPACITY as f64;
    assert!(
        fed.most_bytes_per_item <= 2.5 * reserved_per_item,
        "{multiple}x: {} bytes per item of the fullest span, reserved {reserved_per_item}",
        fed.most_bytes_per_item
    );
}

#[test]
fn bursts_of_2x_and_4x_keep_every_item_and_twice_the_rate_and_give_memory_back() {
    for rate in [0.01, 0.001] {
        for multiple in [2, 4] {
            burst_then_quiet(rate, multiple);
        }
    }
}

#[test]
fn bursts_of_10x_and_30x_keep_every_item_and_twice_the_rate_and_give_memory_back() {
    for rate in [0.01, 0.001] {
        for multiple in [10, 30] {
            burst_then_quiet(rate, multiple);
        }
    }
}

/// Ten times the capacity per span, evenly, for eight spans: the layers stay those the
/// rate needs (memory follows the span, not the items ever added).
#[test]
fn a_sustained_10x_rate_keeps_the_same_layers() {
    let mut fed = Fed::new(0.01);
    let mut sizes = Vec::new();
    for s in 0..8 {
        let from = T0 + s * SPAN_MS;
        fed.spread(from, SPAN_MS, 10 * CAPACITY, |_, _| {});
        fed.check(from + SPAN_MS - 1, &format!("10x, span {}", s + 1));
        sizes.push((fed.f.memory_bytes(), fed.f.layers().len()));
    }
    eprintln!(
        "sustained 10x at 0.01: (bytes, layers) per span {sizes:?}; worst false positives \
         {:.4} %",
        fed.worst.0 * 100.0
    );
    let (steady, _) = sizes[1];
    assert!(sizes[1..].iter().all(|&(b, _)| b == steady), "{sizes:?}");
    assert_eq!(fed.f.meta().added, 80 * CAPACITY);
}

/// Past `bf.max-filter-bytes` an add is refused with an error that says the window is
/// full, and changes nothing; the rate at that moment is within twice the one asked for;
/// once the burst ages out, adds are taken again.
#[test]
fn growth_stops_at_the_limit_with_an_error_and_no_change() {
    let rate = 0.01;
    let f = WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT).unwrap();
    let limit = 4 * f.memory_bytes();
    let mut f =
        WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, limit).unwrap();
    let mut refused = None;
    for i in 0..30 * CAPACITY {
        let before = f.clone();
        match f.add(&item(i), T0, limit) {
            Ok(_) => assert!(f.contains(&item(i), T0)),
            Err(e) => {
                assert_eq!(f, before, "a refused add changed the window");
                refused = Some((i, e));
                break;
            }
        }
    }
    let (at, e) = refused.expect("the limit never refused an add");
    let Error::ApbfFull { needed, limit: l } = e else {
        panic!("refused with {e:?}")
    };
    assert!(needed > limit && l == limit && f.memory_bytes() <= limit);
    assert!(
        e.to_string().starts_with("ERR sliding window is full"),
        "{e}"
    );
    assert_eq!(f.refused(), 1);
    // Every item taken answers 1; never-added ones at no more than twice the rate.
    let hashes: Vec<ItemHash> = (0..at).map(|i| f.hash(&item(i))).collect();
    assert!(f.contains_batch(&hashes, T0, false).iter().all(|&b| b));
    let fp = fp_rate_of(&f, T0, 7, QUERIES);
    assert!(fp <= 2.0 * rate, "at the limit: {fp}");
    // Later adds at the same moment are refused too, each counted.
    assert!(f.add(b"more", T0 + 1, limit).is_err());
    assert_eq!(f.refused(), 2);
    // A span later the burst has aged out: the add is taken and the layers go.
    assert_eq!(f.add(b"more", T0 + SPAN_MS, limit), Ok(true));
    assert!(f.layers().is_empty() && f.memory_bytes() == limit / 4);
    eprintln!(
        "limit {limit} B: {at} items taken at one moment ({:.1}x the capacity), false \
         positives {:.4} %",
        at as f64 / CAPACITY as f64,
        fp * 100.0
    );
}

/// An idle window gives its burst memory back at its next add, whenever that comes.
#[test]
fn the_first_add_after_an_idle_span_drops_the_layers() {
    let mut fed = Fed::new(0.01);
    let reserved = fed.f.memory_bytes();
    fed.spread(T0, 1_000, 5 * CAPACITY, |_, _| {});
    assert!(!fed.f.layers().is_empty());
    // The last layer's last add was just before T0 + 1,000: it answers until a span later.
    let last = fed.times[fed.times.len() - 1];
    fed.add(last + SPAN_MS - 1);
    assert!(!fed.f.layers().is_empty());
    fed.check(last + SPAN_MS - 1, "a span after the burst, less 1 ms");
    fed.add(last + SPAN_MS);
    assert!(fed.f.layers().is_empty());
    assert_eq!(fed.f.memory_bytes(), reserved);
}

/// Levels stay unique and rise, each layer's capacity and rate its level's.
#[test]
fn layers_have_distinct_levels() {
    let mut f = WindowFilter::new(Window::Time { span_ms: 1_000 }, 0.1, 4, LIMIT).unwrap();
    let mut i = 0u64;
    while f.layers().len() < 6 {
        f.add(&item(i), T0, LIMIT).unwrap();
        i += 1;
    }
    let levels: Vec<u32> = f.layers().iter().map(|l| l.level).collect();
    assert_eq!(levels, [1, 2, 3, 4, 5, 6]);
    for l in f.layers() {
        let m = l.ring.meta();
        assert_eq!(m.capacity, 4 << l.level);
        assert_eq!(m.error_rate, 0.1 / (1u64 << l.level) as f64);
    }
}
