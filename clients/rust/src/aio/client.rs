//! The async executor: one `redis::aio::MultiplexedConnection` per node. A node's commands
//! go out together, each as its own request on the connection (so each gets its own reply
//! or error: a connection that fails tells which replies were lost); `ASKING` and its
//! command go as one two-command request. Judging is `dispatch`'s, as for the blocking
//! client; no redis-rs retry loop is involved.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::future::join_all;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, ConnectionInfo, IntoConnectionInfo, Value};

use crate::client::{cluster_slots, node_info, node_name, topology_of, Options};
use crate::command::{Command, Outcome};
use crate::dispatch::{Dispatch, Exchanged, Group, Next};
use crate::error::Result;
use crate::ops::{Op, Step};
use crate::topology::Topology;

/// An async connection to one server or a whole cluster. Clones share the connections.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    template: ConnectionInfo,
    seeds: Vec<String>,
    options: Options,
    state: Mutex<State>,
}

struct State {
    topology: Topology,
    conns: HashMap<String, MultiplexedConnection>,
}

impl Client {
    /// Connects to a server or a cluster node, with the default [`Options`].
    pub async fn connect<T: IntoConnectionInfo>(seed: T) -> Result<Client> {
        Client::connect_with(seed, Options::default()).await
    }

    /// Connects to `seed`; the cluster's other nodes get the seed's settings.
    pub async fn connect_with<T: IntoConnectionInfo>(seed: T, options: Options) -> Result<Client> {
        let template = seed.into_connection_info()?;
        let node = node_name(&template);
        let client = Client {
            inner: Arc::new(Inner {
                seeds: vec![node.clone()],
                options,
                template,
                state: Mutex::new(State {
                    topology: Topology::Single(node.clone()),
                    conns: HashMap::new(),
                }),
            }),
        };
        let mut con = client.conn(&node).await?;
        let reply = con.send_packed_command(&cluster_slots().cmd).await?;
        client.state().topology = topology_of(&reply, &node)?;
        Ok(client)
    }

    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Whether the server is a cluster (keys routed by slot) rather than one server.
    pub fn is_cluster(&self) -> bool {
        matches!(self.state().topology, Topology::Cluster { .. })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().expect("no panic holds it")
    }

    async fn conn(&self, node: &str) -> redis::RedisResult<MultiplexedConnection> {
        if let Some(con) = self.state().conns.get(node) {
            return Ok(con.clone());
        }
        let options = &self.inner.options;
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(options.connect_timeout))
            .set_response_timeout(options.response_timeout);
        let client = redis::Client::open(node_info(&self.inner.template, node))?;
        let con = client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        self.state().conns.insert(node.to_string(), con.clone());
        Ok(con)
    }

    fn forget(&self, node: &str) {
        self.state().conns.remove(node);
    }

    /// Reads the slot map again from the first node that answers.
    async fn refresh(&self) {
        let nodes = {
            let state = self.state();
            if let Topology::Single(_) = state.topology {
                return;
            }
            let mut nodes = state.topology.nodes();
            nodes.extend(self.inner.seeds.iter().cloned());
            nodes
        };
        for node in nodes {
            let reply = match self.conn(&node).await {
                Ok(mut con) => con.send_packed_command(&cluster_slots().cmd).await,
                Err(e) => Err(e),
            };
            match reply.map(|r| Topology::from_cluster_slots(&r, &node)) {
                Ok(Some(t)) => {
                    self.state().topology = t;
                    return;
                }
                _ => self.forget(&node),
            }
        }
    }

    /// Every command to an outcome.
    pub(crate) async fn run(&self, cmds: &[Command]) -> Vec<Outcome> {
        let mut dispatch = Dispatch::new(cmds.len(), self.inner.options.retry_timeout);
        loop {
            let groups = dispatch.groups(cmds, &self.state().topology);
            let exchanged = join_all(groups.iter().map(|g| self.exchange(g, cmds))).await;
            {
                let mut state = self.state();
                for (group, results) in groups.iter().zip(exchanged) {
                    for ((i, _), got) in group.entries.iter().zip(results) {
                        let policy = cmds[*i].policy;
                        dispatch.absorb(*i, policy, &group.node, got, &mut state.topology);
                    }
                }
            }
            match dispatch.next() {
                Next::Done(outcomes) => return outcomes,
                Next::Again { refresh, pause } => {
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    if refresh {
                        self.refresh().await;
                    }
                }
            }
        }
    }

    /// One node's share of a round: each command's reply or failure, in order.
    async fn exchange(&self, group: &Group, cmds: &[Command]) -> Vec<Exchanged> {
        let con = match self.conn(&group.node).await {
            Ok(con) => con,
            Err(e) => {
                return group
                    .entries
                    .iter()
                    .map(|_| Exchanged::NotSent(e.to_string()))
                    .collect()
            }
        };
        let requests = group.entries.iter().map(|&(i, asking)| {
            let mut con = con.clone();
            let cmd = &cmds[i].cmd;
            async move {
                if asking {
                    // ASKING's reply is skipped (offset 1): the command's is its own.
                    let mut pipe = redis::pipe();
                    pipe.cmd("ASKING").add_command(cmd.clone());
                    let mut replies = con.send_packed_commands(&pipe, 1, 1).await?;
                    Ok(replies.pop().unwrap_or(Value::Nil))
                } else {
                    con.send_packed_command(cmd).await
                }
            }
        });
        let replies: Vec<redis::RedisResult<Value>> = join_all(requests).await;
        if replies.iter().any(|r| r.is_err()) {
            self.forget(&group.node);
        }
        replies
            .into_iter()
            .map(|r| match r {
                Ok(v) => Exchanged::Reply(v),
                Err(e) => Exchanged::Lost(e.to_string()),
            })
            .collect()
    }

    /// Runs an operation to its answer.
    pub(crate) async fn drive<O: Op>(&self, mut op: O) -> Result<O::Output> {
        let mut step = op.start(self.inner.options.retry_timeout);
        loop {
            match step {
                Step::Done(result) => return result,
                Step::Run { commands, pause } => {
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    let outcomes = self.run(&commands).await;
                    step = op.feed(outcomes);
                }
            }
        }
    }
}
