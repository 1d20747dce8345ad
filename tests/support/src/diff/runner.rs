//! Sends each step's identical bytes to both servers, compares the raw replies, classifies
//! divergences against the rules, resyncs, checks every key's state now and then, restarts
//! RedisBloom when it crashes, and keeps the counts and the first occurrence of each
//! unlisted kind for the reducer.

use super::generator::{all_keys, Action, Families, Generator, EDGE_NUMBERS};
use super::resp::{self, Conn, Reply};
use super::rng::Rng;
use super::rules::Rules;
use super::servers::Sides;
use crate::rdb::crc64;
use crate::Server;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// How long a server may take to answer one command before it counts as hung.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most SCANDUMP calls one stream may take.
const MAX_CHUNKS: usize = 4096;

pub type Args = Vec<Vec<u8>>;
/// A replayed sequence: each step's arguments, RedisBloom's and rsbloom's reply as text.
pub type Steps = Vec<(String, String, String)>;

/// A run's parameters.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub steps: u64,
    /// A state check of every key after this many steps (and at each sequence's end).
    pub state_every: u64,
    /// Reduce each new unlisted kind (and how long one reduction may take).
    pub reduce: bool,
    pub reduce_budget: Duration,
    /// The filters' commands or the sketches'.
    pub families: Families,
}

impl Config {
    pub fn new(seed: u64, steps: u64) -> Config {
        Config {
            seed,
            steps,
            state_every: 50,
            reduce: true,
            reduce_budget: Duration::from_secs(20),
            families: Families::Filters,
        }
    }
}

/// The first occurrence of an unlisted kind.
#[derive(Clone, Debug)]
pub struct Unlisted {
    pub count: u64,
    pub args: String,
    pub rb: String,
    pub rs: String,
    pub resp3: bool,
    /// The commands since the last FLUSHALL up to and including the divergent one (for a
    /// state kind: up to the state check that found it).
    pub history: Vec<Args>,
    /// The reducer's result: each step with both replies.
    pub reduced: Option<Steps>,
}

/// A RedisBloom crash: the commands since the last FLUSHALL, the last one crashed it.
#[derive(Clone, Debug)]
pub struct Crash {
    pub resp3: bool,
    pub history: Vec<String>,
    pub rule: Option<String>,
    pub rs_reply: String,
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub steps: u64,
    pub sequences: u64,
    pub resp3_sequences: u64,
    pub replies: u64,
    pub identical: u64,
    pub listed: BTreeMap<String, u64>,
    pub unlisted: BTreeMap<String, Unlisted>,
    pub resyncs: u64,
    pub state_checks: u64,
    pub keys_compared: u64,
    pub state_listed: BTreeMap<String, u64>,
    pub rb_crashes: Vec<Crash>,
    pub seconds: f64,
    /// Where the time went: per command name (and `state check`, `RedisBloom restart`),
    /// calls and seconds.
    pub time: BTreeMap<String, (u64, f64)>,
    /// Commands that took over 0.2 s on the two servers together.
    pub slow: Vec<(f64, String)>,
}

impl Stats {
    fn timed(&mut self, what: &str, since: Instant) {
        let e = self.time.entry(what.to_string()).or_default();
        e.0 += 1;
        e.1 += since.elapsed().as_secs_f64();
    }
}

impl Stats {
    pub fn unlisted_replies(&self) -> u64 {
        self.unlisted
            .iter()
            .filter(|(k, _)| !k.starts_with("STATE "))
            .map(|(_, u)| u.count)
            .sum()
    }

    pub fn unlisted_states(&self) -> u64 {
        self.unlisted
            .iter()
            .filter(|(k, _)| k.starts_with("STATE "))
            .map(|(_, u)| u.count)
            .sum()
    }
}

/// What one command did on the two servers.
pub enum Outcome {
    Same(Vec<u8>),
    Differ { rb: Vec<u8>, rs: Vec<u8> },
    RbCrash { why: String, rs: Vec<u8> },
}

pub struct Fuzzer {
    pub sides: Sides,
    pub rb: Server,
    pub rs: Server,
    rbc: Conn,
    rsc: Conn,
    pub resp3: bool,
    pub rules: Rules,
    pub stats: Stats,
    /// The commands since the last FLUSHALL (resync DELs included).
    log: Vec<Args>,
    /// Per key, the command that created what it holds (for state differences).
    origins: HashMap<Vec<u8>, String>,
}

fn b(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn is_error(reply: &[u8]) -> bool {
    reply.first() == Some(&b'-') || reply.first() == Some(&b'!')
}

/// The commands whose success means the key now holds what they made.
fn creates(command: &str) -> bool {
    matches!(
        command,
        "BF.RESERVE"
            | "BF.ADD"
            | "BF.MADD"
            | "BF.INSERT"
            | "BF.LOADCHUNK"
            | "CF.RESERVE"
            | "CF.ADD"
            | "CF.ADDNX"
            | "CF.INSERT"
            | "CF.INSERTNX"
            | "CF.LOADCHUNK"
            | "CMS.INITBYDIM"
            | "CMS.INITBYPROB"
            | "CMS.MERGE"
            | "TOPK.RESERVE"
            | "TDIGEST.CREATE"
            | "TDIGEST.MERGE"
            | "RESTORE"
            | "SET"
    )
}

/// The rule of a step both servers answer alike but after which its keys hold what differs
/// by that rule (they are then dropped on both sides): RedisBloom before 8.12 saturates the
/// counters of an increment it answers `CMS: INCRBY overflow` to, 8.12 and rsbloom refuse it
/// and change nothing.
fn diverges_silently(command: &str, reply: &[u8]) -> Option<&'static str> {
    let overflow = b"CMS: INCRBY overflow";
    (command == "CMS.INCRBY" && reply.windows(overflow.len()).any(|w| w == overflow))
        .then_some("cms-overflow-refused")
}

fn command_of(args: &[Vec<u8>]) -> String {
    String::from_utf8_lossy(&args[0]).to_ascii_uppercase()
}

impl Fuzzer {
    pub fn start(sides: Sides, rules: Rules) -> Fuzzer {
        let rb = sides.start_rb();
        let rs = sides.start_rs();
        let rbc = Conn::connect(rb.port, false, REPLY_TIMEOUT).expect("connect rb");
        let rsc = Conn::connect(rs.port, false, REPLY_TIMEOUT).expect("connect rs");
        Fuzzer {
            sides,
            rb,
            rs,
            rbc,
            rsc,
            resp3: false,
            rules,
            stats: Stats::default(),
            log: Vec::new(),
            origins: HashMap::new(),
        }
    }

    /// Reconnect both sides speaking RESP2 or RESP3.
    pub fn set_protocol(&mut self, resp3: bool) {
        self.resp3 = resp3;
        self.rbc = Conn::connect(self.rb.port, resp3, REPLY_TIMEOUT).expect("connect rb");
        self.rsc = self.rs_conn();
    }

    fn rs_conn(&mut self) -> Conn {
        Conn::connect(self.rs.port, self.resp3, REPLY_TIMEOUT).unwrap_or_else(|e| {
            panic!(
                "rsbloom's server does not answer ({e}); its log:\n{}",
                self.rs.log_text()
            )
        })
    }

    /// One command on both servers. rsbloom failing to answer is a failure (panic).
    pub fn both(&mut self, args: &[Vec<u8>]) -> Outcome {
        let rb = self.rbc.send(args);
        let rs = self.rsc.send(args).unwrap_or_else(|e| {
            panic!(
                "rsbloom crashed or hung on `{}` ({e}); commands since the last FLUSHALL:\n{}\n\
                 its log:\n{}",
                resp::show_args(args),
                self.log
                    .iter()
                    .map(|a| resp::show_args(a))
                    .collect::<Vec<_>>()
                    .join("\n"),
                self.rs.log_text()
            )
        });
        // RedisBloom before 8.6 counts 8 bytes less of a t-digest (rule tdigest-memory-usage).
        let rb = match rb {
            Ok(r) if args[0].eq_ignore_ascii_case(b"TDIGEST.INFO") => {
                Ok(crate::tdigest_memory::info_as_8_6(&r))
            }
            other => other,
        };
        match rb {
            Err(why) => Outcome::RbCrash { why, rs },
            Ok(rb) if rb == rs => Outcome::Same(rb),
            Ok(rb) => Outcome::Differ { rb, rs },
        }
    }

    /// Restart RedisBloom after a crash, empty rsbloom, forget the history.
    fn recover(&mut self) {
        let t0 = Instant::now();
        self.rb.restart(&[]);
        self.stats.timed("RedisBloom restart", t0);
        self.rbc = Conn::connect(self.rb.port, self.resp3, REPLY_TIMEOUT).expect("connect rb");
        let _ = self.rsc.send(&[b("FLUSHALL")]);
        self.log.clear();
        self.origins.clear();
    }

    /// FLUSHALL both (a sequence's start).
    pub fn flush(&mut self) {
        self.step(vec![b("FLUSHALL")]);
    }

    fn keys_of(args: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let known = all_keys();
        let mut keys: Vec<Vec<u8>> = args[1..]
            .iter()
            .filter(|a| known.iter().any(|k| k.as_bytes() == a.as_slice()))
            .cloned()
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// A generated command: sent, compared, classified, resynced; returns RedisBloom's reply
    /// (`None` when it crashed).
    pub fn step(&mut self, args: Args) -> Option<Vec<u8>> {
        self.stats.steps += 1;
        self.stats.replies += 1;
        let command = command_of(&args);
        let t0 = Instant::now();
        let outcome = self.both(&args);
        self.stats.timed(&command, t0);
        let took = t0.elapsed().as_secs_f64();
        if took > 0.2 {
            self.stats
                .slow
                .push((took, resp::clip(&resp::show_args(&args), 160)));
        }
        // Only a FLUSHALL that both servers did starts the history afresh (one with extra
        // arguments is an error and flushes nothing).
        let flushed =
            matches!(&outcome, Outcome::Same(r) if command == "FLUSHALL" && r == b"+OK\r\n");
        if flushed {
            self.log.clear();
            self.origins.clear();
        } else {
            self.log.push(args.clone());
        }
        match outcome {
            Outcome::Same(reply) => {
                self.stats.identical += 1;
                self.track(&args, &reply);
                if let Some(id) = diverges_silently(&command, &reply) {
                    assert!(self.rules.get(id).is_some(), "no rule {id}");
                    *self.stats.listed.entry(id.to_string()).or_default() += 1;
                    self.resync(&Self::keys_of(&args));
                }
                Some(reply)
            }
            Outcome::RbCrash { why, rs } => {
                let shown = resp::show_args(&args);
                let rs = resp::render(&rs);
                let rule = self
                    .rules
                    .classify(&shown, "<crash>", &rs)
                    .map(|r| r.id.clone());
                let mut history: Vec<String> =
                    self.log.iter().map(|a| resp::show_args(a)).collect();
                history.push(format!("(RedisBloom: {why})"));
                self.stats.rb_crashes.push(Crash {
                    resp3: self.resp3,
                    history,
                    rule,
                    rs_reply: rs,
                });
                self.recover();
                None
            }
            Outcome::Differ { rb, rs } => {
                let shown = resp::show_args(&args);
                let (rb_text, rs_text) = (resp::render(&rb), resp::render(&rs));
                let origin = args.get(1).map_or_else(|| "?".into(), |k| self.origin(k));
                match self
                    .rules
                    .classify_from(&shown, &rb_text, &rs_text, &origin)
                {
                    Some(rule) => *self.stats.listed.entry(rule.id.clone()).or_default() += 1,
                    None => {
                        let kind = format!(
                            "{command} | rb {} | rs {}",
                            resp::normalized(&rb),
                            resp::normalized(&rs)
                        );
                        let history = self.log.clone();
                        let resp3 = self.resp3;
                        self.stats
                            .unlisted
                            .entry(kind)
                            .or_insert_with(|| Unlisted {
                                count: 0,
                                args: shown,
                                rb: rb_text,
                                rs: rs_text,
                                resp3,
                                history,
                                reduced: None,
                            })
                            .count += 1;
                    }
                }
                self.resync(&Self::keys_of(&args));
                Some(rb)
            }
        }
    }

    /// DEL the keys on both sides (logged, so a replay does the same).
    fn resync(&mut self, keys: &[Vec<u8>]) {
        if keys.is_empty() {
            return;
        }
        self.stats.resyncs += 1;
        let mut del = vec![b("DEL")];
        del.extend(keys.iter().cloned());
        let _ = self.both(&del);
        self.log.push(del);
        for k in keys {
            self.origins.remove(k);
        }
    }

    fn track(&mut self, args: &[Vec<u8>], reply: &[u8]) {
        let command = command_of(args);
        if command == "DEL" {
            for k in &args[1..] {
                self.origins.remove(k);
            }
        } else if args.len() > 1 && creates(&command) && !is_error(reply) {
            let key = &args[1];
            // RESTORE (with REPLACE) and SET put a new value whatever the key held.
            let replaces = command == "RESTORE" || command == "SET";
            if replaces || !self.origins.contains_key(key) {
                let mut shown = resp::show_args(args);
                shown.truncate(200);
                self.origins.insert(key.clone(), shown);
            }
        }
    }

    /// Runs one generated action.
    pub fn act(&mut self, action: Action, rng: &mut Rng) {
        match action {
            Action::Cmd(args) => {
                self.step(args);
            }
            Action::CopyChunks {
                cuckoo,
                src,
                dst,
                alter,
            } => {
                let prefix = if cuckoo { "CF" } else { "BF" };
                let mut chunks: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                let mut it = b"0".to_vec();
                for _ in 0..MAX_CHUNKS {
                    let Some(reply) =
                        self.step(vec![b(&format!("{prefix}.SCANDUMP")), b(src), it.clone()])
                    else {
                        return;
                    };
                    let Reply::Array(pair) = resp::parse(&reply) else {
                        break;
                    };
                    let (Some(Reply::Int(next)), Some(data)) = (pair.first(), pair.get(1)) else {
                        break;
                    };
                    if next == "0" {
                        break;
                    }
                    let data = match data {
                        Reply::Bulk(d) => d.clone(),
                        _ => Vec::new(),
                    };
                    chunks.push((next.as_bytes().to_vec(), data));
                    it = next.as_bytes().to_vec();
                }
                if alter && !chunks.is_empty() {
                    alter_chunks(&mut chunks, rng);
                }
                for (it, data) in chunks {
                    let cmd = vec![b(&format!("{prefix}.LOADCHUNK")), b(dst), it, data];
                    if self.step(cmd).is_none() {
                        return;
                    }
                }
            }
            Action::DumpRestore {
                src,
                dst,
                alter,
                replace,
            } => {
                let Some(reply) = self.step(vec![b("DUMP"), b(src)]) else {
                    return;
                };
                let Reply::Bulk(mut payload) = resp::parse(&reply) else {
                    return;
                };
                if alter {
                    alter_payload(&mut payload, rng);
                }
                let mut cmd = vec![b("RESTORE"), b(dst), b("0"), payload];
                if replace {
                    cmd.push(b("REPLACE"));
                }
                self.step(cmd);
            }
        }
    }

    /// Compares every key on both sides: TYPE, DEBUG or a sketch's INFO (and a Top-K's
    /// list), the DUMP body (not a Top-K's), the SCANDUMP stream.
    pub fn state_check(&mut self) {
        let t0 = Instant::now();
        self.stats.state_checks += 1;
        for key in all_keys() {
            self.stats.keys_compared += 1;
            if let Some((what, rb, rs)) = self.key_difference(key) {
                let kind = state_kind(&what, &rb, &rs);
                self.state_difference(key, &what, &kind, &rb, &rs);
            }
        }
        self.stats.timed("state check", t0);
    }

    /// The first state difference of a key: what, RedisBloom's text, rsbloom's text.
    /// `what` is TYPE, DEBUG, or DUMP / SCANDUMP followed by the key's type.
    fn key_difference(&mut self, key: &str) -> Option<(String, String, String)> {
        let read = |f: &mut Fuzzer, args: Args| -> Option<(Vec<u8>, Vec<u8>)> {
            match f.both(&args) {
                Outcome::Same(r) => Some((r.clone(), r)),
                Outcome::Differ { rb, rs } => Some((rb, rs)),
                Outcome::RbCrash { .. } => None,
            }
        };
        let (rb, rs) = read(self, vec![b("TYPE"), b(key)])?;
        if rb != rs {
            return Some(("TYPE".into(), resp::render(&rb), resp::render(&rs)));
        }
        let ty = resp::render(&rb);
        let family = match ty.as_str() {
            "+MBbloom--" => Some("BF"),
            "+MBbloomCF" => Some("CF"),
            _ => None,
        };
        if let Some(family) = family {
            let (rb, rs) = read(self, vec![b(&format!("{family}.DEBUG")), b(key)])?;
            if rb != rs {
                return Some(("DEBUG".into(), resp::render(&rb), resp::render(&rs)));
            }
        }
        // A sketch's figures; a Top-K's list with counts, its DUMP holding RedisBloom's
        // heap pointers, which differ per process.
        let reads: &[&str] = match ty.as_str() {
            "+CMSk-TYPE" => &["CMS.INFO"],
            "+TopK-TYPE" => &["TOPK.INFO", "TOPK.LIST WITHCOUNT"],
            "+TDIS-TYPE" => &["TDIGEST.INFO"],
            _ => &[],
        };
        let dump_body = |f: &mut Fuzzer| -> Option<Option<(String, String, String)>> {
            let (rb, rs) = read(f, vec![b("DUMP"), b(key)])?;
            let body = |r: &[u8]| match resp::parse(r) {
                Reply::Bulk(p) if p.len() > 10 => p[..p.len() - 10].to_vec(),
                _ => r.to_vec(),
            };
            Some(
                (body(&rb) != body(&rs))
                    .then(|| (format!("DUMP {ty}"), resp::render(&rb), resp::render(&rs))),
            )
        };
        // A Count-Min Sketch's DUMP body (its counters and total) before its CMS.INFO, which
        // differs by RedisBloom 8.12's fourth pair (a listed rule) whatever the sketch holds.
        if ty == "+CMSk-TYPE" {
            if let Some(difference) = dump_body(self)? {
                return Some(difference);
            }
        }
        for command in reads {
            let mut args: Args = command.split(' ').map(b).collect();
            args.insert(1, b(key));
            let (rb, rs) = read(self, args)?;
            if rb != rs {
                return Some((
                    command.split(' ').next().unwrap_or_default().to_string(),
                    resp::render(&rb),
                    resp::render(&rs),
                ));
            }
        }
        if ty == "+TopK-TYPE" || ty == "+CMSk-TYPE" {
            return None;
        }
        if let Some(difference) = dump_body(self)? {
            return Some(difference);
        }
        if let Some(family) = family {
            let mut it = [b"0".to_vec(), b"0".to_vec()];
            for _ in 0..MAX_CHUNKS {
                let args_rb = vec![b(&format!("{family}.SCANDUMP")), b(key), it[0].clone()];
                let args_rs = vec![b(&format!("{family}.SCANDUMP")), b(key), it[1].clone()];
                let rb = self.rbc.send(&args_rb).ok()?;
                let rs = match self.rsc.send(&args_rs) {
                    Ok(r) => r,
                    Err(e) => panic!("rsbloom failed on SCANDUMP ({e})"),
                };
                if rb != rs {
                    return Some((
                        format!("SCANDUMP {ty}"),
                        resp::render(&rb),
                        resp::render(&rs),
                    ));
                }
                match resp::parse(&rb) {
                    Reply::Array(pair) => match pair.first() {
                        Some(Reply::Int(n)) if n != "0" => {
                            it = [n.as_bytes().to_vec(), n.as_bytes().to_vec()];
                        }
                        _ => break,
                    },
                    _ => break,
                }
            }
        }
        None
    }

    /// The command that created what `key` holds, `?` if unknown.
    fn origin(&self, key: &[u8]) -> String {
        self.origins.get(key).cloned().unwrap_or_else(|| "?".into())
    }

    fn state_difference(&mut self, key: &str, what: &str, kind: &str, rb: &str, rs: &str) {
        let args = format!("STATE {what} {key} {}", self.origin(key.as_bytes()));
        match self.rules.classify(&args, rb, rs) {
            Some(rule) => *self.stats.state_listed.entry(rule.id.clone()).or_default() += 1,
            None => {
                let kind = kind.to_string();
                let history = self.log.clone();
                let resp3 = self.resp3;
                self.stats
                    .unlisted
                    .entry(kind)
                    .or_insert_with(|| Unlisted {
                        count: 0,
                        args,
                        rb: rb.to_string(),
                        rs: rs.to_string(),
                        resp3,
                        history,
                        reduced: None,
                    })
                    .count += 1;
            }
        }
        self.resync(&[key.as_bytes().to_vec()]);
    }

    /// The run: sequences of generated steps, each from an empty server, in RESP2 or RESP3.
    pub fn run(&mut self, config: &Config) {
        let start = Instant::now();
        let mut gen = Generator::of(config.families, config.seed);
        let mut side_rng = Rng::new(config.seed ^ 0x5eed_d1ff);
        let mut done = 0u64;
        while done < config.steps {
            let len = gen.rng.range(100, 600).min(config.steps - done);
            let resp3 = gen.rng.chance(35);
            self.set_protocol(resp3);
            self.stats.sequences += 1;
            if resp3 {
                self.stats.resp3_sequences += 1;
            }
            self.flush();
            let first = self.stats.steps;
            let mut since_check = 0;
            while self.stats.steps - first < len {
                let action = gen.next_action();
                let before = self.stats.steps;
                self.act(action, &mut side_rng);
                since_check += self.stats.steps - before;
                if since_check >= config.state_every {
                    self.state_check();
                    since_check = 0;
                }
            }
            self.state_check();
            done += self.stats.steps - first;
        }
        self.stats.seconds = start.elapsed().as_secs_f64();
        if config.reduce {
            super::reducer::reduce_all(self, config.reduce_budget);
        }
    }

    /// Replays `cmds` from empty servers (in `resp3` or not) and returns each step's
    /// replies and the unlisted kinds seen (a state check at the end included); `None` when
    /// RedisBloom crashed.
    pub fn replay(
        &mut self,
        cmds: &[Args],
        resp3: bool,
        with_state: bool,
    ) -> Option<(Steps, Vec<String>)> {
        if self.resp3 != resp3 {
            self.set_protocol(resp3);
        }
        if let Outcome::RbCrash { .. } = self.both(&[b("FLUSHALL")]) {
            self.recover();
            return None;
        }
        let mut steps = Vec::new();
        let mut kinds = Vec::new();
        for args in cmds {
            let shown = resp::show_args(args);
            match self.both(args) {
                Outcome::Same(r) => {
                    let text = resp::render(&r);
                    steps.push((shown, text.clone(), text));
                }
                Outcome::Differ { rb, rs } => {
                    let (rb_text, rs_text) = (resp::render(&rb), resp::render(&rs));
                    if self.rules.classify(&shown, &rb_text, &rs_text).is_none() {
                        kinds.push(format!(
                            "{} | rb {} | rs {}",
                            command_of(args),
                            resp::normalized(&rb),
                            resp::normalized(&rs)
                        ));
                    }
                    steps.push((shown, rb_text, rs_text));
                    // Resynced as the run does, so a listed divergence earlier in the
                    // sequence cannot leave the servers apart for a later step.
                    let keys = Self::keys_of(args);
                    if !keys.is_empty() {
                        let mut del = vec![b("DEL")];
                        del.extend(keys);
                        if let Outcome::RbCrash { .. } = self.both(&del) {
                            self.recover();
                            return None;
                        }
                        steps.push((
                            format!("({})", resp::show_args(&del)),
                            String::new(),
                            String::new(),
                        ));
                    }
                }
                Outcome::RbCrash { .. } => {
                    self.recover();
                    return None;
                }
            }
        }
        if with_state {
            for key in all_keys() {
                if let Some((what, rb, rs)) = self.key_difference(key) {
                    kinds.push(state_kind(&what, &rb, &rs));
                    steps.push((format!("(state check of {key}: {what})"), rb, rs));
                }
            }
        }
        Some((steps, kinds))
    }
}

/// The kind of a state difference: the replies normalized for TYPE and DEBUG, only what
/// differs (and the key's type) for the bytes of DUMP and SCANDUMP.
fn state_kind(what: &str, rb: &str, rs: &str) -> String {
    if what.starts_with("DUMP") || what.starts_with("SCANDUMP") {
        format!("STATE {what}")
    } else {
        format!(
            "STATE {what} | rb {} | rs {}",
            normalize_text(rb),
            normalize_text(rs)
        )
    }
}

/// A rendered text normalized as `resp::normalized` does raw replies (numbers, long bulks).
fn normalize_text(text: &str) -> String {
    let mut out = String::new();
    let mut in_num = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                out.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    if out.len() > 120 {
        out.truncate(120);
        out.push_str("...");
    }
    out
}

/// Alters RedisBloom's SCANDUMP chunks one way before they are loaded.
fn alter_chunks(chunks: &mut Vec<(Vec<u8>, Vec<u8>)>, rng: &mut Rng) {
    let i = rng.below(chunks.len());
    match rng.below(8) {
        0 => {
            let data = &mut chunks[i].1;
            if !data.is_empty() {
                let at = rng.below(data.len());
                data[at] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let data = &mut chunks[i].1;
            let keep = rng.below(data.len() + 1);
            data.truncate(keep);
        }
        2 => {
            let it = &mut chunks[i].0;
            let n: i64 = String::from_utf8_lossy(it).parse().unwrap_or(0);
            let delta = *rng.pick(&[-1i64, 1, 8, -8, 1000]);
            *it = (n + delta).to_string().into_bytes();
        }
        3 => chunks[i].0 = rng.pick(EDGE_NUMBERS).as_bytes().to_vec(),
        4 => {
            chunks.remove(i);
        }
        5 => {
            let c = chunks[i].clone();
            chunks.insert(i, c);
        }
        6 => {
            // A header field changed: a byte in the first 48 bytes of the first chunk.
            let data = &mut chunks[0].1;
            if !data.is_empty() {
                let at = rng.below(data.len().min(48));
                data[at] = *rng.pick(&[0u8, 1, 2, 0x7f, 0x80, 0xff]);
            }
        }
        _ => {
            let j = rng.below(chunks.len());
            chunks.swap(i, j);
        }
    }
}

/// Alters a DUMP payload one way: most often resealed with a right CRC, so the module's
/// loader sees it.
fn alter_payload(payload: &mut Vec<u8>, rng: &mut Rng) {
    if payload.len() < 11 {
        return;
    }
    let body_len = payload.len() - 10;
    match rng.below(5) {
        0 | 1 => {
            let at = rng.below(body_len);
            payload[at] ^= 1 << rng.below(8);
        }
        2 => {
            let at = rng.below(body_len);
            payload[at] = *rng.pick(&[0u8, 1, 0x7f, 0x80, 0xff]);
        }
        3 => {
            let keep = rng.below(body_len);
            let footer = payload[body_len..].to_vec();
            payload.truncate(keep);
            payload.extend(footer);
        }
        _ => {
            // Left broken: the CRC no longer matches.
            let at = rng.below(payload.len());
            payload[at] ^= 0x55;
            return;
        }
    }
    let n = payload.len();
    let sealed = crc64(&payload[..n - 8]).to_le_bytes();
    payload[n - 8..].copy_from_slice(&sealed);
}
