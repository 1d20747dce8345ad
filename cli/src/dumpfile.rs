//! The dump file format of `rsbloom-cli dump` / `restore`:
//!
//! ```text
//! magic    8 bytes  "RSBFDUMP"
//! version  u8       2 (1: a Bloom filter, no family byte)
//! family   u8       b'B' Bloom (BF.*), b'C' cuckoo (CF.*)
//! records  each: iterator u64 LE, length u64 LE, then `length` bytes
//! ```
//!
//! One record per `BF.SCANDUMP` / `CF.SCANDUMP` step, holding the iterator SCANDUMP returned
//! with the bytes (the one LOADCHUNK takes): first the header with iterator 1, then the data chunks,
//! each with iterator = previous iterator + its length, and last an end record with iterator 0
//! and length 0, after which the file ends. The reader checks all of this, plus the header
//! itself and that the chunks cover the whole filter.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::fail::{fail, Context, Fail, Result};
use crate::family::Family;

pub const MAGIC: &[u8; 8] = b"RSBFDUMP";
pub const VERSION: u8 = 2;
/// Files of version 1 hold a Bloom filter and have no family byte.
const VERSION_BLOOM_ONLY: u8 = 1;
/// No record is longer (Redis's largest bulk string by default, and `bf.chunk-bytes`' max).
pub const MAX_RECORD: u64 = 512 << 20;

/// A file written as `PATH.tmp` and renamed to `PATH` by [`TmpFile::commit`]; dropped
/// without a commit, the `.tmp` file is removed.
pub struct TmpFile {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl TmpFile {
    pub fn create(path: &Path) -> Result<TmpFile> {
        let mut name = path.as_os_str().to_owned();
        name.push(".tmp");
        let tmp = PathBuf::from(name);
        let file = File::create(&tmp).context(|| format!("cannot create {}", tmp.display()))?;
        Ok(TmpFile {
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            tmp,
            path: path.to_owned(),
        })
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let tmp = &self.tmp;
        match self.out.as_mut() {
            Some(out) => out
                .write_all(bytes)
                .context(|| format!("writing {}", tmp.display())),
            None => fail("file already closed"),
        }
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        let out = self
            .out
            .take()
            .ok_or_else(|| Fail("file already closed".into()))?;
        let tmp = self.tmp.clone();
        let file = out
            .into_inner()
            .map_err(|e| Fail(format!("writing {}: {}", tmp.display(), e.error())))?;
        file.sync_all()
            .context(|| format!("syncing {}", tmp.display()))?;
        drop(file);
        std::fs::rename(&tmp, &self.path)
            .context(|| format!("renaming {} to {}", tmp.display(), self.path.display()))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for TmpFile {
    fn drop(&mut self) {
        self.out = None;
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a dump file (to `PATH.tmp`, renamed at [`DumpWriter::finish`]).
pub struct DumpWriter {
    file: TmpFile,
}

impl DumpWriter {
    pub fn create(path: &Path, family: Family) -> Result<DumpWriter> {
        let mut file = TmpFile::create(path)?;
        file.write(MAGIC)?;
        file.write(&[VERSION, family.tag()])?;
        Ok(DumpWriter { file })
    }

    pub fn record(&mut self, iter: u64, data: &[u8]) -> Result<()> {
        self.file.write(&iter.to_le_bytes())?;
        self.file.write(&(data.len() as u64).to_le_bytes())?;
        self.file.write(data)
    }

    /// Writes the end record and renames the file into place.
    pub fn finish(mut self) -> Result<()> {
        self.record(0, &[])?;
        self.file.commit()
    }
}

/// What a dump file holds next.
#[derive(Debug, PartialEq)]
pub enum Record {
    /// A data chunk with the iterator to pass to `BF.LOADCHUNK`.
    Chunk { iter: u64, data: Vec<u8> },
    /// The end record (the file was checked to end there and to cover the whole filter).
    End,
}

/// Reads and validates a dump file record by record, never holding more than one record.
pub struct DumpReader<R> {
    input: R,
    name: String,
    /// The iterator of the last record read.
    iter: u64,
    pub family: Family,
    /// Bytes of filter data the header announces.
    pub data_len: u64,
    /// The header record's bytes (a SCANDUMP header, ours or RedisBloom's).
    pub header: Vec<u8>,
    done: bool,
}

impl DumpReader<BufReader<File>> {
    pub fn open(path: &Path) -> Result<DumpReader<BufReader<File>>> {
        let file = File::open(path).context(|| format!("cannot open {}", path.display()))?;
        DumpReader::new(
            BufReader::with_capacity(1 << 20, file),
            path.display().to_string(),
        )
    }
}

impl<R: Read> DumpReader<R> {
    /// Reads the magic, the version and the header record.
    pub fn new(mut input: R, name: String) -> Result<DumpReader<R>> {
        let mut head = [0u8; 9];
        read_full(&mut input, &mut head, &name, "the file header")?;
        if &head[..8] != MAGIC {
            return fail(format!(
                "{name} is not an rsbloom-cli dump (no RSBFDUMP magic)"
            ));
        }
        let family = match head[8] {
            VERSION_BLOOM_ONLY => Family::Bloom,
            VERSION => {
                let mut tag = [0u8; 1];
                read_full(&mut input, &mut tag, &name, "the file header")?;
                Family::from_tag(tag[0]).ok_or_else(|| {
                    Fail(format!("{name}: unknown filter family byte {}", tag[0]))
                })?
            }
            v => {
                return fail(format!(
                    "{name}: dump format version {v} is not supported (this tool reads versions 1 and {VERSION})"
                ))
            }
        };
        let mut reader = DumpReader {
            input,
            name,
            iter: 0,
            family,
            data_len: 0,
            header: Vec::new(),
            done: false,
        };
        let (iter, header) = reader.raw_record()?;
        if iter != 1 {
            return fail(format!(
                "{}: the first record must be the header (iterator 1), found iterator {iter}",
                reader.name
            ));
        }
        reader.data_len = family
            .data_len(&header)
            .map_err(|e| Fail(format!("{}: bad filter header: {e}", reader.name)))?;
        reader.header = header;
        reader.iter = 1;
        Ok(reader)
    }

    fn raw_record(&mut self) -> Result<(u64, Vec<u8>)> {
        let mut frame = [0u8; 16];
        read_full(&mut self.input, &mut frame, &self.name, "a record")?;
        let iter = u64::from_le_bytes(frame[..8].try_into().unwrap_or_default());
        let len = u64::from_le_bytes(frame[8..].try_into().unwrap_or_default());
        if len > MAX_RECORD {
            return fail(format!(
                "{}: record of {len} bytes is longer than the maximum ({MAX_RECORD}); the file is damaged",
                self.name
            ));
        }
        let mut data = vec![0u8; len as usize];
        read_full(&mut self.input, &mut data, &self.name, "a record's data")?;
        Ok((iter, data))
    }

    /// The next record after the header, validated.
    pub fn next_record(&mut self) -> Result<Record> {
        if self.done {
            return Ok(Record::End);
        }
        let (iter, data) = self.raw_record()?;
        let name = &self.name;
        if iter == 0 {
            if !data.is_empty() {
                return fail(format!("{name}: end record carries data"));
            }
            let covered = self.iter - 1;
            if covered != self.data_len {
                return fail(format!(
                    "{name}: the chunks cover {covered} of the filter's {} bytes",
                    self.data_len
                ));
            }
            let mut extra = [0u8; 1];
            match self.input.read(&mut extra) {
                Ok(0) => {}
                Ok(_) => return fail(format!("{name}: bytes after the end record")),
                Err(e) => return fail(format!("reading {name}: {e}")),
            }
            self.done = true;
            return Ok(Record::End);
        }
        if data.is_empty() {
            return fail(format!("{name}: empty chunk record"));
        }
        let expect = self.iter + data.len() as u64;
        if iter != expect || iter > i64::MAX as u64 {
            return fail(format!(
                "{name}: chunk record with iterator {iter}, expected {expect} (records out of order or damaged)"
            ));
        }
        if iter - 1 > self.data_len {
            return fail(format!(
                "{name}: chunks go past the filter's {} bytes",
                self.data_len
            ));
        }
        self.iter = iter;
        Ok(Record::Chunk { iter, data })
    }
}

fn read_full(input: &mut impl Read, buf: &mut [u8], name: &str, what: &str) -> Result<()> {
    input.read_exact(buf).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Fail(format!("{name} is truncated (ends inside {what})"))
        } else {
            Fail(format!("reading {name}: {e}"))
        }
    })
}
