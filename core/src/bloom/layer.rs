//! One fixed-size Bloom layer: the bit array, k, capacity and count.

use std::borrow::Cow;

use bitvec::prelude::{BitVec, Lsb0};

use super::block::{bits_in_block, block_of, BLOCK_WORDS};
use super::probe::ItemHash;
use crate::error::Result;
use crate::hash::divisor::Divisor;
use crate::le_words;
use crate::memory::fallible::zeroed;
use crate::memory::pages::advise_huge_pages;
use crate::memory::prefetch::prefetch;
use crate::memory::relocate::{relocate_vec, Relocate};

/// Largest k any (n, p) with p a positive double can produce: -ln(4.9e-324) / ln 2 ~ 1075.
pub const MAX_HASHES: u32 = 1100;

/// One Bloom layer. Bit `i` is bit `i % 64` (least significant first) of word `i / 64`, the
/// layout of Guava's `long[]` and of `BitVec<u64, Lsb0>`.
#[derive(Debug, PartialEq)]
pub struct Layer {
    bits: BitVec<u64, Lsb0>,
    /// The word count as a divisor: probe value `v` is bit `v % 64` of word
    /// `(v / 64) % words`, the same bit as Guava's `v % (64 * words)`, with no division.
    words_div: Divisor,
    k: u32,
    capacity: u64,
    count: u64,
    error: f64,
    /// Bits per entry as RedisBloom's format records it; 0 in Guava-scheme layers, whose
    /// formats do not carry it.
    bpe: f64,
    /// All probes of an item in one 512-bit block (see [`blocked`](super::blocked)); the
    /// word count is then a multiple of 8.
    blocked: bool,
}

// `BF.INFO Size` counts this struct as each layer's bookkeeping (see `footprint`).
const _: () = assert!(std::mem::size_of::<Layer>() as u64 == super::footprint::LAYER_BYTES);

/// A deep copy (for `COPY`), through `from_words` so the copy gets huge pages too.
impl Clone for Layer {
    fn clone(&self) -> Layer {
        Layer::from_words(
            self.capacity,
            self.count,
            self.error,
            self.k,
            self.words().to_vec(),
        )
        .with_bpe(self.bpe)
        .with_blocked(self.blocked)
    }
}

impl Layer {
    /// Moves the bit array's block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        let mut words = std::mem::take(&mut self.bits).into_vec();
        relocate_vec(&mut words, mover);
        self.bits = BitVec::from_vec(words);
    }

    /// An empty layer, or `AllocFailed`. The caller has checked `words` against any size
    /// limit: the zeroed allocation goes through `calloc`, so untouched pages cost nothing
    /// until written.
    pub fn new(capacity: u64, error: f64, k: u32, words: u64) -> Result<Layer> {
        let words = zeroed(usize::try_from(words).unwrap_or(usize::MAX))?;
        Ok(Layer::from_words(capacity, 0, error, k, words))
    }

    /// A layer over existing words (no copy). `words` must not be empty.
    pub fn from_words(capacity: u64, count: u64, error: f64, k: u32, words: Vec<u64>) -> Layer {
        advise_huge_pages(&words);
        Layer {
            words_div: Divisor::new(words.len() as u64),
            bits: BitVec::from_vec(words),
            k,
            capacity,
            count,
            error,
            bpe: 0.0,
            blocked: false,
        }
    }

    /// The same layer in the blocked layout (its word count must be a multiple of 8).
    pub fn blocked(self) -> Layer {
        self.with_blocked(true)
    }

    pub fn with_blocked(mut self, blocked: bool) -> Layer {
        debug_assert!(!blocked || self.words().len().is_multiple_of(BLOCK_WORDS as usize));
        self.blocked = blocked;
        self
    }

    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// The same layer recording `count` items (a loaded layer).
    pub fn with_count(mut self, count: u64) -> Layer {
        self.count = count;
        self
    }

    /// The same layer recording `bpe` bits per entry (RedisBloom's format stores it).
    pub fn with_bpe(mut self, bpe: f64) -> Layer {
        self.bpe = bpe;
        self
    }

    pub fn k(&self) -> u32 {
        self.k
    }
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn error(&self) -> f64 {
        self.error
    }
    pub fn bpe(&self) -> f64 {
        self.bpe
    }
    pub fn bit_size(&self) -> u64 {
        self.bits.len() as u64
    }
    pub fn bytes(&self) -> u64 {
        self.bit_size() / 8
    }
    pub fn words(&self) -> &[u64] {
        self.bits.as_raw_slice()
    }
    /// Items counted so far have reached the capacity.
    pub fn is_full(&self) -> bool {
        self.count >= self.capacity
    }

    /// Where probe value `v` lands: (word index, bit mask).
    #[inline(always)]
    pub fn position(&self, v: u64) -> (usize, u64) {
        (self.words_div.remainder(v >> 6) as usize, 1u64 << (v & 63))
    }

    /// The item's probes as (word index, bit mask) pairs.
    #[inline(always)]
    fn positions(&self, hash: ItemHash) -> impl Iterator<Item = (usize, u64)> + '_ {
        hash.probe_values(self.k).map(|v| self.position(v))
    }

    /// The first word of the item's block in a blocked layer.
    #[inline(always)]
    pub fn block_start(&self, hash: ItemHash) -> usize {
        let blocks = (self.words().len() / BLOCK_WORDS as usize) as u64;
        (block_of(hash.h1, blocks) * BLOCK_WORDS) as usize
    }

    /// The item's probes in a blocked layer as (word index, bit mask) pairs.
    #[inline(always)]
    fn block_positions(&self, hash: ItemHash) -> impl Iterator<Item = (usize, u64)> {
        let start = self.block_start(hash);
        bits_in_block(hash.h2, self.k).map(move |b| (start + (b >> 6) as usize, 1u64 << (b & 63)))
    }

    /// All k probes of the item are set.
    #[inline]
    pub fn contains(&self, hash: ItemHash) -> bool {
        let words = self.words();
        if self.blocked {
            return self
                .block_positions(hash)
                .all(|(i, mask)| words[i] & mask != 0);
        }
        self.positions(hash).all(|(i, mask)| words[i] & mask != 0)
    }

    /// Sets the item's probes and counts it. The caller decides whether it was new.
    #[inline]
    pub fn insert(&mut self, hash: ItemHash) {
        if self.blocked {
            if !self.insert_if_absent_blocked(hash) {
                self.count += 1;
            }
            return;
        }
        let (div, k) = (self.words_div, self.k);
        let words = self.bits.as_raw_mut_slice();
        for v in hash.probe_values(k) {
            words[div.remainder(v >> 6) as usize] |= 1u64 << (v & 63);
        }
        self.count += 1;
    }

    /// Sets the item's probes and counts it unless all were set already; `true` if it was
    /// added. One pass: setting a bit that is already set changes nothing, so the item is
    /// new exactly when some probe was clear before its store.
    #[inline]
    pub fn insert_if_absent(&mut self, hash: ItemHash) -> bool {
        if self.blocked {
            return self.insert_if_absent_blocked(hash);
        }
        let (div, k) = (self.words_div, self.k);
        let words = self.bits.as_raw_mut_slice();
        let mut present = true;
        for v in hash.probe_values(k) {
            let (i, mask) = (div.remainder(v >> 6) as usize, 1u64 << (v & 63));
            present &= words[i] & mask != 0;
            words[i] |= mask;
        }
        if !present {
            self.count += 1;
        }
        !present
    }

    /// [`Layer::insert_if_absent`] in a blocked layer: the block's eight words are read,
    /// changed and written back in registers.
    #[inline]
    fn insert_if_absent_blocked(&mut self, hash: ItemHash) -> bool {
        let start = self.block_start(hash);
        let k = self.k;
        let words = self.bits.as_raw_mut_slice();
        let block: &mut [u64] = &mut words[start..start + BLOCK_WORDS as usize];
        let mut present = true;
        for b in bits_in_block(hash.h2, k) {
            let (i, mask) = ((b >> 6) as usize, 1u64 << (b & 63));
            present &= block[i] & mask != 0;
            block[i] |= mask;
        }
        if !present {
            self.count += 1;
        }
        !present
    }

    /// ORs `other`'s bits into this layer's, word by word (both of one bit size, the
    /// caller checked). The count is the caller's to set.
    pub(super) fn or_bits(&mut self, other: &Layer) {
        let words = self.bits.as_raw_mut_slice();
        for (w, &o) in words.iter_mut().zip(other.words()) {
            *w |= o;
        }
    }

    /// Bits set, over the whole array.
    pub fn ones(&self) -> u64 {
        self.words().iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Sets the recorded item count (a merged layer's estimate).
    pub(super) fn set_count(&mut self, count: u64) {
        self.count = count;
    }

    /// Starts loading the cache lines of all the item's probes (a hint; see `prefetch`): the
    /// one block of a blocked layer.
    #[inline]
    pub fn prefetch(&self, hash: ItemHash) {
        let words = self.words();
        if self.blocked {
            return prefetch(words, self.block_start(hash));
        }
        self.positions(hash).for_each(|(i, _)| prefetch(words, i));
    }

    /// The whole bit array as little-endian bytes (no copy on a little-endian machine).
    pub fn le_bytes(&self) -> Cow<'_, [u8]> {
        le_words::as_bytes(self.words())
    }

    /// Copies `len` bytes of the bit array starting at byte `start`, little-endian words.
    /// The range must lie inside the layer.
    pub fn read_bytes(&self, start: u64, len: u64) -> Vec<u8> {
        le_words::read(self.words(), start, len)
    }

    /// Overwrites the bit array from byte `start` with `data` (little-endian words).
    /// The range must lie inside the layer.
    pub fn write_bytes(&mut self, start: u64, data: &[u8]) {
        le_words::write(self.bits.as_raw_mut_slice(), start, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::guava;

    #[test]
    fn byte_views_round_trip_at_any_alignment() {
        let mut layer = Layer::new(10, 0.01, 3, 4).unwrap();
        let data: Vec<u8> = (1..=19).collect();
        layer.write_bytes(5, &data);
        assert_eq!(layer.read_bytes(5, 19), data);
        assert_eq!(layer.read_bytes(0, 5), vec![0; 5]);
        assert_eq!(&*layer.le_bytes(), &layer.read_bytes(0, 32)[..]);
        assert_eq!(layer.read_bytes(24, 8), vec![0; 8]);
        // Little-endian words: byte 5 is bits 40..48 of word 0.
        assert_eq!(layer.words()[0], 0x0302_0100_0000_0000);
    }

    #[test]
    fn insert_if_absent_matches_test_then_insert() {
        for k in [1, 7, 64, 65, 200] {
            let mut one_pass = Layer::new(1000, 0.01, k, 40).unwrap();
            let mut two_pass = one_pass.clone();
            for i in 0..3000u32 {
                let h = guava::hash(&(i % 1700).to_le_bytes());
                let expected = !two_pass.contains(h);
                if expected {
                    two_pass.insert(h);
                }
                assert_eq!(one_pass.insert_if_absent(h), expected, "k {k} item {i}");
            }
            assert_eq!(one_pass, two_pass);
        }
    }
}
