//! The blocking client: one `redis::Connection` per node, the commands for a node written as
//! one pipeline (every node written before any is read), each reply read and judged on its
//! own (see `dispatch`), so a connection that fails mid-pipeline tells exactly which
//! commands' replies were lost. Nothing goes through a redis-rs retry loop.

use std::collections::HashMap;
use std::thread::sleep;
use std::time::Duration;

use redis::{ConnectionAddr, ConnectionInfo, ConnectionLike, IntoConnectionInfo, Value};

use crate::command::{Command, Outcome, Policy, ASKING};
use crate::dispatch::{Dispatch, Exchanged, Group, Next};
use crate::error::{Error, Result};
use crate::ops::{Op, Step};
use crate::topology::Topology;

/// How long the clients keep trying, and how long they wait for one reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// How long a command is retried through redirections, failovers and lost replies
    /// (once-only commands excepted), and a misplaced write rerun (default 20 s).
    pub retry_timeout: Duration,
    /// How long a reply may take before the connection counts as failed (default 10 s;
    /// `None`: forever).
    pub response_timeout: Option<Duration>,
    /// How long connecting to a node may take (default 2 s).
    pub connect_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            retry_timeout: Duration::from_secs(20),
            response_timeout: Some(Duration::from_secs(10)),
            connect_timeout: Duration::from_secs(2),
        }
    }
}

/// `host:port` of a connection's address.
pub(crate) fn node_name(info: &ConnectionInfo) -> String {
    match info.addr() {
        ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port}"),
        other => format!("{other}"),
    }
}

/// The seed's settings (protocol, credentials, TLS) for the node `host:port`.
pub(crate) fn node_info(template: &ConnectionInfo, node: &str) -> ConnectionInfo {
    let Some((host, port)) = node.rsplit_once(':') else {
        return template.clone();
    };
    let Ok(port) = port.parse() else {
        return template.clone();
    };
    let addr = match template.addr().clone() {
        ConnectionAddr::TcpTls {
            insecure,
            tls_params,
            ..
        } => ConnectionAddr::TcpTls {
            host: host.to_string(),
            port,
            insecure,
            tls_params,
        },
        ConnectionAddr::Tcp(..) => ConnectionAddr::Tcp(host.to_string(), port),
        other => other, // a unix socket: one server
    };
    template.clone().set_addr(addr)
}

/// The topology `CLUSTER SLOTS` describes, or one server when the command is refused (a
/// server without cluster support).
pub(crate) fn topology_of(reply: &Value, node: &str) -> Result<Topology> {
    if let Value::ServerError(_) = reply {
        return Ok(Topology::Single(node.to_string()));
    }
    Topology::from_cluster_slots(reply, node).ok_or_else(|| Error::Reply {
        command: "CLUSTER SLOTS".into(),
        detail: format!("{reply:?}"),
    })
}

pub(crate) fn cluster_slots() -> Command {
    Command::new("CLUSTER", b"SLOTS", Policy::Safe)
}

/// A blocking connection to one server or a whole cluster, for
/// [`ShardedBloom`](crate::ShardedBloom) and [`ShardedCuckoo`](crate::ShardedCuckoo).
pub struct Client {
    template: ConnectionInfo,
    seeds: Vec<String>,
    topology: Topology,
    conns: HashMap<String, redis::Connection>,
    options: Options,
}

impl Client {
    /// Connects to a server or a cluster node (`redis://host:port/`, with
    /// `?protocol=resp3` for RESP3), with the default [`Options`].
    pub fn connect<T: IntoConnectionInfo>(seed: T) -> Result<Client> {
        Client::connect_with(seed, Options::default())
    }

    /// Connects to `seed`; the cluster's other nodes get the seed's settings.
    pub fn connect_with<T: IntoConnectionInfo>(seed: T, options: Options) -> Result<Client> {
        let template = seed.into_connection_info()?;
        let node = node_name(&template);
        let mut client = Client {
            seeds: vec![node.clone()],
            topology: Topology::Single(node.clone()),
            conns: HashMap::new(),
            template,
            options,
        };
        let mut packed = Vec::new();
        cluster_slots().pack_into(&mut packed);
        let reply = client.conn(&node)?.req_packed_command(&packed)?;
        client.topology = topology_of(&reply, &node)?;
        Ok(client)
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn set_options(&mut self, options: Options) {
        self.options = options;
    }

    /// Whether the server is a cluster (keys routed by slot) rather than one server.
    pub fn is_cluster(&self) -> bool {
        matches!(self.topology, Topology::Cluster { .. })
    }

    fn conn(&mut self, node: &str) -> redis::RedisResult<&mut redis::Connection> {
        if !self.conns.contains_key(node) {
            let client = redis::Client::open(node_info(&self.template, node))?;
            let con = client.get_connection_with_timeout(self.options.connect_timeout)?;
            con.set_read_timeout(self.options.response_timeout)?;
            con.set_write_timeout(self.options.response_timeout)?;
            self.conns.insert(node.to_string(), con);
        }
        Ok(self.conns.get_mut(node).expect("just made"))
    }

    /// Reads the slot map again from the first node that answers.
    fn refresh(&mut self) {
        if let Topology::Single(_) = self.topology {
            return;
        }
        let mut packed = Vec::new();
        cluster_slots().pack_into(&mut packed);
        let mut nodes = self.topology.nodes();
        nodes.extend(self.seeds.iter().cloned());
        for node in nodes {
            let reply = match self.conn(&node) {
                Ok(con) => con.req_packed_command(&packed),
                Err(e) => Err(e),
            };
            match reply.map(|r| Topology::from_cluster_slots(&r, &node)) {
                Ok(Some(t)) => {
                    self.topology = t;
                    return;
                }
                _ => {
                    self.conns.remove(&node);
                }
            }
        }
    }

    /// Every command to an outcome.
    pub(crate) fn run(&mut self, cmds: &[Command]) -> Vec<Outcome> {
        let mut dispatch = Dispatch::new(cmds.len(), self.options.retry_timeout);
        loop {
            let groups = dispatch.groups(cmds, &self.topology);
            self.exchange(&groups, cmds, &mut dispatch);
            match dispatch.next() {
                Next::Done(outcomes) => return outcomes,
                Next::Again { refresh, pause } => {
                    sleep(pause);
                    if refresh {
                        self.refresh();
                    }
                }
            }
        }
    }

    /// One round: every node's pipeline written, then every reply read.
    fn exchange(&mut self, groups: &[Group], cmds: &[Command], dispatch: &mut Dispatch) {
        let mut written = Vec::with_capacity(groups.len());
        for group in groups {
            let mut packed = Vec::new();
            for &(i, asking) in &group.entries {
                if asking {
                    packed.extend_from_slice(ASKING);
                }
                cmds[i].pack_into(&mut packed);
            }
            let sent = match self.conn(&group.node) {
                Err(e) => Err(Exchanged::NotSent(e.to_string())),
                Ok(con) => con
                    .send_packed_command(&packed)
                    .map_err(|e| Exchanged::Lost(e.to_string())),
            };
            match sent {
                Ok(()) => written.push(group),
                Err(failed) => {
                    self.conns.remove(&group.node);
                    let text = match &failed {
                        Exchanged::NotSent(t) | Exchanged::Lost(t) => t.clone(),
                        Exchanged::Reply(_) => unreachable!(),
                    };
                    let not_sent = matches!(failed, Exchanged::NotSent(_));
                    for &(i, _) in &group.entries {
                        let got = match not_sent {
                            true => Exchanged::NotSent(text.clone()),
                            false => Exchanged::Lost(text.clone()),
                        };
                        dispatch.absorb(i, cmds[i].policy, &group.node, got, &mut self.topology);
                    }
                }
            }
        }
        for group in written {
            let mut con = self.conns.remove(&group.node).expect("written to");
            let mut broken = None;
            for &(i, asking) in &group.entries {
                let got = match &broken {
                    Some(e) => Exchanged::Lost(format!("{e}")),
                    None => {
                        // ASKING's own reply is read and dropped: an error there shows in
                        // the command's reply, which is still this command's.
                        let reply = match asking {
                            true => recv(&mut con).and_then(|_| recv(&mut con)),
                            false => recv(&mut con),
                        };
                        match reply {
                            Ok(v) => Exchanged::Reply(v),
                            Err(e) => {
                                let got = Exchanged::Lost(e.to_string());
                                broken = Some(e);
                                got
                            }
                        }
                    }
                };
                dispatch.absorb(i, cmds[i].policy, &group.node, got, &mut self.topology);
            }
            if broken.is_none() {
                self.conns.insert(group.node.clone(), con);
            }
        }
    }

    /// Runs an operation to its answer.
    pub(crate) fn drive<O: Op>(&mut self, mut op: O) -> Result<O::Output> {
        let mut step = op.start(self.options.retry_timeout);
        loop {
            match step {
                Step::Done(result) => return result,
                Step::Run { commands, pause } => {
                    sleep(pause);
                    let outcomes = self.run(&commands);
                    step = op.feed(outcomes);
                }
            }
        }
    }
}

/// The next reply; RESP3 pushes are not replies.
fn recv(con: &mut redis::Connection) -> redis::RedisResult<Value> {
    loop {
        match con.recv_response()? {
            Value::Push { .. } => continue,
            v => return Ok(v),
        }
    }
}
