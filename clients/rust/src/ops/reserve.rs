//! Reserve (spec-44 section 4): the description script (its lost reply resent; a 0 whose
//! `id` is the call's own counts as made), then every shard with `SHARD name i N SHARDID id`
//! (an `ERR item exists` whose `Shard id` is the call's own counts as made). When anything
//! fails, what the call made is deleted (its shards, then the description only if its `id`
//! is still the call's) and the cause is the error.

use std::time::Duration;

use crate::command::{Command, Outcome, Policy};
use crate::description::{Layout, Params};
use crate::error::Error;
use crate::ops::{value, Op, Step};
use crate::reply::{integer, pairs, text};
use crate::routing::Routing;

/// Creates the hash at KEYS[1] from ARGV's field/value pairs unless the key exists (0).
const CREATE: &str = "if redis.call('exists', KEYS[1]) == 1 then return 0 end \
redis.call('hset', KEYS[1], unpack(ARGV)) return 1";

/// Deletes the description only while it is the one this call made.
const UNDO: &str = "if redis.call('hget', KEYS[1], 'id') == ARGV[1] then \
return redis.call('del', KEYS[1]) end return 0";

enum Phase {
    Script,
    OwnId,
    Shards,
    Check(Vec<usize>),
    DeleteShards,
    DeleteDescription,
}

pub(crate) struct Reserve {
    layout: Layout,
    id: String,
    phase: Phase,
    made: Vec<usize>,
    cause: Option<(usize, Error)>,
}

impl Reserve {
    /// `layout`'s description carries the call's fresh id.
    pub fn new(layout: Layout) -> Reserve {
        let id = layout
            .description
            .id
            .clone()
            .expect("a new filter has an id");
        Reserve {
            layout,
            id,
            phase: Phase::Script,
            made: Vec::new(),
            cause: None,
        }
    }

    fn shard_command(&self, i: usize) -> Command {
        let d = &self.layout.description;
        let key = &self.layout.keys[i];
        let cmd = match d.params {
            Params::Bloom {
                error_rate,
                expansion,
            } => {
                let cmd = Command::new("BF.RESERVE", key, Policy::Safe)
                    .num(error_rate)
                    .num(d.shard_capacity);
                match expansion {
                    0 => cmd.arg("NONSCALING"),
                    e => cmd.arg("EXPANSION").num(e),
                }
            }
            Params::Cuckoo {
                bucket_size,
                max_iterations,
                expansion,
            } => Command::new("CF.RESERVE", key, Policy::Safe)
                .num(d.shard_capacity)
                .arg("BUCKETSIZE")
                .num(bucket_size)
                .arg("MAXITERATIONS")
                .num(max_iterations)
                .arg("EXPANSION")
                .num(expansion),
        };
        let cmd = cmd
            .arg("SHARD")
            .arg(&self.layout.name)
            .num(i)
            .num(d.shards)
            .arg("SHARDID")
            .arg(&self.id);
        match &d.routing {
            Routing::Keyed(secret) => cmd.arg("SHARDSECRET").arg(secret.to_hex()),
            Routing::Slot => cmd,
        }
    }

    fn shards(&mut self) -> Step<Layout> {
        self.phase = Phase::Shards;
        Step::run(
            (0..self.layout.keys.len())
                .map(|i| self.shard_command(i))
                .collect(),
        )
    }

    fn fail(&mut self, i: usize, e: Error) {
        if self.cause.as_ref().is_none_or(|(at, _)| i < *at) {
            self.cause = Some((i, e));
        }
    }

    /// Done, or undo what was made.
    fn decide(&mut self) -> Step<Layout> {
        if self.cause.is_none() {
            return Step::Done(Ok(self.layout.clone()));
        }
        if self.made.is_empty() {
            return self.delete_description();
        }
        self.phase = Phase::DeleteShards;
        Step::run(
            self.made
                .iter()
                .map(|&i| Command::new("DEL", &self.layout.keys[i], Policy::Safe))
                .collect(),
        )
    }

    fn delete_description(&mut self) -> Step<Layout> {
        self.phase = Phase::DeleteDescription;
        let name = &self.layout.name;
        Step::run(vec![Command::new("EVAL", UNDO.as_bytes(), Policy::Safe)
            .routed(name)
            .num(1)
            .arg(name)
            .arg(&self.id)])
    }

    fn cause(&mut self) -> Error {
        self.cause.take().map(|(_, e)| e).expect("a cause")
    }
}

impl Op for Reserve {
    type Output = Layout;

    fn start(&mut self, _: Duration) -> Step<Layout> {
        let name = &self.layout.name;
        let mut script = Command::new("EVAL", CREATE.as_bytes(), Policy::Safe)
            .routed(name)
            .num(1)
            .arg(name);
        for (field, v) in self.layout.description.fields() {
            script = script.arg(field).arg(v);
        }
        Step::run(vec![script])
    }

    fn feed(&mut self, mut outcomes: Vec<Outcome>) -> Step<Layout> {
        match self.phase {
            Phase::Script => match value(outcomes.remove(0)) {
                Ok(v) if integer(&v) == Some(1) => self.shards(),
                Ok(v) if integer(&v) == Some(0) => {
                    self.phase = Phase::OwnId;
                    Step::run(vec![
                        Command::new("HGET", &self.layout.name, Policy::Safe).arg("id")
                    ])
                }
                Ok(v) => Step::Done(Err(Error::Reply {
                    command: "EVAL".into(),
                    detail: format!("{v:?}"),
                })),
                Err(e) => Step::Done(Err(e)),
            },
            Phase::OwnId => match value(outcomes.remove(0)) {
                // A lost reply's resend found the description this call wrote.
                Ok(v) if text(&v).as_deref() == Some(self.id.as_str()) => self.shards(),
                // Another description, or another kind of key (WRONGTYPE).
                Ok(_) | Err(Error::Server(_)) => {
                    Step::Done(Err(Error::Exists(self.layout.name_text())))
                }
                Err(e) => Step::Done(Err(e)),
            },
            Phase::Shards => {
                let mut check = Vec::new();
                for (i, outcome) in outcomes.into_iter().enumerate() {
                    match value(outcome) {
                        Ok(_) => self.made.push(i),
                        Err(Error::Server(t)) if t.contains("item exists") => check.push(i),
                        Err(e) => self.fail(i, e),
                    }
                }
                if check.is_empty() {
                    return self.decide();
                }
                let info = match self.layout.description.params {
                    Params::Bloom { .. } => "BF.INFO",
                    Params::Cuckoo { .. } => "CF.INFO",
                };
                let commands = check
                    .iter()
                    .map(|&i| Command::new(info, &self.layout.keys[i], Policy::Safe))
                    .collect();
                self.phase = Phase::Check(check);
                Step::run(commands)
            }
            Phase::Check(ref check) => {
                let check = check.clone();
                for (i, outcome) in check.into_iter().zip(outcomes) {
                    let own = value(outcome)
                        .ok()
                        .and_then(|v| pairs(&v))
                        .is_some_and(|p| {
                            p.iter().any(|(n, v)| {
                                n == "Shard id" && text(v).as_deref() == Some(self.id.as_str())
                            })
                        });
                    if own {
                        self.made.push(i);
                    } else {
                        let key = String::from_utf8_lossy(&self.layout.keys[i]).into_owned();
                        self.fail(
                            i,
                            Error::Server(format!("ERR item exists: shard key '{key}'")),
                        );
                    }
                }
                self.decide()
            }
            // Best effort: the cause is the error whatever the cleanup's replies say.
            Phase::DeleteShards => self.delete_description(),
            Phase::DeleteDescription => Step::Done(Err(self.cause())),
        }
    }
}
