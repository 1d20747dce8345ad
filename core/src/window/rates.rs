//! False-positive rates over 1,000,000 never-added items at 1 %, 0.1 % and 0.01 %, COUNT and
//! TIME windows, measured at several moments of a generation's life and of the window's
//! history; each scenario asserts its worst moment at or under the requested rate. Time is
//! passed in, never read. The measured rates are printed (`--nocapture`).

use super::shape::Window;
use super::WindowFilter;
use crate::bloom::ItemHash;
use crate::testkit::Rng;

const RATES: [f64; 3] = [0.01, 0.001, 0.0001];
const CAPACITY: u64 = 50_000;
const SPAN_MS: u64 = 100_000;
const QUERIES: u64 = 1_000_000;
const LIMIT: u64 = u64::MAX;

/// Added items are `0..2^62`; never-added queries have the top bit set.
pub(super) fn item(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

/// The fraction of [`QUERIES`] never-added items the filter finds at `now`; `salt` draws
/// another million.
pub(super) fn fp_rate(f: &WindowFilter, now: u64, salt: u64) -> f64 {
    fp_rate_of(f, now, salt, QUERIES)
}

/// [`fp_rate`] over `queries` never-added items.
pub(super) fn fp_rate_of(f: &WindowFilter, now: u64, salt: u64, queries: u64) -> f64 {
    let mut hits = 0usize;
    let mut hashes: Vec<ItemHash> = Vec::with_capacity(4096);
    let mut i = 0;
    while i < queries {
        hashes.clear();
        let end = (i + 4096).min(queries);
        hashes.extend((i..end).map(|j| f.hash(&item(1 << 63 | salt << 32 | j))));
        hits += f
            .contains_batch(&hashes, now, false)
            .into_iter()
            .filter(|&b| b)
            .count();
        i = end;
    }
    hits as f64 / queries as f64
}

/// Whether an add at `now` would turn the ring (the youngest generation is due).
fn due(f: &WindowFilter, now: u64) -> bool {
    let m = f.meta();
    let young = f.generations()[m.head as usize];
    young.items >= m.shape.generation
        || (m.span_ms().is_some()
            && young.items > 0
            && f.effective_ms(now).saturating_sub(young.first_ms) >= m.quantum_ms())
}

/// Measured rates of one scenario: (moment, rate).
struct Measured {
    what: String,
    rate: f64,
    rows: Vec<(String, f64)>,
}

impl Measured {
    fn new(what: &str, f: &WindowFilter, rate: f64) -> Measured {
        let s = f.shape();
        Measured {
            what: format!("{what} at {rate} (k {} l {} g {})", s.k, s.l, s.generation),
            rate,
            rows: Vec::new(),
        }
    }

    fn at(&mut self, f: &WindowFilter, now: u64, moment: &str) {
        let salt = self.rows.len() as u64 + 1;
        self.rows.push((moment.to_string(), fp_rate(f, now, salt)));
    }

    /// Prints every moment and asserts the worst is at or under the rate.
    fn check(self) {
        let worst = self.rows.iter().map(|r| r.1).fold(0.0, f64::max);
        let list: Vec<String> = self
            .rows
            .iter()
            .map(|(m, r)| format!("{m} {:.5} %", r * 100.0))
            .collect();
        eprintln!(
            "fp {}: worst {:.5} % ({:.2} of the rate); {}",
            self.what,
            worst * 100.0,
            worst / self.rate,
            list.join(", ")
        );
        assert!(self.rows.len() >= 3, "{}: too few moments", self.what);
        assert!(
            worst <= self.rate,
            "{}: worst {worst} over {}",
            self.what,
            self.rate
        );
    }
}

#[test]
fn count_windows_keep_the_rate_at_every_moment_of_a_generation() {
    for rate in RATES {
        let mut f = WindowFilter::new(Window::Count, rate, CAPACITY, LIMIT).unwrap();
        let g = f.shape().generation;
        let mut m = Measured::new("COUNT", &f, rate);
        let mut next = 0u64;
        let mut add = |f: &mut WindowFilter, n: u64| {
            for j in next..next + n {
                f.add(&item(j), 0, LIMIT).unwrap();
            }
            next += n;
        };
        // Three windows, then to the first turn after them.
        add(&mut f, 3 * CAPACITY);
        while !due(&f, 0) {
            add(&mut f, 1);
        }
        let turns = f.meta().turns;
        add(&mut f, 1);
        assert_eq!(f.meta().turns, turns + 1);
        m.at(&f, 0, "right after a turn");
        add(&mut f, g / 2 - 1);
        m.at(&f, 0, "mid generation");
        while !due(&f, 0) {
            add(&mut f, 1);
        }
        m.at(&f, 0, "end of a generation");
        add(&mut f, 5 * CAPACITY);
        while !due(&f, 0) {
            add(&mut f, 1);
        }
        m.at(&f, 0, "end of a generation after 5 more windows");
        m.check();
    }
}

/// A TIME window fed `CAPACITY` items per span at an even pace (one every `SPAN_MS /
/// CAPACITY` ms): the same moments in time.
#[test]
fn time_windows_keep_the_rate_at_a_steady_pace() {
    let step = SPAN_MS / CAPACITY;
    for rate in RATES {
        let mut f =
            WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT).unwrap();
        let mut m = Measured::new("TIME steady", &f, rate);
        let mut i = 0u64;
        let t0 = 1_700_000_000_000u64;
        let mut add = |f: &mut WindowFilter| {
            f.add(&item(i), t0 + i * step, LIMIT).unwrap();
            i += 1;
            t0 + i * step
        };
        let mut next = t0;
        while next < t0 + 3 * SPAN_MS || !due(&f, next) {
            next = add(&mut f);
        }
        let turns = f.meta().turns;
        next = add(&mut f);
        assert_eq!(f.meta().turns, turns + 1);
        m.at(&f, next - step, "right after a turn");
        let half = next + f.meta().quantum_ms() / 2;
        while next < half {
            next = add(&mut f);
        }
        m.at(&f, next - step, "mid generation");
        while !due(&f, next) {
            next = add(&mut f);
        }
        m.at(&f, next - 1, "end of a generation");
        let later = next + 5 * SPAN_MS;
        while next < later || !due(&f, next) {
            next = add(&mut f);
        }
        m.at(&f, next - 1, "end of a generation after 5 more spans");
        assert_eq!(f.meta().overflows, 0);
        m.check();
    }
}

/// The whole capacity in one millisecond, then nothing until the next burst a span later:
/// every generation closes by count, and a burst finds the previous one's expired.
#[test]
fn time_windows_keep_the_rate_under_bursts() {
    for rate in RATES {
        let mut f =
            WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT).unwrap();
        let mut m = Measured::new("TIME bursts", &f, rate);
        let mut i = 0u64;
        let t0 = 1_700_000_000_000u64;
        for burst in 0..5 {
            let at = t0 + burst * SPAN_MS;
            let half = i + CAPACITY / 2;
            for j in i..i + CAPACITY {
                f.add(&item(j), at, LIMIT).unwrap();
                if burst == 4 && j == half {
                    m.at(&f, at, "mid burst");
                }
            }
            i += CAPACITY;
        }
        let at = t0 + 4 * SPAN_MS;
        m.at(&f, at, "right after a burst");
        m.at(&f, at + SPAN_MS / 2, "half a span after");
        m.at(&f, at + SPAN_MS - 1, "just before it expires");
        assert_eq!(f.meta().overflows, 0);
        m.check();
    }
}

/// Adds at the steady pace stop for three spans, then resume.
#[test]
fn time_windows_keep_the_rate_across_idle_gaps() {
    let step = SPAN_MS / CAPACITY;
    for rate in RATES {
        let mut f =
            WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT).unwrap();
        let mut m = Measured::new("TIME idle gaps", &f, rate);
        let mut i = 0u64;
        let mut now = 1_700_000_000_000u64;
        let mut run = |f: &mut WindowFilter, now: &mut u64, until: u64| {
            while *now < until {
                f.add(&item(i), *now, LIMIT).unwrap();
                i += 1;
                *now += step;
            }
        };
        let mut until = now + 2 * SPAN_MS + SPAN_MS / 3;
        run(&mut f, &mut now, until);
        m.at(&f, now, "before the gap");
        m.at(&f, now + SPAN_MS / 2, "half a span into the gap");
        now += 3 * SPAN_MS;
        until = now + f.meta().quantum_ms() + 1;
        run(&mut f, &mut now, until);
        m.at(&f, now, "a generation after resuming");
        until = now + SPAN_MS / 2;
        run(&mut f, &mut now, until);
        m.at(&f, now, "half a span after resuming");
        until = now + SPAN_MS;
        run(&mut f, &mut now, until);
        m.at(&f, now, "a span and a half after resuming");
        assert_eq!(f.meta().overflows, 0);
        m.check();
    }
}

/// A random rate that never puts more than `CAPACITY` adds in any span: mostly quiet
/// milliseconds, some single adds, some bursts of up to a tenth of the capacity, each
/// clipped to what the last span leaves room for.
#[test]
fn time_windows_keep_the_rate_under_a_varying_pace() {
    for rate in RATES {
        let mut f =
            WindowFilter::new(Window::Time { span_ms: SPAN_MS }, rate, CAPACITY, LIMIT).unwrap();
        let mut m = Measured::new("TIME varying", &f, rate);
        let mut rng = Rng::new(0xA9BF ^ rate.to_bits());
        let mut recent = std::collections::VecDeque::new();
        let mut i = 0u64;
        let t0 = 1_700_000_000_000u64;
        let spans = 8;
        let mut checks = [2, 4, 6, 8].map(|s| t0 + s * SPAN_MS - rng.below(SPAN_MS / 2));
        let mut now = t0;
        while now < t0 + spans * SPAN_MS {
            // Milliseconds pass in random strides of up to a hundredth of the span.
            now += 1 + rng.below(SPAN_MS / 100);
            while recent.front().is_some_and(|&t| t + SPAN_MS <= now) {
                recent.pop_front();
            }
            let want = match rng.below(10) {
                0..=5 => 1 + rng.below(40),
                6..=8 => 0,
                _ => rng.below(CAPACITY / 10),
            };
            let room = CAPACITY - recent.len() as u64;
            for _ in 0..want.min(room) {
                f.add(&item(i), now, LIMIT).unwrap();
                recent.push_back(now);
                i += 1;
            }
            for c in checks.iter_mut().filter(|c| **c <= now) {
                m.at(&f, now, &format!("{} items in the span", recent.len()));
                *c = u64::MAX;
            }
        }
        assert_eq!(f.meta().overflows, 0, "the pace stayed within capacity");
        m.check();
    }
}

/// Bytes per item (`memory_bytes() / capacity`) at 1,000,000 and 10,000,000 items, beside
/// a plain Bloom filter's `-ln(rate) / ln(2)^2` bits: printed for the README, and bounded
/// (a window costs more than a plain filter: its slices hold up to `k` generations past
/// the window; a TIME window's ring has room for twice the generations).
#[test]
fn bytes_per_item() {
    use super::filter::memory_for;
    use super::shape::choose;
    for window in [Window::Count, Window::Time { span_ms: SPAN_MS }] {
        for rate in RATES {
            let bloom = -rate.ln() / std::f64::consts::LN_2.powi(2) / 8.0;
            let mut row = Vec::new();
            for capacity in [1_000_000u64, 10_000_000] {
                let shape = choose(window, rate, capacity).unwrap();
                let per_item = memory_for(&shape) as f64 / capacity as f64;
                if capacity == 1_000_000 {
                    let f = WindowFilter::new(window, rate, capacity, LIMIT).unwrap();
                    assert_eq!(f.memory_bytes(), memory_for(&shape));
                }
                let most = match window {
                    Window::Count => 3.0,
                    Window::Time { .. } => 5.5,
                };
                assert!(
                    per_item > bloom && per_item < most * bloom,
                    "{window:?} {rate} {capacity}: {per_item} bytes per item"
                );
                row.push(format!(
                    "{capacity}: {per_item:.3} B/item ({:.2}x Bloom's {bloom:.3}; k {} l {})",
                    per_item / bloom,
                    shape.k,
                    shape.l
                ));
            }
            let name = if window == Window::Count {
                "COUNT"
            } else {
                "TIME"
            };
            eprintln!("bytes {name} at {rate}: {}", row.join(", "));
        }
    }
}
