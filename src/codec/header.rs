//! The SCANDUMP header: `b"RSBF"`, a format version byte, then the parameter block as
//! fixed-width little-endian fields (u64 and f64, 8 bytes each). Nothing may follow it.

use super::{meta, FieldSink, FieldSource};
use crate::error::{bad_data, Result};
use crate::filter::{Chain, ChainMeta};

const MAGIC: &[u8; 4] = b"RSBF";
const VERSION: u8 = 1;

struct Writer(Vec<u8>);

impl FieldSink for Writer {
    fn put_u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn put_f64(&mut self, value: f64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn put_bytes(&mut self, bytes: &[u8]) {
        self.put_u64(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take8(&mut self) -> Result<[u8; 8]> {
        let (head, rest) = self
            .0
            .split_first_chunk::<8>()
            .ok_or_else(|| bad_data("header is truncated"))?;
        self.0 = rest;
        Ok(*head)
    }
}

impl FieldSource for Reader<'_> {
    fn get_u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take8()?))
    }
    fn get_f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take8()?))
    }
    fn with_bytes(&mut self, _: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        Err(bad_data("header holds no byte strings"))
    }
}

pub fn encode(chain: &Chain) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64));
    out.0.extend_from_slice(MAGIC);
    out.0.push(VERSION);
    meta::encode(&chain.meta(), &mut out);
    out.0
}

/// Parses and validates a header (as strictly as an RDB value).
pub fn decode(bytes: &[u8], limit: u64) -> Result<ChainMeta> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not an rsbloom header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != VERSION {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let meta = meta::decode(&mut reader, limit)?;
    if !reader.0.is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    Ok(meta)
}
