//! The generic shard layer both families and both APIs share: a handle's cached layout, the
//! operations it makes (see `ops`), and what their replies become.

use std::marker::PhantomData;
use std::sync::Arc;

use redis::Value;
use rsbloom_core::shard::layout::slot_range;

use crate::description::{Description, Layout};
use crate::error::{Error, Result};
use crate::family::{verbs, Family, Verb};
use crate::ops::batch::Batch;
use crate::ops::lifecycle::Delete;
use crate::ops::per_shard::{PerShard, Replies};
use crate::reply::{integer, pairs, text};
pub(crate) use crate::shared::Shared;

/// One shard's place and size, as `info` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: u32,
    pub key: Vec<u8>,
    /// The master that answered (`host:port`); `None` when the server is not a cluster.
    pub node: Option<String>,
    /// The first and last slot the shard routes.
    pub slots: (u16, u16),
    /// `Number of items inserted` of BF.INFO / CF.INFO.
    pub items: u64,
    /// `Size` of BF.INFO / CF.INFO, in bytes.
    pub bytes: u64,
    /// `Shard id`: the creation id the shard was reserved with, if any.
    pub id: Option<String>,
}

/// A handle's state for family `F`, wrapped by the blocking and the async handles.
#[derive(Debug)]
pub(crate) struct Filter<F> {
    pub shared: Arc<Shared>,
    family: PhantomData<F>,
}

impl<F> Clone for Filter<F> {
    fn clone(&self) -> Self {
        Filter {
            shared: self.shared.clone(),
            family: PhantomData,
        }
    }
}

impl<F: Family> Filter<F> {
    pub fn new(layout: Layout) -> Filter<F> {
        Filter {
            shared: Arc::new(Shared::new(F::NAME, layout)),
            family: PhantomData,
        }
    }

    pub fn name(&self) -> Vec<u8> {
        self.shared.layout().name.clone()
    }

    pub fn description(&self) -> Description {
        self.shared.layout().description.clone()
    }

    pub fn keys(&self) -> Vec<Vec<u8>> {
        self.shared.layout().keys.clone()
    }

    pub fn batch<'a, I: AsRef<[u8]>>(&'a self, verb: Verb, items: &'a [I]) -> Batch<'a> {
        Batch::new(
            &self.shared,
            verb,
            items.iter().map(AsRef::as_ref).collect(),
        )
    }

    pub fn add<'a, I: AsRef<[u8]>>(&'a self, items: &'a [I]) -> Batch<'a> {
        self.batch(verbs(F::NAME).add, items)
    }

    pub fn exists<'a, I: AsRef<[u8]>>(&'a self, items: &'a [I]) -> Batch<'a> {
        self.batch(verbs(F::NAME).exists, items)
    }

    pub fn card(&self) -> PerShard<'_> {
        let v = verbs(F::NAME);
        PerShard::new(&self.shared, v.card.unwrap_or(v.info))
    }

    pub fn info(&self) -> PerShard<'_> {
        PerShard::new(&self.shared, verbs(F::NAME).info)
    }

    pub fn delete(&self) -> Delete {
        Delete::new(self.name(), F::NAME)
    }
}

/// The sum of the shards' counts (`BF.CARD`, or INFO's `Number of items inserted`).
pub(crate) fn card(replies: Replies) -> Result<u64> {
    let (_, replies) = replies;
    let mut sum = 0;
    for (v, _) in replies {
        sum += match pairs(&v).filter(|p| !p.is_empty()) {
            Some(p) => number(&p, "Number of items inserted")?,
            None => count(&v)?,
        };
    }
    Ok(sum)
}

fn count(v: &Value) -> Result<u64> {
    integer(v)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| Error::Reply {
            command: "BF.CARD".into(),
            detail: format!("{v:?}"),
        })
}

fn number(info: &[(String, Value)], field: &str) -> Result<u64> {
    info.iter()
        .find(|(n, _)| n == field)
        .and_then(|(_, v)| integer(v))
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| Error::Reply {
            command: "INFO".into(),
            detail: format!("no '{field}'"),
        })
}

/// Each shard's place and size from its INFO reply.
pub(crate) fn infos(replies: Replies, cluster: bool) -> Result<Vec<ShardInfo>> {
    let (layout, replies) = replies;
    let count = layout.description.shards;
    let mut out = Vec::with_capacity(replies.len());
    for (i, (v, node)) in replies.into_iter().enumerate() {
        let info = pairs(&v).ok_or_else(|| Error::Reply {
            command: "INFO".into(),
            detail: format!("{v:?}"),
        })?;
        out.push(ShardInfo {
            index: i as u32,
            key: layout.keys[i].clone(),
            node: cluster.then_some(node),
            slots: slot_range(i as u32, count),
            items: number(&info, "Number of items inserted")?,
            bytes: number(&info, "Size")?,
            id: info
                .iter()
                .find(|(n, _)| n == "Shard id")
                .and_then(|(_, v)| text(v)),
        });
    }
    Ok(out)
}
