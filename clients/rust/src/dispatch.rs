//! The transport's decisions, without I/O: which node each pending command goes to this
//! round (commands for one node pipelined, in order), and after the round what each reply or
//! failure means (the Python client's `_transport.py`, spec-44 section 4):
//!
//! - `MOVED`: the slot map takes the new owner (and is read again in full); sent there.
//! - `ASK`: sent to the node named, after `ASKING`, this once.
//! - `TRYAGAIN`, `CLUSTERDOWN`, `LOADING`, `MASTERDOWN`, `READONLY`: not run; sent again
//!   after a pause (the map read again).
//! - Not sent (no connection): sent again after a pause.
//! - Lost (the connection failed after the command may have left): a [`Policy::Safe`]
//!   command is sent again; a [`Policy::Once`] one ends as [`Outcome::Lost`].
//!
//! Retries stop at `retry_timeout`; the last reply or error is then the command's.

use std::time::{Duration, Instant};

use redis::Value;

use crate::command::{Command, Outcome, Policy};
use crate::topology::{redirect, Topology};

const FIRST_PAUSE: Duration = Duration::from_millis(20);
const MAX_PAUSE: Duration = Duration::from_millis(500);

/// The commands one node gets this round: their indexes, and whether `ASKING` goes first.
pub(crate) struct Group {
    pub node: String,
    pub entries: Vec<(usize, bool)>,
}

/// What one command's exchange gave.
pub(crate) enum Exchanged {
    Reply(Value),
    /// It never left the client (no connection).
    NotSent(String),
    /// The connection failed after it may have left.
    Lost(String),
}

pub(crate) enum Next {
    Done(Vec<Outcome>),
    Again { refresh: bool, pause: Duration },
}

#[derive(Default)]
struct Entry {
    ask: Option<String>,
    done: Option<Outcome>,
    /// A not-run reply (TRYAGAIN...) kept as the outcome should the retries run out.
    last_reply: Option<(Value, String)>,
    last_error: String,
}

pub(crate) struct Dispatch {
    entries: Vec<Entry>,
    deadline: Instant,
    pause: Duration,
    refresh: bool,
    wait: bool,
}

impl Dispatch {
    pub fn new(count: usize, retry_timeout: Duration) -> Dispatch {
        Dispatch {
            entries: (0..count).map(|_| Entry::default()).collect(),
            deadline: Instant::now() + retry_timeout,
            pause: FIRST_PAUSE,
            refresh: false,
            wait: false,
        }
    }

    /// This round's groups, one per node, in the order nodes first appear.
    pub fn groups(&mut self, cmds: &[Command], topology: &Topology) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for (i, (entry, cmd)) in self.entries.iter_mut().zip(cmds).enumerate() {
            if entry.done.is_some() {
                continue;
            }
            let node = match &entry.ask {
                Some(node) => node.as_str(),
                None => match topology.node_of(&cmd.key) {
                    Some(node) => node,
                    None => {
                        entry.last_error = "no master serves the key's slot".into();
                        self.refresh = true;
                        self.wait = true;
                        continue;
                    }
                },
            };
            let asking = entry.ask.is_some();
            match groups.iter_mut().find(|g| g.node == node) {
                Some(g) => g.entries.push((i, asking)),
                None => groups.push(Group {
                    node: node.to_string(),
                    entries: vec![(i, asking)],
                }),
            }
        }
        groups
    }

    /// What command `i`'s exchange with `node` gave.
    pub fn absorb(
        &mut self,
        i: usize,
        policy: Policy,
        node: &str,
        got: Exchanged,
        topology: &mut Topology,
    ) {
        let entry = &mut self.entries[i];
        entry.ask = None;
        match got {
            Exchanged::Reply(value) => {
                let (code, detail) = match &value {
                    Value::ServerError(e) => (e.code().to_string(), e.details().unwrap_or("")),
                    _ => (String::new(), ""),
                };
                match code.as_str() {
                    "MOVED" => {
                        if let Some((slot, to)) = redirect(detail) {
                            topology.moved(slot, &to);
                        }
                        self.refresh = true;
                        entry.last_reply = Some((value, node.to_string()));
                    }
                    "ASK" => match redirect(detail) {
                        Some((_, to)) => entry.ask = Some(to),
                        None => entry.done = Some(Outcome::Reply(value, node.to_string())),
                    },
                    "TRYAGAIN" | "CLUSTERDOWN" | "LOADING" | "MASTERDOWN" | "READONLY" => {
                        self.refresh = self.refresh || code != "TRYAGAIN" && code != "LOADING";
                        self.wait = true;
                        entry.last_reply = Some((value, node.to_string()));
                    }
                    _ => entry.done = Some(Outcome::Reply(value, node.to_string())),
                }
            }
            Exchanged::NotSent(e) => {
                entry.last_error = format!("{node}: {e}");
                entry.last_reply = None;
                self.refresh = true;
                self.wait = true;
            }
            Exchanged::Lost(e) if policy == Policy::Once => {
                entry.done = Some(Outcome::Lost(format!("{node}: {e}")));
            }
            Exchanged::Lost(e) => {
                entry.last_error = format!("{node}: {e}");
                entry.last_reply = None;
                self.refresh = true;
                self.wait = true;
            }
        }
    }

    /// Every outcome, or another round (after `pause`, the map read again if `refresh`).
    pub fn next(&mut self) -> Next {
        let pending = self.entries.iter().any(|e| e.done.is_none());
        if pending && Instant::now() < self.deadline {
            let pause = if self.wait {
                self.pause
            } else {
                Duration::ZERO
            };
            if self.wait {
                self.pause = (self.pause * 2).min(MAX_PAUSE);
            }
            let refresh = self.refresh;
            self.refresh = false;
            self.wait = false;
            return Next::Again { refresh, pause };
        }
        Next::Done(
            self.entries
                .drain(..)
                .map(|e| match (e.done, e.last_reply) {
                    (Some(done), _) => done,
                    (None, Some((value, node))) => Outcome::Reply(value, node),
                    (None, None) => Outcome::Failed(e.last_error),
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> Value {
        redis::parse_redis_value(format!("-{text}\r\n").as_bytes()).unwrap()
    }

    fn cluster() -> Topology {
        let node = |port: i64| {
            Value::Array(vec![
                Value::BulkString(b"127.0.0.1".to_vec()),
                Value::Int(port),
            ])
        };
        let reply = Value::Array(vec![Value::Array(vec![
            Value::Int(0),
            Value::Int(16383),
            node(7000),
        ])]);
        Topology::from_cluster_slots(&reply, "127.0.0.1:7000").unwrap()
    }

    fn again(d: &mut Dispatch) -> (bool, Duration) {
        match d.next() {
            Next::Again { refresh, pause } => (refresh, pause),
            Next::Done(_) => panic!("done too early"),
        }
    }

    #[test]
    fn moved_follows_the_new_owner_and_ask_goes_once_with_asking() {
        let cmds = [Command::new("CF.INSERT", b"{0}f:1", Policy::Once)];
        let mut topology = cluster();
        let mut d = Dispatch::new(1, Duration::from_secs(5));
        let g = d.groups(&cmds, &topology);
        assert_eq!(
            (g[0].node.as_str(), &g[0].entries[..]),
            ("127.0.0.1:7000", &[(0, false)][..])
        );
        let moved = error("MOVED 13907 127.0.0.1:7001");
        d.absorb(
            0,
            Policy::Once,
            "127.0.0.1:7000",
            Exchanged::Reply(moved),
            &mut topology,
        );
        assert_eq!(again(&mut d), (true, Duration::ZERO));
        let g = d.groups(&cmds, &topology);
        assert_eq!(
            (g[0].node.as_str(), &g[0].entries[..]),
            ("127.0.0.1:7001", &[(0, false)][..])
        );
        let ask = error("ASK 13907 127.0.0.1:7002");
        d.absorb(
            0,
            Policy::Once,
            "127.0.0.1:7001",
            Exchanged::Reply(ask),
            &mut topology,
        );
        assert_eq!(again(&mut d), (false, Duration::ZERO));
        let g = d.groups(&cmds, &topology);
        assert_eq!(
            (g[0].node.as_str(), &g[0].entries[..]),
            ("127.0.0.1:7002", &[(0, true)][..])
        );
        d.absorb(
            0,
            Policy::Once,
            "127.0.0.1:7002",
            Exchanged::Reply(Value::Int(1)),
            &mut topology,
        );
        let Next::Done(out) = d.next() else { panic!() };
        assert!(matches!(&out[0], Outcome::Reply(Value::Int(1), n) if n == "127.0.0.1:7002"));
        // The ASK did not move the slot.
        assert_eq!(topology.node_of(b"{0}f:1"), Some("127.0.0.1:7001"));
    }

    #[test]
    fn only_safe_commands_are_resent_after_a_lost_reply() {
        let cmds = [
            Command::new("CF.INSERT", b"a", Policy::Once),
            Command::new("BF.INSERT", b"b", Policy::Safe),
            Command::new("CF.DEL", b"c", Policy::Once),
        ];
        let mut topology = Topology::Single("s:1".into());
        let mut d = Dispatch::new(3, Duration::from_secs(5));
        assert_eq!(d.groups(&cmds, &topology)[0].entries.len(), 3);
        for (i, policy) in [(0, Policy::Once), (1, Policy::Safe)] {
            d.absorb(
                i,
                policy,
                "s:1",
                Exchanged::Lost("reset".into()),
                &mut topology,
            );
        }
        // Never sent (no connection): even a once-only command goes again.
        d.absorb(
            2,
            Policy::Once,
            "s:1",
            Exchanged::NotSent("refused".into()),
            &mut topology,
        );
        let (_, pause) = again(&mut d);
        assert!(pause > Duration::ZERO);
        let resent: Vec<usize> = d.groups(&cmds, &topology)[0]
            .entries
            .iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(resent, [1, 2]);
        d.absorb(
            1,
            Policy::Safe,
            "s:1",
            Exchanged::Reply(Value::Int(0)),
            &mut topology,
        );
        d.absorb(
            2,
            Policy::Once,
            "s:1",
            Exchanged::Reply(Value::Int(1)),
            &mut topology,
        );
        let Next::Done(out) = d.next() else { panic!() };
        assert!(matches!(out[0], Outcome::Lost(_)));
        assert!(matches!(out[1], Outcome::Reply(Value::Int(0), _)));
        assert!(matches!(out[2], Outcome::Reply(Value::Int(1), _)));
    }

    #[test]
    fn not_run_replies_wait_and_stand_when_the_retries_run_out() {
        let cmds = [Command::new("BF.MEXISTS", b"a", Policy::Safe)];
        let mut topology = cluster();
        let mut d = Dispatch::new(1, Duration::ZERO);
        d.groups(&cmds, &topology);
        let busy = error("TRYAGAIN Multiple keys request during rehashing of slot");
        d.absorb(
            0,
            Policy::Safe,
            "127.0.0.1:7000",
            Exchanged::Reply(busy),
            &mut topology,
        );
        let Next::Done(out) = d.next() else {
            panic!("no time left, yet another round")
        };
        assert!(
            matches!(&out[0], Outcome::Reply(Value::ServerError(e), _) if e.code() == "TRYAGAIN")
        );
        let mut d = Dispatch::new(1, Duration::from_secs(5));
        d.groups(&cmds, &topology);
        let down = error("CLUSTERDOWN The cluster is down");
        d.absorb(
            0,
            Policy::Safe,
            "127.0.0.1:7000",
            Exchanged::Reply(down),
            &mut topology,
        );
        let (refresh, pause) = again(&mut d);
        assert!(refresh && pause > Duration::ZERO);
    }
}
