//! The shape of a sliding-window filter: how many slices an item is written to (`k`), how
//! many generations make the window (`l`), and how many bits a slice has, chosen for the
//! smallest memory whose predicted false-positive rate stays under the one asked for.
//!
//! The prediction: a slice that has taken `j` generations of `g` items into `m` bits has
//! each bit set with probability `1 - exp(-j g / m)`; the `k` youngest slices have taken
//! 1..k generations (the youngest counted full, the worst moment), the older ones `k`. A
//! never-added item is found when `k` consecutive slices hold its bit: the chance of such
//! a run among the window's slices is summed exactly over run lengths. The blocked layout
//! (one word per slice and block) makes neighbouring slices' loads vary together, which
//! the prediction does not see (measured: 1.5x the prediction at k = 11, 1.8x at 13, 2.3x at
//! 15): a shape of `k` is chosen for a rate [`margin`]`(k)` times lower, and the suite
//! measures the result over a million never-added items.

/// Most slices a filter may have: a lookup reads them as one 64-bit mask.
pub const MAX_SLICES: u32 = 64;
/// How much lower than asked a shape of `k` is predicted at: the blocked layout's excess
/// grows with `k` (see the module text), this a little faster.
pub fn margin(k: u32) -> f64 {
    1.0 + (k * k) as f64 / 50.0
}

/// What the filter remembers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The last `capacity` items.
    Count,
    /// The items added in the last `span_ms` milliseconds, `capacity` being the most
    /// expected in one span.
    Time { span_ms: u64 },
}

/// A filter's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Slices an item is written to.
    pub k: u32,
    /// Generations in a window.
    pub l: u32,
    /// Slices in the ring: `k + l` for a COUNT window; `k + 2 l + 2` for a TIME window,
    /// whose generations close by count or by time, so up to `2 l + 2` of them can hold
    /// items of one span.
    pub slices: u32,
    /// Items in a generation (`ceil(capacity / l)`).
    pub generation: u64,
    /// 64-bit words per slice.
    pub blocks: u64,
}

/// Slices a window of `k` and `l` needs.
pub fn slices_for(window: Window, k: u32, l: u32) -> u32 {
    match window {
        Window::Count => k + l,
        Window::Time { .. } => k + 2 * l + 2,
    }
}

/// The predicted false-positive rate of `k` of `n` slices holding `x = k g / m`
/// (see the module text).
pub fn predicted_rate(k: u32, n: u32, x: f64) -> f64 {
    let k = k as usize;
    // run[r]: no run of k found yet and the last r slices hold the bit.
    let mut run = [0f64; MAX_SLICES as usize + 1];
    run[0] = 1.0;
    let mut hit = 0.0;
    for j in 0..n as usize {
        let generations = (j + 1).min(k) as f64;
        let p = 1.0 - (-x * generations / k as f64).exp();
        let miss: f64 = run[..k].iter().sum::<f64>() * (1.0 - p);
        hit += run[k - 1] * p;
        for r in (1..k).rev() {
            run[r] = run[r - 1] * p;
        }
        run[0] = miss;
    }
    hit
}

/// Slices the prediction counts for a window of `l` generations: a TIME window's lookups
/// start only at generations still in it, which hold at most a window's items plus the
/// youngest generation's.
fn predicted_slices(window: Window, k: u32, l: u32) -> u32 {
    match window {
        Window::Count => k + l,
        Window::Time { .. } => k + l + 1,
    }
}

/// The largest load `x` (items per bit over a slice's life) whose prediction stays within
/// `target`.
fn largest_load(k: u32, n: u32, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 8.0f64);
    for _ in 0..24 {
        let mid = (lo + hi) / 2.0;
        if predicted_rate(k, n, mid) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The shape of least memory for `capacity` items at `error_rate`, or `None` when no
/// shape of at most [`MAX_SLICES`] slices reaches the rate.
pub fn choose(window: Window, error_rate: f64, capacity: u64) -> Option<Shape> {
    // A run of k among about k slices half full: 2^-k, so k starts near log2(1 / rate).
    // No run is longer than the ring: clamped, so a rate near 0 (a loaded layer's, halved
    // per level) neither overflows k nor searches shapes that cannot exist.
    let k0 = (1.0 / error_rate)
        .log2()
        .floor()
        .clamp(1.0, MAX_SLICES as f64) as u32;
    let mut best: Option<(f64, u32, u32, f64)> = None;
    for k in k0.saturating_sub(2).max(1)..=k0 + 10 {
        let target = error_rate / margin(k);
        let mut l = 1;
        while slices_for(window, k, l) <= MAX_SLICES {
            let x = largest_load(k, predicted_slices(window, k, l), target);
            if x > 0.0 {
                // Bits per window item: slices * m / (l g) with m = k g / x.
                let bits = slices_for(window, k, l) as f64 * k as f64 / (l as f64 * x);
                if best.is_none_or(|(b, ..)| bits < b) {
                    best = Some((bits, k, l, x));
                }
            }
            l += 1;
        }
    }
    let (_, k, l, x) = best?;
    let generation = capacity.div_ceil(l as u64);
    let bits = (k as f64 * generation as f64 / x).ceil();
    let blocks = ((bits / 64.0).ceil() as u64).max(1);
    Some(Shape {
        k,
        l,
        slices: slices_for(window, k, l),
        generation,
        blocks,
    })
}
