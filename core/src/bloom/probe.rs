//! An item's two hash words and the probe sequence they give, under either scheme.

/// The two hash words of one item, computed once and reused for every layer of a chain,
/// and the mask that turns their combination into a probe value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemHash {
    pub h1: u64,
    pub h2: u64,
    /// `i64::MAX` for Guava (it clears the sign bit), all ones for RedisBloom.
    pub mask: u64,
}

impl ItemHash {
    /// The `k` probe values `(h1 + i*h2) & mask` (wrapping); probe `i` lands on bit
    /// `value % bit_size` of a layer.
    #[inline(always)]
    pub fn probe_values(self, k: u32) -> impl Iterator<Item = u64> {
        let mut combined = self.h1;
        (0..k).map(move |_| {
            let value = combined & self.mask;
            combined = combined.wrapping_add(self.h2);
            value
        })
    }

    /// The `k` bit indexes of this item in a layer of `bit_size` bits (`bit_size > 0`).
    pub fn probes(self, k: u32, bit_size: u64) -> impl Iterator<Item = u64> {
        self.probe_values(k).map(move |v| v % bit_size)
    }
}
