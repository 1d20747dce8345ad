//! Compaction (CF.COMPACT, and after deletes): from the newest sub-filter down to
//! sub-filter 1, bucket by bucket and slot by slot, each fingerprint of sub-filter `i`
//! found in bucket `b` moves to the oldest of the sub-filters `0..i` with room in bucket
//! `b mod n`, else in its other bucket `(b ^ fp * M) mod n`, as RedisBloom moves it.
//!
//! Walked plainly that costs up to `2 * i` bucket probes per fingerprint, quadratic in the
//! number of sub-filters, and a loaded value may hold 65,535 of them (RedisBloom's own
//! bound, which a RedisBloom with `CF_MAX_EXPANSIONS` raised reaches, and so can a crafted
//! RESTORE): hours of a blocked server. Sub-filters of different sizes come only with
//! expansion >= 2, and bucket counts stop below 2^56, so such a filter has at most 57 of
//! them and the plain walk stays linear. Past [`PLAIN_MAX`] sub-filters (expansion 1, all of
//! one size) a cursor per bucket index holds the oldest sub-filter whose bucket may still
//! have room. During one compaction the targets' buckets only fill (a sub-filter loses
//! fingerprints only as the source, and is never a target after that), so a full bucket
//! stays full, each cursor only moves forward, and the sub-filter it rests on is the one
//! the plain walk would find: the same bytes for a bounded amount of work.

use super::CuckooFilter;
use crate::cuckoo::hash::{alt_offset, EMPTY};
use crate::cuckoo::sub_filter::SubFilter;

/// Compaction runs after a delete once deletes exceed this share of the items.
pub(super) const COMPACT_SHARE: f64 = 0.10;

/// Up to this many sub-filters the plain walk's cost (at most `2 * PLAIN_MAX` probes per
/// fingerprint) is acceptable, and it needs no memory; the cursors take 4 bytes a bucket
/// index, under 1/16 of the slots of a filter with more sub-filters than this.
const PLAIN_MAX: usize = 64;

/// How targets are found: every older sub-filter tried in turn, or per-bucket cursors.
#[derive(Debug)]
pub(super) enum Walk {
    Plain,
    /// For sub-filters that all have `cursors.len()` buckets.
    Cursors(Vec<u32>),
}

impl CuckooFilter {
    /// Moves fingerprints from newer sub-filters into older ones and frees newest
    /// sub-filters left empty (CF.COMPACT with `cont`; deletes with `!cont`, which stop at
    /// the first sub-filter that cannot be emptied). Resets the delete count.
    pub fn compact(&mut self, cont: bool) {
        self.compact_counted(cont);
    }

    /// [`CuckooFilter::compact`], returning the bucket probes it made (each bucket of a
    /// source sub-filter read, each target bucket tried): the work the tests hold to a
    /// bound.
    pub fn compact_counted(&mut self, cont: bool) -> u64 {
        let walk = match self.filters.first() {
            Some(f) if self.expansion == 1 && self.filters.len() > PLAIN_MAX => {
                Walk::Cursors(vec![0; f.buckets() as usize])
            }
            _ => Walk::Plain,
        };
        self.compact_by(cont, walk)
    }

    /// Compaction with the walk chosen (the tests run both on the same filters).
    pub(super) fn compact_by(&mut self, cont: bool, mut walk: Walk) -> u64 {
        let mut probes = 0;
        for i in (1..self.filters.len()).rev() {
            let emptied = self.compact_one(i, &mut walk, &mut probes);
            if emptied && i + 1 == self.filters.len() {
                self.filters.pop();
            }
            if !emptied && !cont {
                break;
            }
        }
        self.deletes = 0;
        probes
    }

    /// Tries to move every fingerprint of sub-filter `i` into sub-filters `0..i`; `true`
    /// if all moved.
    fn compact_one(&mut self, i: usize, walk: &mut Walk, probes: &mut u64) -> bool {
        let bucket_size = self.bucket_size as usize;
        let (older, newer) = self.filters.split_at_mut(i);
        let Some(current) = newer.first_mut() else {
            return true;
        };
        let mut all_moved = true;
        for (b, bucket) in current
            .slots_mut()
            .chunks_exact_mut(bucket_size)
            .enumerate()
        {
            *probes += 1;
            for slot in bucket.iter_mut().filter(|s| **s != EMPTY) {
                let fp = *slot;
                match walk.target(older, b as u64, fp, probes) {
                    Some((j, at)) => {
                        if let Some(f) = older.get_mut(j) {
                            f.put(at, fp);
                        }
                        *slot = EMPTY;
                    }
                    None => all_moved = false,
                }
            }
        }
        all_moved
    }
}

impl Walk {
    /// The oldest sub-filter of `older` and the slot in it where fingerprint `fp` from
    /// bucket `b` goes, if any has room.
    fn target(
        &mut self,
        older: &[SubFilter],
        b: u64,
        fp: u8,
        probes: &mut u64,
    ) -> Option<(usize, usize)> {
        match self {
            Walk::Plain => older.iter().enumerate().find_map(|(j, f)| {
                *probes += 1;
                let at = f.free_slot(f.index(b)).or_else(|| {
                    *probes += 1;
                    f.free_slot(f.index(b ^ alt_offset(fp)))
                })?;
                Some((j, at))
            }),
            Walk::Cursors(cursors) => {
                let first = older.first()?;
                let c1 = first.index(b);
                let c2 = first.index(b ^ alt_offset(fp));
                let j1 = oldest_room(older, cursors, c1, probes);
                let j2 = oldest_room(older, cursors, c2, probes);
                // Within one sub-filter, bucket `b` comes first.
                let (j, c) = if j1 <= j2 { (j1, c1) } else { (j2, c2) };
                let at = older.get(j)?.free_slot(c)?;
                Some((j, at))
            }
        }
    }
}

/// Moves bucket `c`'s cursor past the sub-filters whose bucket `c` is full and returns the
/// first with room (`older.len()` if none).
fn oldest_room(older: &[SubFilter], cursors: &mut [u32], c: u64, probes: &mut u64) -> usize {
    let Some(cursor) = cursors.get_mut(c as usize) else {
        return older.len();
    };
    while let Some(f) = older.get(*cursor as usize) {
        *probes += 1;
        if f.free_slot(c).is_some() {
            return *cursor as usize;
        }
        *cursor += 1;
    }
    older.len()
}

#[cfg(test)]
mod tests;
