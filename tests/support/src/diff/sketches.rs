//! The generator's steps for RedisBloom's sketches (Count-Min Sketch, Top-K, t-digest), a run
//! of their own (`Families::Sketches`, so the filters' fixed-seed sequences stay as they are).
//! Mostly well-formed calls over the same keys, with the shared edge alterations.
//!
//! Top-K sketches are reserved with decay `1` or `1e-300`: RedisBloom draws `rand()` against
//! `decay^count`, which is then 1 (every roll decays) or 0 (none does) whatever `rand()`
//! says, so both modules must answer alike. Other decays (an edge alteration, the default of
//! `TOPK.RESERVE key k`) make RedisBloom's answers depend on its process's `rand()`: listed.

use super::generator::{b, Action, Generator};

pub const SKETCH_WORDS: &[&str] = &[
    "WEIGHTS",
    "weights",
    "WEIGHT",
    "W",
    "COMPRESSION",
    "compression",
    "COMP",
    "OVERRIDE",
    "override",
    "OVER",
    "WITHCOUNT",
    "withcount",
    "WITH",
    "",
    "FOO",
];

const WEIGHTS: &[(u32, &str)] = &[
    (30, "CMS.INITBYDIM"),
    (20, "CMS.INITBYPROB"),
    (60, "CMS.INCRBY"),
    (40, "CMS.QUERY"),
    (25, "CMS.MERGE"),
    (15, "CMS.INFO"),
    (30, "TOPK.RESERVE"),
    (60, "TOPK.ADD"),
    (35, "TOPK.INCRBY"),
    (30, "TOPK.QUERY"),
    (20, "TOPK.COUNT"),
    (25, "TOPK.LIST"),
    (15, "TOPK.INFO"),
    (30, "TDIGEST.CREATE"),
    (8, "TDIGEST.RESET"),
    (60, "TDIGEST.ADD"),
    (20, "TDIGEST.MERGE"),
    (10, "TDIGEST.MIN"),
    (10, "TDIGEST.MAX"),
    (25, "TDIGEST.QUANTILE"),
    (25, "TDIGEST.CDF"),
    (15, "TDIGEST.RANK"),
    (15, "TDIGEST.REVRANK"),
    (15, "TDIGEST.BYRANK"),
    (15, "TDIGEST.BYREVRANK"),
    (15, "TDIGEST.TRIMMED_MEAN"),
    (15, "TDIGEST.INFO"),
    (15, "DEL"),
    (8, "SET"),
    (6, "TYPE"),
    (6, "DUMP"),
    (25, "restore"),
    (2, "FLUSHALL"),
];

fn num(n: u64) -> Vec<u8> {
    n.to_string().into_bytes()
}

impl Generator {
    /// The next sketch step.
    pub(super) fn next_sketch_action(&mut self) -> Action {
        let name = self.command(WEIGHTS);
        if name == "restore" {
            self.aim(name);
            let src = self.plain_key();
            let dst = self.key();
            return Action::DumpRestore {
                src,
                dst,
                alter: !self.states && self.rng.chance(40),
                replace: self.rng.chance(30),
            };
        }
        let mut args = self.sketch_call(name);
        // Not TOPK.INCRBY: a bad increment before its last pair makes RedisBloom reply an
        // array shorter than it announced (the client then waits for the rest); rsbloom's
        // well-formed reply to it is tested with the Top-K family.
        if !self.states && name != "TOPK.INCRBY" && self.rng.chance(22) {
            self.edge(&mut args);
        }
        Action::Cmd(args)
    }

    /// A number as t-digests see them: small integers (many repeats), decimals, now and then
    /// large, tiny or negative ones.
    fn value(&mut self) -> Vec<u8> {
        let rng = &mut self.rng;
        match rng.below(10) {
            0..=3 => num(rng.range(0, 20)),
            4..=6 => format!("{:.3}", rng.range(0, 1_000_000) as f64 / 997.0).into_bytes(),
            7 => format!("-{}", rng.range(1, 500)).into_bytes(),
            8 => b(rng.pick(&["1e300", "-1e300", "1e-300", "0.1", "-0", "2.5e10", "1e15"])),
            _ => format!("{}", rng.next_u64() as f64 / 1e6).into_bytes(),
        }
    }

    fn values(&mut self) -> Vec<Vec<u8>> {
        let n = if self.states && self.rng.chance(25) {
            1
        } else if self.rng.chance(15) {
            self.rng.range(30, 400)
        } else {
            self.rng.range(1, 12)
        };
        (0..n).map(|_| self.value()).collect()
    }

    /// `numkeys key...` of a merge: one to three of the keys.
    fn sources(&mut self) -> Vec<Vec<u8>> {
        let n = self.rng.range(1, 3);
        let mut out = vec![num(n)];
        out.extend((0..n).map(|_| b(self.key())));
        out
    }

    fn sketch_call(&mut self, name: &str) -> Vec<Vec<u8>> {
        self.aim(name);
        let key = b(self.key());
        let mut a = vec![b(name), key];
        match name {
            "CMS.INITBYDIM" => {
                a.push(num(*self.rng.pick(&[1, 2, 5, 10, 50, 100, 1000])));
                a.push(num(*self.rng.pick(&[1, 2, 3, 5, 7])));
            }
            "CMS.INITBYPROB" => {
                a.push(b(self.rng.pick(&["0.1", "0.01", "0.001", "0.05", "0.5"])));
                a.push(b(self.rng.pick(&["0.1", "0.01", "0.001", "0.5", "0.9"])));
            }
            "CMS.INCRBY" | "TOPK.INCRBY" => {
                for _ in 0..self.rng.range(1, 6) {
                    let item = self.item();
                    a.push(item);
                    a.push(num(*self.rng.pick(&[1, 1, 2, 3, 10, 100, 1000])));
                }
            }
            "CMS.QUERY" | "TOPK.ADD" | "TOPK.QUERY" | "TOPK.COUNT" => a.extend(self.items()),
            "CMS.MERGE" => {
                let sources = self.sources();
                let n = sources.len() - 1;
                a.extend(sources);
                if self.rng.chance(40) {
                    a.push(b("WEIGHTS"));
                    for _ in 0..n {
                        a.push(b(self.rng.pick(&["1", "2", "3", "0", "-1", "10"])));
                    }
                }
            }
            "TOPK.RESERVE" => {
                a.push(num(*self.rng.pick(&[1, 2, 3, 5, 10])));
                a.push(num(*self.rng.pick(&[1, 2, 4, 8, 50])));
                a.push(num(*self.rng.pick(&[1, 2, 3, 5])));
                a.push(b(self.rng.pick(&["1", "1e-300"])));
            }
            "TOPK.LIST" => {
                if self.rng.chance(50) {
                    a.push(b("WITHCOUNT"));
                }
            }
            "TDIGEST.CREATE" => {
                if self.rng.chance(70) {
                    a.push(b("COMPRESSION"));
                    a.push(num(*self.rng.pick(&[1, 5, 10, 50, 100, 500])));
                }
            }
            "TDIGEST.ADD" | "TDIGEST.CDF" | "TDIGEST.RANK" | "TDIGEST.REVRANK" => {
                a.extend(self.values())
            }
            "TDIGEST.MERGE" => {
                a.extend(self.sources());
                let mut opts = Vec::new();
                if self.rng.chance(40) {
                    let c = num(*self.rng.pick(&[1, 10, 50, 100, 300]));
                    opts.push(vec![b("COMPRESSION"), c]);
                }
                if self.rng.chance(30) {
                    opts.push(vec![b("OVERRIDE")]);
                }
                a.extend(self.shuffled(opts));
            }
            "TDIGEST.QUANTILE" => {
                for _ in 0..self.rng.range(1, 6) {
                    a.push(b(self.rng.pick(&[
                        "0", "0.01", "0.1", "0.25", "0.5", "0.75", "0.9", "0.99", "1",
                    ])));
                }
            }
            "TDIGEST.BYRANK" | "TDIGEST.BYREVRANK" => {
                for _ in 0..self.rng.range(1, 6) {
                    a.push(num(*self.rng.pick(&[0, 1, 2, 5, 10, 50, 100, 1000])));
                }
            }
            "TDIGEST.TRIMMED_MEAN" => {
                let (lo, hi) = *self.rng.pick(&[
                    ("0", "1"),
                    ("0.1", "0.9"),
                    ("0.25", "0.75"),
                    ("0", "0.5"),
                    ("0.5", "1"),
                    ("0.4", "0.6"),
                ]);
                a.push(b(lo));
                a.push(b(hi));
            }
            "CMS.INFO" | "TOPK.INFO" | "TDIGEST.RESET" | "TDIGEST.MIN" | "TDIGEST.MAX"
            | "TDIGEST.INFO" | "DEL" | "TYPE" | "DUMP" => {}
            "SET" => a.push(b("plain")),
            "FLUSHALL" => a.truncate(1),
            other => panic!("no sketch generator for {other}"),
        }
        a
    }
}
