//! The counting filter: Guava's probes over packed 4- or 8-bit counters.

use std::mem::size_of;

use crate::bloom::batch::{PREFETCH_DISTANCE, PREFETCH_MIN_BYTES};
use crate::bloom::codec::writeto;
use crate::bloom::guava::Sizing;
use crate::bloom::keyed::{self, Secret};
use crate::bloom::layer::MAX_HASHES;
use crate::bloom::meta::MAX_CAPACITY;
use crate::bloom::ItemHash;
use crate::error::{bad_data, check_limit, Error, Result};
use crate::hash::divisor::Divisor;
use crate::le_words;
use crate::memory::fallible::zeroed;
use crate::memory::pages::advise_huge_pages;
use crate::memory::prefetch::{prefetch, with_ahead};
use crate::memory::relocate::{relocate_vec, Relocate};

/// Counter widths a filter may have.
pub const COUNTER_BITS: [u32; 2] = [4, 8];
/// The width `CBF.RESERVE` takes without `COUNTERBITS`.
pub const DEFAULT_COUNTER_BITS: u32 = 4;

/// A filter's parameters without its counters: what its RDB value and SCANDUMP header
/// carry. `k` and `words` are the shape [`Sizing::scaling`] gives `capacity` and
/// `error_rate` (that of an `RSbloom--` layer held under its rate), and checked so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountingMeta {
    pub capacity: u64,
    pub error_rate: f64,
    pub counter_bits: u32,
    pub k: u32,
    /// 64-bit words of the Guava filter of this shape (counters: 64 per word).
    pub words: u64,
    /// Adds less deletes.
    pub count: u64,
    /// `KEYED`: the probes come from SipHash under this secret, as a keyed `RSbloom--`
    /// filter's ([`Secret::hash`]), not Guava's public hash.
    pub secret: Option<Secret>,
}

/// Bytes of counters for `words` Guava words of `counter_bits`-bit counters (saturating).
pub fn counter_bytes(words: u64, counter_bits: u32) -> u64 {
    words.saturating_mul(8 * counter_bits as u64)
}

/// Memory a filter of this shape takes: the figure `CBF.INFO Size` and `MEMORY USAGE`
/// report, and the one `bf.max-filter-bytes` limits.
pub fn memory_for(words: u64, counter_bits: u32) -> u64 {
    (size_of::<CountingFilter>() as u64).saturating_add(counter_bytes(words, counter_bits))
}

impl CountingMeta {
    /// The parameters of a new, empty filter (unchecked: see [`CountingMeta::validate`]).
    ///
    /// The shape is that of a scaling `RSbloom--` layer whose part is the whole rate:
    /// Guava's `create(capacity, 0.9 * error_rate)`, grown in steps of 1/64 until the
    /// predicted rate of a full filter is within `0.9 * error_rate`. Guava's own
    /// `create(capacity, error_rate)` lands above the rate when full (k rounded to an
    /// integer, double hashing's floor: 1.003 x at 1 %), and a filter that cannot scale must
    /// hold its rate at its capacity.
    pub fn new(error_rate: f64, capacity: u64, counter_bits: u32) -> CountingMeta {
        let s = Sizing::scaling(capacity, error_rate);
        CountingMeta {
            capacity,
            error_rate,
            counter_bits,
            k: s.k,
            words: s.words,
            count: 0,
            secret: None,
        }
    }

    /// Checks everything before a byte is allocated: ranges, the shape against Guava's for
    /// the capacity and rate, and the size against `limit`.
    pub fn validate(&self, limit: u64) -> Result<()> {
        if !(self.error_rate > 0.0 && self.error_rate < 1.0) {
            return Err(bad_data("error rate out of range"));
        }
        if !(1..=MAX_CAPACITY).contains(&self.capacity) {
            return Err(bad_data("capacity out of range"));
        }
        if !COUNTER_BITS.contains(&self.counter_bits) {
            return Err(bad_data("counter bits must be 4 or 8"));
        }
        let s = Sizing::scaling(self.capacity, self.error_rate);
        if (s.k, s.words) != (self.k, self.words) || self.k == 0 || self.k > MAX_HASHES {
            return Err(bad_data("shape does not match the capacity and error rate"));
        }
        check_limit(memory_for(self.words, self.counter_bits), limit)
    }
}

/// A counting Bloom filter. Counter `c` (the Guava filter's bit `c`) is bits
/// `(c % per) * counter_bits ..` of `counters[c / per]`, `per = 64 / counter_bits`.
#[derive(Debug, Clone, PartialEq)]
pub struct CountingFilter {
    pub(super) counters: Vec<u64>,
    /// The Guava word count as a divisor: probe value `v` is counter
    /// `((v >> 6) % words) * 64 + (v & 63)`, Guava's bit `v % (64 * words)`.
    words_div: Divisor,
    pub(super) meta: CountingMeta,
    /// `log2(64 / counter_bits)`: counters per word as a shift.
    per_shift: u32,
    /// The largest counter value, where a counter sticks.
    max: u64,
    /// Counters at `max`.
    pub(super) saturated: u64,
}

/// Counters at their maximum in one word of `counter_bits`-bit counters.
#[inline]
fn saturated_in(word: u64, counter_bits: u32) -> u64 {
    match counter_bits {
        4 => (word & (word >> 1) & (word >> 2) & (word >> 3) & 0x1111_1111_1111_1111).count_ones()
            as u64,
        _ => {
            let mut all = word;
            for s in 1..8 {
                all &= word >> s;
            }
            (all & 0x0101_0101_0101_0101).count_ones() as u64
        }
    }
}

impl CountingFilter {
    /// An empty filter of `capacity` items at `error_rate` with `counter_bits`-bit counters,
    /// refused (nothing allocated) when out of range or over `limit`.
    pub fn new(
        error_rate: f64,
        capacity: u64,
        counter_bits: u32,
        limit: u64,
    ) -> Result<CountingFilter> {
        CountingFilter::from_meta(
            &CountingMeta::new(error_rate, capacity, counter_bits),
            limit,
        )
    }

    /// An empty filter of these parameters (the count kept), validated first.
    pub fn from_meta(meta: &CountingMeta, limit: u64) -> Result<CountingFilter> {
        meta.validate(limit)?;
        let len = (counter_bytes(meta.words, meta.counter_bits) / 8) as usize;
        let counters = zeroed::<u64>(len)?;
        advise_huge_pages(&counters);
        Ok(CountingFilter {
            counters,
            words_div: Divisor::new(meta.words),
            meta: *meta,
            per_shift: (64 / meta.counter_bits).trailing_zeros(),
            max: (1u64 << meta.counter_bits) - 1,
            saturated: 0,
        })
    }

    pub fn meta(&self) -> CountingMeta {
        self.meta
    }
    pub fn capacity(&self) -> u64 {
        self.meta.capacity
    }
    pub fn error_rate(&self) -> f64 {
        self.meta.error_rate
    }
    pub fn k(&self) -> u32 {
        self.meta.k
    }
    pub fn counter_bits(&self) -> u32 {
        self.meta.counter_bits
    }
    /// Counters (the Guava filter's bits).
    pub fn counters_len(&self) -> u64 {
        self.meta.words * 64
    }
    /// Adds less deletes.
    pub fn count(&self) -> u64 {
        self.meta.count
    }
    /// Counters stuck at their maximum.
    pub fn saturated(&self) -> u64 {
        self.saturated
    }
    /// Memory as `MEMORY USAGE` reports it.
    pub fn memory_bytes(&self) -> u64 {
        memory_for(self.meta.words, self.meta.counter_bits)
    }
    /// The counter words (little-endian order of counters within each).
    pub fn counter_words(&self) -> &[u64] {
        &self.counters
    }
    /// Bytes of counter data (SCANDUMP's data stream).
    pub fn data_len(&self) -> u64 {
        self.counters.len() as u64 * 8
    }

    /// Moves the counters' block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.counters, mover);
    }

    /// A keyed filter: `secret` in place of Guava's hash (for an empty filter; the counters of
    /// a filled one would no longer match its items).
    pub fn with_secret(mut self, secret: Secret) -> CountingFilter {
        self.meta.secret = Some(secret);
        self
    }

    /// Keyed (the secret itself is never shown).
    pub fn keyed(&self) -> bool {
        self.meta.secret.is_some()
    }

    /// The item's hash words: Guava's, or SipHash under the filter's secret (binary safe).
    #[inline]
    pub fn hash(&self, item: &[u8]) -> ItemHash {
        keyed::hash_or_guava(self.meta.secret, item)
    }

    /// [`CountingFilter::hash`] of each item.
    pub fn hash_all<'a>(&self, items: impl IntoIterator<Item = &'a [u8]>) -> Vec<ItemHash> {
        keyed::hash_all_or_guava(self.meta.secret, items)
    }

    /// Where probe value `v` lands: (counter word, shift of the counter in it).
    #[inline(always)]
    fn slot(&self, v: u64) -> (usize, u32) {
        let c = (self.words_div.remainder(v >> 6) << 6) | (v & 63);
        let per_mask = (1u64 << self.per_shift) - 1;
        (
            (c >> self.per_shift) as usize,
            ((c & per_mask) as u32) * self.meta.counter_bits,
        )
    }

    #[inline(always)]
    fn get(&self, (w, s): (usize, u32)) -> u64 {
        (self.counters[w] >> s) & self.max
    }

    /// Every probe's counter is above zero.
    #[inline]
    pub fn contains_hash(&self, h: ItemHash) -> bool {
        h.probe_values(self.meta.k)
            .all(|v| self.get(self.slot(v)) != 0)
    }

    pub fn contains(&self, item: &[u8]) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// The smallest of the item's counters: how many times it was added less deleted, or
    /// more through collisions (a saturated counter reads as its maximum).
    pub fn count_hash(&self, h: ItemHash) -> u64 {
        h.probe_values(self.meta.k)
            .map(|v| self.get(self.slot(v)))
            .min()
            .unwrap_or(0)
    }

    pub fn count_of(&self, item: &[u8]) -> u64 {
        self.count_hash(self.hash(item))
    }

    /// Increments the item's counters (a saturated one stays) and counts it; `true` if it was
    /// not present before. At capacity, an item not present is refused with
    /// [`Error::Full`] and nothing changes; one present is still counted.
    #[inline]
    pub fn add_hash(&mut self, h: ItemHash) -> Result<bool> {
        if self.meta.count >= self.meta.capacity && !self.contains_hash(h) {
            return Err(Error::Full);
        }
        let mut present = true;
        for v in h.probe_values(self.meta.k) {
            let (w, s) = self.slot(v);
            let c = (self.counters[w] >> s) & self.max;
            present &= c != 0;
            if c < self.max {
                self.counters[w] += 1 << s;
                self.saturated += (c + 1 == self.max) as u64;
            }
        }
        self.meta.count = self.meta.count.saturating_add(1);
        Ok(!present)
    }

    pub fn add(&mut self, item: &[u8]) -> Result<bool> {
        self.add_hash(self.hash(item))
    }

    /// Decrements the item's counters (a saturated one stays) if all are above zero, and
    /// uncounts it; `false`, with nothing changed, if one is zero. An item that was never
    /// added but answers present takes counts from the items it collides with.
    #[inline]
    pub fn delete_hash(&mut self, h: ItemHash) -> bool {
        if !self.contains_hash(h) {
            return false;
        }
        for v in h.probe_values(self.meta.k) {
            let (w, s) = self.slot(v);
            let c = (self.counters[w] >> s) & self.max;
            // Zero only where a never-added item probes one counter twice.
            if c != self.max && c != 0 {
                self.counters[w] -= 1 << s;
            }
        }
        self.meta.count = self.meta.count.saturating_sub(1);
        true
    }

    pub fn delete(&mut self, item: &[u8]) -> bool {
        self.delete_hash(self.hash(item))
    }

    /// Starts loading the words of all the item's counters.
    #[inline]
    fn prefetch(&self, h: ItemHash) {
        for v in h.probe_values(self.meta.k) {
            prefetch(&self.counters, self.slot(v).0);
        }
    }

    fn prefetching(&self, prefetch: bool) -> bool {
        prefetch && self.data_len() >= PREFETCH_MIN_BYTES
    }

    /// Runs `op` on each hash in order, prefetching the counters of the items a few places
    /// ahead in a large filter; stops after `op` says so.
    fn walk<T>(
        &mut self,
        hashes: &[ItemHash],
        prefetch: bool,
        mut op: impl FnMut(&mut CountingFilter, ItemHash) -> (T, bool),
        mut each: impl FnMut(T),
    ) {
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        for (h, ahead) in walk {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            let (out, stop) = op(self, h);
            each(out);
            if stop {
                break;
            }
        }
    }

    /// [`CountingFilter::add_hash`] for each item in order, handing each result to `each`
    /// and stopping after the first error.
    pub fn add_batch(
        &mut self,
        hashes: &[ItemHash],
        prefetch: bool,
        each: impl FnMut(Result<bool>),
    ) {
        self.walk(
            hashes,
            prefetch,
            |f, h| {
                let r = f.add_hash(h);
                let stop = r.is_err();
                (r, stop)
            },
            each,
        );
    }

    /// [`CountingFilter::delete_hash`] for each item in order.
    pub fn delete_batch(&mut self, hashes: &[ItemHash], prefetch: bool) -> Vec<bool> {
        let mut out = Vec::with_capacity(hashes.len());
        self.walk(
            hashes,
            prefetch,
            |f, h| (f.delete_hash(h), false),
            |d| out.push(d),
        );
        out
    }

    /// [`CountingFilter::contains_hash`] for each item.
    pub fn contains_batch(&self, hashes: &[ItemHash], prefetch: bool) -> Vec<bool> {
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        walk.map(|(h, ahead)| {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            self.contains_hash(h)
        })
        .collect()
    }

    /// Guava word `i` of the filter this one counts for: bit `j` set where counter
    /// `64 i + j` is not zero.
    pub fn guava_word(&self, i: usize) -> u64 {
        let b = self.meta.counter_bits;
        let per = 64 / b as usize;
        let mut out = 0u64;
        for part in 0..(64 / per) {
            let word = self.counters[i * (64 / per) + part];
            for j in 0..per {
                if (word >> (j as u32 * b)) & self.max != 0 {
                    out |= 1 << (part * per + j);
                }
            }
        }
        out
    }

    /// The words of the Guava filter of the same shape and items.
    pub fn guava_words(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.meta.words as usize).map(|i| self.guava_word(i))
    }

    /// The Guava filter of the same shape and items as `BloomFilter.writeTo()` bytes
    /// (`CBF.EXPORT key GUAVA`); refused as `BF.EXPORT` refuses what Guava cannot hold.
    pub fn export_guava(&self) -> Result<Vec<u8>> {
        // Guava would probe other bits for the same items.
        if self.keyed() {
            return Err(Error::VariantNotExportable("Guava"));
        }
        let header = writeto::header_for(self.meta.k, self.counters_len())?;
        Ok(writeto::write_to(header, self.guava_words()))
    }

    /// Counters that are not zero (the Guava filter's set bits).
    pub fn nonzero(&self) -> u64 {
        self.guava_words().map(|w| w.count_ones() as u64).sum()
    }

    pub(super) fn saturated_in_words(&self, range: std::ops::Range<usize>) -> u64 {
        self.counters[range]
            .iter()
            .map(|&w| saturated_in(w, self.meta.counter_bits))
            .sum()
    }

    /// Up to `max` bytes of counter data from byte `offset` (little-endian words); `None`
    /// past the end.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<Vec<u8>> {
        le_words::chunk(&self.counters, offset, max)
    }

    /// Overwrites counter data from byte `offset` with `data`, which must lie inside it
    /// (LOADCHUNK, RDB load); the saturated counters are counted again where it lands.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        le_words::check_chunk(self.data_len(), offset, data.len() as u64)?;
        if data.is_empty() {
            return Ok(());
        }
        let end = offset + data.len() as u64;
        let words = (offset / 8) as usize..end.div_ceil(8) as usize;
        let before = self.saturated_in_words(words.clone());
        le_words::write(&mut self.counters, offset, data);
        let after = self.saturated_in_words(words);
        self.saturated = self.saturated - before + after;
        Ok(())
    }
}
