//! The probe positions of the next few items of a batched add, computed once: each item's
//! cache lines are requested as soon as its positions are known, a few items before its
//! turn, and the same positions set its bits when the turn comes. (Computing them twice, once
//! to prefetch and once to add, cost as many instructions as the adding itself.)

use super::hash::ItemHash;
use super::layer::Layer;
use super::prefetch::prefetch;

/// Positions of items `i .. i + distance` of a batch in one layer, in a ring of slots.
pub struct Ahead {
    k: usize,
    slots: usize,
    positions: Vec<(usize, u64)>,
}

impl Ahead {
    /// Room for the items up to `distance` places ahead of the current one, plus it.
    pub fn new(distance: usize, layer: &Layer) -> Ahead {
        let k = layer.k() as usize;
        let slots = distance + 1;
        Ahead {
            k,
            slots,
            positions: vec![(0, 0); slots * k],
        }
    }

    /// Computes item `i`'s positions in `layer` (the one given to `new`) and requests their
    /// lines. Overwrites the slot of item `i - distance - 1`.
    #[inline]
    pub fn request(&mut self, i: usize, layer: &Layer, hash: ItemHash) {
        let start = (i % self.slots) * self.k;
        let slot = &mut self.positions[start..start + self.k];
        for (place, position) in slot.iter_mut().zip(layer.probes(hash)) {
            *place = position;
            prefetch(layer.words(), position.0);
        }
    }

    /// Item `i`'s positions, as `request(i, ..)` left them.
    #[inline]
    pub fn get(&self, i: usize) -> &[(usize, u64)] {
        let start = (i % self.slots) * self.k;
        &self.positions[start..start + self.k]
    }
}
