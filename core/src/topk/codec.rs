//! RedisBloom's RDB value of a `TopK-TYPE` sketch (encoding version 0), all checked before
//! anything large is allocated. Fields: `k`, `width`, `depth` (unsigned), `decay` (double),
//! the buckets as one string (`fp u32, count u32` little-endian, row after row), the heap as
//! one string of `k` 24-byte entries (`fp u32, itemlen u32, item pointer u64, count u32,
//! 4 padding bytes`), then each entry's item as a string.
//!
//! RedisBloom writes its process's item pointers into the heap string and ignores them on
//! load. rsbloom writes zeros there, except in entry 0, which carries the sketch's decay
//! roll counter (see [`super::decay`]): the same commands give the same bytes on a primary,
//! its replicas and after a reload. Loading RedisBloom's data, entry 0's pointer becomes the
//! roll counter (any value serves).
//!
//! RedisBloom writes an item as a C string (`strlen + 1` bytes, so cut at its first NUL; an
//! unused entry, and the empty item, as a lone NUL, which it loads as "no item"). rsbloom
//! writes the whole item and a NUL (RedisBloom loads that whole: it keeps the item's length
//! from the heap entry), and the empty item as two NULs, which RedisBloom loads as an empty
//! string rather than none. A cut item from RedisBloom keeps the known prefix (the rest is
//! unknown, held as zeros, as RedisBloom itself cannot match it either) and is written back
//! as it came.

use super::hash::fingerprint;
use super::sketch::{Bucket, Entry, Params, TopK, BUCKET_BYTES, HEAP_ENTRY_BYTES};
use crate::error::{bad_data, check_limit, Result};
use crate::fields::{FieldSink, FieldSource};
use crate::memory::fallible;

/// RedisBloom's type name for Top-K sketches (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "TopK-TYPE";
/// The only encoding version RedisBloom (2.x to 8.x) writes and loads.
pub const ENCODING_VERSION: i32 = 0;

/// Writes the RDB value.
pub fn save(topk: &TopK, out: &mut dyn FieldSink) {
    let p = topk.params();
    out.put_u64(p.k as u64);
    out.put_u64(p.width as u64);
    out.put_u64(p.depth as u64);
    out.put_f64(p.decay);
    out.put_bytes(&topk.bucket_bytes());
    let mut heap = Vec::with_capacity(topk.heap().len() * HEAP_ENTRY_BYTES as usize);
    for (i, e) in topk.heap().iter().enumerate() {
        let len = e.item.as_ref().map_or(0, |i| i.len() as u32);
        heap.extend_from_slice(&e.fp.to_le_bytes());
        heap.extend_from_slice(&len.to_le_bytes());
        let pointer = if i == 0 { topk.rolls() } else { 0 };
        heap.extend_from_slice(&pointer.to_le_bytes());
        heap.extend_from_slice(&e.count.to_le_bytes());
        heap.extend_from_slice(&[0; 4]);
    }
    out.put_bytes(&heap);
    let mut text = Vec::new();
    for e in topk.heap() {
        text.clear();
        match &e.item {
            None => {}
            Some(item) if e.cut => text.extend_from_slice(e.shown().unwrap_or(item)),
            Some(item) if item.is_empty() => text.push(0),
            Some(item) => text.extend_from_slice(item),
        }
        text.push(0);
        out.put_bytes(&text);
    }
}

/// One heap entry as the heap string holds it.
struct RawEntry {
    fp: u32,
    itemlen: u32,
    pointer: u64,
    count: u32,
}

/// Reads an RDB value of encoding `version`; the sketch's bytes (buckets, heap and items)
/// must fit `limit`.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<TopK> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!(
            "RedisBloom Top-K encoding version {version} is not supported (only \
             {ENCODING_VERSION})"
        )));
    }
    let mut dim = |what: &str| -> Result<u32> {
        let v = src.get_u64()?;
        u32::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| bad_data(format!("{what} {v} is not in [1, 2^32-1]")))
    };
    let params = Params {
        k: dim("k")?,
        width: dim("width")?,
        depth: dim("depth")?,
        decay: src.get_f64()?,
    };
    let fixed = params.validate(limit)?;
    let cells = params.width as usize * params.depth as usize;
    let mut buckets = Vec::new();
    src.with_bytes(&mut |bytes| {
        if bytes.len() as u64 != cells as u64 * BUCKET_BYTES {
            return Err(bad_data(format!(
                "{} bucket bytes for {} x {} buckets",
                bytes.len(),
                params.width,
                params.depth
            )));
        }
        buckets = fallible::with_capacity(cells)?;
        buckets.extend(bytes.chunks_exact(8).map(|b| Bucket {
            fp: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            count: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }));
        Ok(())
    })?;
    let mut raw = Vec::new();
    src.with_bytes(&mut |bytes| {
        if bytes.len() as u64 != params.k as u64 * HEAP_ENTRY_BYTES {
            return Err(bad_data(format!(
                "{} heap bytes for k = {}",
                bytes.len(),
                params.k
            )));
        }
        let u32_at = |e: &[u8], at: usize| u32::from_le_bytes(e[at..at + 4].try_into().unwrap());
        raw = fallible::with_capacity(params.k as usize)?;
        raw.extend(
            bytes
                .chunks_exact(HEAP_ENTRY_BYTES as usize)
                .map(|e| RawEntry {
                    fp: u32_at(e, 0),
                    itemlen: u32_at(e, 4),
                    pointer: u64::from_le_bytes(e[8..16].try_into().unwrap()),
                    count: u32_at(e, 16),
                }),
        );
        Ok(())
    })?;
    let items: u64 = raw.iter().map(|e| e.itemlen as u64).sum();
    check_limit(fixed + items, limit)?;
    let rolls = raw[0].pointer;
    let mut heap = fallible::with_capacity(raw.len())?;
    for (i, e) in raw.iter().enumerate() {
        let mut entry = None;
        src.with_bytes(&mut |bytes| {
            entry = Some(load_item(i, e, bytes)?);
            Ok(())
        })?;
        heap.push(entry.expect("set by the closure"));
    }
    Ok(TopK::from_parts(params, buckets, heap, rolls))
}

/// Heap entry `i` from its raw fields and its item string.
fn load_item(i: usize, e: &RawEntry, bytes: &[u8]) -> Result<Entry> {
    let bad = |why: &str| bad_data(format!("heap entry {i}: {why}"));
    let Some((&0, body)) = bytes.split_last() else {
        return Err(bad("the item string does not end with a NUL"));
    };
    let len = e.itemlen as usize;
    let whole = |item: &[u8]| -> Result<Entry> {
        if fingerprint(item) != e.fp {
            return Err(bad("the fingerprint is not the item's"));
        }
        Ok(Entry {
            fp: e.fp,
            count: e.count,
            item: Some(item.into()),
            cut: false,
        })
    };
    let cut = |prefix: &[u8]| -> Result<Entry> {
        if prefix.contains(&0) {
            return Err(bad("a cut item holds a NUL"));
        }
        let mut item = fallible::zeroed::<u8>(len)?;
        item[..prefix.len()].copy_from_slice(prefix);
        if len == 0 && fingerprint(b"") != e.fp {
            return Err(bad("the fingerprint is not the empty item's"));
        }
        Ok(Entry {
            fp: e.fp,
            count: e.count,
            item: Some(item.into()),
            cut: true,
        })
    };
    if body.is_empty() {
        // RedisBloom's "no item": an unused entry (all zero), or an item cut to nothing.
        if e.fp == 0 && e.count == 0 && len == 0 {
            return Ok(Entry::default());
        }
        return cut(body);
    }
    if body.len() == len {
        return whole(body);
    }
    if len == 0 && body == [0] {
        return whole(b"");
    }
    if body.len() < len {
        return cut(body);
    }
    Err(bad("the item string is longer than the item"))
}
