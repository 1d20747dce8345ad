//! The cursor walk against the plain one (RedisBloom's order, byte for byte), and the work
//! of compacting the worst filter a RESTORE can bring: 65,535 sub-filters laid out so that
//! every fingerprint of the plain walk tries half of them.

use super::*;
use crate::cuckoo::hash::CfHash;
use crate::cuckoo::meta::MAX_FILTERS;
use crate::cuckoo::CuckooMeta;
use crate::testkit::Rng;

/// A filter of `filters` sub-filters of `buckets` buckets (expansion 1) from its slots.
fn from_slots(buckets: u64, bucket_size: u8, slots: Vec<Vec<u8>>) -> CuckooFilter {
    let meta = CuckooMeta {
        num_buckets: buckets,
        items: 0,
        deletes: 0,
        bucket_size: bucket_size as u64,
        max_iterations: 20,
        expansion: 1,
        num_filters: slots.len() as u64,
    };
    let subs = slots
        .into_iter()
        .map(|s| SubFilter::from_slots(buckets, bucket_size, s).unwrap())
        .collect();
    CuckooFilter::from_parts(&meta, subs).unwrap()
}

/// An item whose fingerprint is even: its two buckets coincide in a 2-bucket sub-filter
/// (the offset `fp * M` is even), so moving it can only ever target one bucket.
fn even_item() -> (Vec<u8>, CfHash) {
    (0u32..)
        .map(|i| format!("x{i}").into_bytes())
        .map(|item| (item.clone(), CfHash::of(&item)))
        .find(|(_, h)| h.fp % 2 == 0)
        .unwrap()
}

/// The worst case: `filters` sub-filters of 2 buckets; in the older half bucket `h1 mod 2`
/// of the even item is full of its fingerprint, in the newer half it holds one copy; the
/// other bucket is empty everywhere. The plain walk tries every full sub-filter for each
/// copy it moves. Returns the filter and the copies it holds.
fn worst_case(filters: usize, bucket_size: u8) -> (CuckooFilter, u64) {
    let (_, h) = even_item();
    let b = (h.h1 % 2) as usize * bucket_size as usize;
    let bs = bucket_size as usize;
    let mut copies = 0;
    let slots = (0..filters)
        .map(|k| {
            let mut s = vec![EMPTY; 2 * bs];
            let fill = if k < filters / 2 { bs } else { 1 };
            s[b..b + fill].fill(h.fp);
            copies += fill as u64;
            s
        })
        .collect();
    let mut f = from_slots(2, bucket_size, slots);
    // Counters as after many deletes: the next delete compacts.
    f.items = copies;
    f.deletes = copies;
    (f, copies)
}

#[test]
fn cursors_move_what_the_plain_walk_moves() {
    let mut rng = Rng::new(13);
    for round in 0..200 {
        // Power-of-two and plain-remainder bucket counts, sparse to nearly full.
        let buckets = [1, 2, 3, 4, 7, 16][rng.index(6)];
        let bucket_size = 1 + rng.below(4) as u8;
        let filters = 2 + rng.index(120);
        let density = rng.below(101);
        let slots = (0..filters)
            .map(|_| {
                (0..buckets * bucket_size as u64)
                    .map(|_| {
                        if rng.below(100) < density {
                            1 + rng.below(255) as u8
                        } else {
                            EMPTY
                        }
                    })
                    .collect()
            })
            .collect();
        let f = from_slots(buckets, bucket_size, slots);
        for cont in [false, true] {
            let mut plain = f.clone();
            let mut cursors = f.clone();
            plain.compact_by(cont, Walk::Plain);
            cursors.compact_by(cont, Walk::Cursors(vec![0; buckets as usize]));
            assert_eq!(plain, cursors, "round {round}, cont {cont}");
        }
    }
    // The worst case too, at a size the plain walk can afford.
    let (f, _) = worst_case(600, 3);
    for cont in [false, true] {
        let mut plain = f.clone();
        let mut cursors = f.clone();
        let slow = plain.compact_by(cont, Walk::Plain);
        let fast = cursors.compact_by(cont, Walk::Cursors(vec![0; 2]));
        assert_eq!(plain, cursors, "worst case, cont {cont}");
        assert!(slow > 50 * fast, "plain {slow} probes, cursors {fast}");
    }
}

/// The packed result of compacting [`worst_case`]: every copy kept, in as few sub-filters
/// as hold them.
fn assert_packed(f: &CuckooFilter, copies: u64, bucket_size: u8) {
    let (item, h) = even_item();
    // Both buckets are one: each copy counts twice.
    assert_eq!(f.count(&item), 2 * copies);
    assert_eq!(
        f.sub_filters().len() as u64,
        copies.div_ceil(bucket_size as u64)
    );
    assert!(f.contains_hash(h));
}

#[test]
fn worst_case_compaction_is_linear() {
    const BUCKET_SIZE: u8 = 4;
    let filters = MAX_FILTERS as usize;
    let (f, copies) = worst_case(filters, BUCKET_SIZE);
    let slots = f.slot_bytes();
    // Every bucket of every source read once, two cursor looks per copy, and each cursor
    // passes each sub-filter once: a few probes a slot, where the plain walk makes about
    // `filters` (over 10^9 probes here).
    let bound = 3 * slots;

    let mut compacted = f.clone();
    let probes = compacted.compact_counted(true);
    assert!(probes <= bound, "CF.COMPACT: {probes} probes over {bound}");
    assert_packed(&compacted, copies, BUCKET_SIZE);
    assert_eq!(compacted.deletes(), 0);

    // CF.DEL's compaction stops at the first sub-filter that keeps a fingerprint; the
    // delete (which takes the newest copy) runs it.
    let mut on_delete = f.clone();
    let probes = on_delete.compact_counted(false);
    assert!(probes <= bound, "CF.DEL: {probes} probes over {bound}");
    assert_packed(&on_delete, copies, BUCKET_SIZE);
    let (item, _) = even_item();
    let mut deleted = f;
    assert!(deleted.delete(&item));
    assert_eq!(deleted.deletes(), 0, "the delete did not compact");
    assert_packed(&deleted, copies - 1, BUCKET_SIZE);
}
