//! Reading a module value in a DUMP payload as Redis's `RedisModule_Load*` would: RDB
//! lengths, the typed fields with their opcodes, LZF-compressed strings. Used by the
//! integration tests' oracles and by the core's vector tests (the RedisBloom DUMP files).

/// Field opcodes of a module value (RDB_MODULE_OPCODE_*).
pub const OP_EOF: u8 = 0;
pub const OP_SINT: u8 = 1;
pub const OP_UINT: u8 = 2;
pub const OP_FLOAT: u8 = 3;
pub const OP_DOUBLE: u8 = 4;
pub const OP_STRING: u8 = 5;

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
