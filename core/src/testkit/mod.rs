//! Support for tests, benchmarks and fuzzing, compiled only for them (`cfg(test)` or the
//! `testkit` feature): never part of the module.

pub mod bloom;
pub mod cuckoo;

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
