//! Entry point of the fuzz target and the property test of valkey-bloom's decoders: byte 0
//! picks the format (even: the `bloomfltr` RDB value in the wire form; odd: BF.LOAD's blob),
//! the rest is the input. A clean rejection is always fine; a filter that is accepted must
//! stay within the limit, re-encode to a value (or blob) that decodes to the same filter,
//! and survive adds and queries, batched ones answering as single ones.

use crate::fields::{Reader, Writer};
use crate::valkey::{load_blob, rdb, ValkeyBloom};

/// The limit the harness decodes under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The RDB value of a filter in the wire form ([`Writer`]).
pub fn encode_value(bloom: &ValkeyBloom) -> Vec<u8> {
    let mut out = Writer::default();
    rdb::save(bloom, &mut out);
    out.0
}

/// Byte 0 selects the format, the rest is decoded (fuzz target `valkey_value`).
pub fn value(data: &[u8]) {
    let Some((&which, input)) = data.split_first() else {
        return;
    };
    let mut bloom = if which % 2 == 0 {
        let Ok(bloom) = rdb::load(&mut Reader(input), Some(LIMIT)) else {
            return;
        };
        // Written back as valkey-bloom writes it (expansion in 32 bits, the seed flag 0 or
        // 1), which loads as the same filter and writes the same bytes again.
        let bytes = encode_value(&bloom);
        let again = rdb::load(&mut Reader(&bytes), None).expect("re-encoded value is refused");
        assert_eq!(again, bloom, "RDB round trip changed the filter");
        assert_eq!(encode_value(&again), bytes, "second encoding differs");
        bloom
    } else {
        let Ok(bloom) = load_blob::decode(input, Some(LIMIT)) else {
            return;
        };
        let blob = load_blob::encode(&bloom);
        let again = load_blob::decode(&blob, None).expect("re-encoded blob is refused");
        assert_eq!(again, bloom, "blob round trip changed the filter");
        bloom
    };
    assert!(
        bloom.memory_usage() <= LIMIT,
        "accepted filter over the limit"
    );
    // The batch paths on copies: the answers of one add or lookup after another, up to the
    // first error, and the same filter after them.
    let items = [&b""[..], b"a", b"fuzz\0", b"a"];
    let (mut one, mut batch) = (bloom.clone(), bloom.clone());
    let mut singles = Vec::new();
    for item in items {
        let result = one.add(item, Some(LIMIT)).map_err(|e| e.to_string());
        let stop = result.is_err();
        singles.push(result);
        if stop {
            break;
        }
    }
    let mut batched = Vec::new();
    batch.add_batch(&items, Some(LIMIT), |r| {
        batched.push(r.map_err(|e| e.to_string()))
    });
    assert_eq!(batched, singles, "batch adds answer otherwise");
    assert_eq!(batch, one, "batch adds left another filter");
    let looked: Vec<bool> = items.iter().map(|i| one.exists(i)).collect();
    assert_eq!(
        one.exists_batch(&items),
        looked,
        "batch lookups answer otherwise"
    );
    for item in [&b""[..], b"a", b"fuzz\0"] {
        if bloom.add(item, Some(LIMIT)).is_ok() {
            assert!(bloom.exists(item), "an added item is not found");
        }
    }
    let _ = bloom.cardinality();
}
