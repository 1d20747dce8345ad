//! The decay of a HeavyKeeper bucket held by another item, made deterministic.
//!
//! RedisBloom decrements such a bucket, once per unit of the increment, when
//! `rand() / RAND_MAX < decay^count`, with the C library's process-wide `rand()`: a replica,
//! an AOF replay or a restart rolls other numbers and ends up with other counts. Here the
//! probability is RedisBloom's (the same 256-entry table of `decay^i`, the same composition
//! above it), and the uniform number is a hash of the sketch's roll counter (how many rolls
//! the key has made, carried in its persisted state), the item's fingerprint, the row and
//! the bucket's count. The same commands therefore give the same counts everywhere, and each
//! roll is a fresh draw: an item that keeps hitting a stale bucket is not stuck with one
//! outcome.

/// Entries in RedisBloom's decay table (`TOPK_DECAY_LOOKUP_TABLE`).
pub const TABLE_LEN: usize = 256;

/// `decay^i` for `i` in `0..256`, as RedisBloom's `pow(decay, i)` fills its table.
#[derive(Debug, Clone, PartialEq)]
pub struct DecayTable(Box<[f64; TABLE_LEN]>);

impl DecayTable {
    pub fn new(decay: f64) -> DecayTable {
        let mut t = Box::new([0.0; TABLE_LEN]);
        for (i, v) in t.iter_mut().enumerate() {
            *v = decay.powf(i as f64);
        }
        DecayTable(t)
    }

    /// The probability that a bucket holding `count` decays: the table below 256, above it
    /// `table[255]^(count / 255) * table[count % 255]`, as RedisBloom composes it.
    pub fn probability(&self, count: u32) -> f64 {
        let t = &self.0;
        if (count as usize) < TABLE_LEN {
            t[count as usize]
        } else {
            let last = TABLE_LEN as u32 - 1;
            t[TABLE_LEN - 1].powf((count / last) as f64) * t[(count % last) as usize]
        }
    }
}

/// splitmix64's finaliser: a bijective 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The uniform number in `[0, 1)` of roll number `roll` by the item with fingerprint `fp`
/// on a bucket of row `row` holding `count`.
pub fn uniform(roll: u64, fp: u32, row: u32, count: u32) -> f64 {
    Draws::new(fp, row, count).at(roll)
}

/// The draws of the item with fingerprint `fp` on a bucket of row `row` holding `count`:
/// [`uniform`] with all but the roll number worked out once, for the run of rolls that
/// leave the bucket's count as it is.
pub struct Draws(u64);

impl Draws {
    pub fn new(fp: u32, row: u32, count: u32) -> Draws {
        Draws(((fp as u64) << 32 | count as u64) ^ mix((row as u64) ^ 0x5bd1_e995_0000_0000))
    }

    /// The uniform number of roll number `roll`.
    pub fn at(&self, roll: u64) -> f64 {
        let x = mix(mix(roll.wrapping_add(0x9e37_79b9_7f4a_7c15)) ^ self.0);
        (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_composition() {
        let t = DecayTable::new(0.9);
        assert_eq!(t.probability(0), 1.0);
        assert!((t.probability(1) - 0.9).abs() < 1e-15);
        let big = t.probability(600);
        assert!((big - 0.9f64.powi(600)).abs() < 1e-30);
        assert_eq!(DecayTable::new(1.0).probability(u32::MAX), 1.0);
    }

    #[test]
    fn uniform_is_spread_and_fresh_per_roll() {
        let n = 100_000;
        let mut below = [0u32; 10];
        for roll in 0..n {
            let u = uniform(roll, 42, 3, 7);
            assert!((0.0..1.0).contains(&u));
            below[(u * 10.0) as usize] += 1;
        }
        for b in below {
            assert!((9_000..11_000).contains(&b), "{below:?}");
        }
    }

    #[test]
    fn decays_happen_at_redisbloom_s_rate() {
        // The share of rolls that decay a bucket of count c is decay^c, as with rand().
        let t = DecayTable::new(0.9);
        for count in [1u32, 3, 10, 40] {
            let p = t.probability(count);
            let n = 200_000u64;
            let hits = (0..n)
                .filter(|&roll| uniform(roll * 7 + 1, 0xdead_beef, 2, count) < p)
                .count() as f64;
            let share = hits / n as f64;
            let sigma = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (share - p).abs() < 5.0 * sigma + 1e-9,
                "count {count}: {share} vs {p}"
            );
        }
    }
}
