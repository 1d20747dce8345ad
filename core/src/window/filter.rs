//! The sliding-window filter: a ring of slices in blocks, generations with their times.

use std::cell::Cell;
use std::mem::size_of;

use super::shape::{self, Shape, Window, MAX_SLICES};
use crate::bloom::batch::{PREFETCH_DISTANCE, PREFETCH_MIN_BYTES};
use crate::bloom::guava;
use crate::bloom::meta::MAX_CAPACITY;
use crate::bloom::ItemHash;
use crate::error::{bad_data, check_limit, Error, Result};
use crate::hash::murmur3::fmix64;
use crate::le_words;
use crate::memory::fallible::zeroed;
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
    /// Adds that found the youngest generation due to close but could not, because the
    /// oldest one in the window had not expired yet (more items in a span than the
    /// capacity): they go into the youngest, which only raises the error rate.
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

/// Memory a filter of this shape takes: the figure `APBF.INFO Size` and `MEMORY USAGE`
/// report, and the one `bf.max-filter-bytes` limits.
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
        if !(self.error_rate > 0.0 && self.error_rate < 1.0) {
            return Err(bad_data("error rate out of range"));
        }
        if !(1..=MAX_CAPACITY).contains(&self.capacity) {
            return Err(bad_data("capacity out of range"));
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
        check_limit(memory_for(s), limit)
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

/// A sliding-window filter. Block `b` is `words[b * (S + 1) ..][.. S + 1]`: the turn
/// count it was last written at, then physical slice `s`'s word at `1 + s`.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFilter {
    words: Vec<u64>,
    meta: WindowMeta,
    /// Per physical slice: the generation that started in it.
    generations: Vec<Generation>,
    starts_memo: StartsMemo,
}

/// The last [`WindowFilter::starts`] answer and while it holds: until the ring turns, the
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
    mask: u64,
}

impl PartialEq for StartsMemo {
    fn eq(&self, _: &StartsMemo) -> bool {
        true
    }
}

/// Where an item's bits are: its block (the index of the block's first word) and, for
/// physical slice `s`, bit `bits[s] & 63` of the slice's word. The bits are drawn apart by
/// MurmurHash3's finaliser: bits taken from `h2 + s * step` would put two items whose
/// hashes are close on the same bits in many neighbouring slices at once (runs of
/// collisions, twice the predicted error rate at 1 %, 16 times at 0.01 %).
#[derive(Debug, Clone, Copy)]
pub(super) struct Probe {
    block: usize,
    bits: [u8; MAX_SLICES as usize],
}

/// Per-word seeds of the bit stream (any distinct odd constants).
const STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

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
        })
    }

    pub fn meta(&self) -> WindowMeta {
        self.meta
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
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    pub fn memory_bytes(&self) -> u64 {
        memory_for(&self.meta.shape)
    }
    /// Bytes of block data (SCANDUMP's data stream).
    pub fn data_len(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Moves the words' block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.words, mover);
    }

    /// The item's hash (Guava's MurmurHash3, binary safe).
    #[inline]
    pub fn hash(item: &[u8]) -> ItemHash {
        guava::hash(item)
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

    /// Time as the filter takes it: never before the latest it has seen.
    #[inline]
    pub fn effective_ms(&self, now_ms: u64) -> u64 {
        now_ms.max(self.meta.clock_ms)
    }

    /// Whether generation `g` still holds items of the window at `now`.
    #[inline]
    fn live(&self, g: &Generation, now: u64) -> bool {
        g.items > 0
            && match self.meta.window {
                Window::Count => true,
                Window::Time { span_ms } => g.last_ms.saturating_add(span_ms) > now,
            }
    }

    /// Logical positions where a run may start at `now`: the generations still in the
    /// window (one bit each, 0 the youngest).
    pub fn starts(&self, now_ms: u64) -> u64 {
        let now = self.effective_ms(now_ms);
        let youngest = self.generation(0).items > 0;
        if let Some(m) = self.starts_memo.0.get() {
            if m.turns == self.meta.turns
                && m.youngest == youngest
                && (m.from..m.until).contains(&now)
            {
                return m.mask;
            }
        }
        let s = &self.meta.shape;
        let n = s.slices as usize;
        let span = self.meta.span_ms();
        let (mut mask, mut until) = (0u64, u64::MAX);
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
                mask |= 1 << j;
            }
            p = if p + 1 == n { 0 } else { p + 1 };
        }
        self.starts_memo.0.set(Some(Memo {
            turns: self.meta.turns,
            youngest,
            from: now,
            until,
            mask,
        }));
        mask
    }

    /// The item's bit in each slice, as a logical mask (bit `j`: logical slice `j`); the
    /// slices emptied since the block was last written read as zero.
    #[inline(always)]
    pub(super) fn mask(&self, p: Probe) -> u64 {
        let n = self.meta.shape.slices;
        let block = &self.words[p.block..p.block + n as usize + 1];
        let (words, bits) = (&block[1..], &p.bits[..n as usize]);
        let mut physical = 0u64;
        for s in 0..words.len().min(bits.len()) {
            physical |= ((words[s] >> (bits[s] & 63)) & 1) << s;
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

    /// Whether `mask` has `k` consecutive set bits starting at one of `starts`.
    #[inline(always)]
    fn has_run(&self, mask: u64, starts: u64) -> bool {
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

    #[inline]
    fn contains_with(&self, h: ItemHash, starts: u64) -> bool {
        self.has_run(self.mask(self.probe(h)), starts)
    }

    /// Whether the item is in the window at `now_ms`.
    pub fn contains_hash(&self, h: ItemHash, now_ms: u64) -> bool {
        self.contains_with(h, self.starts(now_ms))
    }

    pub fn contains(&self, item: &[u8], now_ms: u64) -> bool {
        self.contains_hash(Self::hash(item), now_ms)
    }

    /// Turns the ring once if the generation leaving the window (logical `S - k`) holds
    /// nothing of it any more; the youngest is then a new, empty generation.
    fn turn(&mut self, now: u64) -> bool {
        let s = self.meta.shape;
        let leaving = *self.generation(s.slices - s.k);
        if self.meta.window != Window::Count && self.live(&leaving, now) {
            return false;
        }
        self.meta.head = self.physical(s.slices - 1);
        self.meta.turns = self.meta.turns.wrapping_add(1);
        self.meta.turned_ms = now;
        self.generations[self.meta.head as usize] = Generation::default();
        true
    }

    /// Turns the ring as the youngest generation is due: when full (`generation` items);
    /// in a TIME window also once per quantum (`span / l`) since it began, so generations
    /// stand for time and an add after an idle spell pushes the old ones out (up to a whole
    /// ring). A full generation that cannot close because the one leaving still holds items
    /// of the window (more than `capacity` in a span) counts an overflow and takes the item.
    /// Returns whether the ring turned.
    fn advance(&mut self, now: u64) -> bool {
        let youngest = *self.generation(0);
        let full = youngest.items >= self.meta.shape.generation;
        let due = match self.meta.window {
            Window::Count => full as u64,
            Window::Time { .. } => {
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
        if full && turned == 0 {
            self.meta.overflows = self.meta.overflows.saturating_add(1);
        }
        turned > 0
    }

    /// Starts a batch of adds at `now_ms`: the time the filter takes from here on. A COUNT
    /// window keeps no time at all (0), so its bytes never depend on a clock: a replica or a
    /// replay applying its adds later holds the same filter.
    fn tick(&mut self, now_ms: u64) -> u64 {
        if self.meta.window == Window::Count {
            return 0;
        }
        let now = self.effective_ms(now_ms);
        self.meta.clock_ms = now;
        now
    }

    #[inline]
    fn add_at(&mut self, h: ItemHash, now: u64, starts: &mut u64) -> bool {
        if self.advance(now) {
            *starts = self.starts(now);
        }
        let p = self.probe(h);
        let present = self.has_run(self.mask(p), *starts);
        let n = self.meta.shape.slices as usize;
        let k = self.meta.shape.k;
        let (head, turns) = (self.meta.head as usize, self.meta.turns);
        let block = &mut self.words[p.block..p.block + n + 1];
        let stale = turns.wrapping_sub(block[0]).min(n as u64) as usize;
        block[0] = turns;
        let slices = &mut block[1..];
        // Logical j is physical head + j, wrapping once at n.
        let mut s = head;
        for _ in 0..stale {
            slices[s] = 0;
            s = if s + 1 == n { 0 } else { s + 1 };
        }
        let mut s = head;
        for _ in 0..k {
            slices[s] |= 1 << (p.bits[s] & 63);
            s = if s + 1 == n { 0 } else { s + 1 };
        }
        let g = &mut self.generations[head];
        if g.items == 0 {
            g.first_ms = now;
        }
        g.items = g.items.saturating_add(1);
        g.last_ms = now;
        self.meta.added = self.meta.added.saturating_add(1);
        // The youngest generation now holds an item of this moment: a run may start there.
        *starts |= 1;
        if let Some(mut m) = self.starts_memo.0.get() {
            m.mask |= 1;
            m.youngest = true;
            let expires = self
                .meta
                .span_ms()
                .map_or(u64::MAX, |s| now.saturating_add(s));
            m.until = m.until.min(expires);
            self.starts_memo.0.set(Some(m));
        }
        !present
    }

    /// Adds the item at `now_ms`: `true` if it was not in the window before.
    pub fn add_hash(&mut self, h: ItemHash, now_ms: u64) -> bool {
        let now = self.tick(now_ms);
        let mut starts = self.starts(now);
        self.add_at(h, now, &mut starts)
    }

    pub fn add(&mut self, item: &[u8], now_ms: u64) -> bool {
        self.add_hash(Self::hash(item), now_ms)
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

    /// [`WindowFilter::add_hash`] for each item in order, all at `now_ms`.
    pub fn add_batch(&mut self, hashes: &[ItemHash], now_ms: u64, prefetch: bool) -> Vec<bool> {
        let now = self.tick(now_ms);
        let mut starts = self.starts(now);
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        let mut out = Vec::with_capacity(hashes.len());
        for (h, ahead) in walk {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            out.push(self.add_at(h, now, &mut starts));
        }
        out
    }

    /// [`WindowFilter::contains_hash`] for each item, all at `now_ms`.
    pub fn contains_batch(&self, hashes: &[ItemHash], now_ms: u64, prefetch: bool) -> Vec<bool> {
        let starts = self.starts(now_ms);
        let enabled = self.prefetching(prefetch);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, enabled);
        first.iter().for_each(|&h| self.prefetch(h));
        walk.map(|(h, ahead)| {
            if let Some(a) = ahead {
                self.prefetch(a);
            }
            self.contains_with(h, starts)
        })
        .collect()
    }

    /// Items in the generations still in the window at `now_ms` (an estimate of the
    /// window's items: whole generations, slack included).
    pub fn items_in_window(&self, now_ms: u64) -> u64 {
        let starts = self.starts(now_ms);
        (0..MAX_SLICES)
            .filter(|j| starts >> j & 1 == 1)
            .map(|j| self.generation(j).items)
            .fold(0, u64::saturating_add)
    }

    /// Up to `max` bytes of block data from byte `offset` (little-endian words); `None`
    /// past the end.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<Vec<u8>> {
        le_words::chunk(&self.words, offset, max)
    }

    /// Overwrites block data from byte `offset` with `data`, which must lie inside it
    /// (LOADCHUNK, RDB load). Any bytes are a valid filter: a block's turn count from the
    /// future makes its slices read as emptied.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        le_words::check_chunk(self.data_len(), offset, data.len() as u64)?;
        le_words::write(&mut self.words, offset, data);
        Ok(())
    }
}
