//! Opening a filter by name (its description) and deleting it (its shards, then the
//! description: deleters go shards first, so a reader never sees a description whose
//! shards are gone for good without the check noticing).

use std::time::Duration;

use crate::command::{Command, Outcome, Policy};
use crate::description::{FamilyName, Layout};
use crate::error::{Error, Result};
use crate::ops::{description, hgetall, value, Op, Step};
use crate::reply::integer;

pub(crate) struct Open<'a> {
    pub name: &'a [u8],
    pub family: FamilyName,
}

impl Op for Open<'_> {
    type Output = Layout;

    fn start(&mut self, _: Duration) -> Step<Layout> {
        Step::run(vec![hgetall(self.name)])
    }

    fn feed(&mut self, mut outcomes: Vec<Outcome>) -> Step<Layout> {
        Step::Done(description(self.name, self.family, outcomes.remove(0)))
    }
}

pub(crate) struct Delete {
    name: Vec<u8>,
    family: FamilyName,
    deleted: u64,
    phase: u8,
}

impl Delete {
    pub fn new(name: Vec<u8>, family: FamilyName) -> Delete {
        Delete {
            name,
            family,
            deleted: 0,
            phase: 0,
        }
    }
}

fn count(outcomes: Vec<Outcome>) -> Result<u64> {
    let mut n = 0;
    for o in outcomes {
        let v = value(o)?;
        n += integer(&v).ok_or_else(|| Error::Reply {
            command: "DEL".into(),
            detail: format!("{v:?}"),
        })? as u64;
    }
    Ok(n)
}

impl Op for Delete {
    /// The keys deleted: the shards and the description.
    type Output = u64;

    fn start(&mut self, _: Duration) -> Step<u64> {
        Step::run(vec![hgetall(&self.name)])
    }

    fn feed(&mut self, mut outcomes: Vec<Outcome>) -> Step<u64> {
        self.phase += 1;
        match self.phase {
            // The current description's shards, not the cached one's.
            1 => match description(&self.name, self.family, outcomes.remove(0)) {
                Ok(layout) => Step::run(
                    layout
                        .keys
                        .iter()
                        .map(|k| Command::new("DEL", k, Policy::Safe))
                        .collect(),
                ),
                Err(Error::NotFound(_)) => Step::Done(Ok(0)),
                Err(e) => Step::Done(Err(e)),
            },
            2 => match count(outcomes) {
                Ok(n) => {
                    self.deleted = n;
                    Step::run(vec![Command::new("DEL", &self.name, Policy::Safe)])
                }
                Err(e) => Step::Done(Err(e)),
            },
            _ => Step::Done(count(outcomes).map(|n| n + self.deleted)),
        }
    }
}
