//! The test oracle: the sizing formulas (Guava's), C's `%g`, and a small reference Bloom chain
//! (Guava hashing, RedisBloom scaling) used to predict exact answers, counts and layers.
//! The oracle is itself checked against the Guava vectors in `tests/suite/bloom/guava_parity.rs`.

use std::f64::consts::LN_2;
use std::io::Cursor;

/// Sizing of one layer for capacity `n` and error `p`: (words, k).
pub fn sizing(n: u64, p: f64) -> (u64, u32) {
    let (m, k) = sizing_m_k(n, p);
    (m.div_ceil(64).max(1), k)
}

/// Sizing of one layer of a scaling filter whose part of the rate is `share`: (words, k).
/// Starting from Guava's size for 0.9 * share, words grow by ceil(words / 64) until
/// `(1 - e^(-k n / bits))^k + 10 n / bits^2` is within 0.9 * share, but to at most 4 times
/// Guava's words; k stays Guava's.
pub fn scaling_sizing(n: u64, share: f64) -> (u64, u32) {
    let target = 0.9 * share;
    let (mut words, k) = sizing(n, target);
    let most = words.saturating_mul(4);
    let nf = n.max(1) as f64;
    let rate = |words: u64| {
        let bits = 64.0 * words as f64;
        (1.0 - (-(k as f64) * nf / bits).exp()).powi(k as i32) + 10.0 * nf / (bits * bits)
    };
    while words < most && rate(words) > target {
        words = words.saturating_add(words.div_ceil(64)).min(most);
    }
    (words, k)
}

/// Guava's unrounded m and k for (n, p).
pub fn sizing_m_k(n: u64, p: f64) -> (u64, u32) {
    let m = (-(n as f64) * p.ln() / (LN_2 * LN_2)) as u64;
    let k = ((m as f64 / n as f64 * LN_2).round() as u32).max(1);
    (m, k)
}

/// C's `printf("%g", x)` for positive finite x (6 significant digits, trailing zeros cut).
/// A layer's BF.DEBUG line in RedisBloom's format.
pub fn debug_line(bit_size: u64, k: u64, capacity: u64, count: u64, error: f64) -> String {
    format!(
        "bytes:{} bits:{bit_size} hashes:{k} hashwidth:64 capacity:{capacity} size:{count} ratio:{}",
        bit_size / 8,
        fmt_g(error)
    )
}

pub fn fmt_g(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent number");
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_fraction(mantissa), exp.abs())
    } else {
        let digits = (5 - exp) as usize;
        trim_fraction(&format!("{x:.digits$}"))
    }
}

fn trim_fraction(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Guava's (h1, h2) for an item: MurmurHash3_x64_128, seed 0.
pub fn hash(item: &[u8]) -> (u64, u64) {
    let h = murmur3::murmur3_x64_128(&mut Cursor::new(item), 0).expect("murmur3");
    (h as u64, (h >> 64) as u64)
}

/// One reference layer.
#[derive(Clone, Debug)]
pub struct Layer {
    pub words: Vec<u64>,
    pub k: u32,
    pub capacity: u64,
    pub count: u64,
    pub error: f64,
}

impl Layer {
    /// A non-scaling filter's layer: exactly Guava's size.
    pub fn new(capacity: u64, error: f64) -> Layer {
        Layer::with_size(capacity, error, sizing(capacity, error))
    }

    /// A scaling filter's layer, `error` being its part of the filter's rate.
    pub fn scaling(capacity: u64, error: f64) -> Layer {
        Layer::with_size(capacity, error, scaling_sizing(capacity, error))
    }

    fn with_size(capacity: u64, error: f64, (words, k): (u64, u32)) -> Layer {
        Layer {
            words: vec![0; words as usize],
            k,
            capacity,
            count: 0,
            error,
        }
    }

    fn probes(&self, (h1, h2): (u64, u64)) -> impl Iterator<Item = u64> {
        let bits = self.words.len() as u64 * 64;
        let mut c = h1;
        (0..self.k).map(move |_| {
            let idx = (c & i64::MAX as u64) % bits;
            c = c.wrapping_add(h2);
            idx
        })
    }

    pub fn contains(&self, h: (u64, u64)) -> bool {
        self.probes(h)
            .all(|i| self.words[(i / 64) as usize] & (1u64 << (i % 64)) != 0)
    }

    pub fn set(&mut self, h: (u64, u64)) {
        let probes: Vec<u64> = self.probes(h).collect();
        for i in probes {
            self.words[(i / 64) as usize] |= 1u64 << (i % 64);
        }
    }

    /// This layer's BF.DEBUG line.
    pub fn debug_line(&self) -> String {
        debug_line(
            64 * self.words.len() as u64,
            self.k as u64,
            self.capacity,
            self.count,
            self.error,
        )
    }
}

/// What a reference add answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    Yes,
    Present,
    Full,
}

/// A reference filter: a chain of layers with RedisBloom's scaling rules.
#[derive(Clone, Debug)]
pub struct Chain {
    pub layers: Vec<Layer>,
    pub capacity: u64,
    pub error: f64,
    /// None for a non-scaling filter.
    pub expansion: Option<u64>,
}

impl Chain {
    /// A filter as `BF.RESERVE key error capacity [EXPANSION e]` (scaling) makes it.
    pub fn scaling(error: f64, capacity: u64, expansion: u64) -> Chain {
        Chain {
            layers: vec![Layer::scaling(capacity, error * 0.5)],
            capacity,
            error,
            expansion: Some(expansion),
        }
    }

    /// A filter as `BF.RESERVE key error capacity NONSCALING` makes it.
    pub fn nonscaling(error: f64, capacity: u64) -> Chain {
        Chain {
            layers: vec![Layer::new(capacity, error)],
            capacity,
            error,
            expansion: None,
        }
    }

    pub fn contains(&self, item: &[u8]) -> bool {
        let h = hash(item);
        self.layers.iter().any(|l| l.contains(h))
    }

    pub fn add(&mut self, item: &[u8]) -> Added {
        let h = hash(item);
        if self.layers.iter().any(|l| l.contains(h)) {
            return Added::Present;
        }
        let last = self.layers.last().expect("a layer");
        if last.count >= last.capacity {
            match self.expansion {
                Some(e) => {
                    let i = self.layers.len() as u32;
                    let cap = self.capacity * e.pow(i);
                    let err = self.error * 0.5f64.powi(i as i32 + 1);
                    self.layers.push(Layer::scaling(cap, err));
                }
                None => return Added::Full,
            }
        }
        let last = self.layers.last_mut().expect("a layer");
        last.set(h);
        last.count += 1;
        Added::Yes
    }

    pub fn count(&self) -> u64 {
        self.layers.iter().map(|l| l.count).sum()
    }

    pub fn total_capacity(&self) -> u64 {
        self.layers.iter().map(|l| l.capacity).sum()
    }

    pub fn total_bytes(&self) -> u64 {
        self.layers.iter().map(|l| 8 * l.words.len() as u64).sum()
    }

    /// The whole BF.DEBUG reply this filter should give.
    pub fn debug_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("size:{}", self.count())];
        lines.extend(self.layers.iter().map(Layer::debug_line));
        lines
    }
}

/// An error rate that makes capacity `n` size to exactly `words` and `k`: `p` itself when it
/// does, else one chosen to land m in the middle of an integer in the right range.
pub fn error_for(n: u64, p: f64, words: u64, k: u32) -> Option<f64> {
    if sizing(n, p) == (words, k) {
        return Some(p);
    }
    // m must fall in ((words-1)*64, words*64] and give round(m/n*ln2) == k.
    let lo = ((words - 1) * 64 + 1).max(1);
    for m in lo..=words * 64 {
        if ((m as f64 / n as f64 * LN_2).round() as u32).max(1) != k {
            continue;
        }
        let p2 = (-((m as f64) + 0.5) * LN_2 * LN_2 / n as f64).exp();
        if p2 > 0.0 && p2 < 1.0 && sizing(n, p2) == (words, k) {
            return Some(p2);
        }
    }
    None
}

/// A `(capacity, error)` with capacity >= `min_capacity` that sizes to exactly `words` and
/// `k`. None when there is none (k too big for so few bits at that many items).
pub fn equivalent_reservation(min_capacity: u64, p: f64, words: u64, k: u32) -> Option<(u64, f64)> {
    let end = min_capacity.saturating_mul(8).max(min_capacity + 1000);
    (min_capacity..end).find_map(|n| error_for(n, p, words, k).map(|e| (n, e)))
}

/// The largest capacity below `below` that sizes to exactly `words` and `k`, with its error.
pub fn largest_reservation_below(below: u64, p: f64, words: u64, k: u32) -> Option<(u64, f64)> {
    (1..below)
        .rev()
        .find_map(|n| error_for(n, p, words, k).map(|e| (n, e)))
}
