//! `rsbloom-cli`: dump, restore and copy a key of any of the module's seven families: Bloom
//! and cuckoo filters (rsbloom's or RedisBloom's), counting Bloom and sliding-window filters
//! over their `SCANDUMP` / `LOADCHUNK` commands, and the sketches (Count-Min Sketch, Top-K,
//! t-digest) as one `DUMP` / `RESTORE` payload; and convert Bloom filters from and to Guava's
//! `BloomFilter.writeTo()` format.
//! Every transfer streams chunk by chunk; writes go to a temporary key (or `FILE.tmp`) that
//! is renamed into place only when complete.

mod dumpfile;
mod fail;
mod family;
mod payload;
mod progress;
mod server;
mod sharded;
mod slot;

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::thread;

use clap::{Parser, Subcommand};
use rsbloom_core::bloom::codec::{native, scandump, writeto};

use dumpfile::{DumpReader, DumpWriter, Record, TmpFile};
use fail::{fail, Context, Fail, Result};
use family::{cuckoo_header_from_debug, Family};
use progress::Progress;
use server::{connect, cuckoo_debug, dump_body, family_of, scandump, Conn, Staging};

/// Chunks sent by import-guava: at most this many bytes (a multiple of 8).
const IMPORT_CHUNK: u64 = 16 << 20;

#[derive(Parser)]
#[command(
    name = "rsbloom-cli",
    version,
    about = "Dump, restore and copy rsbloom's filters and sketches: Bloom, cuckoo, counting Bloom and sliding-window filters chunk by chunk, Count-Min Sketch, Top-K and t-digest whole; Guava import/export of Bloom filters"
)]
struct Cli {
    /// Server URL; auth and database go in it (redis://user:pass@host:port/db)
    #[arg(long, global = true, default_value = "redis://127.0.0.1:6379")]
    url: String,
    /// Treat --url as a node of a Redis Cluster (keys are routed to their slot)
    #[arg(long, global = true)]
    cluster: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write filter or sketch KEY (any family: BF, CF, CBF, APBF, CMS, TOPK, TDIGEST) to FILE (rsbloom-cli dump format)
    Dump { key: String, file: PathBuf },
    /// Load FILE (written by dump) as filter or sketch KEY
    Restore {
        key: String,
        file: PathBuf,
        /// Overwrite KEY if it exists
        #[arg(long)]
        replace: bool,
    },
    /// Copy filter or sketch KEY to another server (filters chunk by chunk)
    Copy {
        key: String,
        /// Target server URL
        #[arg(long)]
        to: String,
        /// Key on the target (default: KEY)
        #[arg(long)]
        to_key: Option<String>,
        /// The target URL is a node of a Redis Cluster
        #[arg(long)]
        to_cluster: bool,
        /// Overwrite the target key if it exists
        #[arg(long)]
        replace: bool,
    },
    /// Load a Guava BloomFilter.writeTo() file as Bloom filter KEY
    ImportGuava {
        key: String,
        file: PathBuf,
        /// Capacity to record (default: the n for which Guava's k is optimal)
        #[arg(long)]
        capacity: Option<u64>,
        /// Error rate to record (default: 0.5^k)
        #[arg(long)]
        error: Option<f64>,
        /// Overwrite KEY if it exists
        #[arg(long)]
        replace: bool,
    },
    /// Write Bloom filter KEY (one layer) as a Guava BloomFilter.writeTo() file
    ExportGuava { key: String, file: PathBuf },
    /// One Bloom or cuckoo filter over many keys (docs/sharding.md): create, info, delete, copy
    Sharded {
        #[command(subcommand)]
        command: sharded::Sharded,
    },
}

impl Command {
    fn name(&self) -> &'static str {
        match self {
            Command::Dump { .. } => "dump",
            Command::Restore { .. } => "restore",
            Command::Copy { .. } => "copy",
            Command::ImportGuava { .. } => "import-guava",
            Command::ExportGuava { .. } => "export-guava",
            Command::Sharded { .. } => "sharded",
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let name = cli.command.name();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rsbloom-cli: {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    let source = || connect(&cli.url, cli.cluster);
    match &cli.command {
        Command::Dump { key, file } => dump(source()?, key, file),
        Command::Restore { key, file, replace } => restore(key, file, *replace, source),
        Command::Copy {
            key,
            to,
            to_key,
            to_cluster,
            replace,
        } => copy(
            source()?,
            key,
            connect(to, *to_cluster)?,
            to_key.as_deref().unwrap_or(key),
            *replace,
        ),
        Command::ImportGuava {
            key,
            file,
            capacity,
            error,
            replace,
        } => import_guava(source, key, file, *capacity, *error, *replace),
        Command::ExportGuava { key, file } => export_guava(source()?, key, file),
        Command::Sharded { command } => sharded::run(command, &cli.url, source()?, connect),
    }
}

/// Runs SCANDUMP from 0 to the end, handing each `(iterator, bytes)` step to `each`; a
/// sketch is one step, iterator 1 with its DUMP body.
fn scan(
    con: &mut Conn,
    family: Family,
    key: &str,
    progress: &mut Option<Progress>,
    verb: &'static str,
    mut each: impl FnMut(u64, Vec<u8>) -> Result<()>,
) -> Result<()> {
    if family.whole() {
        let body = dump_body(con, key)?;
        let p = progress.insert(Progress::new(verb, key, body.len() as u64));
        let len = body.len() as u64;
        each(1, body)?;
        p.chunk(len);
        return Ok(());
    }
    let cmd = format!("{}.SCANDUMP", family.prefix());
    let mut iter = 0u64;
    loop {
        let (mut next, mut data) = scandump(con, family, key, iter)?;
        if iter == 0 && next == 0 && family == Family::Cuckoo {
            // A cuckoo filter with no items sends nothing: its header comes from CF.DEBUG.
            data = cuckoo_header_from_debug(key, &cuckoo_debug(con, key)?)?;
            next = 1;
        }
        if next == 0 {
            if !data.is_empty() {
                return fail(format!("{cmd} {key} ended with data"));
            }
            return Ok(());
        }
        if iter == 0 {
            // The total for the progress bar only: an unreadable header is the target's to refuse.
            let data_len = family.data_len(&data).unwrap_or(0);
            *progress = Some(Progress::new(verb, key, data.len() as u64 + data_len));
        }
        if next <= iter {
            return fail(format!("{cmd} {key} went backwards ({iter} -> {next})"));
        }
        let len = data.len() as u64;
        each(next, data)?;
        if let Some(p) = progress.as_mut() {
            p.chunk(len);
        }
        iter = next;
    }
}

/// Records in flight between the network and the file (each up to `bf.chunk-bytes`).
const QUEUE: usize = 2;

fn dump(mut con: Conn, key: &str, file: &Path) -> Result<()> {
    let family = family_of(&mut con, key)?;
    let out = DumpWriter::create(file, family)?;
    // The file is written by its own thread, while the next chunk is fetched.
    let (tx, rx) = mpsc::sync_channel::<(u64, Vec<u8>)>(QUEUE);
    let writer = thread::spawn(move || -> Result<DumpWriter> {
        let mut out = out;
        for (iter, data) in rx {
            out.record(iter, &data)?;
        }
        Ok(out)
    });
    let mut progress = None;
    let scanned = scan(
        &mut con,
        family,
        key,
        &mut progress,
        "dumped",
        |it, data| {
            tx.send((it, data))
                .map_err(|_| Fail("the file writer stopped".into()))
        },
    );
    drop(tx);
    let out = writer
        .join()
        .map_err(|_| Fail("the file writer panicked".into()))??;
    scanned?;
    out.finish()?;
    if let Some(p) = progress {
        p.finish();
    }
    Ok(())
}

fn restore(
    key: &str,
    file: &Path,
    replace: bool,
    con: impl FnOnce() -> Result<Conn>,
) -> Result<()> {
    let mut input = DumpReader::open(file)?;
    let mut con = con()?;
    let mut staging = Staging::new(&mut con, input.family, key, replace)?;
    let header = std::mem::take(&mut input.header);
    let mut progress = Progress::new("restored", key, header.len() as u64 + input.data_len);
    staging.load(1, &header)?;
    progress.chunk(header.len() as u64);
    // The file is read by its own thread, while the previous chunk is loaded.
    let (tx, rx) = mpsc::sync_channel::<Result<Record>>(QUEUE);
    thread::spawn(move || loop {
        let record = input.next_record();
        let more = matches!(record, Ok(Record::Chunk { .. }));
        if tx.send(record).is_err() || !more {
            break;
        }
    });
    loop {
        match rx.recv() {
            Ok(Ok(Record::Chunk { iter, data })) => {
                staging.load(iter, &data)?;
                progress.chunk(data.len() as u64);
            }
            Ok(Ok(Record::End)) => break,
            Ok(Err(e)) => return Err(e),
            Err(_) => return fail("the file reader stopped"),
        }
    }
    staging.commit()?;
    progress.finish();
    Ok(())
}

fn copy(mut from: Conn, key: &str, mut to: Conn, to_key: &str, replace: bool) -> Result<()> {
    let family = family_of(&mut from, key)?;
    let mut staging = Staging::new(&mut to, family, to_key, replace)?;
    let mut progress = None;
    scan(
        &mut from,
        family,
        key,
        &mut progress,
        "copied",
        |it, data| staging.load(it, &data),
    )?;
    staging.commit()?;
    if let Some(p) = progress {
        p.finish();
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes of a Guava file.
fn read_words(input: &mut impl Read, buf: &mut [u8], file: &Path) -> Result<()> {
    input
        .read_exact(buf)
        .context(|| format!("reading {}", file.display()))
}

fn import_guava(
    con: impl FnOnce() -> Result<Conn>,
    key: &str,
    file: &Path,
    capacity: Option<u64>,
    error: Option<f64>,
    replace: bool,
) -> Result<()> {
    if capacity == Some(0) {
        return fail("--capacity must be at least 1");
    }
    if let Some(e) = error {
        if !(e > 0.0 && e < 1.0) {
            return fail("--error must be in the range (0, 1)");
        }
    }
    let name = file.display().to_string();
    let raw = File::open(file).context(|| format!("cannot open {name}"))?;
    let file_len = raw
        .metadata()
        .context(|| format!("cannot stat {name}"))?
        .len();
    let mut input = BufReader::with_capacity(1 << 20, raw);
    let mut head = [0u8; writeto::HEADER_LEN];
    if file_len < head.len() as u64 {
        return fail(format!(
            "{name} is truncated (shorter than Guava's 6-byte header)"
        ));
    }
    read_words(&mut input, &mut head, file)?;
    let gh =
        writeto::parse_header(&head).map_err(|e| Fail(format!("{name}: {}", Fail::from(e))))?;
    if file_len != gh.total_len() {
        return fail(format!(
            "{name}: a Guava filter of {} words is {} bytes, the file has {file_len}",
            gh.words,
            gh.total_len()
        ));
    }
    let data_len = gh.words as u64 * 8;
    let mut buf = vec![0u8; IMPORT_CHUNK.min(data_len) as usize];

    // Pass 1: count the set bits (the header, sent first, carries the estimated count).
    let mut bits_set = 0u64;
    let mut left = data_len;
    while left > 0 {
        let n = left.min(IMPORT_CHUNK) as usize;
        read_words(&mut input, &mut buf[..n], file)?;
        bits_set += writeto::count_ones(&buf[..n]);
        left -= n as u64;
    }
    let meta = writeto::derive_meta(gh, bits_set, capacity, error);
    let our_header = native::encode_header_meta(&meta);
    native::decode_header(&our_header, u64::MAX)
        .map_err(|e| Fail(format!("cannot import {name}: {}", Fail::from(e))))?;

    // Pass 2: the header, then the words as little-endian chunks.
    let mut con = con()?;
    let mut staging = Staging::new(&mut con, Family::Bloom, key, replace)?;
    let mut progress = Progress::new("imported", key, our_header.len() as u64 + data_len);
    staging.load(1, &our_header)?;
    progress.chunk(our_header.len() as u64);
    input
        .seek(SeekFrom::Start(writeto::HEADER_LEN as u64))
        .context(|| format!("seeking in {name}"))?;
    let mut offset = 0u64;
    while offset < data_len {
        let n = (data_len - offset).min(IMPORT_CHUNK) as usize;
        read_words(&mut input, &mut buf[..n], file)?;
        let le = writeto::swap_words(&buf[..n]);
        staging.load(1 + offset + n as u64, &le)?;
        offset += n as u64;
        progress.chunk(n as u64);
    }
    staging.commit()?;
    progress.finish();
    Ok(())
}

fn export_guava(mut con: Conn, key: &str, file: &Path) -> Result<()> {
    let family = family_of(&mut con, key)?;
    if family != Family::Bloom {
        return fail(format!(
            "'{key}' is a {}; only Bloom filters have a Guava form",
            family.noun()
        ));
    }
    let (first, header_bytes) = scandump(&mut con, Family::Bloom, key, 0)?;
    if first != 1 {
        return fail(format!(
            "BF.SCANDUMP {key} 0 answered iterator {first}, expected 1"
        ));
    }
    let meta = scandump::parse_header(&header_bytes, u64::MAX)
        .map_err(|e| Fail(format!("cannot read the filter header: {}", Fail::from(e))))?;
    // The codec decides, as for BF.EXPORT; the layer count is said as a hint.
    let header = writeto::export_header_of(&meta).map_err(|e| {
        let layers = match meta.layers.len() {
            1 => String::new(),
            n => format!(" ('{key}' has {n} layers; Guava can hold only a single-layer filter)"),
        };
        Fail(format!("cannot export '{key}': {}{layers}", Fail::from(e)))
    })?;
    let data_len = header.words as u64 * 8;
    let mut out = TmpFile::create(file)?;
    out.write(&header.to_bytes())?;
    let mut progress = Progress::new("exported", key, data_len);
    // A chunk need not end on a word boundary (bf.chunk-bytes may be any size).
    let mut carry: Vec<u8> = Vec::with_capacity(8);
    let mut iter = 1u64;
    loop {
        let (next, data) = scandump(&mut con, Family::Bloom, key, iter)?;
        if next == 0 {
            break;
        }
        if next != iter + data.len() as u64 || next - 1 > data_len {
            return fail(format!("'{key}' changed during the export (restart it)"));
        }
        let mut rest = data.as_slice();
        if !carry.is_empty() {
            let take = (8 - carry.len()).min(rest.len());
            carry.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if carry.len() == 8 {
                out.write(&writeto::swap_words(&carry))?;
                carry.clear();
            }
        }
        let whole = rest.len() / 8 * 8;
        out.write(&writeto::swap_words(&rest[..whole]))?;
        carry.extend_from_slice(&rest[whole..]);
        progress.chunk(data.len() as u64);
        iter = next;
    }
    if iter - 1 != data_len || !carry.is_empty() {
        return fail(format!(
            "BF.SCANDUMP {key} returned {} of {data_len} bytes",
            iter - 1
        ));
    }
    out.commit()?;
    progress.finish();
    Ok(())
}
