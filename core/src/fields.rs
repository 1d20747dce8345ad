//! The typed field stream that persistence formats are written as: u64s, f64s and byte
//! strings, as `RedisModule_Save*` / `RedisModule_Load*` carry them in an RDB value. The
//! module implements [`FieldSink`] / [`FieldSource`] over `RedisModuleIO`; [`Writer`] and
//! [`Reader`] are a byte form of the same stream (u64 and f64 as 8 little-endian bytes, a
//! byte string as its u64 length then the bytes) that the SCANDUMP header is written in and
//! that tests and the fuzz targets use to carry whole RDB values as plain bytes.

use crate::error::{bad_data, Result};

/// Where an encoder writes typed fields (RDB save, header bytes).
pub trait FieldSink {
    fn put_u64(&mut self, value: u64);
    fn put_f64(&mut self, value: f64);
    fn put_bytes(&mut self, bytes: &[u8]);
}

/// Where a decoder reads typed fields from. Every read can fail (short or bad input).
pub trait FieldSource {
    fn get_u64(&mut self) -> Result<u64>;
    fn get_f64(&mut self) -> Result<f64>;
    /// Hands the next byte string to `use_bytes` without keeping it.
    fn with_bytes(&mut self, use_bytes: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>;
}

/// Appends fields to a byte vector.
#[derive(Debug, Default)]
pub struct Writer(pub Vec<u8>);

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

/// Reads fields from a byte slice; anything short is an error, never a panic.
#[derive(Debug)]
pub struct Reader<'a>(pub &'a [u8]);

impl Reader<'_> {
    fn take8(&mut self) -> Result<[u8; 8]> {
        let (head, rest) = self
            .0
            .split_first_chunk::<8>()
            .ok_or_else(|| bad_data("data is truncated"))?;
        self.0 = rest;
        Ok(*head)
    }

    /// Bytes not read yet.
    pub fn rest(&self) -> &[u8] {
        self.0
    }
}

impl FieldSource for Reader<'_> {
    fn get_u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take8()?))
    }
    fn get_f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take8()?))
    }
    fn with_bytes(&mut self, use_bytes: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let len = self.get_u64()?;
        if len > self.0.len() as u64 {
            return Err(bad_data("data is truncated"));
        }
        let (bytes, rest) = self.0.split_at(len as usize);
        self.0 = rest;
        use_bytes(bytes)
    }
}

/// Little-endian fixed-width fields out of a byte slice whose length the caller has checked
/// (SCANDUMP headers); reading past the end gives zeros, never a panic.
#[derive(Debug)]
pub(crate) struct Packed<'a>(pub &'a [u8]);

impl Packed<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N.min(self.0.len()));
        self.0 = rest;
        let mut out = [0u8; N];
        out[..head.len()].copy_from_slice(head);
        out
    }
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    pub fn u32(&mut self) -> u64 {
        u32::from_le_bytes(self.take()) as u64
    }
    pub fn u16(&mut self) -> u64 {
        u16::from_le_bytes(self.take()) as u64
    }
    pub fn u8(&mut self) -> u64 {
        self.take::<1>()[0] as u64
    }
    pub fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
}
