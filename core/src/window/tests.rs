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
