//! Which master holds a key, from `CLUSTER SLOTS` (for `info` only: routing is the
//! connection's business).

use redis::Value;
use rsbloom_core::shard::slot::key_slot;

use crate::error::Result;
use crate::transport::Transport;

/// Slot ranges and their masters' `host:port`.
pub struct SlotOwners(Vec<(u16, u16, String)>);

impl SlotOwners {
    /// The cluster's slot owners; `None` when the server is not a cluster (the command is
    /// refused) or answers a shape this does not know.
    pub fn read<C: Transport + ?Sized>(con: &mut C) -> Result<Option<SlotOwners>> {
        let reply = con
            .connection()
            .req_command(redis::cmd("CLUSTER").arg("SLOTS"))
            .and_then(Value::extract_error);
        let ranges = match reply {
            Ok(Value::Array(ranges)) => ranges,
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == redis::ErrorKind::ResponseError => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut owners = Vec::with_capacity(ranges.len());
        for range in ranges {
            // [first, last, [host, port, id, ...], replicas...]
            let Value::Array(parts) = range else { continue };
            let (Some(Value::Int(first)), Some(Value::Int(last)), Some(Value::Array(master))) =
                (parts.first(), parts.get(1), parts.get(2))
            else {
                continue;
            };
            let host = match master.first() {
                Some(Value::BulkString(h)) => String::from_utf8_lossy(h).into_owned(),
                Some(Value::SimpleString(h)) => h.clone(),
                _ => continue,
            };
            let Some(Value::Int(port)) = master.get(1) else {
                continue;
            };
            owners.push((*first as u16, *last as u16, format!("{host}:{port}")));
        }
        Ok(Some(SlotOwners(owners)))
    }

    /// The master of `key`'s slot.
    pub fn node_of(&self, key: &[u8]) -> Option<String> {
        let slot = key_slot(key);
        self.0
            .iter()
            .find(|(first, last, _)| (*first..=*last).contains(&slot))
            .map(|(_, _, node)| node.clone())
    }
}
