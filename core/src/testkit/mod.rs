//! Support for tests, benchmarks and fuzzing, compiled only for them (`cfg(test)` or the
//! `testkit` feature): never part of the module.

pub mod bloom;
pub mod cms;
pub mod counting;
pub mod cuckoo;
pub mod files;
pub mod rdb;
pub mod tdigest;
pub mod topk;
pub mod valkey;

/// xorshift64*: a small, fast, reproducible generator, so every failing run can be replayed.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from any seed (0, which xorshift cannot leave, becomes 1).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform enough in `0..n` (0 for n = 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index into something of `len` elements (0 for an empty one).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.byte()).collect()
    }
}

/// Where [`mutate`] may edit an input and which 8-byte values it may plant.
#[derive(Debug, Clone, Copy)]
pub struct Mutation<'a> {
    /// Leading bytes never touched (a DUMP payload's type byte and module id), so the input
    /// still reaches the decoder under test; the result always keeps at least one byte more.
    pub keep: usize,
    /// Values planted whole into an aligned 8-byte field (a format's edge values).
    pub words: &'a [u64],
    /// Fields are planted only within this many bytes after `keep` (where the parameters are).
    pub word_span: usize,
}

impl Mutation<'static> {
    /// Edits anywhere after the first `keep` bytes, no planted fields.
    pub fn after(keep: usize) -> Self {
        Mutation {
            keep,
            words: &[],
            word_span: 0,
        }
    }
}

/// Bytes that sit on the edges of RDB length encodings and of signed and unsigned ranges.
const INTERESTING: [u8; 16] = [
    0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x3f, 0x40, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xc2, 0xc3, 0xff,
];

/// `base` with 1 to 3 random edits after `how.keep`. Three in four keep the length (a byte
/// set to a random or an interesting value, a run filled with 0x00 or 0xff, an edge value
/// planted in a field, a bit flipped), so many mutants still parse and reach the checks
/// behind the framing; the rest insert a byte, duplicate or delete a run, append random bytes
/// or cut the tail. The one mutator of the "never panics, never crashes" tests, core and
/// server alike.
pub fn mutate(rng: &mut Rng, base: &[u8], how: Mutation) -> Vec<u8> {
    let keep = how.keep;
    assert!(base.len() > keep, "nothing to mutate after {keep} bytes");
    let mut v = base.to_vec();
    for _ in 0..1 + rng.index(3) {
        let at = keep + rng.index(v.len() - keep);
        let run_end = |v: &Vec<u8>, rng: &mut Rng| (at + 1 + rng.index(16)).min(v.len());
        let op = if rng.index(4) == 0 {
            5 + rng.index(5)
        } else {
            rng.index(5)
        };
        match op {
            0 => v[at] = rng.byte(),
            1 => v[at] = INTERESTING[rng.index(INTERESTING.len())],
            2 => {
                // Huge or zero values.
                let fill = [0x00, 0xff][rng.index(2)];
                let end = (at + 1 + rng.index(8)).min(v.len());
                v[at..end].fill(fill);
            }
            3 if !how.words.is_empty() => {
                let span = (v.len() - keep).min(how.word_span);
                let field = keep + rng.index(span / 8) * 8;
                let value = how.words[rng.index(how.words.len())];
                if field + 8 <= v.len() {
                    v[field..field + 8].copy_from_slice(&value.to_le_bytes());
                }
            }
            5 => v.insert(at, rng.byte()),
            6 => {
                let end = run_end(&v, rng);
                let copy = v[at..end].to_vec();
                v.splice(at..at, copy);
            }
            7 => {
                // At least one byte after `keep` stays.
                let end = run_end(&v, rng);
                let end = if at == keep {
                    end.min(v.len() - 1)
                } else {
                    end
                };
                v.drain(at..end);
            }
            8 => {
                let len = 1 + rng.index(16);
                v.extend(rng.bytes(len));
            }
            9 => v.truncate(at.max(keep + 1)),
            _ => v[at] ^= 1 << rng.index(8),
        }
    }
    v
}

/// Runs `check` on `input`, reporting the input if it panics (property tests).
pub fn survive(input: &[u8], check: impl Fn(&[u8])) {
    let run = std::panic::AssertUnwindSafe(|| check(input));
    if std::panic::catch_unwind(run).is_err() {
        panic!("decoder panicked on input {input:02x?}");
    }
}

/// A fuzz target's name and the entry point it runs.
pub type Target = (&'static str, fn(&[u8]));

/// Runs every input the fuzzers once flagged for each `(target, check)` (kept in
/// `fuzz/regressions/<target>/`) through its check; returns how many there were.
pub fn replay_regressions(targets: &[Target]) -> usize {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut seen = 0;
    for &(target, check) in targets {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for entry in dir.flatten() {
            survive(&std::fs::read(entry.path()).expect("readable"), check);
            seen += 1;
        }
    }
    seen
}
