//! Where a logical filter's shards live and what each routes (protocol `rsbloom-sharding/1`,
//! docs/sharding.md): shard `i` of `n` routes the items whose key slot lies in
//! `[floor(i * 16384 / n), floor((i + 1) * 16384 / n))`, and its key is
//! `{<tag>}<name>:<i>`, the tag being the smallest decimal integer whose own slot lies in that
//! range. Everything here is a pure function of its arguments, so every client computes the
//! same keys and routes alike.

use super::slot::{key_slot, SLOTS};

/// The most shards a logical filter can have: one per slot.
pub const MAX_SHARDS: u32 = SLOTS;
/// The fewest shards a logical filter gets by default, so that it spreads over masters
/// added later.
pub const MIN_DEFAULT_SHARDS: u32 = 16;
/// The most a shard is planned to hold by default: a quarter of the default
/// `proto-max-bulk-len`, so its DUMP payload stays movable by MIGRATE and `--cluster
/// reshard` even after the filter doubled once.
pub const DEFAULT_SHARD_BYTES: u64 = 1 << 27;

/// The first and last slot (both inclusive, as docs/sharding.md and the vectors give them)
/// shard `index` of `count` routes.
pub fn slot_range(index: u32, count: u32) -> (u16, u16) {
    debug_assert!((1..=MAX_SHARDS).contains(&count) && index < count);
    let first = u64::from(index) * u64::from(SLOTS) / u64::from(count);
    let end = (u64::from(index) + 1) * u64::from(SLOTS) / u64::from(count);
    (first as u16, (end - 1) as u16)
}

/// The shard of `count` whose range holds `slot`.
pub fn shard_of_slot(slot: u16, count: u32) -> u32 {
    ((u64::from(slot) + 1) * u64::from(count) - 1) as u32 / SLOTS
}

/// The shard of `count` an item goes to.
pub fn shard_of_item(item: &[u8], count: u32) -> u32 {
    shard_of_slot(key_slot(item), count)
}

/// Each shard's tag: the smallest integer whose decimal form's slot lies in its range.
pub fn tags(count: u32) -> Vec<u32> {
    let mut tags = vec![u32::MAX; count as usize];
    let mut missing = count;
    let mut j = 0u32;
    while missing > 0 {
        let shard = shard_of_slot(key_slot(j.to_string().as_bytes()), count) as usize;
        if tags[shard] == u32::MAX {
            tags[shard] = j;
            missing -= 1;
        }
        j += 1;
    }
    tags
}

/// The key of shard `index` of `count`: `{<tag>}<name>:<index>`.
pub fn shard_key(name: &[u8], index: u32, count: u32) -> Vec<u8> {
    debug_assert!((1..=MAX_SHARDS).contains(&count) && index < count);
    let tag = tags(count)[index as usize];
    key_with_tag(name, index, tag)
}

/// The key of shard `index` whose tag is `tag`.
fn key_with_tag(name: &[u8], index: u32, tag: u32) -> Vec<u8> {
    let mut key = format!("{{{tag}}}").into_bytes();
    key.extend_from_slice(name);
    key.extend_from_slice(format!(":{index}").as_bytes());
    key
}

/// Every shard's key, in shard order.
pub fn shard_keys(name: &[u8], count: u32) -> Vec<Vec<u8>> {
    tags(count)
        .into_iter()
        .enumerate()
        .map(|(i, tag)| key_with_tag(name, i as u32, tag))
        .collect()
}

/// The capacity each shard is reserved with for a logical capacity of `capacity` items:
/// the share of the widest range plus four standard deviations of a binomial count, so
/// that no shard fills before the logical filter does (its error rate is then at most
/// the one asked for). Computed in doubles as written (every step is exact or correctly
/// rounded in IEEE 754, so every language gets the same integer).
pub fn shard_capacity(capacity: u64, count: u32) -> u64 {
    let widest = u64::from(SLOTS).div_ceil(u64::from(count));
    let share = capacity as f64 * widest as f64 / f64::from(SLOTS);
    ((share + 4.0 * share.sqrt()).ceil() as u64).max(1)
}

/// A Bloom shard's planned bytes: `capacity * -ln(p) / ln(2)^2` bits.
pub fn bloom_bytes(capacity: u64, error_rate: f64) -> u64 {
    let ln2 = std::f64::consts::LN_2;
    (capacity as f64 * -error_rate.ln() / (ln2 * ln2) / 8.0).ceil() as u64
}

/// A cuckoo shard's planned bytes: a power of two of buckets of one-byte slots.
pub fn cuckoo_bytes(capacity: u64, bucket_size: u64) -> u64 {
    capacity
        .div_ceil(bucket_size.max(1))
        .max(1)
        .checked_next_power_of_two()
        .map_or(u64::MAX, |b| b.saturating_mul(bucket_size))
}

/// The default shard count: the smallest power of two from [`MIN_DEFAULT_SHARDS`] whose
/// shards are planned (`bytes` of a shard's capacity) within [`DEFAULT_SHARD_BYTES`] and
/// hold at most `max_capacity` each; `None` when even one shard per slot does not.
pub fn default_shards(capacity: u64, max_capacity: u64, bytes: impl Fn(u64) -> u64) -> Option<u32> {
    let mut count = MIN_DEFAULT_SHARDS;
    while count <= MAX_SHARDS {
        let each = shard_capacity(capacity, count);
        if each <= max_capacity && bytes(each) <= DEFAULT_SHARD_BYTES {
            return Some(count);
        }
        count *= 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_every_slot_once() {
        for count in [1, 2, 3, 7, 16, 1000, 16383, 16384] {
            let mut next = 0u32;
            for i in 0..count {
                let (first, last) = slot_range(i, count);
                assert_eq!(u32::from(first), next);
                assert!(last >= first);
                for s in [first, last] {
                    assert_eq!(shard_of_slot(s, count), i, "slot {s} of {count}");
                }
                next = u32::from(last) + 1;
            }
            assert_eq!(next, SLOTS);
        }
    }

    #[test]
    fn every_tag_lies_in_its_range_and_is_the_smallest() {
        for count in [1, 3, 16, 1024, 16384] {
            let tags = tags(count);
            for (i, &tag) in tags.iter().enumerate() {
                let slot = key_slot(tag.to_string().as_bytes());
                assert_eq!(shard_of_slot(slot, count), i as u32);
                let key = shard_key(b"n{a}m", i as u32, count);
                assert!(key.starts_with(format!("{{{tag}}}").as_bytes()));
                assert_eq!(key_slot(&key), slot, "the tag decides the key's slot");
            }
            if count <= 16 {
                for (i, &tag) in tags.iter().enumerate() {
                    assert!((0..tag)
                        .all(|j| shard_of_item(j.to_string().as_bytes(), count) != i as u32));
                }
            }
        }
    }

    #[test]
    fn sizing() {
        assert_eq!(shard_capacity(1_000_000, 1), 1_004_000);
        assert_eq!(shard_capacity(1, 16384), 1);
        assert_eq!(shard_capacity(1000, 16), 95);
        assert!(shard_capacity(10_000_000_000, 64) < 1 << 30);
        let ten_billion = default_shards(10_000_000_000, 1 << 30, |c| bloom_bytes(c, 0.01));
        assert_eq!(ten_billion, Some(128));
        assert_eq!(
            default_shards(1000, 1 << 30, |c| bloom_bytes(c, 0.01)),
            Some(16)
        );
        assert_eq!(cuckoo_bytes(1000, 2), 1024);
        assert_eq!(default_shards(u64::MAX / 2, 1 << 30, |c| c), None);
    }
}
