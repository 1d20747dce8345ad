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

use super::client::*;
use super::hostile::{key_exists, mutate, Mutation, Rng};

/// What `RESTORE` answers for a payload the module (or Redis) refuses to load.
pub const BAD_DATA: &str = "ERR Bad data format";

// The field opcodes, the reader of a module value and LZF live in the core's test kit,
// shared with the core's own vector tests.
pub use rsbloom_core::testkit::rdb::{
    lzf_decompress, Cursor, OP_DOUBLE, OP_EOF, OP_FLOAT, OP_SINT, OP_STRING, OP_UINT,
};

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

/// Redis's CRC-64, as DUMP payloads carry it (the core's, which rsbloom-cli uses too).
pub use rsbloom_core::dump::crc64;

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
            .map(|_| self.seal(&mutate(rng, &body, Mutation::after(self.head.len()))))
            .collect()
    }
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
