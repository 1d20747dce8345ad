//! Every operation as a state machine without I/O: it says which commands to run, is fed
//! their outcomes, and says what to run next or what it answers. The blocking client and the
//! async one each drive them with their own I/O, so the planning, the staleness check, the
//! reruns and the reply decoding are written once.

use std::time::Duration;

use redis::Value;

use crate::command::{Command, Outcome, Policy};
use crate::description::{Description, FamilyName, Layout};
use crate::error::{Error, Result};
use crate::reply::{array, bytes, error_text, pairs, text};

pub(crate) mod batch;
pub(crate) mod lifecycle;
pub(crate) mod per_shard;
pub(crate) mod reserve;

pub(crate) enum Step<T> {
    /// Run these (after `pause`), then `feed` their outcomes in the same order.
    Run {
        commands: Vec<Command>,
        pause: Duration,
    },
    Done(Result<T>),
}

impl<T> Step<T> {
    pub fn run(commands: Vec<Command>) -> Step<T> {
        Step::Run {
            commands,
            pause: Duration::ZERO,
        }
    }
}

pub(crate) trait Op {
    type Output;
    /// The first commands; `retry_timeout` is the client's.
    fn start(&mut self, retry_timeout: Duration) -> Step<Self::Output>;
    fn feed(&mut self, outcomes: Vec<Outcome>) -> Step<Self::Output>;
}

/// A reply, or the error it is (a server's error reply, a lost or failed command).
pub(crate) fn value(outcome: Outcome) -> Result<Value> {
    match outcome {
        Outcome::Reply(v, _) => match error_text(&v) {
            Some(e) => Err(Error::Server(e)),
            None => Ok(v),
        },
        Outcome::Lost(e) => Err(Error::Connection(format!("reply lost: {e}"))),
        Outcome::Failed(e) => Err(Error::Connection(e)),
    }
}

pub(crate) fn hgetall(name: &[u8]) -> Command {
    Command::new("HGETALL", name, Policy::Safe)
}

/// The description in an `HGETALL` outcome, of `family`.
pub(crate) fn description(name: &[u8], family: FamilyName, outcome: Outcome) -> Result<Layout> {
    let text_name = String::from_utf8_lossy(name).into_owned();
    let reply = value(outcome)?;
    let fields: Vec<(String, String)> = pairs(&reply)
        .ok_or_else(|| Error::Reply {
            command: "HGETALL".into(),
            detail: format!("{reply:?}"),
        })?
        .into_iter()
        .map(|(n, v)| (n, text(&v).unwrap_or_default()))
        .collect();
    let d = Description::from_fields(&text_name, &fields)?;
    if d.family() != family {
        return Err(Error::Family {
            name: text_name,
            found: d.family().to_string(),
        });
    }
    Ok(Layout::new(name, d))
}

/// Whether the check's reply (`HMGET name id shards`) shows the description `layout` is.
pub(crate) fn unchanged(layout: &Layout, check: &Outcome) -> bool {
    let Outcome::Reply(v, _) = check else {
        return false;
    };
    let Some([id, shards]) = array(v) else {
        return false;
    };
    let field = |v: &Value| match v {
        Value::Nil => None,
        v => bytes(v),
    };
    (field(id), field(shards)) == layout.check()
}
