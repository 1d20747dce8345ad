//! The sliding-window filter: a ring of slices in blocks, generations with their times.

use std::cell::Cell;
use std::mem::size_of;

use super::shape::{self, Shape, Window, MAX_SLICES};
use crate::bloom::batch::{PREFETCH_DISTANCE, PREFETCH_MIN_BYTES};
use crate::bloom::keyed::{self, Secret};
use crate::bloom::meta::MAX_CAPACITY;
use crate::bloom::ItemHash;
use crate::error::{bad_data, check_limit, Error, Result};
use crate::hash::murmur3::fmix64;
use crate::le_words;
use crate::memory::fallible::zeroed;
use crate::memory::limit::GrowthLimit;
use crate::memory::pages::advise_huge_pages;
use crate::memory::prefetch::{prefetch, with_ahead};
use crate::memory::relocate::{relocate_vec, Relocate};

/// The smallest error rate a window takes (shapes reach it within 64 slices).
pub const MIN_ERROR_RATE: f64 = 1e-9;

/// Longest TIME window: about 31 years in milliseconds.
pub const MAX_SPAN_MS: u64 = 1 << 40;

/// A filter's parameters and ring position without its words: what its RDB value and
/// SCANDUMP header carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowMeta {
    pub window: Window,
    pub capacity: u64,
    pub error_rate: f64,
    pub shape: Shape,
    /// Physical slice that is the youngest (logical 0).
    pub head: u32,
    /// Turns of the ring so far.
    pub turns: u64,
    /// The latest time seen (ms since the epoch); time never goes back.
    pub clock_ms: u64,
    /// When the ring last turned (TIME windows): an empty youngest generation's quantum
    /// runs from there.
    pub turned_ms: u64,
    /// Items ever added.
    pub added: u64,
    /// Adds the ring could not take (a TIME window's span held more than its capacity), so
    /// that a burst layer took them. Values of encoding version 1 also count adds that went
    /// into a youngest generation already full (before burst layers, that raised the rate).
    pub overflows: u64,
}

/// One generation, kept with the physical slice it started in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Generation {
    pub items: u64,
    /// Time of its first and last add (TIME windows; 0 in COUNT windows).
    pub first_ms: u64,
    pub last_ms: u64,
}

/// Words of a block: its turn count, then one word per slice.
fn stride(shape: &Shape) -> u64 {
    shape.slices as u64 + 1
}

/// Words of the whole filter (saturating).
pub fn words_for(shape: &Shape) -> u64 {
    shape.blocks.saturating_mul(stride(shape))
}

/// Memory a ring of this shape takes (a filter's reserved ring, or one burst layer): with its
/// layers', the figure `APBF.INFO Size` and `MEMORY USAGE` report, and the one
/// `bf.max-filter-bytes` limits.
pub fn memory_for(shape: &Shape) -> u64 {
    let fixed = size_of::<WindowFilter>() + MAX_SLICES as usize * size_of::<Generation>();
    (fixed as u64).saturating_add(words_for(shape).saturating_mul(8))
}

impl WindowMeta {
    /// The parameters of a new, empty filter: refused when out of range or when no shape
    /// reaches the rate.
    pub fn new(window: Window, error_rate: f64, capacity: u64) -> Result<WindowMeta> {
        if !(error_rate > 0.0 && error_rate < 1.0) {
            return Err(Error::ErrorRateRange);
        }
        if error_rate < MIN_ERROR_RATE {
            return Err(Error::ApbfRateTooSmall);
        }
        if !(1..=MAX_CAPACITY).contains(&capacity) {
            return Err(Error::CapacityRange);
        }
        if let Window::Time { span_ms } = window {
            if !(1..=MAX_SPAN_MS).contains(&span_ms) {
                return Err(Error::ApbfSpanRange);
            }
        }
        let shape = shape::choose(window, error_rate, capacity).ok_or(Error::ApbfRateTooSmall)?;
        Ok(WindowMeta {
            window,
            capacity,
            error_rate,
            shape,
            head: 0,
            turns: 0,
            clock_ms: 0,
            turned_ms: 0,
            added: 0,
            overflows: 0,
        })
    }

    /// Checks a loaded parameter block before a byte is allocated.
    pub fn validate(&self, limit: u64) -> Result<()> {
        if !(1..=MAX_CAPACITY).contains(&self.capacity) {
            return Err(bad_data("capacity out of range"));
        }
        self.validate_ring()?;
        check_limit(memory_for(&self.shape), limit)
    }

    /// The checks of [`WindowMeta::validate`] but the capacity's range and the limit: what
    /// a burst layer's block must pass too (its capacity is the filter's times a power of
    /// two, checked by the caller).
    pub(super) fn validate_ring(&self) -> Result<()> {
        if !(self.error_rate > 0.0 && self.error_rate < 1.0) {
            return Err(bad_data("error rate out of range"));
        }
        if let Window::Time { span_ms } = self.window {
            if !(1..=MAX_SPAN_MS).contains(&span_ms) {
                return Err(bad_data("span out of range"));
            }
        }
        let s = &self.shape;
        // k and l first: slices_for's sum would wrap for huge ones.
        if !(1..MAX_SLICES).contains(&s.k)
            || !(1..MAX_SLICES).contains(&s.l)
            || s.slices != shape::slices_for(self.window, s.k, s.l)
        {
            return Err(bad_data("slices do not match k and the generations"));
        }
        if s.slices > MAX_SLICES {
            return Err(bad_data("too many slices"));
        }
        if s.generation == 0 || s.generation > self.capacity || s.blocks == 0 {
            return Err(bad_data("empty generation or slice"));
        }
        if self.head >= s.slices {
            return Err(bad_data("ring position out of range"));
        }
        Ok(())
    }

    /// A TIME window's span, `None` for a COUNT window.
    pub fn span_ms(&self) -> Option<u64> {
        match self.window {
            Window::Count => None,
            Window::Time { span_ms } => Some(span_ms),
        }
    }

    /// How long a TIME window's generation may take items: `span / l`, at least 1 ms.
    pub fn quantum_ms(&self) -> u64 {
        self.span_ms()
            .map_or(u64::MAX, |s| (s / self.shape.l as u64).max(1))
    }
}

/// A sliding-window filter: its reserved ring and, for a TIME window, the burst layers it
/// grew. Block `b` of a ring is `words[b * (S + 1) ..][.. S + 1]`: the turn count it was
/// last written at, then physical slice `s`'s word at `1 + s`.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFilter {
    words: Vec<u64>,
    meta: WindowMeta,
    /// Per physical slice: the generation that started in it.
    generations: Vec<Generation>,
    starts_memo: StartsMemo,
    /// Burst layers by level, lowest first (empty in a COUNT window and in a layer).
    pub(super) layers: Vec<Layer>,
    /// What this server counted of the value since it was made or loaded.
    pub(super) counted: Counted,
    /// `KEYED`: items hash with SipHash-1-3 under this secret ([`Secret::hash`]), not
    /// Guava's public hash. The reserved ring's only: a burst layer takes the hash the
    /// window gave the item.
    secret: Option<Secret>,
}

/// A burst layer: a TIME ring at its level. Declared here, beside the window that holds
/// it, so that [`burst`](super::burst), which grows and drops layers, imports this file and
/// this file imports nothing of it (imports go one way).
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub level: u32,
    pub ring: WindowFilter,
}

/// Counts kept beside a value, not part of it (two filters never differ by them).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counted {
    /// Adds refused because the window was full: a refused add changes nothing, so it is
    /// not replicated, and a replica's count would differ.
    pub(super) adds: u64,
    /// Layers added or dropped (wrapping).
    pub(super) changes: u64,
    /// No burst layer can have gone before this moment (0: look at the next add).
    pub(super) drop_from: u64,
}

impl PartialEq for Counted {
    fn eq(&self, _: &Counted) -> bool {
        true
    }
}

/// The generations still in the window at a moment: where a run may start (bit `j`:
/// logical position `j`, 0 the youngest) and how many items the older ones hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Live {
    pub(super) mask: u64,
    pub(super) older: u64,
}

/// The last [`WindowFilter::live`] answer and while it holds: until the ring turns, the
/// youngest generation's emptiness changes, or time reaches the next expiry. Walking the
/// generations for every lookup cost more than the lookup itself. Not part of the value (two
/// filters compare equal whatever their memos hold).
#[derive(Debug, Clone, Default)]
struct StartsMemo(Cell<Option<Memo>>);

#[derive(Debug, Clone, Copy)]
struct Memo {
    turns: u64,
    youngest: bool,
    from: u64,
    until: u64,
    live: Live,
}

impl PartialEq for StartsMemo {
    fn eq(&self, _: &StartsMemo) -> bool {
        true
    }
}

/// Where an item's bits are: its block (the index of the block's first word) and, for
/// physical slice `s`, bit `bits[s] & 63` of the slice's word.
/// The bits are drawn apart by MurmurHash3's finaliser: bits taken from `h2 + s * step`
/// would put two items whose hashes are close on the same bits in many neighbouring slices
/// at once (runs of collisions, twice the predicted error rate at 1 %, 16 times at 0.01 %).
#[derive(Debug, Clone, Copy)]
pub(super) struct Probe {
    block: usize,
    bits: [u8; MAX_SLICES as usize],
}

impl Probe {
    /// The item's bit in physical slice `s` (below 64), as a shift (taken modulo 64 by
    /// `wrapping_shl`/`wrapping_shr`, as the instruction does).
    #[inline(always)]
    fn bit(&self, s: usize) -> u32 {
        self.bits[s & (MAX_SLICES as usize - 1)] as u32
    }
}

/// Per-word seeds of the bit stream (any distinct odd constants).
const STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

/// The lowest `n` bits set (`n` up to 64).
#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl WindowFilter {
    /// An empty filter, refused (nothing allocated) when out of range or over `limit`.
    pub fn new(window: Window, error_rate: f64, capacity: u64, limit: u64) -> Result<Self> {
        let meta = WindowMeta::new(window, error_rate, capacity)?;
        meta.validate(limit)?;
        Self::empty(meta)
    }

    /// A filter of these parameters (validated by the caller) with every word zero, or
    /// `AllocFailed`.
    pub(super) fn empty(meta: WindowMeta) -> Result<WindowFilter> {
        let words = zeroed::<u64>(words_for(&meta.shape) as usize)?;
        advise_huge_pages(&words);
        Ok(WindowFilter {
            words,
            meta,
            generations: vec![Generation::default(); meta.shape.slices as usize],
            starts_memo: StartsMemo::default(),
            layers: Vec::new(),
            counted: Counted::default(),
            secret: None,
        })
    }

    /// A keyed window: `secret` in place of Guava's hash (for an empty window; the words of
    /// a filled one would no longer match its items).
    pub fn with_secret(mut self, secret: Secret) -> WindowFilter {
        self.secret = Some(secret);
        self
    }

    /// Keyed (the secret itself is never shown).
    pub fn keyed(&self) -> bool {
        self.secret.is_some()
    }

    /// The secret, for the formats that carry the whole filter.
    pub(super) fn secret(&self) -> Option<Secret> {
        self.secret
    }

    pub fn meta(&self) -> WindowMeta {
        self.meta
    }
    pub(super) fn meta_mut(&mut self) -> &mut WindowMeta {
        &mut self.meta
    }
    /// The burst layers, lowest level first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    pub fn shape(&self) -> Shape {
        self.meta.shape
    }
    pub fn generations(&self) -> &[Generation] {
        &self.generations
    }
    pub(super) fn generations_mut(&mut self) -> &mut [Generation] {
        &mut self.generations
    }
    /// The reserved ring's words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    #[cfg(test)]
    pub(super) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
    /// The index of the first word (the turn count) of the probe's block.
    #[cfg(test)]
    pub(super) fn block_of(&self, p: &Probe) -> usize {
        p.block
    }
    /// Memory of the whole filter: the reserved ring and the burst layers.
    #[inline]
    pub fn memory_bytes(&self) -> u64 {
        if self.layers.is_empty() {
            return self.reserved_bytes();
        }
        self.layered_bytes()
    }
    #[cold]
    fn layered_bytes(&self) -> u64 {
        self.layers.iter().fold(self.reserved_bytes(), |m, l| {
            m.saturating_add(l.ring.reserved_bytes())
        })
    }
    /// Changes when the memory does (a layer came or went), cheaply: for the server's
    /// memory accounting around a write.
    #[inline]
    pub fn layer_changes(&self) -> u64 {
        self.counted.changes
    }
    /// Memory of the reserved ring (what APBF.RESERVE allocated).
    pub fn reserved_bytes(&self) -> u64 {
        memory_for(&self.meta.shape)
    }
    /// Adds refused because the window was full (on this server, since the value was made
    /// or loaded).
    pub fn refused(&self) -> u64 {
        self.counted.adds
    }
    /// The rings in the order of the data stream: the reserved one, then each layer's.
    pub(super) fn rings(&self) -> impl Iterator<Item = &WindowFilter> {
        std::iter::once(self).chain(self.layers.iter().map(|l| &l.ring))
    }
    /// Bytes of block data (SCANDUMP's data stream: every ring's words, in order).
    pub fn data_len(&self) -> u64 {
        self.rings().map(|r| r.words.len() as u64 * 8).sum()
    }

    /// Moves the words' blocks where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.words, mover);
        relocate_vec(&mut self.layers, mover);
        for layer in &mut self.layers {
            relocate_vec(&mut layer.ring.words, mover);
        }
    }

    /// The item's hash words: Guava's MurmurHash3, or SipHash-1-3 under the window's secret
    /// (binary safe).
    #[inline]
    pub fn hash(&self, item: &[u8]) -> ItemHash {
        keyed::hash_or_guava(self.secret, item)
    }

    /// [`WindowFilter::hash`] of each item.
    pub fn hash_all<'a>(&self, items: impl IntoIterator<Item = &'a [u8]>) -> Vec<ItemHash> {
        keyed::hash_all_or_guava(self.secret, items)
    }

    #[inline(always)]
    pub(super) fn probe(&self, h: ItemHash) -> Probe {
        let n = self.meta.shape.slices as usize;
        let block = ((h.h1 as u128 * self.meta.shape.blocks as u128) >> 64) as usize;
        let mut bits = [0u8; MAX_SLICES as usize];
        for (i, chunk) in bits.chunks_exact_mut(8).take(n.div_ceil(8)).enumerate() {
            let word = fmix64(h.h2 ^ STREAM.wrapping_mul(i as u64 + 1));
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Probe {
            block: block * (n + 1),
            bits,
        }
    }

    /// Where an add of `h` would go, the ring as it stands (a turn the add would make first
    /// is not foreseen): its block (0 .. blocks) and how many of its `k` bits are set already
    /// (0 when all are fresh). What anyone who knows the hash and the shape (`APBF.INFO`)
    /// computes offline: the pollution test's attacker (core/tests/pollution.rs).
    #[cfg(any(test, feature = "testkit"))]
    pub fn add_target(&self, h: ItemHash) -> (u64, u32) {
        let p = self.probe(h);
        let n = self.meta.shape.slices as usize;
        let block = &self.words[p.block..p.block + n + 1];
        // The `stale` youngest slices were emptied since the block was written.
        let stale = self.meta.turns.wrapping_sub(block[0]).min(n as u64) as u32;
        let set = (stale..self.meta.shape.k)
            .map(|j| {
                let s = self.physical(j) as usize;
                (block[1 + s].wrapping_shr(p.bit(s)) & 1) as u32
            })
            .sum();
        ((p.block / (n + 1)) as u64, set)
    }

    /// Physical slice of logical position `j` (0 the youngest).
    #[inline(always)]
    fn physical(&self, j: u32) -> u32 {
        let s = self.meta.head + j;
        if s >= self.meta.shape.slices {
            s - self.meta.shape.slices
        } else {
            s
        }
    }

    fn generation(&self, j: u32) -> &Generation {
        &self.generations[self.physical(j) as usize]
    }

    /// Whether answers depend on time (a TIME window): a COUNT window's adds happen at moment
    /// 0 and its lookups answer alike at any time, so its callers need not read a clock.
    #[inline]
    pub fn timed(&self) -> bool {
        matches!(self.meta.window, Window::Time { .. })
    }

    /// The latest time the filter has seen (ms since the epoch; 0 in a COUNT window).
    #[inline]
    pub fn clock_ms(&self) -> u64 {
        self.meta.clock_ms
    }

    /// Time as the filter takes it: never before the latest it has seen.
    #[inline]
    pub fn effective_ms(&self, now_ms: u64) -> u64 {
        now_ms.max(self.meta.clock_ms)
    }

    /// Whether generation `g` still holds items of the window at `now`.
    #[inline]
    fn live_gen(&self, g: &Generation, now: u64) -> bool {
        g.items > 0
            && match self.meta.window {
                Window::Count => true,
                Window::Time { span_ms } => g.last_ms.saturating_add(span_ms) > now,
            }
    }

    /// Logical positions where a run may start at `now`: the generations still in the
    /// window (one bit each, 0 the youngest).
    pub fn starts(&self, now_ms: u64) -> u64 {
        self.live(now_ms).mask
    }

    /// The generations still in the window at `now`: where a run may start, and the items
    /// of those but the youngest. The memo's answer while it holds, else [`Self::live_walk`].
    #[inline(always)]
    pub(super) fn live(&self, now_ms: u64) -> Live {
        let now = self.effective_ms(now_ms);
        let youngest = self.generations[self.meta.head as usize].items > 0;
        if let Some(m) = self.starts_memo.0.get() {
            if m.turns == self.meta.turns
                && m.youngest == youngest
                && (m.from..m.until).contains(&now)
            {
                return m.live;
            }
        }
        self.live_walk(now, youngest)
    }

    /// [`Self::live`] found by walking the generations; remembered.
    #[inline(never)]
    fn live_walk(&self, now: u64, youngest: bool) -> Live {
        let s = &self.meta.shape;
        let n = s.slices as usize;
        let span = self.meta.span_ms();
        let (mut live, mut until) = (Live::default(), u64::MAX);
        let mut p = self.meta.head as usize;
        for j in 0..=(s.slices - s.k) {
            let g = &self.generations[p];
            if g.items > 0 {
                if let Some(span) = span {
                    let expires = g.last_ms.saturating_add(span);
                    // Older generations ended earlier (time never goes back): past the
                    // first expired one, all are.
                    if expires <= now {
                        break;
                    }
                    until = until.min(expires);
                }
                live.mask |= 1 << j;
                if j > 0 {
                    live.older = live.older.saturating_add(g.items);
                }
            }
            p = if p + 1 == n { 0 } else { p + 1 };
        }
        self.starts_memo.0.set(Some(Memo {
            turns: self.meta.turns,
            youngest,
            from: now,
            until,
            live,
        }));
        live
    }

    /// The item's bit in each slice, as a logical mask (bit `j`: logical slice `j`); the
    /// slices emptied since the block was last written read as zero. Reads every slice: the
    /// reference [`Self::found`] is checked against.
    #[cfg(test)]
    pub(super) fn mask(&self, p: Probe) -> u64 {
        let n = self.meta.shape.slices;
        let block = &self.words[p.block..p.block + n as usize + 1];
        let words = &block[1..];
        let mut physical = 0u64;
        for s in (0..words.len()).rev() {
            physical = (physical << 1) | (words[s].wrapping_shr(p.bit(s)) & 1);
        }
        let head = self.meta.head;
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let logical = if head == 0 {
            physical
        } else {
            ((physical >> head) | (physical << (n - head))) & all
        };
        let stale = self.meta.turns.wrapping_sub(block[0]).min(n as u64);
        let fresh = if stale >= 64 { 0 } else { u64::MAX << stale };
        logical & fresh
    }

    /// Whether `mask` has `k` consecutive set bits starting at one of `starts`: with
    /// [`Self::mask`], the reference [`Self::found`] is checked against.
    #[cfg(test)]
    pub(super) fn has_run(&self, mask: u64, starts: u64) -> bool {
        let mut run = mask;
        let mut have = 1;
        let k = self.meta.shape.k;
        // run bit j: bits j..j + have all set; double until have reaches k.
        while have < k {
            let step = have.min(k - have);
            run &= run >> step;
            have += step;
        }
        run & starts != 0
    }

    /// Whether the item's bits hold a run of `k` consecutive logical slices starting at one
    /// of `starts` (the slices emptied since the block was last written reading as zero):
    /// `has_run(mask(p), starts)`, reading a few of the block's words instead of all `S`.
    ///
    /// Every run of `k` contains exactly one sentinel slice, logical `k - 1 + i k`. For each
    /// sentinel that holds the bit and has starts in the `k` positions ending at it, extend
    /// the set bits down from it (no further than the lowest such start); the lowest start
    /// left then needs the fewest bits above the sentinel, and if it lacks one, every higher
    /// start lacks it too. An item never added mostly stops at the sentinels (about `S / k`
    /// words); one in the window reads its `k` slices.
    #[inline(always)]
    pub(super) fn found(&self, p: &Probe, starts: u64) -> bool {
        let n = self.meta.shape.slices as usize;
        let k = self.meta.shape.k as usize;
        let head = self.meta.head as usize;
        let block = &self.words[p.block..p.block + n + 1];
        // A run starting at j covers j..j + k, inside the ring; the `stale` youngest slices
        // were emptied since the block was written, so no run starts before them.
        let stale = self.meta.turns.wrapping_sub(block[0]).min(n as u64) as u32;
        let starts = starts & low_bits((n + 1).saturating_sub(k) as u32) & !low_bits(stale);
        if starts == 0 {
            return false;
        }
        let slices = &block[1..];
        let bit = |j: usize| {
            let s = if head + j >= n {
                head + j - n
            } else {
                head + j
            };
            slices[s].wrapping_shr(p.bit(s)) & 1 != 0
        };
        // `rest`: the starts no sentinel looked at yet. While one is left (at most n - k),
        // its sentinel is at most n - 1: t stays in the ring.
        let (mut t, mut rest) = (k - 1, starts);
        while rest != 0 {
            // Starts whose run holds sentinel t: t + 1 - k ..= t.
            let mut cand = (rest >> (t + 1 - k)) & low_bits(k as u32);
            rest &= !(low_bits(k as u32) << (t + 1 - k));
            if cand != 0 && bit(t) {
                let lowest = t + 1 - k + cand.trailing_zeros() as usize;
                let mut a = t;
                while a > lowest && bit(a - 1) {
                    a -= 1;
                }
                cand &= !low_bits((a - (t + 1 - k)) as u32);
                if cand != 0 {
                    let j = t + 1 - k + cand.trailing_zeros() as usize;
                    if (t + 1..j + k).all(bit) {
                        return true;
                    }
                }
            }
            t += k;
        }
        false
    }

    #[inline]
    pub(super) fn contains_with(&self, h: ItemHash, starts: u64) -> bool {
        starts != 0 && self.found(&self.probe(h), starts)
    }

    /// Whether the item is in the window at `now_ms`.
    #[inline]
    pub fn contains_hash(&self, h: ItemHash, now_ms: u64) -> bool {
        self.contains_with(h, self.starts(now_ms))
            || (!self.layers.is_empty() && self.layers_contain(h, self.effective_ms(now_ms)))
    }

    pub fn contains(&self, item: &[u8], now_ms: u64) -> bool {
        self.contains_hash(self.hash(item), now_ms)
    }

    /// The most items a TIME ring's generations in the window may hold before adds go to a
    /// burst layer: a span's capacity, plus the part of the oldest generation older than the
    /// span (a generation leaves the window with its last add). A span of at most `capacity`
    /// adds never reaches it.
    #[inline(always)]
    fn ceiling(&self) -> u64 {
        self.meta
            .capacity
            .saturating_add(self.meta.shape.generation)
    }

    /// Whether a TIME ring takes an item at `now` (changing nothing): its generations in the
    /// window hold fewer than [`Self::ceiling`] items, and its youngest generation has room
    /// or the ring can turn (the generation leaving the window holds nothing of it).
    #[inline(always)]
    pub(super) fn room(&self, now: u64, live: Live) -> bool {
        self.room_with(self.generation(0), now, live)
    }

    /// [`Self::room`] given the youngest generation.
    #[inline(always)]
    fn room_with(&self, young: &Generation, now: u64, live: Live) -> bool {
        let s = self.meta.shape;
        let held = live
            .older
            .saturating_add(if live.mask & 1 != 0 { young.items } else { 0 });
        held < self.ceiling()
            && (young.items < s.generation || !self.live_gen(self.generation(s.slices - s.k), now))
    }

    /// Turns the ring once if the generation leaving the window (logical `S - k`) holds
    /// nothing of it any more; the youngest is then a new, empty generation.
    fn turn(&mut self, now: u64) -> bool {
        let s = self.meta.shape;
        let leaving = *self.generation(s.slices - s.k);
        if self.meta.window != Window::Count && self.live_gen(&leaving, now) {
            return false;
        }
        self.meta.head = self.physical(s.slices - 1);
        self.meta.turns = self.meta.turns.wrapping_add(1);
        self.meta.turned_ms = now;
        self.generations[self.meta.head as usize] = Generation::default();
        true
    }

    /// Readies the ring for an add at `now`: `false` (nothing changed) if a TIME ring has no
    /// [`Self::room`]; else turns it as the youngest generation is due: when full
    /// (`generation` items); in a TIME window also once per quantum (`span / l`) since it
    /// began, so generations stand for time and an add after an idle spell pushes the old
    /// ones out (up to a whole ring). With room, a full youngest generation can always close.
    #[inline(always)]
    pub(super) fn ready(&mut self, now: u64, live: &mut Live) -> bool {
        let youngest = *self.generation(0);
        let full = youngest.items >= self.meta.shape.generation;
        let due = match self.meta.window {
            Window::Count => full as u64,
            Window::Time { .. } => {
                if !self.room_with(&youngest, now, *live) {
                    return false;
                }
                let began = if youngest.items > 0 {
                    youngest.first_ms
                } else {
                    self.meta.turned_ms
                };
                let quanta = now.saturating_sub(began) / self.meta.quantum_ms();
                quanta.min(self.meta.shape.slices as u64).max(full as u64)
            }
        };
        let mut turned = 0;
        while turned < due && self.turn(now) {
            turned += 1;
        }
        if turned > 0 {
            *live = self.live(now);
        }
        true
    }

    /// The moment an add at `now_ms` happens at: a COUNT window keeps no time at all (0),
    /// so its bytes never depend on a clock: a replica or a replay applying its adds later
    /// holds the same filter; a TIME window never goes back before the latest it has seen.
    #[inline(always)]
    fn moment(&self, now_ms: u64) -> u64 {
        match self.meta.window {
            Window::Count => 0,
            Window::Time { .. } => self.effective_ms(now_ms),
        }
    }

    /// Adds into this ring, [`Self::ready`] for it: writes the item's bits and counts it in
    /// the youngest generation.
    #[inline(always)]
    pub(super) fn put(&mut self, p: &Probe, now: u64, live: &mut Live) {
        let n = self.meta.shape.slices as usize;
        let k = self.meta.shape.k;
        let (head, turns) = (self.meta.head as usize, self.meta.turns);
        let block = &mut self.words[p.block..p.block + n + 1];
        let stale = turns.wrapping_sub(block[0]).min(n as u64) as usize;
        block[0] = turns;
        let slices = &mut block[1..];
        // Logical j is physical head + j, wrapping once at n. A block not written for a
        // whole ring (a new or idle window's) is cleared at once.
        if stale == n {
            slices.fill(0);
        } else {
            let mut s = head;
            for _ in 0..stale {
                slices[s] = 0;
                s = if s + 1 == n { 0 } else { s + 1 };
            }
        }
        // The k youngest: physical head.. up to the ring's end, then from 0.
        let wrap = (head + k as usize).saturating_sub(n);
        let (low, high) = slices.split_at_mut(head);
        for (s, word) in high[..k as usize - wrap].iter_mut().enumerate() {
            *word |= 1u64.wrapping_shl(p.bit(head + s));
        }
        for (s, word) in low[..wrap].iter_mut().enumerate() {
            *word |= 1u64.wrapping_shl(p.bit(s));
        }
        let g = &mut self.generations[head];
        if g.items == 0 {
            g.first_ms = now;
        }
        g.items = g.items.saturating_add(1);
        g.last_ms = now;
        self.meta.clock_ms = now;
        self.meta.added = self.meta.added.saturating_add(1);
        // The youngest generation now holds an item of this moment: a run may start there.
        // The memo already says so after the first add of a generation (and then ends no
        // later than this item's expiry: the youngest's earlier adds expire first).
        live.mask |= 1;
        if let Some(mut m) = self.starts_memo.0.get() {
            let expires = self
                .meta
                .span_ms()
                .map_or(u64::MAX, |s| now.saturating_add(s));
            if m.live.mask & 1 == 0 || !m.youngest || m.until > expires {
                m.live.mask |= 1;
                m.youngest = true;
                m.until = m.until.min(expires);
                self.starts_memo.0.set(Some(m));
            }
        }
    }

    /// Adds the item at `now` (the add's moment): into the reserved ring when it has room,
    /// else into a burst layer ([`Self::add_burst`]). `Ok(true)` if it was not in the window
    /// before; an error if the window is full (nothing changed then).
    #[inline(always)]
    fn add_at(
        &mut self,
        h: ItemHash,
        now: u64,
        live: &mut Live,
        limit: &dyn GrowthLimit,
    ) -> Result<bool> {
        if !self.ready(now, live) {
            return self.add_burst(h, now, limit);
        }
        if !self.layers.is_empty() {
            self.drop_expired_layers(now);
        }
        let p = self.probe(h);
        let present = (live.mask != 0 && self.found(&p, live.mask))
            || (!self.layers.is_empty() && self.layers_contain(h, now));
        self.put(&p, now, live);
        Ok(!present)
    }

    /// Adds the item at `now_ms`: `true` if it was not in the window before; an error if the
    /// window is full (the item is not added).
    pub fn add_hash(&mut self, h: ItemHash, now_ms: u64, limit: impl GrowthLimit) -> Result<bool> {
        let now = self.moment(now_ms);
        let mut live = self.live(now);
        self.add_at(h, now, &mut live, &limit)
    }

    pub fn add(&mut self, item: &[u8], now_ms: u64, limit: impl GrowthLimit) -> Result<bool> {
        self.add_hash(self.hash(item), now_ms, limit)
    }

    /// Starts loading every cache line of the item's block.
    #[inline]
    fn prefetch(&self, h: ItemHash) {
        let p = self.probe(h);
        let end = p.block + self.meta.shape.slices as usize;
        let mut i = p.block;
        while i <= end {
            prefetch(&self.words, i);
            i += 8;
        }
        prefetch(&self.words, end);
    }

    fn prefetching(&self, prefetch: bool) -> bool {
        prefetch && self.data_len() >= PREFETCH_MIN_BYTES
    }

    /// [`WindowFilter::add_hash`] for each item in order, all at `now_ms`, up to the first
    /// refused one: the answers of the items added, and the error that stopped the others.
    pub fn add_batch(
        &mut self,
        hashes: &[ItemHash],
        now_ms: u64,
        prefetch: bool,
        limit: impl GrowthLimit,
    ) -> (Vec<bool>, Option<Error>) {
        let now = self.moment(now_ms);
        let mut live = self.live(now);
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        let mut out = Vec::with_capacity(hashes.len());
        for (h, ahead) in walk {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            match self.add_at(h, now, &mut live, &limit) {
                Ok(added) => out.push(added),
                Err(e) => return (out, Some(e)),
            }
        }
        (out, None)
    }

    /// [`WindowFilter::contains_hash`] for each item, all at `now_ms`.
    pub fn contains_batch(&self, hashes: &[ItemHash], now_ms: u64, prefetch: bool) -> Vec<bool> {
        let starts = self.starts(now_ms);
        let layers = self.layer_starts(self.effective_ms(now_ms));
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        walk.map(|(h, ahead)| {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            self.contains_with(h, starts) || (!layers.is_empty() && self.in_layers(h, &layers))
        })
        .collect()
    }

    /// Items in the generations still in the window at `now_ms` (an estimate of the
    /// window's items: whole generations, slack included), burst layers included.
    pub fn items_in_window(&self, now_ms: u64) -> u64 {
        let now = self.effective_ms(now_ms);
        self.rings()
            .map(|r| r.ring_items(now))
            .fold(0, u64::saturating_add)
    }

    /// [`Self::items_in_window`] of this ring alone.
    fn ring_items(&self, now: u64) -> u64 {
        let live = self.live(now);
        if live.mask & 1 != 0 {
            live.older.saturating_add(self.generation(0).items)
        } else {
            live.older
        }
    }

    /// Up to `max` bytes of block data from byte `offset` (little-endian words, every
    /// ring's in turn; a chunk ends where a ring does); `None` past the end.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<Vec<u8>> {
        let mut at = offset;
        for ring in self.rings() {
            let len = ring.words.len() as u64 * 8;
            if at < len {
                return le_words::chunk(&ring.words, at, max);
            }
            at -= len;
        }
        None
    }

    /// Overwrites block data from byte `offset` with `data`, which must lie inside it
    /// (LOADCHUNK, RDB load). Any bytes are a valid filter: a block's turn count from the
    /// future makes its slices read as emptied.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        le_words::check_chunk(self.data_len(), offset, data.len() as u64)?;
        let (mut at, mut rest) = (offset, data);
        let rings = std::iter::once(&mut self.words)
            .chain(self.layers.iter_mut().map(|l| &mut l.ring.words));
        for words in rings {
            let len = words.len() as u64 * 8;
            if at < len {
                let n = (len - at).min(rest.len() as u64) as usize;
                le_words::write(words, at, &rest[..n]);
                rest = &rest[n..];
                at = 0;
            } else {
                at -= len;
            }
            if rest.is_empty() {
                break;
            }
        }
        Ok(())
    }
}
