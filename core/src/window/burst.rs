//! Burst layers: how a TIME window keeps its promises when a span holds more than its
//! capacity, as a scaling Bloom filter grows past its capacity.
//!
//! The reserved ring takes an add while it has room ([`WindowFilter::room`]): its
//! generations in the window hold fewer than `capacity + generation` items (a span of at
//! most `capacity` adds never gets there) and its youngest generation can take one more or
//! the ring can turn. An add it has no room for goes to the lowest burst layer that has room,
//! else to a new one. The layer at level `i` (1, 2, ...) is a TIME ring of its own over the
//! same span, of `capacity * 2^i` items at `error_rate / 2^i`, its shape chosen as a
//! reserved ring's is; no two live layers share a level, so the layers' rates sum to less
//! than `error_rate` and the window's to less than twice it. Each ring is held to its own
//! capacity in the window, where its shape keeps its rate.
//!
//! A layer is dropped at the first add after its last item left the window (it answers
//! nothing by then). Once no span holds more than `capacity` adds, the reserved ring takes
//! every add, so within one span the layers are gone and the window is its reserved size.
//!
//! A new layer whose memory would take the window over `bf.max-filter-bytes`, or past
//! [`MAX_LEVEL`] layers, is refused: the add answers that the window is full and changes
//! nothing (which layer takes an add is decided before anything is written).

use std::sync::Mutex;

use super::filter::{memory_for, Layer, Live, WindowFilter, WindowMeta};
use super::shape::{self, Shape, Window};
use crate::bloom::ItemHash;
use crate::error::{Error, Result};
use crate::hash::murmur3::fmix64;
use crate::memory::limit::GrowthLimit;

/// Most burst layers a window may have (levels 1 ..= this): a burst of about `2^25` times
/// the capacity within one span, far past any `bf.max-filter-bytes`.
pub const MAX_LEVEL: u32 = 24;

/// The capacity and error rate of the layer at `level` of a window of `capacity` at
/// `error_rate` (exact: the rate halves `level` times); `None` if the capacity overflows.
pub fn layer_params(capacity: u64, error_rate: f64, level: u32) -> Option<(u64, f64)> {
    let capacity = capacity.checked_mul(1u64.checked_shl(level)?)?;
    Some((capacity, error_rate * 0.5f64.powi(level as i32)))
}

/// Per-level seeds of a layer's probes (any distinct odd constants): a layer's bits are
/// drawn apart from the reserved ring's and the other layers', so an item's false
/// positives in one ring say nothing of the next.
const SEED_1: u64 = 0xd6e8_feb8_6659_fd93;
const SEED_2: u64 = 0xa076_1d64_78bd_642f;

/// The hash an item has in the layer at `level`.
#[inline]
pub(super) fn layer_hash(h: ItemHash, level: u32) -> ItemHash {
    let l = level as u64;
    ItemHash {
        h1: fmix64(h.h1 ^ SEED_1.wrapping_mul(l)),
        h2: fmix64(h.h2 ^ SEED_2.wrapping_mul(l)),
        mask: h.mask,
    }
}

/// [`shape::choose`] for a layer, remembered: choosing takes milliseconds, and a window
/// grows at the worst moment for a pause (the shapes depend only on the rate and the
/// capacity).
fn layer_shape(error_rate: f64, capacity: u64) -> Option<Shape> {
    static SHAPES: Mutex<Vec<(u64, u64, Option<Shape>)>> = Mutex::new(Vec::new());
    let key = (error_rate.to_bits(), capacity);
    let mut shapes = SHAPES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, _, s)) = shapes.iter().find(|(r, c, _)| (*r, *c) == key) {
        return s;
    }
    // Layer shapes do not depend on the span: any TIME window's.
    let s = shape::choose(Window::Time { span_ms: 1 }, error_rate, capacity);
    if shapes.len() >= 256 {
        shapes.clear();
    }
    shapes.push((key.0, key.1, s));
    s
}

impl WindowFilter {
    /// Whether some burst layer holds the item at `now` (an add's moment, or a lookup's
    /// effective time).
    pub(super) fn layers_contain(&self, h: ItemHash, now: u64) -> bool {
        self.layers.iter().any(|l| {
            l.ring
                .contains_with(layer_hash(h, l.level), l.ring.starts(now))
        })
    }

    /// Each burst layer's start mask at `now`, for a batch of lookups (no allocation when
    /// there is no layer).
    pub(super) fn layer_starts(&self, now: u64) -> Vec<u64> {
        self.layers.iter().map(|l| l.ring.starts(now)).collect()
    }

    /// Whether some burst layer holds the item, given [`Self::layer_starts`].
    pub(super) fn in_layers(&self, h: ItemHash, starts: &[u64]) -> bool {
        self.layers
            .iter()
            .zip(starts)
            .any(|(l, &s)| s != 0 && l.ring.contains_with(layer_hash(h, l.level), s))
    }

    /// Drops the layers no item of the window is in any more (they answer nothing). Looks
    /// only from the moment the first could have gone: a span after its latest add (a
    /// layer's latest add only moves later, so that moment only comes later too).
    #[inline]
    pub(super) fn drop_expired_layers(&mut self, now: u64) {
        if now < self.counted.drop_from {
            return;
        }
        let before = self.layers.len();
        self.layers.retain(|l| l.ring.live(now).mask != 0);
        if self.layers.len() != before {
            self.counted.changes = self.counted.changes.wrapping_add(1);
        }
        let span = self.meta().span_ms().unwrap_or(0);
        self.counted.drop_from = self
            .layers
            .iter()
            .map(|l| l.ring.meta().clock_ms.saturating_add(span))
            .min()
            .unwrap_or(0);
    }

    /// The level and shape of the layer a burst would add now, refused if the window would
    /// go over `limit` or past [`MAX_LEVEL`]: the lowest level no live layer has.
    fn next_layer(&self, now: u64, limit: u64) -> Result<(u32, WindowMeta)> {
        let live = |l: &&Layer| l.ring.live(now).mask != 0;
        let level = (1..=MAX_LEVEL)
            .find(|&v| !self.layers.iter().filter(live).any(|l| l.level == v))
            .ok_or(Error::ApbfMaxLayers)?;
        let m = self.meta();
        let span_ms = m.span_ms().ok_or(Error::Internal)?;
        let (capacity, error_rate) =
            layer_params(m.capacity, m.error_rate, level).ok_or(Error::ApbfMaxLayers)?;
        let shape = layer_shape(error_rate, capacity).ok_or(Error::ApbfMaxLayers)?;
        let needed = self
            .layers
            .iter()
            .filter(live)
            .fold(self.reserved_bytes(), |b, l| {
                b.saturating_add(l.ring.reserved_bytes())
            })
            .saturating_add(memory_for(&shape));
        if needed > limit {
            return Err(Error::ApbfFull { needed, limit });
        }
        let meta = WindowMeta {
            window: Window::Time { span_ms },
            capacity,
            error_rate,
            shape,
            head: 0,
            turns: 0,
            clock_ms: now,
            // An empty ring's first quantum runs from its creation.
            turned_ms: now,
            added: 0,
            overflows: 0,
        };
        Ok((level, meta))
    }

    /// An add the reserved ring has no room for: into the lowest layer with room, else into
    /// a new layer. Refused (nothing changed, the refusal counted) when the window cannot
    /// grow.
    #[cold]
    pub(super) fn add_burst(
        &mut self,
        h: ItemHash,
        now: u64,
        limit: &dyn GrowthLimit,
    ) -> Result<bool> {
        let present = self.contains_with(h, self.starts(now)) || self.layers_contain(h, now);
        let with_room = self.layers.iter().find(|l| {
            let live: Live = l.ring.live(now);
            live.mask != 0 && l.ring.room(now, live)
        });
        let (level, new) = match with_room {
            Some(l) => (l.level, None),
            None => match self.next_layer(now, limit.limit()) {
                Ok((level, meta)) => (level, Some(meta)),
                Err(e) => {
                    self.counted.adds = self.counted.adds.saturating_add(1);
                    return Err(e);
                }
            },
        };
        // The new ring is allocated before anything changes (an allocator's refusal is an
        // error that leaves the window as it was); from here the add cannot fail.
        let new = match new {
            Some(meta) => Some(WindowFilter::empty(meta)?),
            None => None,
        };
        self.drop_expired_layers(now);
        if let Some(ring) = new {
            // `next_layer` took a level no live layer has; a dead layer can still hold it
            // when `drop_from` says none is due yet (a value whose layer clock runs ahead
            // of its generations' times, as a RESTORE may carry). Levels stay unique, or
            // the value would not load again.
            self.layers.retain(|l| l.level != level);
            let at = self.layers.partition_point(|l| l.level < level);
            self.layers.insert(at, Layer { level, ring });
            self.counted.changes = self.counted.changes.wrapping_add(1);
        }
        let layer = self
            .layers
            .iter_mut()
            .find(|l| l.level == level)
            .ok_or(Error::Internal)?;
        let ring = &mut layer.ring;
        let mut live = ring.live(now);
        if !ring.ready(now, &mut live) {
            return Err(Error::Internal);
        }
        let p = ring.probe(layer_hash(h, level));
        ring.put(&p, now, &mut live);
        let m = self.meta_mut();
        m.clock_ms = now;
        m.added = m.added.saturating_add(1);
        m.overflows = m.overflows.saturating_add(1);
        Ok(!present)
    }
}
