//! Round trips and rejections of the RDB value, the header and the chunk protocol.

use super::rdb::{self, ENCODING_VERSION};
use super::scandump::{
    self, decode_header, decode_header_from, dump_step, encode_header, parse_load, parse_load_from,
    Load, Sender,
};
use crate::cuckoo::{CuckooFilter, CuckooMeta, Limits};
use crate::error::Error;
use crate::fields::{FieldSink, Reader, Writer};

const NO_LIMIT: u64 = u64::MAX;

fn filled(capacity: u64, bucket_size: u8, expansion: u16, items: u32) -> CuckooFilter {
    let mut f = CuckooFilter::new(capacity, bucket_size, 20, expansion, NO_LIMIT).unwrap();
    for i in 0..items {
        let _ = f.add(&i.to_le_bytes(), &Limits::new(NO_LIMIT));
    }
    f
}

fn load(bytes: &[u8], limit: u64) -> crate::error::Result<CuckooFilter> {
    rdb::load(&mut Reader(bytes), ENCODING_VERSION, limit)
}

/// A value written field by field.
fn value(fields: &[u64], sub_filters: &[(u64, &[u8])]) -> Vec<u8> {
    let mut w = Writer::default();
    fields.iter().for_each(|&v| w.put_u64(v));
    for (n, slots) in sub_filters {
        w.put_u64(*n);
        w.put_bytes(slots);
    }
    w.0
}

#[test]
fn rdb_values_round_trip() {
    for f in [
        filled(1000, 2, 1, 1500),
        filled(64, 4, 4, 900),
        filled(300, 1, 2, 3000),
        filled(8, 2, 0, 30),
        filled(1000, 2, 1, 0),
    ] {
        let mut out = Writer::default();
        rdb::save(&f, &mut out);
        let back = load(&out.0, NO_LIMIT).unwrap();
        assert_eq!(back, f);
        let mut again = Writer::default();
        rdb::save(&back, &mut again);
        assert_eq!(again.0, out.0);
        // The exact size is accepted, one byte less refused before the slots are read.
        assert!(load(&out.0, f.memory_bytes()).is_ok());
        assert!(matches!(
            load(&out.0, f.memory_bytes() - 1),
            Err(Error::TooLarge { .. })
        ));
    }
}

#[test]
fn rdb_values_are_refused_when_anything_is_off() {
    let good = [1, 4, 8, 0, 2, 20, 0];
    let slots = [1u8, 2, 3, 4, 5, 6, 7, 8];
    assert!(load(&value(&good, &[(4, &slots)]), NO_LIMIT).is_ok());
    let bad: Vec<Vec<u8>> = vec![
        value(&[0, 4, 8, 0, 2, 20, 0], &[]),
        value(&[1, 0, 8, 0, 2, 20, 0], &[(0, &[])]),
        value(&[1, 4, 8, 0, 0, 20, 0], &[(4, &[])]),
        value(&[1, 4, 8, 0, 256, 20, 0], &[(4, &[0; 1024])]),
        value(&[1, 4, 8, 0, 2, 65536, 0], &[(4, &slots)]),
        value(&[1, 4, 8, 0, 2, 20, 65536], &[(4, &slots)]),
        value(&[2, 4, 8, 0, 2, 20, 0], &[(4, &slots), (0, &[])]),
        value(&[2, 4, 8, 0, 2, 20, 2], &[(4, &slots), (4, &slots)]),
        value(&good, &[(4, &slots[..7])]),
        value(&good, &[(5, &[0; 10])]),
        value(&good, &[(4, &[0; 9])]),
        value(&[1, 1 << 56, 8, 0, 2, 20, 0], &[]),
        value(&[65536, 4, 8, 0, 2, 20, 1], &[]),
        value(&good, &[]),
        value(&good[..6], &[]),
    ];
    for (i, v) in bad.iter().enumerate() {
        assert!(load(v, 1 << 30).is_err(), "case {i} accepted");
    }
    // A truncated value, at every length.
    let full = value(&good, &[(4, &slots)]);
    for len in 0..full.len() {
        assert!(load(&full[..len], NO_LIMIT).is_err(), "length {len}");
    }
    // Legacy encodings are refused with a clear error.
    let err = rdb::load(&mut Reader(&full), 3, NO_LIMIT).unwrap_err();
    assert!(err.to_string().contains("encoding version 3"), "{err}");
    // What RedisBloom accepts and a filter can serve: odd bucket counts and expansions,
    // 0 iterations, counters that disagree with the slots.
    let odd = value(&[2, 3, 0, 0, 2, 0, 3], &[(3, &[0; 6]), (9, &[0; 18])]);
    let f = load(&odd, NO_LIMIT).unwrap();
    assert_eq!(f.memory_bytes(), 96);
    assert!(load(
        &value(&[1, 4, u64::MAX, 7, 2, 20, 0], &[(4, &slots)]),
        NO_LIMIT
    )
    .is_ok());
}

#[test]
fn headers_round_trip_and_follow_redisbloom_s_checks() {
    let f = filled(200, 4, 2, 600);
    let header = encode_header(&f.meta());
    assert_eq!(header.len(), 38);
    assert_eq!(decode_header(&header, NO_LIMIT).unwrap(), f.meta());
    // RedisBloom's example (`resp3`).
    let resp3 = CuckooMeta {
        items: 8,
        num_buckets: 4,
        deletes: 0,
        num_filters: 1,
        bucket_size: 2,
        max_iterations: 20,
        expansion: 0,
    };
    let hex: String = encode_header(&resp3)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hex,
        "0800000000000000040000000000000000000000000000000100000000000000020014000000"
    );
    let with = |at: usize, bytes: &[u8]| {
        let mut h = encode_header(&resp3);
        h[at..at + bytes.len()].copy_from_slice(bytes);
        h
    };
    assert_eq!(
        decode_header(&header[..37], NO_LIMIT),
        Err(Error::CfInvalidHeader)
    );
    assert_eq!(
        decode_header(&[header.clone(), vec![0]].concat(), NO_LIMIT),
        Err(Error::CfInvalidHeader)
    );
    for bad in [
        with(8, &[0]),                         // 0 buckets
        with(8, &(1u64 << 56).to_le_bytes()),  // too many
        with(24, &[0]),                        // 0 sub-filters
        with(24, &(1u64 << 16).to_le_bytes()), // 65536 reads as 0
        with(32, &[0]),                        // bucket size 0
        with(32, &[0, 1]),                     // bucket size 256
        with(24, &[2]),                        // expansion 0 with 2 sub-filters
    ] {
        for sender in [Sender::User, Sender::Server] {
            assert_eq!(
                decode_header_from(&bad, NO_LIMIT, sender),
                Err(Error::CfCannotCreate),
                "{bad:?} from {sender:?}"
            );
        }
    }
    // What RedisBloom's RDB loader takes and its LOADCHUNK refuses: refused from a user,
    // accepted when the server replays its own AOF rewrite of such a filter.
    for (bad, what) in [
        (with(8, &[3]), "3 buckets"),
        (with(34, &[0]), "0 iterations"),
    ] {
        assert_eq!(
            decode_header(&bad, NO_LIMIT),
            Err(Error::CfCannotCreate),
            "{what}"
        );
        let meta = decode_header_from(&bad, NO_LIMIT, Sender::Server).unwrap();
        assert_eq!(encode_header(&meta), bad, "{what}");
        assert_eq!(
            parse_load_from(1, &bad, NO_LIMIT, Sender::Server),
            Ok(Load::Header(meta))
        );
        assert_eq!(parse_load(1, &bad, NO_LIMIT), Err(Error::CfCannotCreate));
    }
    // RedisBloom reads the sub-filter count in 16 bits: 65537 is 1.
    let wide = with(24, &65537u64.to_le_bytes());
    assert_eq!(decode_header(&wide, NO_LIMIT).unwrap().num_filters, 1);
    // Odd expansions are accepted; the limit is checked on the whole geometry.
    let odd = CuckooMeta {
        expansion: 3,
        num_filters: 3,
        ..resp3
    };
    assert_eq!(odd.validate(NO_LIMIT).unwrap(), vec![4, 12, 36]);
    assert!(decode_header(&encode_header(&odd), NO_LIMIT).is_ok());
    assert!(matches!(
        decode_header(&encode_header(&odd), 191),
        Err(Error::TooLarge { .. })
    ));
    let huge = CuckooMeta {
        num_buckets: 1 << 50,
        ..resp3
    };
    assert!(matches!(
        decode_header(&encode_header(&huge), 1 << 30),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn scandump_steps_and_loadchunk_rebuild_the_filter() {
    let f = filled(200, 4, 2, 600);
    let mut steps = Vec::new();
    let mut iter = 0;
    loop {
        let (next, data) = dump_step(&f, iter, scandump::MAX_CHUNK).unwrap();
        steps.push((next, data.map(|d| d.into_owned())));
        if next == 0 {
            break;
        }
        iter = next;
    }
    // Header, one chunk per sub-filter, then (0, null).
    assert_eq!(steps.len(), f.sub_filters().len() + 2);
    assert_eq!(steps.last(), Some(&(0, None)));
    let mut copy = None;
    for (iter, data) in steps.iter().filter(|(it, _)| *it != 0) {
        match parse_load(*iter, data.as_deref().unwrap(), NO_LIMIT).unwrap() {
            Load::Header(meta) => copy = Some(CuckooFilter::from_meta(&meta, NO_LIMIT).unwrap()),
            Load::ShardHeader(..) => panic!("a plain filter's header"),
            Load::Data { offset, data } => {
                copy.as_mut().unwrap().write_chunk(offset, data).unwrap()
            }
        }
    }
    assert_eq!(copy.unwrap(), f);
    // The AOF rewrite's calls are the same.
    let calls: Vec<(i64, Vec<u8>)> = scandump::load_calls(&f, scandump::MAX_CHUNK)
        .into_iter()
        .map(|(it, d)| (it, d.into_owned()))
        .collect();
    let dumped: Vec<(i64, Vec<u8>)> = steps
        .iter()
        .filter_map(|(it, d)| Some((*it, d.clone()?)))
        .collect();
    assert_eq!(calls, dumped);
    // An inner iterator returns its whole sub-filter; past the end is (0, null).
    let first = f.sub_filters()[0].slots().len() as i64;
    let (next, data) = dump_step(&f, 2, scandump::MAX_CHUNK).unwrap();
    assert_eq!((next, data.unwrap().len() as i64), (2 + first, first));
    assert_eq!(
        dump_step(&f, 1 << 40, scandump::MAX_CHUNK).unwrap(),
        (0, None)
    );
    assert_eq!(
        dump_step(&f, -1, scandump::MAX_CHUNK),
        Err(Error::CfInvalidPosition)
    );
    // A filter counting no items dumps nothing, but its rewrite still carries it.
    let empty = filled(1000, 2, 1, 0);
    assert_eq!(
        dump_step(&empty, 0, scandump::MAX_CHUNK).unwrap(),
        (0, None)
    );
    assert_eq!(scandump::load_calls(&empty, scandump::MAX_CHUNK).len(), 2);
}

#[test]
fn loadchunk_calls_are_checked() {
    assert_eq!(parse_load(0, b"x", NO_LIMIT), Err(Error::CfInvalidPosition));
    assert_eq!(
        parse_load(-3, b"x", NO_LIMIT),
        Err(Error::CfCannotLoadChunk)
    );
    assert_eq!(parse_load(2, b"", NO_LIMIT), Err(Error::CfCannotLoadChunk));
    assert_eq!(
        parse_load(5, b"xxxxx", NO_LIMIT),
        Err(Error::CfCannotLoadChunk)
    );
    assert_eq!(
        parse_load(1, b"short", NO_LIMIT),
        Err(Error::CfInvalidHeader)
    );
    assert_eq!(
        parse_load(3, b"ab", NO_LIMIT),
        Ok(Load::Data {
            offset: 0,
            data: b"ab"
        })
    );
    assert_eq!(
        parse_load(i64::MAX, b"ab", NO_LIMIT),
        Ok(Load::Data {
            offset: i64::MAX as u64 - 3,
            data: b"ab"
        })
    );
}

#[test]
fn a_shard_keeps_its_place_through_its_value_and_header() {
    use super::sharded;
    use crate::shard::ShardPlace;
    let place = ShardPlace::new(b"urls", 2, 3).unwrap();
    let f = filled(256, 4, 2, 600).with_shard(place.clone());
    // The RDB value: MBbloomCF's fields, then the place.
    let mut out = Writer::default();
    sharded::save(&f, &mut out);
    let mut plain = Writer::default();
    rdb::save(&f, &mut plain);
    assert!(out.0.starts_with(&plain.0));
    let loaded = sharded::load(&mut Reader(&out.0), sharded::ENCODING_VERSION, NO_LIMIT).unwrap();
    assert_eq!(loaded, f);
    for cut in 0..out.0.len() {
        assert!(sharded::load(&mut Reader(&out.0[..cut]), 1, NO_LIMIT).is_err());
    }
    assert!(sharded::load(&mut Reader(&out.0), 2, NO_LIMIT).is_err());
    // The header: ours with the place, told apart from RedisBloom's 38 bytes.
    let header = sharded::header_of(&f);
    assert!(header.len() > scandump::HEADER_LEN && header.starts_with(b"RSCF"));
    let Load::ShardHeader(meta, got) = parse_load(1, &header, NO_LIMIT).unwrap() else {
        panic!("not a shard header");
    };
    assert_eq!((meta, *got), (f.meta(), place));
    assert_eq!(
        sharded::header_of(&f.clone().without_shard()),
        encode_header(&f.meta())
    );
    for cut in 0..header.len() {
        assert!(
            parse_load(1, &header[..cut], NO_LIMIT).is_err(),
            "cut at {cut}"
        );
    }
    let mut trailing = header.clone();
    trailing.push(0);
    assert!(parse_load(1, &trailing, NO_LIMIT).is_err());
    let mut version = header.clone();
    version[4] = 2;
    assert!(parse_load(1, &version, NO_LIMIT).is_err());
    // A SCANDUMP of a shard starts with its header, and its steps rebuild it.
    let (next, data) = dump_step(&f, 0, scandump::MAX_CHUNK).unwrap();
    assert_eq!((next, data.unwrap().into_owned()), (1, header));
}
