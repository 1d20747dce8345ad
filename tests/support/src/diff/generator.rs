//! Random command sequences over a handful of keys: mostly well-formed calls (so filters get
//! real state: many adds, growth, full non-scaling filters), a share of edge forms (edge
//! numbers, odd option orders, repeated or truncated options, keyword case variants and
//! prefixes, extra and missing arguments, NUL bytes, empty and binary items), and the two
//! round trips that need RedisBloom's answers first (SCANDUMP then LOADCHUNK, DUMP then
//! RESTORE), which the runner expands.

use super::rng::Rng;
use super::sketches::SKETCH_WORDS;

/// The keys the commands use. `s` is often a plain string, and every key may hold either
/// family's type.
pub const KEYS: &[&str] = &["k1", "k2", "k3", "s"];
/// Keys named like options, used now and then (RedisBloom finds its keywords in odd places).
pub const KEYWORD_KEYS: &[&str] = &["NONSCALING", "ITEMS", "Expansion", "MAXITERATIONS"];

/// The keys of a states run ([`Generator::states`]): three per type (Bloom, cuckoo, Count-Min
/// Sketch, Top-K, t-digest), so most commands meet a key of their own type.
pub const STATE_KEYS: &[&str] = &[
    "b1", "b2", "b3", "c1", "c2", "c3", "m1", "m2", "m3", "t1", "t2", "t3", "d1", "d2", "d3",
];

/// Every key a sequence may touch (the state check covers them all).
pub fn all_keys() -> Vec<&'static str> {
    KEYS.iter().chain(KEYWORD_KEYS).copied().collect()
}

pub const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "255",
    "256",
    "65535",
    "65536",
    "32768",
    "32769",
    "1073741824",
    "1073741825",
    "2147483648",
    "4294967296",
    "72057594037927936",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "+10",
    "010",
    "0x10",
    "1e3",
    "1e-400",
    "1e400",
    "inf",
    "-inf",
    "nan",
    "0.25",
    "0.5",
    "1",
    "0",
    "1.0",
    ".5",
    "5.",
    " 1",
    "1 ",
    "",
    "abc",
    "1e-300",
    "-0",
    "0.999999",
];

pub const EDGE_WORDS: &[&str] = &[
    "NONSCALING",
    "nonscaling",
    "NonScaling",
    "NONSCAL",
    "N",
    "EXPANSION",
    "expansion",
    "EXP",
    "E",
    "CAPACITY",
    "capacity",
    "CAP",
    "C",
    "ERROR",
    "error",
    "ERR",
    "ITEMS",
    "items",
    "I",
    "IT",
    "NOCREATE",
    "nocreate",
    "NO",
    "BUCKETSIZE",
    "bucketsize",
    "B",
    "MAXITERATIONS",
    "maxiterations",
    "MAX",
    "M",
    "FOO",
    "X",
];

const BF_RATES: &[&str] = &[
    "0.01", "0.001", "0.1", "0.05", "0.5", "0.0001", "0.02", "0.3",
];
const BF_CAPS: &[u64] = &[1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];
const CF_CAPS: &[u64] = &[2, 4, 5, 8, 10, 16, 50, 100, 500, 1000, 4096];
const INFO_FIELDS: &[&str] = &[
    "CAPACITY",
    "SIZE",
    "FILTERS",
    "ITEMS",
    "EXPANSION",
    "capacity",
    "Size",
    "items",
    "FOO",
    "",
    "CAP",
    "EXPANSIONS",
];

/// One generated step.
#[derive(Clone, Debug)]
pub enum Action {
    /// Send these arguments to both servers.
    Cmd(Vec<Vec<u8>>),
    /// SCANDUMP `src` on both (RedisBloom's chunks drive it), then LOADCHUNK RedisBloom's
    /// chunks, maybe altered, into `dst` on both.
    CopyChunks {
        cuckoo: bool,
        src: &'static str,
        dst: &'static str,
        alter: bool,
    },
    /// DUMP `src` on both, then RESTORE RedisBloom's payload, maybe altered, into `dst`.
    DumpRestore {
        src: &'static str,
        dst: &'static str,
        alter: bool,
        replace: bool,
    },
}

/// Which commands a run generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Families {
    /// Bloom and cuckoo filters (`BF.*`, `CF.*`).
    Filters,
    /// Count-Min Sketch, Top-K and t-digest (`CMS.*`, `TOPK.*`, `TDIGEST.*`).
    Sketches,
}

pub struct Generator {
    pub rng: Rng,
    /// Items `i<n>` for n below this have been generated.
    fresh: u64,
    families: Families,
    /// Generating RedisBloom states rather than divergences (see [`Generator::states`]).
    pub(super) states: bool,
    /// In states mode, the keys of the type the step's command is for.
    keys: &'static [&'static str],
}

pub(super) fn b<S: AsRef<[u8]> + ?Sized>(s: &S) -> Vec<u8> {
    s.as_ref().to_vec()
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator::of(Families::Filters, seed)
    }

    pub fn of(families: Families, seed: u64) -> Generator {
        Generator {
            rng: Rng::new(seed),
            fresh: 0,
            families,
            states: false,
            keys: KEYS,
        }
    }

    /// A generator of states for one server (RedisBloom's, whose every value is then loaded
    /// elsewhere): the filters' and the sketches' steps, well-formed only, on [`STATE_KEYS`]
    /// (a command on the keys of its type, now and then on another's), without FLUSHALL, a
    /// LOADCHUNK of random bytes or anything altered; besides, a DUMP / RESTORE of a key into
    /// itself (so later commands work on what a load made of it), DEBUG RELOAD and DEL now
    /// and then, and t-digest adds of one value more often (so one-observation digests are
    /// saved and loaded, and added to after).
    pub fn states(seed: u64) -> Generator {
        Generator {
            states: true,
            ..Generator::of(Families::Filters, seed)
        }
    }

    /// Items `i0` to `i<n - 1>` are the ones generated so far (besides the odd ones).
    pub fn items_made(&self) -> u64 {
        self.fresh + 1
    }

    /// One name of `weights`, drawn by weight.
    pub(super) fn weighted(&mut self, weights: &[(u32, &'static str)]) -> &'static str {
        let total: u32 = weights.iter().map(|w| w.0).sum();
        let mut r = self.rng.below(total as usize) as u32;
        for (w, n) in weights {
            if r < *w {
                return n;
            }
            r -= w;
        }
        weights[0].1
    }

    /// The option words of the run's commands.
    fn words(&self) -> &'static [&'static str] {
        match self.families {
            Families::Filters => EDGE_WORDS,
            Families::Sketches => SKETCH_WORDS,
        }
    }

    pub(super) fn key(&mut self) -> &'static str {
        if self.states {
            return self.plain_key();
        }
        if self.rng.chance(2) {
            KEYWORD_KEYS[self.rng.below(KEYWORD_KEYS.len())]
        } else {
            KEYS[self.rng.below(KEYS.len())]
        }
    }

    /// A key of [`KEYS`] (in states mode: of the keys of the step's type).
    pub(super) fn plain_key(&mut self) -> &'static str {
        let keys = if self.states { self.keys } else { KEYS };
        keys[self.rng.below(keys.len())]
    }

    /// In states mode, aim the step at the keys of the type `name` is for (a command of no
    /// type's, and one in twenty of the others, at a type drawn at random).
    pub(super) fn aim(&mut self, name: &str) {
        if !self.states {
            return;
        }
        let family = ["BF.", "CF.", "CMS.", "TOPK.", "TDIGEST."]
            .iter()
            .position(|p| name.starts_with(p))
            .filter(|_| !self.rng.chance(5))
            .unwrap_or_else(|| self.rng.below(5));
        self.keys = &STATE_KEYS[3 * family..3 * family + 3];
    }

    pub(super) fn item(&mut self) -> Vec<u8> {
        let mut item = self.any_item();
        // RedisBloom 2.8 saves a Top-K heap item cut at its first NUL and loads an item so
        // cut to nothing as a null pointer, which its next lookup of that item (of length
        // 1 or more) reads: a segfault (tests/suite/topk names the sequence). States mode
        // reloads all the time, so there no item starts with NUL but the empty one.
        if self.states && item.first() == Some(&0) {
            item[0] = b'z';
        }
        item
    }

    fn any_item(&mut self) -> Vec<u8> {
        let r = self.rng.below(100);
        if r < 55 {
            self.fresh += 1;
            format!("i{}", self.fresh).into_bytes()
        } else if r < 92 {
            let n = self.rng.range(0, self.fresh.max(1));
            format!("i{n}").into_bytes()
        } else {
            match self.rng.below(7) {
                0 => Vec::new(),
                1 => vec![0],
                2 => b"a\0b".to_vec(),
                3 => (0..self.rng.range(1, 16))
                    .map(|_| self.rng.next_u64() as u8)
                    .collect(),
                4 => vec![b'x'; 300],
                5 => b(self.rng.pick(EDGE_NUMBERS)),
                _ => b(self.rng.pick(self.words())),
            }
        }
    }

    pub(super) fn items(&mut self) -> Vec<Vec<u8>> {
        let n = if self.rng.chance(20) {
            self.rng.range(30, 300)
        } else {
            self.rng.range(1, 10)
        };
        (0..n).map(|_| self.item()).collect()
    }

    fn edge_value(&mut self) -> Vec<u8> {
        if self.rng.chance(70) {
            b(self.rng.pick(EDGE_NUMBERS))
        } else {
            b(self.rng.pick(self.words()))
        }
    }

    /// Option pairs/flags in a random order.
    pub(super) fn shuffled(&mut self, mut opts: Vec<Vec<Vec<u8>>>) -> Vec<Vec<u8>> {
        for i in (1..opts.len()).rev() {
            let j = self.rng.below(i + 1);
            opts.swap(i, j);
        }
        opts.concat()
    }

    /// The next step.
    pub fn next_action(&mut self) -> Action {
        if self.states {
            return self.next_state_action();
        }
        if self.families == Families::Sketches {
            return self.next_sketch_action();
        }
        self.next_filter_action()
    }

    /// A step of [`Generator::states`].
    fn next_state_action(&mut self) -> Action {
        match self.rng.below(1000) {
            0..=3 => Action::Cmd(vec![b("DEBUG"), b("RELOAD")]),
            4..=33 => {
                let key = *self.rng.pick(STATE_KEYS);
                Action::DumpRestore {
                    src: key,
                    dst: key,
                    alter: false,
                    replace: true,
                }
            }
            // Keys made afresh now and then, so creations and their options recur.
            34..=58 => Action::Cmd(vec![b("DEL"), b(self.rng.pick(STATE_KEYS))]),
            _ if self.rng.chance(50) => self.next_filter_action(),
            _ => self.next_sketch_action(),
        }
    }

    /// A weighted name; in states mode never FLUSHALL (states accumulate) nor a LOADCHUNK of
    /// random bytes (the copies load real chunks).
    pub(super) fn command(&mut self, weights: &[(u32, &'static str)]) -> &'static str {
        const NOT_IN_STATES: &[&str] = &["FLUSHALL", "BF.LOADCHUNK", "CF.LOADCHUNK"];
        loop {
            let name = self.weighted(weights);
            if !(self.states && NOT_IN_STATES.contains(&name)) {
                return name;
            }
        }
    }

    /// A filter step.
    fn next_filter_action(&mut self) -> Action {
        let weights: &[(u32, &'static str)] = &[
            (70, "BF.ADD"),
            (70, "BF.MADD"),
            (60, "BF.INSERT"),
            (45, "BF.RESERVE"),
            (35, "BF.EXISTS"),
            (35, "BF.MEXISTS"),
            (20, "BF.CARD"),
            (30, "BF.INFO"),
            (10, "BF.DEBUG"),
            (8, "BF.SCANDUMP"),
            (8, "BF.LOADCHUNK"),
            (45, "CF.RESERVE"),
            (70, "CF.ADD"),
            (35, "CF.ADDNX"),
            (60, "CF.INSERT"),
            (35, "CF.INSERTNX"),
            (35, "CF.EXISTS"),
            (25, "CF.MEXISTS"),
            (20, "CF.COUNT"),
            (35, "CF.DEL"),
            (10, "CF.COMPACT"),
            (20, "CF.INFO"),
            (10, "CF.DEBUG"),
            (8, "CF.SCANDUMP"),
            (8, "CF.LOADCHUNK"),
            (20, "DEL"),
            (12, "SET"),
            (8, "TYPE"),
            (8, "DUMP"),
            (30, "copy"),
            (20, "restore"),
            (2, "FLUSHALL"),
        ];
        let name = self.command(weights);
        match name {
            "copy" => {
                let cuckoo = self.rng.chance(50);
                self.aim(if cuckoo { "CF." } else { "BF." });
                let src = self.plain_key();
                let dst = self.key();
                let alter = !self.states && self.rng.chance(35);
                return Action::CopyChunks {
                    cuckoo,
                    src,
                    dst,
                    alter,
                };
            }
            "restore" => {
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
            _ => {}
        }
        let mut args = self.well_formed(name);
        if !self.states && self.rng.chance(22) {
            self.edge(&mut args);
        }
        Action::Cmd(args)
    }

    fn well_formed(&mut self, name: &str) -> Vec<Vec<u8>> {
        self.aim(name);
        let key = b(self.key());
        let mut a = vec![b(name), key];
        let rng = &mut self.rng;
        match name {
            "BF.ADD" | "BF.EXISTS" | "CF.ADD" | "CF.ADDNX" | "CF.EXISTS" | "CF.COUNT"
            | "CF.DEL" => a.push(self.item()),
            "BF.MADD" | "BF.MEXISTS" | "CF.MEXISTS" => a.extend(self.items()),
            "BF.RESERVE" => {
                a.push(b(rng.pick(BF_RATES)));
                a.push(rng.pick(BF_CAPS).to_string().into_bytes());
                let mut opts = Vec::new();
                if rng.chance(40) {
                    let e = if rng.chance(10) { 0 } else { rng.range(1, 5) };
                    opts.push(vec![b("EXPANSION"), e.to_string().into_bytes()]);
                }
                if rng.chance(25) {
                    opts.push(vec![b("NONSCALING")]);
                }
                a.extend(self.shuffled(opts));
            }
            "BF.INSERT" | "CF.INSERT" | "CF.INSERTNX" => {
                let mut opts = Vec::new();
                let cf = name.starts_with("CF");
                if rng.chance(40) {
                    let caps = if cf { CF_CAPS } else { BF_CAPS };
                    opts.push(vec![b("CAPACITY"), rng.pick(caps).to_string().into_bytes()]);
                }
                if !cf && rng.chance(30) {
                    opts.push(vec![b("ERROR"), b(rng.pick(BF_RATES))]);
                }
                if !cf && rng.chance(20) {
                    let e = if rng.chance(10) { 0 } else { rng.range(1, 4) };
                    opts.push(vec![b("EXPANSION"), e.to_string().into_bytes()]);
                }
                if rng.chance(10) {
                    opts.push(vec![b("NOCREATE")]);
                }
                if !cf && rng.chance(15) {
                    opts.push(vec![b("NONSCALING")]);
                }
                let opts = self.shuffled(opts);
                a.extend(opts);
                a.push(b("ITEMS"));
                a.extend(self.items());
            }
            "BF.CARD" | "BF.DEBUG" | "CF.COMPACT" | "CF.INFO" | "CF.DEBUG" | "DEL" | "TYPE"
            | "DUMP" => {}
            "BF.INFO" => {
                if rng.chance(50) {
                    a.push(b(rng.pick(INFO_FIELDS)));
                }
            }
            "BF.SCANDUMP" | "CF.SCANDUMP" => {
                let it = if rng.chance(50) {
                    b("0")
                } else {
                    b(rng.pick(EDGE_NUMBERS))
                };
                a.push(it);
            }
            "BF.LOADCHUNK" | "CF.LOADCHUNK" => {
                a.push(b(rng.pick(EDGE_NUMBERS)));
                let n = rng.range(0, 64) as usize;
                a.push((0..n).map(|_| rng.next_u64() as u8).collect());
            }
            "CF.RESERVE" => {
                a.push(rng.pick(CF_CAPS).to_string().into_bytes());
                let mut opts = Vec::new();
                if rng.chance(40) {
                    let v = *rng.pick(&[1u64, 2, 3, 4, 8]);
                    opts.push(vec![b("BUCKETSIZE"), v.to_string().into_bytes()]);
                }
                if rng.chance(30) {
                    let v = *rng.pick(&[1u64, 5, 20, 50, 100]);
                    opts.push(vec![b("MAXITERATIONS"), v.to_string().into_bytes()]);
                }
                if rng.chance(40) {
                    let v = *rng.pick(&[0u64, 1, 2, 4]);
                    opts.push(vec![b("EXPANSION"), v.to_string().into_bytes()]);
                }
                a.extend(self.shuffled(opts));
            }
            "SET" => a.push(b("plain")),
            "FLUSHALL" => a.truncate(1),
            other => panic!("no generator for {other}"),
        }
        a
    }

    /// One edge alteration of a well-formed command (never of the command name).
    pub(super) fn edge(&mut self, a: &mut Vec<Vec<u8>>) {
        let n = a.len();
        match self.rng.below(9) {
            0 | 1 if n > 2 => {
                let i = self.rng.range(2, n as u64 - 1) as usize;
                a[i] = self.edge_value();
            }
            2 if n > 1 => {
                let i = self.rng.range(1, n as u64 - 1) as usize;
                a.remove(i);
            }
            3 => {
                let i = self.rng.range(1, n as u64) as usize;
                let v = self.edge_value();
                a.insert(i, v);
            }
            4 if n > 3 => {
                // Repeat an option with its value (or any two arguments) at the end.
                let i = self.rng.range(2, n as u64 - 2) as usize;
                let (x, y) = (a[i].clone(), a[i + 1].clone());
                a.push(x);
                a.push(y);
            }
            5 => a.push(b(self.rng.pick(self.words()))),
            6 => {
                // A keyword in another case or shortened.
                let keywords: Vec<usize> = (2..n)
                    .filter(|&i| a[i].len() > 1 && a[i].iter().all(u8::is_ascii_uppercase))
                    .collect();
                if let Some(&i) = keywords.get(self.rng.below(keywords.len().max(1))) {
                    let w = a[i].clone();
                    a[i] = match self.rng.below(3) {
                        0 => w.to_ascii_lowercase(),
                        1 => w[..self.rng.range(1, w.len() as u64 - 1) as usize].to_vec(),
                        _ => w
                            .iter()
                            .enumerate()
                            .map(|(j, c)| {
                                if j % 2 == 1 {
                                    c.to_ascii_lowercase()
                                } else {
                                    *c
                                }
                            })
                            .collect(),
                    };
                }
            }
            7 if n > 3 => {
                let i = self.rng.range(1, n as u64 - 1) as usize;
                let j = self.rng.range(1, n as u64 - 1) as usize;
                a.swap(i, j);
            }
            _ => {
                if n > 2 {
                    let i = self.rng.range(2, n as u64 - 1) as usize;
                    a[i] = b(self.rng.pick(EDGE_NUMBERS));
                } else {
                    a.push(self.edge_value());
                }
            }
        }
    }
}
