//! One read per shard (`BF.CARD`, `BF.INFO` / `CF.INFO`) with the batch's staleness check:
//! when the description changed, it is read again and every shard asked again.

use std::sync::Arc;
use std::time::Duration;

use redis::Value;

use crate::command::{Command, Outcome, Policy};
use crate::description::Layout;
use crate::error::Result;
use crate::ops::{description, hgetall, unchanged, value, Op, Step};
use crate::shared::Shared;

pub(crate) struct PerShard<'a> {
    shared: &'a Shared,
    command: &'static str,
    layout: Arc<Layout>,
    rereading: bool,
    rounds: u32,
}

/// Each shard's reply and the node that gave it, under the layout they were read with.
pub(crate) type Replies = (Arc<Layout>, Vec<(Value, String)>);

/// Rereads at most this often in one call: a description changing faster than that is
/// not one to answer for.
const MAX_ROUNDS: u32 = 10;

impl<'a> PerShard<'a> {
    pub fn new(shared: &'a Shared, command: &'static str) -> PerShard<'a> {
        PerShard {
            layout: shared.layout(),
            shared,
            command,
            rereading: false,
            rounds: 0,
        }
    }

    fn round(&mut self) -> Step<Replies> {
        self.rounds += 1;
        let mut commands: Vec<Command> = self
            .layout
            .keys
            .iter()
            .map(|k| Command::new(self.command, k, Policy::Safe))
            .collect();
        commands.push(
            Command::new("HMGET", &self.layout.name, Policy::Safe)
                .arg("id")
                .arg("shards"),
        );
        Step::run(commands)
    }
}

impl Op for PerShard<'_> {
    type Output = Replies;

    fn start(&mut self, _: Duration) -> Step<Replies> {
        self.round()
    }

    fn feed(&mut self, mut outcomes: Vec<Outcome>) -> Step<Replies> {
        if self.rereading {
            self.rereading = false;
            let read = outcomes.pop().expect("one HGETALL");
            return match description(&self.layout.name, self.shared.family, read) {
                Ok(layout) => {
                    self.layout = self.shared.adopt(layout);
                    self.round()
                }
                Err(e) => Step::Done(Err(e)),
            };
        }
        let check = outcomes.pop().expect("the check is last");
        if !unchanged(&self.layout, &check) && self.rounds < MAX_ROUNDS {
            self.rereading = true;
            return Step::run(vec![hgetall(&self.layout.name)]);
        }
        let replies: Result<Vec<(Value, String)>> = outcomes
            .into_iter()
            .map(|o| {
                let node = match &o {
                    Outcome::Reply(_, node) => node.clone(),
                    _ => String::new(),
                };
                value(o).map(|v| (v, node))
            })
            .collect();
        Step::Done(replies.map(|r| (self.layout.clone(), r)))
    }
}
