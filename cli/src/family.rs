//! The families a transfer can carry. The counting Bloom filters (`CBF.*`) and the
//! sliding windows (`APBF.*`, their generations' times in the header) go chunk by chunk like
//! the Bloom filters, with their own headers and commands. The sketches (Count-Min Sketch, Top-K, t-digest) travel
//! whole as one DUMP payload (see `payload`). The two filter families share the SCANDUMP /
//! LOADCHUNK protocol
//! (header at iterator 1, each chunk's iterator = the previous one + its length) but not the
//! commands, the header or one corner: a cuckoo filter that counts no items answers
//! `CF.SCANDUMP key 0` with `(0, nil)` at once (RedisBloom's rule), so its header is rebuilt
//! from `CF.DEBUG` and no chunk follows (a filter with no items has no fingerprints).

use rsbloom_core::bloom::codec::{mbbloom, native, scandump as bloom_scandump};
use rsbloom_core::counting::codec as counting;
use rsbloom_core::counting::filter::counter_bytes;
use rsbloom_core::cuckoo::codec::{rdb, scandump as cuckoo_scandump, sharded as cuckoo_sharded};
use rsbloom_core::cuckoo::meta::CuckooMeta;
use rsbloom_core::window::codec as window;

use crate::fail::{fail, Fail, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Bloom,
    Cuckoo,
    /// Counting Bloom filters (`RSbloomCB`): SCANDUMP / LOADCHUNK as the Bloom filters.
    Counting,
    /// Sliding-window filters (`RSbloomAP`): SCANDUMP / LOADCHUNK as the Bloom filters.
    Window,
    /// Count-Min Sketch (`CMSk-TYPE`).
    Cms,
    /// Top-K (`TopK-TYPE`).
    TopK,
    /// t-digest (`TDIS-TYPE`).
    TDigest,
}

impl Family {
    /// The family of a key, from what `TYPE` answers (rsbloom's and RedisBloom's type names).
    pub fn of_type(key: &str, type_name: &str) -> Result<Family> {
        match type_name {
            t if t == native::TYPE_NAME || t == mbbloom::TYPE_NAME => Ok(Family::Bloom),
            t if t == rdb::TYPE_NAME => Ok(Family::Cuckoo),
            t if t == counting::TYPE_NAME => Ok(Family::Counting),
            t if t == window::TYPE_NAME => Ok(Family::Window),
            "CMSk-TYPE" => Ok(Family::Cms),
            "TopK-TYPE" => Ok(Family::TopK),
            "TDIS-TYPE" => Ok(Family::TDigest),
            "none" => fail(format!("key '{key}' does not exist")),
            other => fail(format!(
                "key '{key}' holds a {other}, not a Bloom or cuckoo filter or a sketch"
            )),
        }
    }

    /// The command prefix: `BF`, `CF`, `CMS`, `TOPK` or `TDIGEST`.
    pub fn prefix(self) -> &'static str {
        match self {
            Family::Bloom => "BF",
            Family::Cuckoo => "CF",
            Family::Counting => "CBF",
            Family::Window => "APBF",
            Family::Cms => "CMS",
            Family::TopK => "TOPK",
            Family::TDigest => "TDIGEST",
        }
    }

    /// What a key of the family is, in a message.
    pub fn noun(self) -> &'static str {
        match self {
            Family::Bloom => "Bloom filter",
            Family::Cuckoo => "cuckoo filter",
            Family::Counting => "counting Bloom filter",
            Family::Window => "sliding-window filter",
            Family::Cms => "Count-Min Sketch",
            Family::TopK => "Top-K",
            Family::TDigest => "t-digest",
        }
    }

    /// Whether the family travels whole, as one DUMP payload (the sketches have no SCANDUMP);
    /// the filters go chunk by chunk.
    pub fn whole(self) -> bool {
        matches!(self, Family::Cms | Family::TopK | Family::TDigest)
    }

    /// The byte that names the family in a dump file.
    pub fn tag(self) -> u8 {
        match self {
            Family::Bloom => b'B',
            Family::Cuckoo => b'C',
            Family::Counting => b'N',
            Family::Window => b'W',
            Family::Cms => b'M',
            Family::TopK => b'K',
            Family::TDigest => b'T',
        }
    }

    pub fn from_tag(tag: u8) -> Option<Family> {
        match tag {
            b'B' => Some(Family::Bloom),
            b'C' => Some(Family::Cuckoo),
            b'N' => Some(Family::Counting),
            b'W' => Some(Family::Window),
            b'M' => Some(Family::Cms),
            b'K' => Some(Family::TopK),
            b'T' => Some(Family::TDigest),
            _ => None,
        }
    }

    /// The bytes of filter data that follow this SCANDUMP header (none after a sketch's
    /// record, which holds the whole value).
    pub fn data_len(self, header: &[u8]) -> Result<u64> {
        match self {
            Family::Cms | Family::TopK | Family::TDigest => Ok(0),
            Family::Bloom => {
                let meta = bloom_scandump::parse_header(header, u64::MAX)?;
                Ok(meta.layers.iter().map(|l| l.bit_size / 8).sum())
            }
            Family::Counting => {
                let meta = counting::decode_header(header, u64::MAX)?;
                Ok(counter_bytes(meta.words, meta.counter_bits))
            }
            Family::Window => Ok(window::header_data_len(header, u64::MAX)?),
            Family::Cuckoo => {
                // A shard's header (rsbloom's, with its place) is copied as it is.
                let user = cuckoo_scandump::Sender::User;
                let (meta, _) = cuckoo_sharded::decode_any_header(header, u64::MAX, user)?;
                if meta.items == 0 {
                    return Ok(0);
                }
                let buckets: u64 = meta.validate(u64::MAX)?.iter().sum();
                Ok(buckets.saturating_mul(meta.bucket_size))
            }
        }
    }
}

/// The SCANDUMP header of an empty cuckoo filter, from its `CF.DEBUG` line
/// (`bktsize:4 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1`).
pub fn cuckoo_header_from_debug(key: &str, line: &str) -> Result<Vec<u8>> {
    let field = |name: &str| -> Result<u64> {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| Fail(format!("CF.DEBUG {key} has no {name} in '{line}'")))
    };
    let meta = CuckooMeta {
        num_buckets: field("buckets")?,
        items: field("items")?,
        deletes: field("deletes")?,
        bucket_size: field("bktsize")?,
        max_iterations: field("max_iterations")?,
        expansion: field("expansion")?,
        num_filters: field("filters")?,
    };
    if meta.items != 0 {
        return fail(format!(
            "CF.SCANDUMP {key} 0 sent nothing, but CF.DEBUG counts {} items",
            meta.items
        ));
    }
    let header = cuckoo_scandump::encode_header(&meta);
    cuckoo_scandump::decode_header(&header, u64::MAX)
        .map_err(|e| Fail(format!("'{key}': {}", Fail::from(e))))?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_filters_header_comes_from_its_debug_line() {
        let line =
            "bktsize:4 buckets:512 items:0 deletes:3 filters:2 max_iterations:20 expansion:1";
        let header = cuckoo_header_from_debug("k", line).unwrap();
        let meta = cuckoo_scandump::decode_header(&header, u64::MAX).unwrap();
        assert_eq!(
            (meta.num_buckets, meta.deletes, meta.num_filters),
            (512, 3, 2)
        );
        assert_eq!(Family::Cuckoo.data_len(&header).unwrap(), 0);
        assert!(cuckoo_header_from_debug("k", &line.replace("items:0", "items:5")).is_err());
        assert!(cuckoo_header_from_debug("k", "bktsize:4").is_err());
    }

    #[test]
    fn families_by_type_name() {
        assert_eq!(Family::of_type("k", "MBbloomCF").unwrap(), Family::Cuckoo);
        assert_eq!(Family::of_type("k", "RSbloom--").unwrap(), Family::Bloom);
        assert_eq!(Family::of_type("k", "MBbloom--").unwrap(), Family::Bloom);
        assert_eq!(Family::of_type("k", "CMSk-TYPE").unwrap(), Family::Cms);
        assert_eq!(Family::of_type("k", "TopK-TYPE").unwrap(), Family::TopK);
        assert_eq!(Family::of_type("k", "TDIS-TYPE").unwrap(), Family::TDigest);
        assert_eq!(Family::of_type("k", "RSbloomCB").unwrap(), Family::Counting);
        assert_eq!(Family::of_type("k", "RSbloomAP").unwrap(), Family::Window);
        assert!(Family::of_type("k", "string").is_err());
        assert!(Family::of_type("k", "none").is_err());
        for f in [
            Family::Bloom,
            Family::Cuckoo,
            Family::Counting,
            Family::Window,
            Family::Cms,
            Family::TopK,
            Family::TDigest,
        ] {
            assert_eq!(Family::from_tag(f.tag()), Some(f));
        }
    }
}
