//! RedisBloom's t-digest (`TDIGEST.*`): the merging digest of t-digest-c as RedisBloom uses
//! it, answer for answer and bit for bit.
//!
//! A digest holds up to `cap = 6·compression + 10` nodes (centroids: a mean and an integer
//! weight): merged ones at the front, then a buffer of unmerged ones. Adding appends to the
//! buffer; when the buffer is full, and before every query, the nodes are sorted and merged
//! left to right while the merged weight stays under the k-size limit
//! `z = w·compression / (2π·W·ln W) ≤ q(1 − q)` at both ends of the candidate. Every float
//! operation is done in t-digest-c's order, so results are the same doubles.
//!
//! RedisBloom quirks kept: a digest of one observation never merges (its total weight is 1),
//! so QUANTILE, CDF and TRIMMED_MEAN answer NaN; queries compress (they change INFO);
//! saving compresses. Changed: RANK/REVRANK of a one-observation digest (RedisBloom casts a
//! NaN to an integer) and the saved form of that digest (RedisBloom drops the value; see
//! [`codec`]).

pub mod codec;
pub mod sort;

use std::f64::consts::PI;

use crate::error::{check_limit, Error, Result};
use crate::memory::fallible;

/// TDIGEST.CREATE's compression when none is given.
pub const DEFAULT_COMPRESSION: i64 = 100;

/// One node: a mean and how many observations it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Centroid {
    pub mean: f64,
    pub weight: i64,
}

/// A t-digest.
#[derive(Debug, PartialEq)]
pub struct TDigest {
    /// A positive integer, kept as the double t-digest-c computes with.
    compression: f64,
    /// `+f64::MAX` / `-f64::MAX` while empty.
    min: f64,
    max: f64,
    cap: usize,
    /// How many of `nodes` (at the front) are merged; the rest are the unmerged buffer.
    merged: usize,
    /// Merged then unmerged nodes; allocated at `cap` once, never grown.
    nodes: Vec<Centroid>,
    merged_weight: i64,
    unmerged_weight: i64,
    total_compressions: i64,
}

impl Clone for TDigest {
    /// A copy with the whole node buffer allocated, as the original.
    fn clone(&self) -> TDigest {
        let mut nodes = Vec::with_capacity(self.cap);
        nodes.extend_from_slice(&self.nodes);
        TDigest { nodes, ..*self }
    }
}

/// TDIGEST.INFO's figures, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    pub compression: i64,
    pub capacity: i64,
    pub merged_nodes: i64,
    pub unmerged_nodes: i64,
    pub merged_weight: i64,
    pub unmerged_weight: i64,
    pub observations: i64,
    pub total_compressions: i64,
    pub memory_usage: i64,
}

impl Info {
    /// The figures under TDIGEST.INFO's labels, in its order.
    pub fn pairs(&self) -> [(&'static str, i64); 9] {
        [
            ("Compression", self.compression),
            ("Capacity", self.capacity),
            ("Merged nodes", self.merged_nodes),
            ("Unmerged nodes", self.unmerged_nodes),
            ("Merged weight", self.merged_weight),
            ("Unmerged weight", self.unmerged_weight),
            ("Observations", self.observations),
            ("Total compressions", self.total_compressions),
            ("Memory usage", self.memory_usage),
        ]
    }
}

/// The node capacity of `compression` (a positive integer), refused as RedisBloom 8 refuses
/// it (`allocation failed`: the arrays would overflow the address space, or RedisBloom's
/// `int` capacity) or over `limit` bytes (`bf.max-filter-bytes`).
pub fn capacity(compression: i64, limit: u64) -> Result<usize> {
    let c = compression.max(1) as u64;
    // 6·c + 10 over i32::MAX (which also covers t-digest-c's size_t overflow), without
    // computing it for huge c.
    if c > (i32::MAX as u64 - 10) / 6 {
        return Err(Error::TdAllocFailed);
    }
    let cap = 6 * c + 10;
    check_limit(memory_usage(cap as usize) as u64, limit)?;
    Ok(cap as usize)
}

/// The size of t-digest-c's histogram struct on 64-bit builds: three doubles, three ints
/// (padded to 16 bytes), three 64-bit counters and two node pointers.
const HISTOGRAM_BYTES: i64 = 80;

/// RedisBloom 8.6+'s memory figure (INFO's `Memory usage`, MEMORY USAGE): the histogram
/// struct and the two node arrays. RedisBloom 2.8 and 8.2 counted a pointer's 8 bytes for
/// the struct, 72 less (rule `tdigest-memory-usage`).
pub fn memory_usage(cap: usize) -> i64 {
    HISTOGRAM_BYTES + 2 * 8 * cap as i64
}

/// 2^52: weight sums below it, and their halves, are exact in doubles.
const EXACT_HALVES: f64 = 4503599627370496.0;

/// `x1` and `x2` weighted by `w1` and `w2`, kept within `[x1, x2]` (`x1 <= x2`).
fn weighted_average_sorted(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    let x = (x1 * w1 + x2 * w2) / (w1 + w2);
    let low = if x < x2 { x } else { x2 };
    if x1 > low {
        x1
    } else {
        low
    }
}

fn weighted_average(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    if x1 <= x2 {
        weighted_average_sorted(x1, w1, x2, w2)
    } else {
        weighted_average_sorted(x2, w2, x1, w1)
    }
}

/// C's `modf`-based rounding RedisBloom's RANK uses: halves go toward zero.
fn half_round_down(f: f64) -> f64 {
    let int_part = f.trunc();
    let frac = f - int_part;
    if frac.abs() <= 0.5 {
        int_part
    } else if int_part >= 0.0 {
        int_part + 1.0
    } else {
        int_part - 1.0
    }
}

impl TDigest {
    /// An empty digest of `compression` (positive), sized by [`capacity`].
    pub fn new(compression: i64, limit: u64) -> Result<TDigest> {
        let cap = capacity(compression, limit)?;
        TDigest::with_cap(compression as f64, cap)
    }

    fn with_cap(compression: f64, cap: usize) -> Result<TDigest> {
        Ok(TDigest {
            compression,
            min: f64::MAX,
            max: -f64::MAX,
            cap,
            merged: 0,
            nodes: fallible::with_capacity(cap)?,
            merged_weight: 0,
            unmerged_weight: 0,
            total_compressions: 0,
        })
    }

    pub fn compression(&self) -> i64 {
        self.compression as i64
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Observations: merged and unmerged weight.
    pub fn size(&self) -> i64 {
        self.merged_weight.wrapping_add(self.unmerged_weight)
    }

    pub fn merged_nodes(&self) -> &[Centroid] {
        &self.nodes[..self.merged]
    }

    pub fn unmerged_nodes(&self) -> &[Centroid] {
        &self.nodes[self.merged..]
    }

    /// The one observation of a digest that holds exactly one, unmerged (RedisBloom's
    /// single-value state, which no compression changes).
    pub fn single_value(&self) -> Option<f64> {
        match (self.merged, self.nodes.as_slice()) {
            (0, [only]) if only.weight == 1 && self.size() == 1 => Some(only.mean),
            _ => None,
        }
    }

    /// RedisBloom's memory figure.
    pub fn memory_usage(&self) -> i64 {
        memory_usage(self.cap)
    }

    pub fn info(&self) -> Info {
        Info {
            compression: self.compression(),
            capacity: self.cap as i64,
            merged_nodes: self.merged as i64,
            unmerged_nodes: (self.nodes.len() - self.merged) as i64,
            merged_weight: self.merged_weight,
            unmerged_weight: self.unmerged_weight,
            observations: self.size(),
            total_compressions: self.total_compressions,
            memory_usage: self.memory_usage(),
        }
    }

    /// Moves the node buffer where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn crate::memory::relocate::Relocate) {
        crate::memory::relocate::relocate_vec(&mut self.nodes, mover);
    }

    /// TDIGEST.RESET: empty, same compression and capacity.
    pub fn reset(&mut self) {
        self.min = f64::MAX;
        self.max = -f64::MAX;
        self.merged = 0;
        self.nodes.clear();
        self.merged_weight = 0;
        self.unmerged_weight = 0;
        self.total_compressions = 0;
    }

    /// Adds `weight` observations at `mean` (finite; weight positive), compressing first if
    /// the buffer is full. `TdOverflow` when the total weight would pass 2^63 - 1 or no node
    /// is free after compressing; nothing is added then. (t-digest-c also refuses weight
    /// sums that overflow a double, or whose `2π·W·ln W` does: with 64-bit weights, below
    /// 2^63, neither can happen.)
    pub fn add(&mut self, mean: f64, weight: i64) -> Result<()> {
        if self.nodes.len() + 1 >= self.cap {
            self.compress();
        }
        if self.nodes.len() >= self.cap {
            return Err(Error::TdOverflow);
        }
        let unmerged = self
            .unmerged_weight
            .checked_add(weight)
            .ok_or(Error::TdOverflow)?;
        unmerged
            .checked_add(self.merged_weight)
            .ok_or(Error::TdOverflow)?;
        if mean < self.min {
            self.min = mean;
        }
        if mean > self.max {
            self.max = mean;
        }
        self.nodes.push(Centroid { mean, weight });
        self.unmerged_weight = unmerged;
        Ok(())
    }

    /// Adds every value with weight 1 (TDIGEST.ADD after its values were checked).
    pub fn add_values(&mut self, values: &[f64]) -> Result<()> {
        values.iter().try_for_each(|&v| self.add(v, 1))
    }

    /// Sorts the nodes and merges neighbours while the scale function allows. (t-digest-c's
    /// overflow refusals here need weights or a normalizer past a double's range: with 64-bit
    /// weights the total is at most 2^64 and `2π·W·ln W` is finite and positive once W > 1.)
    pub fn compress(&mut self) {
        if self.nodes.len() == self.merged {
            return;
        }
        sort::sort(&mut self.nodes);
        let total = self.merged_weight as f64 + self.unmerged_weight as f64;
        if total <= 1.0 {
            return;
        }
        let normalizer = self.compression / (2.0 * PI * total * total.ln());
        let nodes = &mut self.nodes;
        let mut cur = 0;
        let mut weight_so_far = 0.0;
        for i in 1..nodes.len() {
            let next = nodes[i];
            let proposed = nodes[cur].weight as f64 + next.weight as f64;
            let z = proposed * normalizer;
            let q0 = weight_so_far / total;
            let q2 = (weight_so_far + proposed) / total;
            if z <= q0 * (1.0 - q0) && z <= q2 * (1.0 - q2) {
                let c = &mut nodes[cur];
                c.weight = c.weight.wrapping_add(next.weight);
                let delta = next.mean - c.mean;
                c.mean += (delta * next.weight as f64) / c.weight as f64;
            } else {
                weight_so_far += nodes[cur].weight as f64;
                cur += 1;
                nodes[cur] = next;
            }
        }
        nodes.truncate(cur + 1);
        self.merged = cur + 1;
        self.merged_weight = total as i64;
        self.unmerged_weight = 0;
        self.total_compressions = self.total_compressions.wrapping_add(1);
    }

    /// Merges `from` in (TDIGEST.MERGE, per source): both are compressed, then each of
    /// `from`'s nodes is added.
    pub fn merge_from(&mut self, from: &mut TDigest) -> Result<()> {
        self.compress();
        from.compress();
        from.nodes
            .iter()
            .try_for_each(|n| self.add(n.mean, n.weight))
    }

    /// TDIGEST.MIN: NaN when empty.
    pub fn min(&self) -> f64 {
        if self.size() > 0 {
            self.min
        } else {
            f64::NAN
        }
    }

    /// TDIGEST.MAX: NaN when empty.
    pub fn max(&self) -> f64 {
        if self.size() > 0 {
            self.max
        } else {
            f64::NAN
        }
    }

    fn mean_at(&self, i: usize) -> f64 {
        self.nodes[i].mean
    }

    fn weight_at(&self, i: usize) -> f64 {
        self.nodes[i].weight as f64
    }

    /// The value at `index` (0 ..= merged weight) by interpolating between centroids,
    /// walking on from `(weight_so_far, pos)` (t-digest-c's shared walk of QUANTILE).
    fn value_at_index(
        &self,
        index: f64,
        left_weight: f64,
        weight_so_far: &mut f64,
        pos: &mut usize,
    ) -> f64 {
        let n = self.merged;
        let mw = self.merged_weight;
        if left_weight > 1.0 && index < left_weight / 2.0 {
            return self.min
                + (index - 1.0) / (left_weight / 2.0 - 1.0) * (self.mean_at(0) - self.min);
        }
        if index > mw.wrapping_sub(1) as f64 {
            return self.max;
        }
        let right_weight = self.weight_at(n - 1);
        let right_mean = self.mean_at(n - 1);
        if right_weight > 1.0 && mw as f64 - index <= right_weight / 2.0 {
            return self.max
                - (mw as f64 - index - 1.0) / (right_weight / 2.0 - 1.0) * (self.max - right_mean);
        }
        if (mw as f64) < EXACT_HALVES {
            self.skip_to_bracket(index, weight_so_far, pos);
        }
        while *pos + 1 < n {
            let i = *pos;
            let w = self.weight_at(i);
            let w_next = self.weight_at(i + 1);
            let m = self.mean_at(i);
            let m_next = self.mean_at(i + 1);
            let dw = (w + w_next) / 2.0;
            if *weight_so_far + dw > index {
                let mut left_unit = 0.0;
                if w == 1.0 {
                    if index - *weight_so_far < 0.5 {
                        return m;
                    }
                    left_unit = 0.5;
                }
                let mut right_unit = 0.0;
                if w_next == 1.0 {
                    if *weight_so_far + dw - index <= 0.5 {
                        return m_next;
                    }
                    right_unit = 0.5;
                }
                let z1 = index - *weight_so_far - left_unit;
                let z2 = *weight_so_far + dw - index - right_unit;
                return weighted_average(m, z2, m_next, z1);
            }
            *weight_so_far += dw;
            *pos += 1;
        }
        let z1 = index - mw as f64 - right_weight / 2.0;
        let z2 = right_weight / 2.0 - z1;
        weighted_average(right_mean, z1, self.max, z2)
    }

    /// Moves the walk of [`value_at_index`](Self::value_at_index) on to the first pair of
    /// centroids that brackets `index`, or to the last centroid, in integers: the same stop
    /// and the same `weight_so_far` as its loop of doubles. Only for a merged weight below
    /// 2^52: the weights are non-negative integers adding up to at most it, so every sum
    /// of them and their halves is exact, and `weight_so_far + dw > index` compares
    /// `2·S(i+1) + w(i+1)` with `2·index` (`S(i)`: the weight before centroid `i`).
    fn skip_to_bracket(&self, index: f64, weight_so_far: &mut f64, pos: &mut usize) {
        let nodes = &self.nodes[..self.merged];
        let n = nodes.len();
        let mut p = *pos;
        let Some(first) = nodes.get(p) else {
            return;
        };
        // S(p + 1) = weight_so_far + w(p) / 2; an integer below 2^52.
        let mut through = (*weight_so_far + first.weight as f64 / 2.0) as i64;
        // An integer passes 2·index exactly when it passes its floor (index >= 0).
        let limit = (2.0 * index).floor() as i64;
        // `2·S(i) + w(i)` grows with i (by w(i - 1) + w(i) >= 0): four centroids whose last
        // stays within the limit are passed at once.
        while p + 4 < n {
            let four = &nodes[p + 1..p + 5];
            let before_last = through + four[0].weight + four[1].weight + four[2].weight;
            if 2 * before_last + four[3].weight > limit {
                break;
            }
            through = before_last + four[3].weight;
            p += 4;
        }
        for next in &nodes[p + 1..] {
            if 2 * through + next.weight > limit {
                break;
            }
            through += next.weight;
            p += 1;
        }
        *pos = p;
        *weight_so_far = through as f64 - nodes[p].weight as f64 / 2.0;
    }

    /// One quantile as BYRANK asks it (t-digest-c's `td_quantile`).
    pub fn quantile(&mut self, q: f64) -> f64 {
        self.compress();
        if !(0.0..=1.0).contains(&q) || self.merged == 0 {
            return f64::NAN;
        }
        if self.merged == 1 {
            return self.mean_at(0);
        }
        let index = q * self.merged_weight as f64;
        if index < 1.0 {
            return self.min;
        }
        let left = self.weight_at(0);
        let mut so_far = left / 2.0;
        let mut pos = 0;
        self.value_at_index(index, left, &mut so_far, &mut pos)
    }

    /// TDIGEST.QUANTILE: each non-decreasing run of `qs` (all in [0, 1]) walks the
    /// centroids once (t-digest-c's `td_quantiles`, as RedisBloom splits the request).
    pub fn quantiles(&mut self, qs: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(qs.len());
        self.quantiles_each(qs, |v| out.push(v));
        out
    }

    /// [`quantiles`](Self::quantiles), each answer handed to `emit` in order.
    pub fn quantiles_each(&mut self, qs: &[f64], mut emit: impl FnMut(f64)) {
        let mut i = 0;
        while i < qs.len() {
            let start = i;
            while i + 1 < qs.len() && qs[i] <= qs[i + 1] {
                i += 1;
            }
            self.quantile_run(&qs[start..=i], &mut emit);
            i += 1;
        }
    }

    fn quantile_run(&mut self, qs: &[f64], emit: &mut impl FnMut(f64)) {
        self.compress();
        match self.merged {
            0 => qs.iter().for_each(|_| emit(f64::NAN)),
            1 => qs.iter().for_each(|&q| {
                emit(if (0.0..=1.0).contains(&q) {
                    self.mean_at(0)
                } else {
                    f64::NAN
                })
            }),
            _ => {
                let left = self.weight_at(0);
                let mut so_far = left / 2.0;
                let mut pos = 0;
                for &q in qs {
                    let index = q * self.merged_weight as f64;
                    emit(self.value_at_index(index, left, &mut so_far, &mut pos));
                }
            }
        }
    }

    /// TDIGEST.CDF of one value.
    pub fn cdf(&mut self, val: f64) -> f64 {
        self.compress();
        let n = self.merged;
        if n == 0 {
            return f64::NAN;
        }
        if val < self.min {
            return 0.0;
        }
        if val > self.max {
            return 1.0;
        }
        if n == 1 {
            let width = self.max - self.min;
            return if val - self.min <= width {
                0.5
            } else {
                (val - self.min) / width
            };
        }
        let mw = self.merged_weight as f64;
        let left_mean = self.mean_at(0);
        let left_weight = self.weight_at(0);
        if val < left_mean {
            let width = left_mean - self.min;
            if width > 0.0 {
                if val == self.min {
                    return 0.5 / mw;
                }
                return (1.0 + (val - self.min) / width * (left_weight / 2.0 - 1.0)) / mw;
            }
            return 0.0;
        }
        let right_mean = self.mean_at(n - 1);
        let right_weight = self.weight_at(n - 1);
        if val > right_mean {
            let width = self.max - right_mean;
            if width > 0.0 {
                if val == self.max {
                    return 1.0 - 0.5 / mw;
                }
                let dq = (1.0 + (self.max - val) / width * (right_weight / 2.0 - 1.0)) / mw;
                return 1.0 - dq;
            }
            return 1.0;
        }
        let nodes = &self.nodes[..n];
        let mut so_far = 0.0;
        let mut m = left_mean;
        for it in 0..n - 1 {
            let (this, next) = (&nodes[it], &nodes[it + 1]);
            let m_next = next.mean;
            // t-digest-c's two tests, `m == val` then `m <= val && val < m_next`, at once.
            if !(m <= val && (val < m_next || m == val)) {
                so_far += this.weight as f64;
                m = m_next;
                continue;
            }
            if m == val {
                let mut dw = 0.0;
                for c in nodes[it..].iter().take_while(|c| c.mean == val) {
                    dw += c.weight as f64;
                }
                return (so_far + dw / 2.0) / mw;
            }
            let w = this.weight as f64;
            let w_next = next.weight as f64;
            if m_next - m > 0.0 {
                let mut left_excluded = 0.0;
                let mut right_excluded = 0.0;
                if w == 1.0 {
                    if w_next == 1.0 {
                        return (so_far + 1.0) / mw;
                    }
                    left_excluded = 0.5;
                } else if w_next == 1.0 {
                    right_excluded = 0.5;
                }
                let dw = (w + w_next) / 2.0;
                let dw_no_singleton = dw - left_excluded - right_excluded;
                let base = so_far + w / 2.0 + left_excluded;
                return (base + dw_no_singleton * (val - m) / (m_next - m)) / mw;
            }
            let dw = (w + w_next) / 2.0;
            return (so_far + dw) / mw;
        }
        1.0 - 0.5 / mw
    }

    /// TDIGEST.RANK (`reverse`: REVRANK) of one value (not NaN): -2 when empty, -1 / the
    /// count outside the observed range, else the CDF scaled and rounded as RedisBloom does.
    /// A digest of one observation answers as one centroid would (CDF 0.5 at the value):
    /// RedisBloom replies a NaN cast to an integer there. Elsewhere a NaN (a digest whose
    /// nodes all weigh 0) is that cast, as RedisBloom replies it.
    pub fn rank(&mut self, val: f64, reverse: bool) -> i64 {
        let size = self.size() as f64;
        let r = if size == 0.0 {
            -2.0
        } else if val < self.min {
            if reverse {
                size
            } else {
                -1.0
            }
        } else if val > self.max {
            if reverse {
                -1.0
            } else {
                size
            }
        } else {
            let mut cdf = self.cdf(val);
            if cdf.is_nan() && self.single_value().is_some() {
                cdf = 0.5;
            }
            let scaled = cdf * size;
            if reverse {
                (size - scaled.round()).round()
            } else {
                half_round_down(scaled)
            }
        };
        c_llong(r)
    }

    /// TDIGEST.BYRANK (`reverse`: BYREVRANK) of one rank (non-negative).
    pub fn by_rank(&mut self, rank: i64, reverse: bool) -> f64 {
        let size = self.size() as f64;
        let rank = rank as f64;
        if size == 0.0 {
            f64::NAN
        } else if rank == 0.0 {
            if reverse {
                self.max
            } else {
                self.min
            }
        } else if rank >= size {
            if reverse {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        } else {
            let r = if reverse { size - rank - 1.0 } else { rank };
            self.quantile(r / size)
        }
    }

    /// TDIGEST.TRIMMED_MEAN between two cuts (checked: 0 <= low < high <= 1).
    pub fn trimmed_mean(&mut self, low: f64, high: f64) -> f64 {
        self.compress();
        if self.merged == 0 || !(0.0..=1.0).contains(&low) || !(0.0..=1.0).contains(&high) {
            return f64::NAN;
        }
        if self.merged == 1 {
            return self.mean_at(0);
        }
        let mw = self.merged_weight as f64;
        let leftmost = (mw * low).floor();
        let rightmost = (mw * high).ceil();
        let mut done = 0.0;
        let mut sum = 0.0;
        let mut count = 0.0;
        for c in self.merged_nodes() {
            let w = c.weight as f64;
            let mut add = w;
            add -= c_min(c_max(0.0, leftmost - done), add);
            add = c_min(c_max(0.0, rightmost - done), add);
            done += w;
            sum += c.mean * add;
            count += add;
            if done >= rightmost {
                break;
            }
        }
        sum / count
    }
}

/// C's `(long long)x` as x86-64 computes it (RedisBloom's RANK replies): a NaN or a value
/// outside the range is `i64::MIN`, where Rust's `as` would give 0 or saturate.
fn c_llong(x: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// C's `((x) < (y)) ? (x) : (y)`.
fn c_min(x: f64, y: f64) -> f64 {
    if x < y {
        x
    } else {
        y
    }
}

/// C's `((x) > (y)) ? (x) : (y)`.
fn c_max(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

#[cfg(test)]
mod tests;
