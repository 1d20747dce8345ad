//! APBF.INFO: the window, its shape and counters; a TIME window's burst layers.

use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::WindowFilter;

use super::now_ms;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::datatype::Family;

/// APBF.INFO key: a flat array in RESP2, a map in RESP3, as BF.INFO.
pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let f = key.read::<WindowFilter>()?.ok_or(Error::NotFound)?;
    let m = f.meta();
    let s = m.shape;
    let int = |n: u64| Reply::count(n);
    let mut rows = vec![
        ("Capacity", int(m.capacity)),
        ("Size", Reply::Int(f.bytes())),
        ("Error rate", Reply::Double(m.error_rate)),
        (
            "Window",
            Reply::Bulk(if m.span_ms().is_some() {
                b"time".to_vec()
            } else {
                b"count".to_vec()
            }),
        ),
    ];
    if let Some(span) = m.span_ms() {
        rows.push(("Span", Reply::Double(span as f64 / 1000.0)));
    }
    rows.extend([
        ("Number of hash functions", int(s.k as u64)),
        ("Generations", int(s.l as u64)),
        ("Slices", int(s.slices as u64)),
        ("Generation size", int(s.generation)),
        ("Items in window", int(f.items_in_window(now_ms()))),
        ("Number of items inserted", int(m.added)),
        ("Overflows", int(m.overflows)),
    ]);
    if m.span_ms().is_some() {
        // How much of Size the burst took, and the adds refused for want of room.
        let burst = f.memory_bytes().saturating_sub(f.reserved_bytes());
        rows.extend([
            ("Burst layers", int(f.layers().len() as u64)),
            ("Burst size", int(burst)),
            ("Refused adds", int(f.refused())),
        ]);
    }
    // Only for a keyed window, as BF.INFO's and CBF.INFO's; the secret itself is never shown.
    if f.keyed() {
        rows.push(("Keyed", Reply::Int(1)));
    }
    Ok(Reply::Map(rows))
}
