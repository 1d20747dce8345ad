use super::codec;
use super::shape::{choose, Window};
use super::WindowFilter;
use crate::fields::{Reader, Writer};

const LIMIT: u64 = u64::MAX;

fn item(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

#[test]
fn a_count_window_holds_its_last_capacity_items_and_forgets_older_ones() {
    let cap = 10_000;
    let mut f = WindowFilter::new(Window::Count, 0.01, cap, LIMIT).unwrap();
    let g = f.shape().generation;
    for i in 0..5 * cap {
        f.add(&item(i), 0, LIMIT).unwrap();
        if i % 997 == 0 && i >= cap {
            assert!(
                (i + 1 - cap..=i).all(|j| f.contains(&item(j), 0)),
                "after {i}"
            );
        }
    }
    // Past the window an item fades a generation at a time (guarantees.rs has the profile);
    // from k generations past its own slices are gone and it answers at about the rate.
    let end = 5 * cap;
    let past = end - cap - (f.shape().k as u64 + 1) * g;
    let old = (0..past).filter(|&j| f.contains(&item(j), 0)).count();
    assert!(
        (old as f64) < 0.02 * past as f64,
        "{old} of {past} old items found"
    );
}

#[test]
fn a_time_window_forgets_by_time_and_time_never_goes_back() {
    let mut f = WindowFilter::new(Window::Time { span_ms: 10_000 }, 0.01, 1_000, LIMIT).unwrap();
    let q = f.meta().quantum_ms();
    f.add(b"old", 1_000, LIMIT).unwrap();
    f.add(b"new", 9_000, LIMIT).unwrap();
    assert!(f.contains(b"old", 10_999) && f.contains(b"new", 10_999));
    // "old" went at 11,000 at the latest plus the slack of one quantum.
    assert!(!f.contains(b"old", 11_000 + q));
    assert!(f.contains(b"new", 11_000 + q));
    // An add at an earlier time is taken as the latest time seen.
    f.add(b"late", 5_000, LIMIT).unwrap();
    assert_eq!(f.meta().clock_ms, 9_000);
    assert!(f.contains(b"late", 18_999) && !f.contains(b"late", 19_000 + q));
}

#[test]
fn the_rdb_value_and_the_scandump_stream_rebuild_the_filter() {
    let mut f = WindowFilter::new(Window::Time { span_ms: 60_000 }, 0.001, 5_000, LIMIT).unwrap();
    for i in 0..12_000 {
        f.add(&item(i), 1_000_000 + i * 7, LIMIT).unwrap();
    }
    let mut out = Writer(Vec::new());
    codec::save(&f, &mut out);
    let back = codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION, LIMIT).unwrap();
    assert_eq!(back, f);
    let calls = codec::load_calls(&f, 1000);
    let codec::Load::Header(mut rebuilt) =
        codec::parse_load(calls[0].0, &calls[0].1, LIMIT, false).unwrap()
    else {
        panic!("not a header")
    };
    for (it, data) in &calls[1..] {
        let codec::Load::Data { offset, data } = codec::parse_load(*it, data, LIMIT, true).unwrap()
        else {
            panic!("not data")
        };
        rebuilt.write_chunk(offset, data).unwrap();
    }
    assert_eq!(*rebuilt, f);
}

#[test]
fn shapes_fit_in_a_mask_for_rates_down_to_one_in_a_billion() {
    let small = WindowFilter::new(Window::Count, 9e-10, 100, LIMIT);
    assert_eq!(small.err(), Some(crate::error::Error::ApbfRateTooSmall));
    for w in [Window::Count, Window::Time { span_ms: 1000 }] {
        for e in [0.999, 0.5, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-8, 1e-9] {
            let s = choose(w, e, 1_000_000).unwrap_or_else(|| panic!("{w:?} {e}"));
            assert!(s.slices <= 64 && s.k < s.slices, "{s:?}");
        }
    }
}

/// A keyed window hashes under its secret (its bits are not a plain window's for the same
/// items), answers for its items as a plain one does, and keeps the secret through the RDB
/// value and the SCANDUMP stream; its blocks are a plain window's with the flag set and
/// the secret's two words after it, and its burst layers are plain.
#[test]
fn a_keyed_window_hashes_under_its_secret_and_keeps_it() {
    use crate::bloom::keyed::Secret;
    let secret = Secret::from_words([0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210]);
    let window = Window::Time { span_ms: 60_000 };
    let mut plain = WindowFilter::new(window, 0.01, 200, LIMIT).unwrap();
    let mut keyed = plain.clone().with_secret(secret);
    assert!(keyed.keyed() && !plain.keyed());
    assert_ne!(keyed.hash(b"a"), plain.hash(b"a"));
    assert_eq!(keyed.hash(b"a"), secret.hash(b"a"));
    assert_eq!(
        keyed.hash_all([&b"a"[..], b"b"]),
        [keyed.hash(b"a"), keyed.hash(b"b")]
    );
    // Three times the capacity at one moment: burst layers.
    for i in 0..600 {
        plain.add(&item(i), 1_000_000, LIMIT).unwrap();
        keyed.add(&item(i), 1_000_000, LIMIT).unwrap();
    }
    assert!(!keyed.layers().is_empty());
    assert!((0..600).all(|i| keyed.contains(&item(i), 1_000_000)));
    assert_ne!(keyed.words(), plain.words());
    let keyed_items = WindowFilter::new(window, 0.01, 200, LIMIT).unwrap();
    assert_ne!(keyed, keyed_items.with_secret(Secret::from_words([1, 2])));

    let (mut p, mut k) = (Writer(Vec::new()), Writer(Vec::new()));
    codec::save(&plain, &mut p);
    codec::save(&keyed, &mut k);
    let back = codec::load(&mut Reader(&k.0), codec::ENCODING_VERSION, LIMIT).unwrap();
    assert_eq!(back, keyed);
    assert!(back.keyed() && back.contains(&item(7), 1_000_000));
    let calls = codec::load_calls(&keyed, 700);
    let codec::Load::Header(rebuilt) =
        codec::parse_load(calls[0].0, &calls[0].1, LIMIT, false).unwrap()
    else {
        panic!("not a header")
    };
    assert!(rebuilt.keyed());
    assert_eq!(rebuilt.hash(b"a"), keyed.hash(b"a"));

    // The fields of the reserved ring's block: the flag, then the secret; the rest as a
    // plain window's (whose words differ, the items being hashed apart).
    let fields = |w: &Writer| -> Vec<u64> {
        let mut r = Reader(&w.0);
        let mut out = Vec::new();
        while let Ok(v) = crate::fields::FieldSource::get_u64(&mut r) {
            out.push(v);
        }
        out
    };
    let (pf, kf) = (fields(&p), fields(&k));
    assert_eq!(pf[0], 0);
    assert_eq!(
        kf[..3],
        [codec::KEYED, secret.words()[0], secret.words()[1]]
    );
    assert_eq!(kf[3..10], pf[1..8]);
}

/// The keyed flag only where it can be: on a reserved ring of version 2; never on a burst
/// layer, never in a version 1 value; other flags stay unknown.
#[test]
fn keyed_flags_outside_a_version_2_reserved_ring_are_refused() {
    use crate::bloom::keyed::Secret;
    use crate::fields::FieldSink;
    let secret = Secret::from_words([5, 6]);
    let keyed = WindowFilter::new(Window::Count, 0.01, 100, LIMIT)
        .unwrap()
        .with_secret(secret);
    let mut out = Writer(Vec::new());
    codec::save(&keyed, &mut out);
    // A version 2 value without layers is a version 1 value and a layer count: as version 1
    // the keyed block is refused.
    assert!(codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION_1, LIMIT).is_err());
    let plain = WindowFilter::new(Window::Count, 0.01, 100, LIMIT).unwrap();
    let mut v1 = Writer(Vec::new());
    codec::save_v1(&plain, &mut v1);
    assert!(codec::load(&mut Reader(&v1.0), codec::ENCODING_VERSION_1, LIMIT).is_ok());
    // Flag 2 (unknown) and 3 on the reserved ring.
    for flags in [2u64, 3] {
        let mut bad = Writer(Vec::new());
        bad.put_u64(flags);
        let tail = {
            let mut w = Writer(Vec::new());
            codec::save(&plain, &mut w);
            w.0
        };
        // The plain value's bytes after its flags field.
        let mut first = Writer(Vec::new());
        first.put_u64(0);
        bad.0.extend_from_slice(&tail[first.0.len()..]);
        assert!(codec::load(&mut Reader(&bad.0), codec::ENCODING_VERSION, LIMIT).is_err());
    }
    // A burst layer whose block claims a secret.
    let mut grown = WindowFilter::new(Window::Time { span_ms: 10_000 }, 0.05, 20, LIMIT).unwrap();
    for i in 0..100 {
        grown.add(&item(i), 1_000_000, LIMIT).unwrap();
    }
    assert!(!grown.layers().is_empty());
    let mut good = Writer(Vec::new());
    codec::save(&grown, &mut good);
    assert!(codec::load(&mut Reader(&good.0), codec::ENCODING_VERSION, LIMIT).is_ok());
    let mut zero = Writer(Vec::new());
    zero.put_u64(0);
    let flag0 = zero.0;
    // The layer's block starts after the reserved ring's block, the layer count and the
    // first level: the header of the window without its layers ends with its count (0).
    let header = codec::encode_header(&grown);
    let mut reserved_only = grown.clone();
    reserved_only.layers.clear();
    let at = codec::encode_header(&reserved_only).len() + flag0.len();
    assert_eq!(&header[at..at + flag0.len()], &flag0[..]);
    let mut keyed_layer = header[..at].to_vec();
    let mut flag = Writer(Vec::new());
    flag.put_u64(codec::KEYED);
    flag.put_u64(7);
    flag.put_u64(8);
    keyed_layer.extend_from_slice(&flag.0);
    keyed_layer.extend_from_slice(&header[at + flag0.len()..]);
    assert!(codec::decode_header(&header, LIMIT).is_ok());
    let refused = codec::decode_header(&keyed_layer, LIMIT);
    assert!(refused.is_err(), "a keyed layer loaded");
}
