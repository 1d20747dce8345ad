//! Which node holds a key: one server for everything, or a cluster's slot map read from
//! `CLUSTER SLOTS` and patched by each `MOVED` until the next full read.

use redis::Value;
use rsbloom_core::shard::slot::{key_slot, SLOTS};

use crate::reply::{array, integer, text};

#[derive(Clone, Debug)]
pub(crate) enum Topology {
    /// A server that is not a cluster node: every key is there.
    Single(String),
    /// `owner[slot]` indexes `nodes` (`host:port`); `None` for a slot no master serves.
    Cluster {
        owner: Vec<Option<u16>>,
        nodes: Vec<String>,
    },
}

impl Topology {
    /// The map in a `CLUSTER SLOTS` reply from `asked` (whose host stands in for an empty
    /// one); `None` for a shape this does not know.
    pub fn from_cluster_slots(reply: &Value, asked: &str) -> Option<Topology> {
        let mut owner = vec![None; SLOTS as usize];
        let mut nodes: Vec<String> = Vec::new();
        let asked_host = asked.rsplit_once(':').map(|(h, _)| h).unwrap_or(asked);
        for range in array(reply)? {
            // [first, last, [host, port, id, ...], replicas...]
            let parts = array(range)?;
            let (first, last) = (integer(parts.first()?)?, integer(parts.get(1)?)?);
            let master = array(parts.get(2)?)?;
            let host = text(master.first()?)?;
            let host = match host.as_str() {
                "" | "?" => asked_host.to_string(),
                _ => host,
            };
            let node = format!("{host}:{}", integer(master.get(1)?)?);
            let index = match nodes.iter().position(|n| *n == node) {
                Some(i) => i,
                None => {
                    nodes.push(node);
                    nodes.len() - 1
                }
            };
            if !(0..SLOTS as i64).contains(&first) || !(first..SLOTS as i64).contains(&last) {
                return None;
            }
            for slot in first..=last {
                owner[slot as usize] = Some(index as u16);
            }
        }
        Some(Topology::Cluster { owner, nodes })
    }

    /// The node of `key`, `None` when no master serves its slot.
    pub fn node_of(&self, key: &[u8]) -> Option<&str> {
        match self {
            Topology::Single(node) => Some(node),
            Topology::Cluster { owner, nodes } => {
                owner[key_slot(key) as usize].map(|i| nodes[i as usize].as_str())
            }
        }
    }

    /// `MOVED slot node`: the slot is the node's from now on.
    pub fn moved(&mut self, slot: u16, node: &str) {
        if let Topology::Cluster { owner, nodes } = self {
            let index = match nodes.iter().position(|n| n == node) {
                Some(i) => i,
                None => {
                    nodes.push(node.to_string());
                    nodes.len() - 1
                }
            };
            if let Some(o) = owner.get_mut(slot as usize) {
                *o = Some(index as u16);
            }
        }
    }

    /// Every node a full read of the map may ask.
    pub fn nodes(&self) -> Vec<String> {
        match self {
            Topology::Single(node) => vec![node.clone()],
            Topology::Cluster { nodes, .. } => nodes.clone(),
        }
    }
}

/// `host:port` of `MOVED` / `ASK`'s text after the code: `3999 127.0.0.1:6381`.
pub(crate) fn redirect(detail: &str) -> Option<(u16, String)> {
    let (slot, node) = detail.trim().split_once(' ')?;
    Some((slot.parse().ok()?, node.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(host: &str, port: i64) -> Value {
        Value::Array(vec![
            Value::BulkString(host.as_bytes().to_vec()),
            Value::Int(port),
        ])
    }

    #[test]
    fn reads_cluster_slots_and_follows_moved() {
        let reply = Value::Array(vec![
            Value::Array(vec![Value::Int(0), Value::Int(8191), node("", 7000)]),
            Value::Array(vec![
                Value::Int(8192),
                Value::Int(16383),
                node("10.0.0.2", 7001),
                node("10.0.0.3", 7004),
            ]),
        ]);
        let mut t = Topology::from_cluster_slots(&reply, "10.0.0.1:7000").unwrap();
        // "{0}" hashes to slot 13,907, "{3}" to 1,584.
        assert_eq!(t.node_of(b"{0}x"), Some("10.0.0.2:7001"));
        assert_eq!(t.node_of(b"{3}x"), Some("10.0.0.1:7000"));
        t.moved(13_907, "10.0.0.9:7009");
        assert_eq!(t.node_of(b"{0}x"), Some("10.0.0.9:7009"));
        assert_eq!(
            redirect("13907 10.0.0.9:7009"),
            Some((13_907, "10.0.0.9:7009".into()))
        );
    }
}
