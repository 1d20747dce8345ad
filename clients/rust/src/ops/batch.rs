//! A batch of items: one command per shard (the shard's items in the caller's order), and in
//! the same round `HMGET name id shards`, the staleness check (spec-44 section 2). When the
//! description changed, it is read again and the reads of the batch are asked again under
//! it; a write refused with `ERR not found` or `ERR wrong shard` is rerun after a reread
//! until `retry_timeout` whether or not the check saw a change. What stood is kept.

use std::sync::Arc;
use std::time::{Duration, Instant};

use redis::Value;

use crate::command::{Command, Outcome, Policy};
use crate::error::{BatchError, Error, Result};
use crate::family::{Decode, Verb};
use crate::ops::{description, hgetall, unchanged, Op, Step};
use crate::reply::{array, error_text, integer, refusal};
use crate::shared::Shared;

const FIRST_PAUSE: Duration = Duration::from_millis(20);
const MAX_PAUSE: Duration = Duration::from_millis(500);

enum Phase {
    /// The shard commands and the check are out.
    Round,
    /// The description is being read again; then these positions run again.
    Reread(Vec<usize>),
}

pub(crate) struct Batch<'a> {
    shared: &'a Shared,
    verb: Verb,
    items: Vec<&'a [u8]>,
    layout: Arc<crate::description::Layout>,
    answers: Vec<Option<u64>>,
    failed: Vec<Option<Error>>,
    unknown: Vec<bool>,
    /// Per command of the round out: the positions it answers for.
    plan: Vec<Vec<usize>>,
    phase: Phase,
    deadline: Instant,
    pause: Duration,
}

impl<'a> Batch<'a> {
    pub fn new(shared: &'a Shared, verb: Verb, items: Vec<&'a [u8]>) -> Batch<'a> {
        let n = items.len();
        Batch {
            layout: shared.layout(),
            shared,
            verb,
            items,
            answers: vec![None; n],
            failed: vec![None; n],
            unknown: vec![false; n],
            plan: Vec::new(),
            phase: Phase::Round,
            deadline: Instant::now(),
            pause: FIRST_PAUSE,
        }
    }

    /// The commands for `positions` under the current layout, then the check.
    fn round(&mut self, positions: Vec<usize>, pause: Duration) -> Step<Vec<u64>> {
        let layout = self.layout.clone();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        if self.verb.single {
            groups = positions.into_iter().map(|p| vec![p]).collect();
        } else {
            let mut by_shard: Vec<Vec<usize>> = vec![Vec::new(); layout.keys.len()];
            for p in positions {
                by_shard[layout.shard_of(self.items[p])].push(p);
            }
            groups.extend(by_shard.into_iter().filter(|g| !g.is_empty()));
        }
        let mut commands = Vec::with_capacity(groups.len() + 1);
        for group in &groups {
            for &p in group {
                self.failed[p] = None;
                self.answers[p] = None;
            }
            let key = &layout.keys[layout.shard_of(self.items[group[0]])];
            let mut cmd = Command::new(self.verb.name, key, self.verb.policy);
            if self.verb.nocreate {
                cmd = cmd.arg("NOCREATE").arg("ITEMS");
            }
            for &p in group {
                cmd = cmd.arg(self.items[p]);
            }
            commands.push(cmd);
        }
        commands.push(
            Command::new("HMGET", &layout.name, Policy::Safe)
                .arg("id")
                .arg("shards"),
        );
        self.plan = groups;
        self.phase = Phase::Round;
        Step::Run { commands, pause }
    }

    /// The answers, or every outcome in a [`BatchError`].
    fn finish(&mut self) -> Step<Vec<u64>> {
        let unknown: Vec<usize> = (0..self.items.len()).filter(|&p| self.unknown[p]).collect();
        let failed: Vec<(usize, Error)> = self
            .failed
            .iter_mut()
            .enumerate()
            .filter_map(|(p, e)| e.take().map(|e| (p, e)))
            .collect();
        if unknown.is_empty() && failed.is_empty() {
            return Step::Done(Ok(self.answers.iter().map(|a| a.unwrap_or(0)).collect()));
        }
        // A filter gone (or replaced by another kind) under a batch of which nothing stood
        // is that error itself, as `open` would say.
        let nothing_stood = unknown.is_empty() && self.answers.iter().all(Option::is_none);
        if nothing_stood && failed.len() == self.items.len() {
            let first = &failed[0].1;
            let whole = matches!(
                first,
                Error::NotFound(_) | Error::Protocol { .. } | Error::Family { .. }
            );
            if whole && failed.iter().all(|(_, e)| e == first) {
                return Step::Done(Err(first.clone()));
            }
        }
        let results = self.answers.iter().map(|a| a.map(|n| n != 0)).collect();
        Step::Done(Err(Error::Batch(BatchError::new(results, unknown, failed))))
    }

    /// One command's outcome for its positions; the positions to rerun after a reread.
    fn take(&mut self, positions: &[usize], outcome: Outcome, rerun: &mut Vec<usize>) {
        let value = match outcome {
            Outcome::Reply(v, _) => v,
            Outcome::Lost(_) => {
                for &p in positions {
                    self.unknown[p] = true;
                    self.failed[p] = None;
                }
                return;
            }
            Outcome::Failed(e) => {
                for &p in positions {
                    self.failed[p] = Some(Error::Connection(e.clone()));
                }
                return;
            }
        };
        if let Some(text) = error_text(&value) {
            // The shard is not where this description says: the description may have
            // changed (a deleted and remade filter), so read it again and rerun.
            let misplaced = text.contains("not found") || text.contains("wrong shard");
            for &p in positions {
                self.failed[p] = Some(Error::Server(text.clone()));
            }
            if misplaced {
                rerun.extend_from_slice(positions);
            }
            return;
        }
        for (&p, answer) in positions
            .iter()
            .zip(decode(self.verb, &value, positions.len()))
        {
            match answer {
                Ok(a) => self.answers[p] = Some(a),
                Err(e) => self.failed[p] = Some(e),
            }
        }
    }
}

impl Op for Batch<'_> {
    type Output = Vec<u64>;

    fn start(&mut self, retry_timeout: Duration) -> Step<Vec<u64>> {
        self.deadline = Instant::now() + retry_timeout;
        if self.items.is_empty() {
            return Step::Done(Ok(Vec::new()));
        }
        self.round((0..self.items.len()).collect(), Duration::ZERO)
    }

    fn feed(&mut self, mut outcomes: Vec<Outcome>) -> Step<Vec<u64>> {
        match std::mem::replace(&mut self.phase, Phase::Round) {
            Phase::Round => {
                let check = outcomes
                    .pop()
                    .expect("the check is the round's last command");
                let stale = !unchanged(&self.layout, &check);
                let plan = std::mem::take(&mut self.plan);
                let mut rerun = Vec::new();
                for (positions, outcome) in plan.iter().zip(outcomes) {
                    self.take(positions, outcome, &mut rerun);
                }
                if stale && self.verb.read {
                    // No read of this round may stand: ask them all again.
                    rerun = plan.into_iter().flatten().collect();
                }
                if rerun.is_empty() {
                    return self.finish();
                }
                if Instant::now() >= self.deadline {
                    if stale && self.verb.read {
                        for &p in &rerun {
                            self.answers[p] = None;
                            self.failed[p] = Some(Error::Server(
                                "the description kept changing until retry_timeout".into(),
                            ));
                        }
                    }
                    return self.finish(); // misplaced writes keep their error
                }
                rerun.sort_unstable();
                let pause = if stale { Duration::ZERO } else { self.pause };
                if !stale {
                    self.pause = (self.pause * 2).min(MAX_PAUSE);
                }
                self.phase = Phase::Reread(rerun);
                Step::Run {
                    commands: vec![hgetall(&self.layout.name)],
                    pause,
                }
            }
            Phase::Reread(rerun) => {
                let read = outcomes.pop().expect("one HGETALL");
                match description(&self.layout.name, self.shared.family, read) {
                    Ok(layout) => {
                        self.layout = self.shared.adopt(layout);
                        self.round(rerun, Duration::ZERO)
                    }
                    Err(e) => {
                        for p in rerun {
                            self.answers[p] = None;
                            self.failed[p] = Some(e.clone());
                        }
                        self.finish()
                    }
                }
            }
        }
    }
}

/// `n` items' answers in one reply: an array (or one value for a single-item verb). An
/// error entry (a full non-scaling Bloom shard) ends the array: it and the items after it
/// are refused with it.
fn decode(verb: Verb, value: &Value, n: usize) -> Vec<Result<u64>> {
    let malformed = |detail: String| Error::Reply {
        command: verb.name.into(),
        detail,
    };
    if verb.single {
        return vec![entry(verb, value).unwrap_or_else(|| Err(malformed(format!("{value:?}"))))];
    }
    let Some(entries) = array(value) else {
        return vec![Err(malformed(format!("{value:?}"))); n];
    };
    let mut out = Vec::with_capacity(n);
    let mut ended: Option<Error> = None;
    for i in 0..n {
        if let Some(e) = &ended {
            out.push(Err(e.clone()));
            continue;
        }
        let answer = match entries.get(i) {
            None => Err(malformed(format!(
                "{} answers for {n} items",
                entries.len()
            ))),
            Some(v) => match error_text(v) {
                Some(text) => {
                    let e = refusal(text);
                    ended = Some(e.clone());
                    Err(e)
                }
                None => entry(verb, v).unwrap_or_else(|| Err(malformed(format!("{v:?}")))),
            },
        };
        out.push(answer);
    }
    out
}

/// One entry: its answer, `Err(Full)` for a refusal, `None` for a shape the verb never gives.
fn entry(verb: Verb, value: &Value) -> Option<Result<u64>> {
    let full = || {
        Err(Error::Full(format!(
            "{}: no room in the item's shard",
            verb.name
        )))
    };
    Some(match (verb.decode, value) {
        // RESP3 says false where RESP2 says -1: no room, never "not added".
        (Decode::Stored, Value::Boolean(false)) => full(),
        (Decode::Stored, v) => match integer(v)? {
            1 => Ok(1),
            -1 => full(),
            _ => return None,
        },
        (Decode::AddedNx, v) => match integer(v)? {
            n @ (0 | 1) => Ok(n as u64),
            -1 => full(),
            _ => return None,
        },
        (Decode::Flag, v) => match integer(v)? {
            n @ (0 | 1) => Ok(n as u64),
            _ => return None,
        },
        (Decode::Count, v) => Ok(u64::try_from(integer(v)?).ok()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::{verbs, CF_ADDNX, CF_COUNT};
    use crate::FamilyName;

    fn err(text: &str) -> Value {
        redis::parse_redis_value(format!("-{text}\r\n").as_bytes()).unwrap()
    }

    #[test]
    fn cuckoo_inserts_read_alike_in_both_protocols() {
        let add = verbs(FamilyName::Cuckoo).add;
        let resp2 = Value::Array(vec![Value::Int(1), Value::Int(-1)]);
        let resp3 = Value::Array(vec![Value::Boolean(true), Value::Boolean(false)]);
        for reply in [resp2, resp3] {
            let got = decode(add, &reply, 2);
            assert_eq!(got[0], Ok(1));
            assert!(matches!(got[1], Err(Error::Full(_))), "{got:?}");
        }
        let nx = decode(
            CF_ADDNX,
            &Value::Array(vec![Value::Int(0), Value::Int(-1)]),
            2,
        );
        assert_eq!(nx[0], Ok(0));
        assert!(matches!(nx[1], Err(Error::Full(_))));
        assert_eq!(decode(CF_COUNT, &Value::Int(3), 1), vec![Ok(3)]);
    }

    #[test]
    fn an_error_entry_refuses_the_rest_and_short_arrays_are_errors() {
        let add = verbs(FamilyName::Bloom).add;
        let reply = Value::Array(vec![Value::Int(1), err("ERR non scaling filter is full")]);
        let got = decode(add, &reply, 3);
        assert_eq!(got[0], Ok(1));
        assert!(
            matches!(got[1], Err(Error::Full(_))) && got[1] == got[2],
            "{got:?}"
        );
        let short = decode(add, &Value::Array(vec![Value::Int(1)]), 2);
        assert!(matches!(short[1], Err(Error::Reply { .. })));
    }
}
