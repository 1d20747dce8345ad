//! DUMP payloads and RDB module values byte by byte, for the tests that build `RESTORE`
//! payloads from scratch: Redis's CRC-64, RDB length encoding, the typed fields of a module
//! value, the frame around a value (type byte, module id, EOF opcode, RDB version, CRC) and a
//! reader of those fields as Redis's `RedisModule_Load*` would read them.
//!
//! A DUMP payload is `0x07` (RDB_TYPE_MODULE_2), the module id as an RDB length (`0x81` + 8
//! bytes big-endian: the type name in the high 54 bits, the encoding version in the low 10),
//! the module value as typed fields, `0x00` (the module EOF opcode), the RDB version (2 bytes
//! LE) and the CRC-64 of everything before it (8 bytes LE).

use redis::{Connection, Value};

use super::hostile::{key_exists, mutate, Rng};
use super::client::*;

/// What `RESTORE` answers for a payload the module (or Redis) refuses to load.
pub const BAD_DATA: &str = "ERR Bad data format";

/// Field opcodes of a module value (RDB_MODULE_OPCODE_*).
pub const OP_EOF: u8 = 0;
pub const OP_SINT: u8 = 1;
pub const OP_UINT: u8 = 2;
pub const OP_FLOAT: u8 = 3;
pub const OP_DOUBLE: u8 = 4;
pub const OP_STRING: u8 = 5;

/// The module's part of a DUMP payload: everything before the server's 10-byte footer (the
/// RDB version, 2 bytes, and the CRC-64, 8 bytes), i.e. the type byte, the module id, the
/// fields the module's `rdb_save` wrote and the module EOF opcode. The footer is the server's:
/// the RDB version is 10 on Redis 7.0, 11 on Valkey 8, 12 on Redis 7.4 / 8.2, 80 on Valkey 9,
/// and the CRC covers it. Panics unless the CRC is right for the bytes before it, so a body
/// taken from a real DUMP is one the server sealed whole.
pub fn dump_body(payload: &[u8]) -> &[u8] {
    assert!(payload.len() > 10, "DUMP payload too short: {payload:?}");
    let (sealed, crc) = payload.split_at(payload.len() - 8);
    assert_eq!(
        crc64(sealed).to_le_bytes(),
        crc,
        "DUMP payload with a wrong CRC-64"
    );
    &sealed[..sealed.len() - 2]
}

/// The RDB version in a DUMP payload's footer (the server's, not the module's).
pub fn dump_rdb_version(payload: &[u8]) -> u16 {
    let n = payload.len();
    u16::from_le_bytes([payload[n - 10], payload[n - 9]])
}

/// Redis's CRC-64 (Jones polynomial, reflected, init 0, no final xor), bit by bit.
pub fn crc64(bytes: &[u8]) -> u64 {
    // 0xad93d23594c935a9 with its 64 bits in reverse order.
    const POLY_REFLECTED: u64 = 0x95ac_9329_ac4b_c9b5;
    let mut crc = 0u64;
    for &b in bytes {
        crc ^= b as u64;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY_REFLECTED
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// An RDB length in its shortest form, as `rdbSaveLen` writes it.
pub fn rdb_len(v: u64) -> Vec<u8> {
    if v < 1 << 6 {
        vec![v as u8]
    } else if v < 1 << 14 {
        vec![0x40 | (v >> 8) as u8, v as u8]
    } else if v <= u32::MAX as u64 {
        let mut out = vec![0x80];
        out.extend_from_slice(&(v as u32).to_be_bytes());
        out
    } else {
        let mut out = vec![0x81];
        out.extend_from_slice(&v.to_be_bytes());
        out
    }
}

/// One field of a module value.
#[derive(Clone, Debug)]
pub enum F {
    /// Opcode 2, then the value as an RDB length.
    U(u64),
    /// Opcode 4, then 8 bytes little-endian.
    D(f64),
    /// Opcode 5, then a raw (uncompressed) RDB string.
    S(Vec<u8>),
    /// Bytes written as they are (odd encodings, garbage).
    Raw(Vec<u8>),
}

/// Bytes written as they are after an opcode (another type's opcode, a bad encoding).
pub fn raw_op(op: u8, rest: &[u8]) -> F {
    let mut r = vec![op];
    r.extend_from_slice(rest);
    F::Raw(r)
}

/// `base` with the field at `at` replaced.
pub fn with_field(base: &[F], at: usize, field: F) -> Vec<F> {
    let mut f = base.to_vec();
    f[at] = field;
    f
}

pub fn encode_fields(fields: &[F]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in fields {
        match f {
            F::U(v) => {
                out.push(OP_UINT);
                out.extend(rdb_len(*v));
            }
            F::D(d) => {
                out.push(OP_DOUBLE);
                out.extend_from_slice(&d.to_le_bytes());
            }
            F::S(s) => {
                out.push(OP_STRING);
                out.extend(rdb_len(s.len() as u64));
                out.extend_from_slice(s);
            }
            F::Raw(r) => out.extend_from_slice(r),
        }
    }
    out
}

/// What a payload is wrapped in, taken from a real DUMP of the module type under test.
#[derive(Clone)]
pub struct Frame {
    /// `0x07`, `0x81` and the 8-byte module id.
    pub head: Vec<u8>,
    /// The RDB version, 2 bytes LE.
    pub version: [u8; 2],
}

impl Frame {
    pub fn from_dump(dump: &[u8]) -> Frame {
        assert!(dump.len() > 20, "DUMP too short: {dump:?}");
        assert_eq!(dump[0], 7, "DUMP does not hold a RDB_TYPE_MODULE_2 value");
        assert_eq!(dump[1], 0x81, "module id is not written as a 64-bit length");
        let n = dump.len();
        Frame {
            head: dump[..10].to_vec(),
            version: [dump[n - 10], dump[n - 9]],
        }
    }

    pub fn module_id(&self) -> u64 {
        u64::from_be_bytes(self.head[2..10].try_into().unwrap())
    }

    /// The same type with another encoding version in the id's low 10 bits.
    pub fn with_encver(&self, encver: u64) -> Frame {
        let id = (self.module_id() & !1023) | (encver & 1023);
        let mut head = self.head[..2].to_vec();
        head.extend_from_slice(&id.to_be_bytes());
        Frame {
            head,
            version: self.version,
        }
    }

    /// The type byte, module id, these fields and the module EOF opcode.
    pub fn body(&self, fields: &[F]) -> Vec<u8> {
        let mut body = self.head.clone();
        body.extend(encode_fields(fields));
        body.push(OP_EOF);
        body
    }

    /// A body with the RDB version and a correct CRC appended.
    pub fn seal(&self, body: &[u8]) -> Vec<u8> {
        let mut out = body.to_vec();
        out.extend_from_slice(&self.version);
        let crc = crc64(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    pub fn payload(&self, fields: &[F]) -> Vec<u8> {
        self.seal(&self.body(fields))
    }

    /// `rounds` sealed payloads, each the body of `fields` with a few random edits after
    /// the head (see [`mutate`]).
    pub fn mutations(&self, rng: &mut Rng, fields: &[F], rounds: usize) -> Vec<Vec<u8>> {
        let body = self.body(fields);
        (0..rounds)
            .map(|_| self.seal(&mutate(rng, &body, self.head.len())))
            .collect()
    }
}

/// A reader over a whole sealed payload (footer included, as Redis's loader sees it).
pub struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl Cursor<'_> {
    pub fn new(bytes: &[u8]) -> Cursor<'_> {
        Cursor { bytes, pos: 0 }
    }

    pub fn take(&mut self, n: u64) -> Result<&[u8], String> {
        let end = (self.pos as u64)
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len() as u64)
            .ok_or_else(|| format!("short read of {n} bytes at {}", self.pos))?
            as usize;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// `rdbLoadLenByRef`: (value, is an encoded-string marker).
    pub fn len(&mut self) -> Result<(u64, bool), String> {
        let b = self.take(1)?[0];
        match b >> 6 {
            0 => Ok(((b & 0x3f) as u64, false)),
            1 => {
                let lo = self.take(1)?[0];
                Ok(((((b & 0x3f) as u64) << 8) | lo as u64, false))
            }
            3 => Ok(((b & 0x3f) as u64, true)),
            _ if b == 0x80 => {
                let v = self.take(4)?;
                Ok((u32::from_be_bytes(v.try_into().unwrap()) as u64, false))
            }
            _ if b == 0x81 => {
                let v = self.take(8)?;
                Ok((u64::from_be_bytes(v.try_into().unwrap()), false))
            }
            _ => Err(format!("unknown length encoding {b:#x}")),
        }
    }

    /// The type byte and module id of a payload of the type `module_id` (its encoding
    /// version ignored) at encoding version `encver`.
    pub fn module_head(&mut self, module_id: u64, encver: u64) -> Result<(), String> {
        if self.take(1)?[0] != 7 {
            return Err("not a module value".into());
        }
        let id = self.len()?.0;
        if id & !1023 != module_id & !1023 {
            return Err("another module type".into());
        }
        if id & 1023 != encver {
            return Err(format!("encoding version {}", id & 1023));
        }
        Ok(())
    }

    /// The module EOF opcode Redis reads after the value; what follows it is not looked at.
    pub fn module_eof(&mut self) -> Result<(), String> {
        if self.len()?.0 != OP_EOF as u64 {
            return Err("no module EOF opcode".into());
        }
        Ok(())
    }

    pub fn opcode(&mut self, want: u8) -> Result<(), String> {
        let (op, _) = self.len()?;
        if op != want as u64 {
            return Err(format!("opcode {op} where {want} was expected"));
        }
        Ok(())
    }

    pub fn unsigned(&mut self) -> Result<u64, String> {
        self.opcode(OP_UINT)?;
        Ok(self.len()?.0)
    }

    pub fn double(&mut self) -> Result<f64, String> {
        self.opcode(OP_DOUBLE)?;
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    /// Ok(None) for an LZF string, which the oracle does not decompress.
    pub fn string(&mut self) -> Result<Option<Vec<u8>>, String> {
        self.opcode(OP_STRING)?;
        let (len, encoded) = self.len()?;
        if !encoded {
            return Ok(Some(self.take(len)?.to_vec()));
        }
        let value: i64 = match len {
            0 => self.take(1)?[0] as i8 as i64,
            1 => i16::from_le_bytes(self.take(2)?.try_into().unwrap()) as i64,
            2 => i32::from_le_bytes(self.take(4)?.try_into().unwrap()) as i64,
            3 => return Ok(None),
            other => return Err(format!("unknown string encoding {other}")),
        };
        Ok(Some(value.to_string().into_bytes()))
    }

    /// A string field's bytes as the module receives them, LZF strings decompressed.
    pub fn string_bytes(&mut self) -> Result<Vec<u8>, String> {
        let start = self.pos;
        if let Some(bytes) = self.string()? {
            return Ok(bytes);
        }
        // `string` stopped after the LZF marker (0xc3): compressed and plain lengths follow.
        debug_assert!(self.pos > start);
        let (clen, _) = self.len()?;
        let (len, _) = self.len()?;
        let packed = self.take(clen)?.to_vec();
        lzf_decompress(&packed, len as usize)
    }
}

/// LZF (liblzf) decompression, as Redis reads compressed RDB strings: a control byte below
/// 32 starts a literal run of `ctrl + 1` bytes; otherwise `ctrl >> 5` (7: plus the next byte)
/// plus 2 bytes are copied from `((ctrl & 31) << 8) + next byte + 1` bytes back.
pub fn lzf_decompress(input: &[u8], out_len: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(out_len);
    let mut i = 0;
    let byte = |i: usize| input.get(i).copied().ok_or("LZF data is truncated");
    while i < input.len() {
        let ctrl = byte(i)? as usize;
        i += 1;
        if ctrl < 32 {
            let run = input
                .get(i..i + ctrl + 1)
                .ok_or("LZF literal is truncated")?;
            out.extend_from_slice(run);
            i += ctrl + 1;
        } else {
            let mut len = ctrl >> 5;
            if len == 7 {
                len += byte(i)? as usize;
                i += 1;
            }
            let back = ((ctrl & 31) << 8) + byte(i)? as usize + 1;
            i += 1;
            let from = out
                .len()
                .checked_sub(back)
                .ok_or("LZF reference before the start")?;
            for k in 0..len + 2 {
                out.push(out[from + k]);
            }
        }
    }
    if out.len() != out_len {
        return Err(format!("LZF gave {} bytes, not {out_len}", out.len()));
    }
    Ok(out)
}

/// `RESTORE key 0 payload REPLACE`, the reply as it came.
pub fn restore(con: &mut Connection, key: &str, payload: &[u8]) -> Value {
    let args: [&[u8]; 5] = [b"RESTORE", key.as_bytes(), b"0", payload, b"REPLACE"];
    raw(con, &args)
}

/// RESTORE of a payload an oracle does not model (`why`): refused with `ERR Bad data format`,
/// or accepted as a key that passes `check` (and is then deleted).
pub fn restore_unmodelled(
    con: &mut Connection,
    key: &str,
    payload: &[u8],
    what: &str,
    why: &str,
    check: impl FnOnce(&mut Connection),
) {
    let v = restore(con, key, payload);
    if v == Value::Okay {
        check(con);
        expect_int(con, &["DEL", key], 1);
    } else {
        assert_eq!(
            err_of(&v).as_deref(),
            Some(BAD_DATA),
            "{what} ({why}): RESTORE answered {v:?}"
        );
    }
}

/// RESTORE must answer `ERR Bad data format` and create no key.
pub fn expect_restore_refused(con: &mut Connection, key: &str, payload: &[u8], what: &str) {
    let v = restore(con, key, payload);
    assert_eq!(
        err_of(&v).as_deref(),
        Some(BAD_DATA),
        "{what}: RESTORE answered {v:?} (payload {payload:02x?})"
    );
    assert!(!key_exists(con, key), "{what}: key created");
}
