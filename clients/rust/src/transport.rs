//! How a batch of per-shard commands reaches the server(s).
//!
//! redis-rs 0.27's cluster pipeline groups commands per node, but it reads error replies as
//! values, so its own retry of `MOVED` / `ASK` never runs: one redirected command fails the
//! whole query and the other commands' answers are lost, though they ran. Re-sending such a
//! batch is harmless for reads, not for writes (`CF.INSERT` would add the items again). So:
//!
//! - on one server (a connection that pipelines), every batch is one pipeline;
//! - on a cluster, reads go through the cluster pipeline (one pipeline per node), and when
//!   it fails with a server error (`MOVED`, `ASK`, `TRYAGAIN`, `CLUSTERDOWN`, or one
//!   command's own error hiding the others' answers) they are sent again one by one;
//! - on a cluster, writes go one command per shard through the connection's own request
//!   loop, which follows `MOVED` (refreshing its slot map) and `ASK` (sending `ASKING`
//!   first) and retries `TRYAGAIN`. A command that ran never answers a redirection, so each
//!   write runs exactly once, whatever moves during the batch.

use redis::cluster::{cluster_pipe, ClusterConnection};
use redis::{Cmd, ConnectionLike, RedisResult, Value};

/// Whether a batch may be sent again after a partial failure.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Access {
    Read,
    Write,
}

/// A connection the sharded filters run over: a single server's `redis::Connection`, a
/// `redis::cluster::ClusterConnection`, or any boxed `ConnectionLike`.
pub trait Transport {
    fn connection(&mut self) -> &mut dyn ConnectionLike;

    /// Runs `cmds` and returns each one's reply, in order; a server error is that
    /// command's `Err`, a connection error the whole batch's.
    fn batch(&mut self, cmds: &[Cmd], access: Access) -> RedisResult<Vec<RedisResult<Value>>> {
        let _ = access;
        plain_batch(self.connection(), cmds)
    }
}

/// One pipeline when the connection pipelines (one server), else one request per command.
fn plain_batch(con: &mut dyn ConnectionLike, cmds: &[Cmd]) -> RedisResult<Vec<RedisResult<Value>>> {
    if cmds.is_empty() {
        return Ok(Vec::new());
    }
    if !con.supports_pipelining() {
        return Ok(one_by_one(con, cmds));
    }
    let mut packed = Vec::new();
    for cmd in cmds {
        packed.extend_from_slice(&cmd.get_packed_command());
    }
    // A plain connection keeps each command's error reply in its place.
    let replies = con.req_packed_commands(&packed, 0, cmds.len())?;
    Ok(replies.into_iter().map(Value::extract_error).collect())
}

fn one_by_one(con: &mut dyn ConnectionLike, cmds: &[Cmd]) -> Vec<RedisResult<Value>> {
    cmds.iter()
        .map(|cmd| con.req_command(cmd).and_then(Value::extract_error))
        .collect()
}

impl Transport for redis::Connection {
    fn connection(&mut self) -> &mut dyn ConnectionLike {
        self
    }
}

impl Transport for Box<dyn ConnectionLike> {
    fn connection(&mut self) -> &mut dyn ConnectionLike {
        self.as_mut()
    }
}

impl Transport for ClusterConnection {
    fn connection(&mut self) -> &mut dyn ConnectionLike {
        self
    }

    fn batch(&mut self, cmds: &[Cmd], access: Access) -> RedisResult<Vec<RedisResult<Value>>> {
        if access == Access::Write || cmds.len() < 2 {
            return Ok(one_by_one(self, cmds));
        }
        let mut pipe = cluster_pipe();
        for cmd in cmds {
            pipe.add_command(cmd.clone());
        }
        match pipe.query::<Vec<Value>>(self) {
            Ok(replies) => Ok(replies.into_iter().map(Ok).collect()),
            // A slot moved under the batch, or another error hides the other answers:
            // reads are asked again one by one, each with the request loop's retries.
            Err(e) if e.is_io_error() || e.is_connection_dropped() => Err(e),
            Err(_) => Ok(one_by_one(self, cmds)),
        }
    }
}
