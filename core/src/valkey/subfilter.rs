//! One sub-filter of a valkey-bloom filter: the `bloomfilter` crate's (3.0.x) filter, kept as
//! the crate serializes it so that a save writes back exactly the bytes that were loaded.
//!
//! Layout: byte 0 the version (1), bytes 1..9 the bit array's length in bytes (u64 LE),
//! bytes 9..13 k (u32 LE), bytes 13..45 the 32-byte seed, then the bits (bit i in byte i / 8,
//! mask 1 << (i % 8)). The seed's halves key two SipHash-1-3 hashes of the item as Rust's
//! `Hash` for `[u8]` feeds them (its length, then its bytes); probe i < 2 is hash i, later
//! ones (h0 + i * h1) mod the largest 64-bit prime, every probe then mod the bit count.

use crate::error::{bad_data, Result};
use crate::hash::divisor::Divisor;
use crate::hash::siphash::{sip13_len_prefixed, sip13_len_prefixed_pair, SipKey};
use crate::memory::fallible;
use crate::memory::prefetch::prefetch;

/// Bytes before the bits.
pub const HEADER_BYTES: usize = 1 + 8 + 4 + 32;
const VERSION: u8 = 1;
const PRIME: u64 = 0xFFFF_FFFF_FFFF_FFC5;
/// The most hash functions a filter valkey-bloom can make has (an error rate near
/// f64::MIN_POSITIVE gives about 1030); more is refused as hostile, every probe costs.
pub const MAX_K: u32 = 2048;

/// A 32-byte seed.
pub type Seed = [u8; 32];

/// The bit array's length in bytes for `capacity` items at error rate `fp` (the crate's
/// `compute_bitmap_size`, same float steps). The caller keeps `capacity >= 1`, `0 < fp < 1`.
pub fn bitmap_bytes(capacity: u64, fp: f64) -> u64 {
    let ln2 = std::f64::consts::LN_2;
    ((capacity as usize as f64) * fp.ln() / (-8.0 * (ln2 * ln2))).ceil() as usize as u64
}

/// k for `bits` bits and `capacity` items (the crate's `optimal_k_num`).
pub fn optimal_k(bits: u64, capacity: u64) -> u32 {
    let k = (bits as f64 / capacity as usize as f64 * 2f64.ln()).round() as u32;
    k.max(1)
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubFilter {
    /// The crate's whole serialized filter: header then bits.
    raw: Vec<u8>,
    k: u32,
    /// The bit count, as a divisor: a probe's remainder without a division instruction.
    modulus: Divisor,
    keys: [SipKey; 2],
    pub num_items: i64,
    pub capacity: i64,
}

impl SubFilter {
    /// An empty filter for `capacity` items at `fp` (both checked by the caller), seeded.
    pub fn new(capacity: u64, fp: f64, seed: &Seed) -> Result<SubFilter> {
        let bytes = bitmap_bytes(capacity, fp);
        if bytes == 0 || bytes > (isize::MAX as u64) / 2 {
            return Err(bad_data("bloom filter size out of range"));
        }
        let mut raw = fallible::zeroed::<u8>(HEADER_BYTES + bytes as usize)?;
        raw[0] = VERSION;
        raw[1..9].copy_from_slice(&bytes.to_le_bytes());
        let k = optimal_k(bytes * 8, capacity);
        raw[9..13].copy_from_slice(&k.to_le_bytes());
        raw[13..HEADER_BYTES].copy_from_slice(seed);
        SubFilter::from_raw(raw, 0, capacity as i64)
    }

    /// A filter from the crate's bytes, every header field checked before anything is
    /// allocated: the version, k in [1, MAX_K], a bit array of at least one byte whose
    /// length is the one the header records.
    pub fn decode(bytes: &[u8], num_items: i64, capacity: i64) -> Result<SubFilter> {
        check_header(bytes)?;
        SubFilter::from_raw(fallible::copied(bytes)?, num_items, capacity)
    }

    fn from_raw(raw: Vec<u8>, num_items: i64, capacity: i64) -> Result<SubFilter> {
        check_header(&raw)?;
        let k = u32::from_le_bytes(raw[9..13].try_into().expect("4 bytes"));
        let bits = (raw.len() - HEADER_BYTES) as u64 * 8;
        let key = |at: usize| SipKey::from_bytes(raw[at..at + 16].try_into().expect("16 bytes"));
        let keys = [key(13), key(29)];
        Ok(SubFilter {
            raw,
            k,
            modulus: Divisor::new(bits),
            keys,
            num_items,
            capacity,
        })
    }

    /// The crate's serialized form (what RDB and BF.LOAD carry).
    pub fn as_bytes(&self) -> &[u8] {
        &self.raw
    }

    pub fn seed(&self) -> Seed {
        self.raw[13..HEADER_BYTES].try_into().expect("32 bytes")
    }

    pub fn k(&self) -> u32 {
        self.k
    }

    /// The bit array's length in bytes.
    pub fn bitmap_bytes(&self) -> u64 {
        self.modulus.divisor() / 8
    }

    pub fn check(&self, item: &[u8]) -> bool {
        self.check_hashed(ItemHash::of(self, item))
    }

    pub fn set(&mut self, item: &[u8]) {
        self.set_hashed(ItemHash::of(self, item))
    }

    /// Whether this sub-filter is keyed like `other` (then an item's hash under one serves
    /// the other: valkey-bloom gives every sub-filter the first one's seed).
    pub fn same_keys(&self, other: &SubFilter) -> bool {
        self.keys == other.keys
    }

    /// [`check`](Self::check) with the item's hash under this sub-filter's keys.
    #[inline]
    pub fn check_hashed(&self, hash: ItemHash) -> bool {
        let bits = &self.raw[HEADER_BYTES..];
        self.probes_while(hash, |p| bit(bits, p))
    }

    /// [`set`](Self::set) with the item's hash under this sub-filter's keys.
    #[inline]
    pub fn set_hashed(&mut self, hash: ItemHash) {
        let (k, modulus) = (self.k, self.modulus);
        let bits = &mut self.raw[HEADER_BYTES..];
        probes_while(hash, k, modulus, |p| {
            set_bit(bits, p);
            true
        });
    }

    /// Sets the item's bits; whether every one was set already (the filter had the item,
    /// and is unchanged).
    #[inline]
    pub fn test_and_set(&mut self, hash: ItemHash) -> bool {
        let (k, modulus) = (self.k, self.modulus);
        let bits = &mut self.raw[HEADER_BYTES..];
        let mut all = true;
        probes_while(hash, k, modulus, |p| {
            all &= set_bit(bits, p);
            true
        });
        all
    }

    /// The item's k bit positions into `out[..k]` (nothing when `out` is shorter), for a
    /// batch that requests their lines and later reads or sets them without computing them
    /// twice.
    #[inline]
    pub fn positions(&self, hash: ItemHash, out: &mut [usize]) {
        let Some(out) = out.get_mut(..self.k as usize) else {
            return;
        };
        let mut at = 0;
        self.probes_while(hash, |p| {
            out[at] = p;
            at += 1;
            true
        });
    }

    /// Starts loading the cache lines of `positions` (from [`positions`](Self::positions)).
    #[inline]
    pub fn prefetch_positions(&self, positions: &[usize]) {
        let bits = &self.raw[HEADER_BYTES..];
        for &p in positions {
            prefetch(bits, p / 8);
        }
    }

    /// Whether every one of an item's `positions` is set ([`check`](Self::check) of them).
    #[inline]
    pub fn all_set(&self, positions: &[usize]) -> bool {
        let bits = &self.raw[HEADER_BYTES..];
        positions.iter().all(|&p| bit(bits, p))
    }

    /// [`test_and_set`](Self::test_and_set) of an item's `positions`.
    #[inline]
    pub fn test_and_set_positions(&mut self, positions: &[usize]) -> bool {
        let bits = &mut self.raw[HEADER_BYTES..];
        positions
            .iter()
            .fold(true, |all, &p| set_bit(bits, p) & all)
    }

    /// Starts loading the cache lines of the item's bit positions (a batch does this a few
    /// items ahead, so the misses of a large sub-filter overlap).
    #[inline]
    pub fn prefetch(&self, hash: ItemHash) {
        let bits = &self.raw[HEADER_BYTES..];
        self.probes_while(hash, |p| {
            prefetch(bits, p / 8);
            true
        });
    }

    /// Starts loading the cache line of the item's first bit position (probe 0: `h0`).
    #[inline]
    pub fn prefetch_first(&self, h0: u64) {
        prefetch(
            &self.raw,
            HEADER_BYTES + self.modulus.remainder(h0) as usize / 8,
        );
    }

    /// Whether the item's first bit position (probe 0: `h0`, its hash under the first key)
    /// is set. An item whose first bit is clear is absent, known from one SipHash call.
    #[inline]
    pub fn first_probe_set(&self, h0: u64) -> bool {
        bit(
            &self.raw[HEADER_BYTES..],
            self.modulus.remainder(h0) as usize,
        )
    }

    /// [`probes_while`] over this sub-filter's bit positions.
    #[inline(always)]
    fn probes_while(&self, hash: ItemHash, each: impl FnMut(usize) -> bool) -> bool {
        probes_while(hash, self.k, self.modulus, each)
    }
}

/// An item's two SipHash values under a sub-filter's keys: computed once per command and
/// reused by every sub-filter with the same keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemHash {
    h0: u64,
    h1: u64,
}

impl ItemHash {
    /// The item's hash under `f`'s keys. The crate hashes with the second key only when
    /// k > 1, and only probes from 2 on read it; it is computed always, so one hash serves
    /// sub-filters of any k.
    #[inline]
    pub fn of(f: &SubFilter, item: &[u8]) -> ItemHash {
        let (h0, h1) = sip13_len_prefixed_pair(f.keys[0], f.keys[1], item);
        ItemHash { h0, h1 }
    }

    /// The item's first hash (under `f`'s first key): probe 0.
    #[inline]
    pub fn first_half(f: &SubFilter, item: &[u8]) -> u64 {
        sip13_len_prefixed(f.keys[0], item)
    }

    /// The whole hash from its first half.
    #[inline]
    pub fn completed(f: &SubFilter, item: &[u8], h0: u64) -> ItemHash {
        ItemHash {
            h0,
            h1: sip13_len_prefixed(f.keys[1], item),
        }
    }
}

/// Calls `each` with the item's bit positions in the crate's order while it answers true;
/// whether every call did. Probe 0 is `h0`, probe 1 `h1`, probe i from 2 on
/// `(h0 + i * h1) mod PRIME` (the sum wrapping), each then mod the bit count. Written out, not
/// as an iterator matching on i at every probe: BF.MADD x100 on a bloomfltr key went from
/// 126,116 to 116,871 module instructions (callgrind, Valkey 9.1).
#[inline(always)]
fn probes_while(
    hash: ItemHash,
    k: u32,
    bits: Divisor,
    mut each: impl FnMut(usize) -> bool,
) -> bool {
    if !each(bits.remainder(hash.h0) as usize) {
        return false;
    }
    if k == 1 {
        return true;
    }
    if !each(bits.remainder(hash.h1) as usize) {
        return false;
    }
    let mut sum = hash.h0.wrapping_add(hash.h1.wrapping_mul(2));
    for _ in 2..k {
        // Any u64 is below 2 * PRIME: the remainder is one subtraction at most.
        let h = if sum >= PRIME { sum - PRIME } else { sum };
        if !each(bits.remainder(h) as usize) {
            return false;
        }
        sum = sum.wrapping_add(hash.h1);
    }
    true
}

/// Bit `p` of the array (byte p / 8, mask 1 << (p % 8)).
#[inline(always)]
fn bit(bits: &[u8], p: usize) -> bool {
    bits[p / 8] & (1 << (p % 8)) != 0
}

/// Sets bit `p`; whether it was set already.
#[inline(always)]
fn set_bit(bits: &mut [u8], p: usize) -> bool {
    let (byte, mask) = (&mut bits[p / 8], 1 << (p % 8));
    let was = *byte & mask != 0;
    *byte |= mask;
    was
}

fn check_header(bytes: &[u8]) -> Result<()> {
    if bytes.len() < HEADER_BYTES {
        return Err(bad_data("bloomfltr sub-filter shorter than its header"));
    }
    if bytes[0] != VERSION {
        return Err(bad_data(format!(
            "bloomfltr sub-filter version {} (not 1)",
            bytes[0]
        )));
    }
    let k = u32::from_le_bytes(bytes[9..13].try_into().expect("4 bytes"));
    if k == 0 || k > MAX_K {
        return Err(bad_data(format!(
            "bloomfltr sub-filter with {k} hash functions (1 to {MAX_K})"
        )));
    }
    let len = u64::from_le_bytes(bytes[1..9].try_into().expect("8 bytes"));
    if len == 0 || len != (bytes.len() - HEADER_BYTES) as u64 {
        return Err(bad_data(format!(
            "bloomfltr sub-filter records {len} bytes of bits, holds {}",
            bytes.len() - HEADER_BYTES
        )));
    }
    Ok(())
}
