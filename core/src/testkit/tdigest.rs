//! Test and fuzz support for t-digests: the RDB value decoder's entry point.

use crate::fields::{Reader, Writer};
use crate::tdigest::codec;
use crate::tdigest::TDigest;

/// The size limit the harness loads under (bf.max-filter-bytes' default).
pub const LIMIT: u64 = 512 << 20;

/// The RDB value fields of `digest` as bytes ([`Writer`] form).
pub fn encode_value(digest: &TDigest) -> Vec<u8> {
    let mut w = Writer::default();
    codec::save(digest, &mut w);
    w.0
}

/// A `TDIS-TYPE` RDB value in the wire form (fuzz target `tdigest_value`). An accepted value
/// re-encodes to the bytes it used (but RedisBloom's lossy one-observation form, which is
/// written back in ours), and answers every query without panicking.
pub fn value(data: &[u8]) {
    let mut reader = Reader(data);
    if let Ok(mut d) = codec::load(&mut reader, codec::ENCODING_VERSION, LIMIT) {
        let used = data.len() - reader.rest().len();
        let lossy = data.get(40..48) == Some(&1u64.to_le_bytes()[..]);
        if !lossy {
            assert_eq!(
                encode_value(&d),
                &data[..used],
                "accepted value re-encodes differently"
            );
        }
        exercise(&mut d);
    }
}

/// Every query, then adds and queries again: nothing may panic.
pub fn exercise(d: &mut TDigest) {
    let probes = [-1e300, -1.0, 0.0, 0.5, 1.0, 42.0, 1e300, d.min(), d.max()];
    let _ = d.quantiles(&[0.0, 0.01, 0.5, 0.99, 1.0, 0.3]);
    for &p in &probes {
        if !p.is_nan() {
            let _ = d.cdf(p);
            let _ = d.rank(p, false);
            let _ = d.rank(p, true);
        }
    }
    for r in [0, 1, 2, 100, i64::MAX] {
        let _ = d.by_rank(r, false);
        let _ = d.by_rank(r, true);
    }
    let _ = d.trimmed_mean(0.1, 0.9);
    let _ = d.info();
    for i in 0..50 {
        let _ = d.add(i as f64 * 1.5 - 10.0, 1);
    }
    let _ = d.quantiles(&[0.5]);
    let mut other = d.clone();
    let _ = d.merge_from(&mut other);
    let _ = encode_value(d);
}
