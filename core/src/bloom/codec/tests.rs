//! Round trips and rejections of the RDB value, the header and the chunk protocol, with an
//! in-memory field stream standing in for `RedisModuleIO`.

use super::{native, scandump};
use crate::bloom::Chain;
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};

const LIMIT: u64 = 1 << 30;

#[derive(Debug, Clone, PartialEq)]
enum Field {
    U(u64),
    F(f64),
    B(Vec<u8>),
}

#[derive(Default)]
struct Fields(Vec<Field>, usize);

impl FieldSink for Fields {
    fn put_u64(&mut self, value: u64) {
        self.0.push(Field::U(value));
    }
    fn put_f64(&mut self, value: f64) {
        self.0.push(Field::F(value));
    }
    fn put_bytes(&mut self, bytes: &[u8]) {
        self.0.push(Field::B(bytes.to_vec()));
    }
}

impl Fields {
    fn next(&mut self) -> Result<Field> {
        let f = self
            .0
            .get(self.1)
            .cloned()
            .ok_or_else(|| bad_data("short read"))?;
        self.1 += 1;
        Ok(f)
    }
}

impl FieldSource for Fields {
    fn get_u64(&mut self) -> Result<u64> {
        match self.next()? {
            Field::U(v) => Ok(v),
            _ => Err(bad_data("type")),
        }
    }
    fn get_f64(&mut self) -> Result<f64> {
        match self.next()? {
            Field::F(v) => Ok(v),
            _ => Err(bad_data("type")),
        }
    }
    fn with_bytes(&mut self, use_bytes: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        match self.next()? {
            Field::B(v) => use_bytes(&v),
            _ => Err(bad_data("type")),
        }
    }
}

fn sample(expansion: u32, items: u32) -> Chain {
    let mut c = Chain::new(0.01, 20, expansion, LIMIT).unwrap();
    for i in 0..items {
        let _ = c.add(format!("item:{i}").as_bytes(), LIMIT);
    }
    c
}

fn saved(chain: &Chain) -> Vec<Field> {
    let mut f = Fields::default();
    native::save(chain, &mut f);
    f.0
}

fn load(fields: Vec<Field>) -> Result<Chain> {
    native::load(&mut Fields(fields, 0), native::ENCODING_VERSION, LIMIT)
}

#[test]
fn rdb_round_trips_scaling_and_non_scaling_filters() {
    for chain in [sample(2, 300), sample(0, 20), sample(1, 0)] {
        assert_eq!(load(saved(&chain)).unwrap(), chain);
    }
}

#[test]
fn rdb_rejects_truncation_at_every_field() {
    let fields = saved(&sample(2, 100));
    for cut in 0..fields.len() {
        assert!(load(fields[..cut].to_vec()).is_err(), "cut at {cut}");
    }
}

#[test]
fn rdb_rejects_bad_fields_and_versions() {
    let chain = sample(2, 100);
    let good = saved(&chain);
    assert!(native::load(&mut Fields(good.clone(), 0), 2, LIMIT).is_err());
    // Field positions: 0 flags, 1 expansion, 2 error rate, 3 layers, then 5 per layer.
    let cases: Vec<(usize, Field)> = vec![
        (0, Field::U(1)),
        (1, Field::U(1 << 40)),
        (2, Field::F(f64::NAN)),
        (2, Field::F(1.0)),
        (3, Field::U(0)),
        (3, Field::U(u64::MAX)),
        (4, Field::U(0)),
        (5, Field::U(u64::MAX)),
        (6, Field::U(0)),
        (6, Field::U(u64::MAX)),
        (7, Field::F(-0.5)),
        (8, Field::U(100)),
        (8, Field::U(u64::MAX - 63)),
    ];
    for (at, value) in cases {
        let mut fields = good.clone();
        fields[at] = value.clone();
        assert!(load(fields).is_err(), "field {at} = {value:?} accepted");
    }
    // A bit array one byte short, and one with an extra byte.
    let last = good.len() - 1;
    for delta in [-1i64, 1] {
        let mut fields = good.clone();
        if let Field::B(bytes) = &mut fields[last] {
            bytes.resize((bytes.len() as i64 + delta) as usize, 0);
        }
        assert!(load(fields).is_err());
    }
}

#[test]
fn rdb_refuses_filters_over_the_limit_before_reading_bits() {
    let fields = saved(&sample(2, 300));
    let mut src = Fields(fields, 0);
    let err = native::load(&mut src, native::ENCODING_VERSION, 256).unwrap_err();
    assert!(matches!(err, Error::BadData(_)));
}

#[test]
fn header_round_trips_and_rejects_damage() {
    let chain = sample(4, 500);
    let bytes = native::encode_header(&chain);
    assert_eq!(native::decode_header(&bytes, LIMIT).unwrap(), chain.meta());
    for cut in 0..bytes.len() {
        assert!(
            native::decode_header(&bytes[..cut], LIMIT).is_err(),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(native::decode_header(&longer, LIMIT).is_err());
    let mut bad_magic = bytes.clone();
    bad_magic[0] ^= 1;
    assert!(native::decode_header(&bad_magic, LIMIT).is_err());
    let mut bad_version = bytes;
    bad_version[4] = 9;
    assert!(native::decode_header(&bad_version, LIMIT).is_err());
}

#[test]
fn scandump_stream_rebuilds_the_filter_through_loadchunk() {
    let chain = sample(2, 400);
    let mut rebuilt: Option<Chain> = None;
    let mut iter = 0;
    loop {
        let (next, data) = scandump::dump_step(&chain, iter, 64);
        if next == 0 {
            assert!(data.is_empty());
            break;
        }
        assert!(data.len() <= 64 || iter == 0);
        match scandump::parse_load(next, &data, LIMIT, rebuilt.is_some()).unwrap() {
            scandump::Load::Header(meta) => rebuilt = Some(Chain::from_meta(&meta, LIMIT).unwrap()),
            scandump::Load::Data { offset, data } => {
                rebuilt.as_mut().unwrap().write_chunk(offset, data).unwrap()
            }
        }
        iter = next;
    }
    assert_eq!(rebuilt.unwrap(), chain);
}

#[test]
fn chunk_iterators_are_checked() {
    let chain = sample(2, 10);
    assert_eq!(scandump::dump_step(&chain, -1, 64), (0, vec![]));
    assert_eq!(scandump::dump_step(&chain, 1 << 40, 64), (0, vec![]));
    for (iter, len, want) in [
        (0, 1, Err(Error::ReceivedBadData)),
        (-5, 1, Err(Error::ReceivedBadData)),
        (2, 3, Err(Error::ReceivedBadData)),
        (3, 3, Err(Error::InvalidOffset)),
        (4, 3, Ok(0)),
        (1, 0, Ok(0)),
    ] {
        assert_eq!(
            scandump::chunk_start(iter, len),
            want,
            "iterator {iter}, {len} bytes"
        );
    }
    assert_eq!(
        scandump::parse_load(2, b"x", LIMIT, false),
        Err(Error::NotFound)
    );
    assert!(scandump::parse_load(1, b"garbage", LIMIT, false).is_err());
    let mut c = chain.clone();
    let end = c.data_len();
    assert_eq!(c.write_chunk(end, b"x"), Err(Error::InvalidOffset));
    assert_eq!(c.write_chunk(end - 1, b"xy"), Err(Error::ChunkTooBig));
}

/// A short header that claims a huge layer count, decoded with no size limit (as the cli
/// reads dump files), is refused as truncated: nothing is reserved from the claimed count.
#[test]
fn claimed_layer_counts_reserve_nothing() {
    let mut bytes = b"RSBF\x01".to_vec();
    for field in [0u64, 2, 0.01f64.to_bits(), 1 << 40] {
        bytes.extend_from_slice(&field.to_le_bytes());
    }
    assert!(matches!(
        native::decode_header(&bytes, u64::MAX),
        Err(Error::BadData(_))
    ));
}

#[test]
fn a_shard_keeps_its_place_and_old_values_load_as_before() {
    use crate::fields::{Reader, Writer};
    use crate::shard::ShardPlace;
    let place = ShardPlace::new(b"urls", 1, 3).unwrap();
    let mut chain = Chain::new(0.01, 100, 2, LIMIT).unwrap();
    let plain_bytes = {
        let mut out = Writer::default();
        native::save(&chain, &mut out);
        out.0
    };
    assert_eq!(&plain_bytes[..8], &[0; 8], "a plain filter writes flags 0");
    chain = chain.with_shard(place.clone()).unwrap();
    for i in 0..300u32 {
        chain.add(&i.to_le_bytes(), LIMIT).unwrap();
    }
    let mut out = Writer::default();
    native::save(&chain, &mut out);
    assert_eq!(out.0[0], 1, "flag bit 0: a place follows");
    let loaded = native::load(&mut Reader(&out.0), native::ENCODING_VERSION, LIMIT).unwrap();
    assert_eq!(loaded, chain);
    assert_eq!(loaded.shard(), Some(&place));
    // The SCANDUMP header carries it too.
    let meta = scandump::parse_header(&scandump::header_of(&chain), LIMIT).unwrap();
    assert_eq!(meta.shard.as_deref(), Some(&place));
    // Unknown flag bits are refused.
    let mut unknown = out.0.clone();
    unknown[0] = 9;
    assert!(native::load(&mut Reader(&unknown), native::ENCODING_VERSION, LIMIT).is_err());
    for cut in 0..out.0.len() {
        let short = native::load(&mut Reader(&out.0[..cut]), native::ENCODING_VERSION, LIMIT);
        assert!(short.is_err());
    }
    // RedisBloom's format and Guava's cannot hold a place.
    assert!(
        Chain::create(crate::bloom::Scheme::RedisBloom, 0.01, 100, 2, LIMIT)
            .unwrap()
            .with_shard(place)
            .is_err()
    );
    assert!(matches!(
        super::writeto::export(&chain),
        Err(Error::ShardUnsupported(_))
    ));
}

/// A filter of every combination of shard, KEYED and BLOCKED, scaling and not.
fn variants() -> Vec<Chain> {
    use crate::bloom::keyed::Secret;
    use crate::bloom::{Scheme, Variant};
    use crate::shard::ShardPlace;
    let mut out = Vec::new();
    for bits in 0..8u32 {
        for expansion in [0, 2] {
            let variant = Variant {
                secret: (bits & 2 != 0).then(|| Secret::from_words([bits as u64, 0x005E_C7E7])),
                blocked: bits & 4 != 0,
            };
            let mut c =
                Chain::create_variant(Scheme::Guava, variant, 0.01, 50, expansion, LIMIT).unwrap();
            if bits & 1 != 0 {
                c = c.with_shard(ShardPlace::new(b"s", 0, 2).unwrap()).unwrap();
            }
            for i in 0..120u32 {
                let _ = c.add(format!("item:{i}").as_bytes(), LIMIT);
            }
            out.push(c);
        }
    }
    out
}

#[test]
fn every_flag_combination_round_trips_in_the_rdb_value_and_the_header() {
    use super::params::{BLOCKED_FLAG, KEYED_FLAG, SHARD_FLAG};
    use crate::fields::{Reader, Writer};
    for chain in variants() {
        let fields = saved(&chain);
        let expected_flags = (chain.shard().is_some() as u64 * SHARD_FLAG)
            | (chain.is_keyed() as u64 * KEYED_FLAG)
            | (chain.is_blocked() as u64 * BLOCKED_FLAG);
        assert_eq!(fields[0], Field::U(expected_flags));
        let loaded = load(fields.clone()).unwrap();
        assert_eq!(loaded, chain);
        assert_eq!(loaded.variant(), chain.variant());
        // The loaded filter answers as the original (same secret, same layout).
        for i in 0..400u32 {
            let item = format!("item:{i}");
            assert_eq!(
                loaded.contains(item.as_bytes()),
                chain.contains(item.as_bytes())
            );
        }
        for cut in 0..fields.len() {
            assert!(load(fields[..cut].to_vec()).is_err(), "cut at {cut}");
        }
        let meta = scandump::parse_header(&scandump::header_of(&chain), LIMIT).unwrap();
        assert_eq!(meta, chain.meta());
        let mut out = Writer::default();
        native::save(&chain, &mut out);
        let back = native::load(&mut Reader(&out.0), native::ENCODING_VERSION, LIMIT).unwrap();
        assert_eq!(back, chain);
    }
}

#[test]
fn plain_values_keep_the_old_bytes_and_unknown_flags_are_refused() {
    use crate::fields::{Reader, Writer};
    let chain = sample(2, 300);
    let mut expected = vec![
        Field::U(0),
        Field::U(2),
        Field::F(0.01),
        Field::U(chain.layers().len() as u64),
    ];
    for l in chain.layers() {
        expected.extend([
            Field::U(l.capacity()),
            Field::U(l.count()),
            Field::U(l.k() as u64),
            Field::F(l.error()),
            Field::U(l.bit_size()),
        ]);
    }
    expected.extend(
        chain
            .layers()
            .iter()
            .map(|l| Field::B(l.le_bytes().to_vec())),
    );
    assert_eq!(saved(&chain), expected);
    let mut out = Writer::default();
    native::save(&chain, &mut out);
    for flag in [8u8, 16, 128] {
        let mut unknown = out.0.clone();
        unknown[0] = flag;
        let err = native::load(&mut Reader(&unknown), native::ENCODING_VERSION, LIMIT);
        assert_eq!(err, Err(bad_data(format!("unknown flags {flag:#x}"))));
    }
    let mut high = out.0.clone();
    high[7] = 0x80;
    assert!(native::load(&mut Reader(&high), native::ENCODING_VERSION, LIMIT).is_err());
}

#[test]
fn keyed_and_blocked_filters_are_not_exported_or_made_in_redisblooms_format() {
    use crate::bloom::{Scheme, Variant};
    for chain in variants() {
        let meta = chain.meta();
        if chain.shard().is_some() || meta.layers.len() > 1 || chain.variant().is_plain() {
            continue;
        }
        assert_eq!(
            super::writeto::export(&chain),
            Err(Error::VariantNotExportable("Guava"))
        );
    }
    let blocked = Variant {
        secret: None,
        blocked: true,
    };
    assert_eq!(
        Chain::create_variant(Scheme::RedisBloom, blocked, 0.01, 100, 2, LIMIT),
        Err(Error::VariantUnsupported)
    );
}

#[test]
fn filters_under_different_secrets_set_different_bits() {
    use crate::bloom::keyed::Secret;
    use crate::bloom::{Scheme, Variant};
    for blocked in [false, true] {
        let make = |seed: u64| {
            let variant = Variant {
                secret: Some(Secret::from_words([seed, !seed])),
                blocked,
            };
            let mut c =
                Chain::create_variant(Scheme::Guava, variant, 0.01, 1000, 0, LIMIT).unwrap();
            for i in 0..1000u32 {
                c.add(&i.to_le_bytes(), LIMIT).unwrap();
            }
            c
        };
        let (a, b) = (make(1), make(2));
        let (wa, wb) = (a.layers()[0].words(), b.layers()[0].words());
        assert_eq!(wa.len(), wb.len());
        let same = wa.iter().zip(wb).filter(|(x, y)| x == y).count();
        assert!(
            same < wa.len() / 4,
            "blocked {blocked}: {same} of {} words equal",
            wa.len()
        );
        let mut plain = Chain::create_variant(
            Scheme::Guava,
            Variant {
                secret: None,
                blocked,
            },
            0.01,
            1000,
            0,
            LIMIT,
        )
        .unwrap();
        for i in 0..1000u32 {
            plain.add(&i.to_le_bytes(), LIMIT).unwrap();
        }
        assert_ne!(plain.layers()[0].words(), wa);
        assert!((0..1000u32).all(|i| a.contains(&i.to_le_bytes()) && b.contains(&i.to_le_bytes())));
    }
}
