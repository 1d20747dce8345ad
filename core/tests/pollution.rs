//! The pollution attack on Bloom filters (Gerbet, Kumar, Lauradoux, "The Power of Evil
//! Choices in Bloom Filters", 2015), and the defence of keyed filters.
//!
//! The attacker knows the unkeyed hash (Guava's, public) and the filter's shape (Guava's
//! sizing for the capacity and rate, public too), so offline, with no access to the server,
//! it picks greedily items whose k probes all land on bits none of its earlier items set.
//! `capacity` such items set 7 fresh bits each instead of ~4.7, and the filter answers
//! "present" for ~11 % of everything (0.73^7) instead of 1 %. Under a secret the attacker's
//! choice is as good as any items: the keyed filter stays at its rate. The counting filter
//! (`CBF.*`) probes as the `RSbloom--` filters do, over its own (public) shape, so the same
//! attack works on it, and the same secret (`CBF.RESERVE ... KEYED`) defeats it. So does the
//! sliding window (`APBF.*`): its shape is public too (`APBF.INFO`), and an unkeyed window's
//! bits come from Guava's hash; `APBF.RESERVE ... KEYED` takes the same defence.

use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::bloom::{guava, Chain, Scheme, Variant};
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::testkit::Rng;
use rsbloom_core::window::{Window, WindowFilter};

const CAPACITY: u64 = 100_000;
const RATE: f64 = 0.01;
const PROBES: u32 = 1_000_000;
const NO_LIMIT: u64 = u64::MAX;

/// The attacker's items for a filter of `words` 64-bit words and `k` probes (Guava's): 16
/// bytes, a fixed first word (so no probe item below can be one).
fn evil_items_for(words: u64, k: u32) -> Vec<[u8; 16]> {
    let bits = words * 64;
    let mut taken = vec![0u64; words as usize];
    let mut items = Vec::with_capacity(CAPACITY as usize);
    let mut rng = Rng::new(0xE71C);
    let mut probes = Vec::with_capacity(k as usize);
    while items.len() < CAPACITY as usize {
        let mut item = [0u8; 16];
        item[..8].copy_from_slice(&0xE71Cu64.to_le_bytes());
        item[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
        probes.clear();
        let fresh = guava::hash(&item).probes(k, bits).all(|b| {
            let clear = taken[(b / 64) as usize] & (1 << (b % 64)) == 0 && !probes.contains(&b);
            probes.push(b);
            clear
        });
        if fresh {
            probes
                .iter()
                .for_each(|b| taken[(b / 64) as usize] |= 1 << (b % 64));
            items.push(item);
        }
    }
    items
}

/// The attacker's items for a Bloom filter of `CAPACITY` at `RATE`.
fn evil_items() -> Vec<[u8; 16]> {
    let shape = guava::Sizing::guava(CAPACITY, RATE);
    evil_items_for(shape.words, shape.k)
}

/// The rate at which `contains` answers "present" for a seeded sample of items never added.
fn rate_of(contains: impl Fn(&[u8]) -> bool) -> f64 {
    let mut rng = Rng::new(0x5A3F1E);
    let hits = (0..PROBES)
        .filter(|_| {
            let mut item = [0u8; 16];
            item[..8].copy_from_slice(&1u64.to_le_bytes());
            item[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
            contains(&item)
        })
        .count();
    hits as f64 / PROBES as f64
}

fn false_positive_rate(chain: &Chain) -> f64 {
    rate_of(|item| chain.contains(item))
}

fn filled(variant: Variant, items: &[[u8; 16]]) -> Chain {
    let mut chain =
        Chain::create_variant(Scheme::Guava, variant, RATE, CAPACITY, 0, NO_LIMIT).unwrap();
    // A keyed filter answers "present" for ~1 % of them as they go in (false positives).
    for item in items {
        chain.add(item, NO_LIMIT).unwrap();
    }
    assert!(chain.count() > CAPACITY * 98 / 100);
    chain
}

#[test]
fn chosen_items_pollute_an_unkeyed_filter_but_not_a_keyed_one() {
    let items = evil_items();
    let plain = false_positive_rate(&filled(Variant::default(), &items));
    println!("unkeyed filter after the attack: {plain}");
    assert!(plain > 8.0 * RATE, "unkeyed: {plain}");
    for blocked in [false, true] {
        let variant = Variant {
            // A seeded secret, so the run can be replayed (the server draws a random one).
            secret: Some(Secret::from_words([0x005E_C7E7, 0x0DDF_00D0])),
            blocked,
        };
        let keyed = false_positive_rate(&filled(variant, &items));
        println!("keyed (blocked {blocked}) filter after the attack: {keyed}");
        assert!(keyed < 1.1 * RATE, "keyed, blocked {blocked}: {keyed}");
    }
}

/// The counting filter's shape is public too (`CBF.INFO`: counters and hashes), and without a
/// secret its probes are Guava's: the attacker's items for that shape pollute it as they do a
/// Bloom filter. With `KEYED` the same items are as good as any.
#[test]
fn chosen_items_pollute_an_unkeyed_counting_filter_but_not_a_keyed_one() {
    let fill = |secret: Option<Secret>, items: &[[u8; 16]]| {
        let mut f = CountingFilter::new(RATE, CAPACITY, 4, NO_LIMIT).unwrap();
        if let Some(s) = secret {
            f = f.with_secret(s);
        }
        for item in items {
            f.add(item).unwrap();
        }
        assert_eq!(f.count(), CAPACITY);
        f
    };
    let shape = CountingFilter::new(RATE, CAPACITY, 4, NO_LIMIT)
        .unwrap()
        .meta();
    let items = evil_items_for(shape.words, shape.k);
    let plain = fill(None, &items);
    let plain = rate_of(|item| plain.contains(item));
    println!("unkeyed counting filter after the attack: {plain}");
    assert!(plain > 8.0 * RATE, "unkeyed: {plain}");
    let keyed = fill(Some(Secret::from_words([0x005E_C7E7, 0x0DDF_00D0])), &items);
    let keyed = rate_of(|item| keyed.contains(item));
    println!("keyed counting filter after the attack: {keyed}");
    assert!(keyed < 1.1 * RATE, "keyed: {keyed}");
}

/// The sliding window: the attacker makes a window of the shape `APBF.INFO` shows (its hash
/// functions, slices and size give the blocks; the shape follows from the rate and capacity
/// as `APBF.RESERVE` chooses it), unkeyed, and feeds it greedily the items that go to one of
/// its first `target` blocks with at most `max_set` of their `k` bits set already, as it
/// stands: a COUNT window filled by them from empty. All blocks and no bit set is the Bloom
/// filters' attack above; half the blocks, the blocked layout's weakness: an item's bits are
/// all in its block, so blocks filled to the brim answer "present" for everything that lands
/// in them.
fn window_evil_items(target: u64, max_set: u32) -> Vec<[u8; 16]> {
    let mut sim = WindowFilter::new(Window::Count, RATE, CAPACITY, NO_LIMIT).unwrap();
    let mut items = Vec::with_capacity(CAPACITY as usize);
    let mut rng = Rng::new(0xE71C);
    while items.len() < CAPACITY as usize {
        let mut item = [0u8; 16];
        item[..8].copy_from_slice(&0xE71Cu64.to_le_bytes());
        item[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
        let (block, set) = sim.add_target(sim.hash(&item));
        if block < target && set <= max_set {
            sim.add(&item, 0, NO_LIMIT).unwrap();
            items.push(item);
        }
    }
    items
}

/// Chosen items pollute an unkeyed window (its whole window theirs) and are as good as any
/// in a keyed one of the same shape.
#[test]
fn chosen_items_pollute_an_unkeyed_window_but_not_a_keyed_one() {
    let fill = |secret: Option<Secret>, items: &[[u8; 16]]| {
        let mut f = WindowFilter::new(Window::Count, RATE, CAPACITY, NO_LIMIT).unwrap();
        if let Some(s) = secret {
            f = f.with_secret(s);
        }
        for item in items {
            f.add(item, 0, NO_LIMIT).unwrap();
        }
        assert_eq!(f.meta().added, CAPACITY);
        // The window holds the attacker's items only, every one of them still in it.
        assert!(items.iter().all(|item| f.contains(item, 0)));
        f
    };
    let blocks = WindowFilter::new(Window::Count, RATE, CAPACITY, NO_LIMIT)
        .unwrap()
        .shape()
        .blocks;
    for (what, target, max_set, over) in [
        ("fresh bits", blocks, 0, 1.5 * RATE),
        ("half the blocks", blocks / 2, 1, 20.0 * RATE),
    ] {
        let items = window_evil_items(target, max_set);
        let plain = fill(None, &items);
        let plain = rate_of(|item| plain.contains(item, 0));
        println!("unkeyed sliding window after the attack ({what}): {plain}");
        assert!(plain > over, "unkeyed, {what}: {plain}");
        let keyed = fill(Some(Secret::from_words([0x005E_C7E7, 0x0DDF_00D0])), &items);
        let keyed = rate_of(|item| keyed.contains(item, 0));
        println!("keyed sliding window after the attack ({what}): {keyed}");
        assert!(keyed < RATE, "keyed, {what}: {keyed}");
    }
}
