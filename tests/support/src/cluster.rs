//! A real Redis Cluster for the tests: six `redis-server` processes with the module (three
//! masters, three replicas), or three masters only (`ClusterOpts::masters_only`), on free
//! loopback ports, created with `redis-cli --cluster create`, and stopped (every process
//! killed and reaped, every directory removed) when the `Cluster` is dropped, also when a test
//! panics. The nodes run `$REDIS_SERVER` and the cluster is created with `$REDIS_CLI`, or a
//! given installed server and its cli (`ClusterOpts::installed`).
//!
//! Each node runs in its own temporary directory `<dir>` with
//! `--cluster-enabled yes --cluster-config-file nodes.conf` (Redis resolves it in `--dir`, so
//! the file is `<dir>/nodes.conf`; `start` checks that), `--cluster-node-timeout 2000`, an
//! explicit `--cluster-port` (a second free port: the default port + 10000 may be over 65535
//! for the kernel's ephemeral ports) and the fixture's usual `--save ""`,
//! `--enable-debug-command yes`.
//!
//! With `ClusterOpts::netns`, each node runs in a network namespace of its own
//! ([`super::netns`]), so that [`Cluster::cut_off`] can cut one off with a real partition.
//!
//! Only one cluster runs at a time in a test binary (a lock held by the `Cluster`): six
//! servers per test are plenty for a two-core machine, and a starved node may miss the
//! 2 s node timeout and be failed over by its peers.

use super::faults::{
    kill9, run_with_timeout, server_pid, tail, try_conn, wait_address_closed, Ran,
};
use super::netns::{Host, Network};
use super::{info_section, Installed, Server, ServerOpts, TempDir};
use redis::cluster::{ClusterClient, ClusterConnection};
use redis::Connection;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Number of hash slots of Redis Cluster.
pub const SLOTS: u16 = 16384;
/// Cluster node timeout given to every node, in milliseconds.
pub const NODE_TIMEOUT_MS: u64 = 2000;
/// How long the cluster may take to be ready after creation or a topology change.
pub const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Time limit of one `redis-cli --cluster` run (a reshard of thousands of slots included).
pub const CLI_TIMEOUT: Duration = Duration::from_secs(600);

/// Slot-owning masters as (port, slot ranges), sorted by port.
type SlotOwners = Vec<(u16, Vec<(u16, u16)>)>;

static ONE_CLUSTER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// One line of `CLUSTER NODES`.
#[derive(Clone, Debug)]
pub struct NodeView {
    pub id: String,
    pub port: u16,
    pub flags: Vec<String>,
    /// The master's id for a replica.
    pub master_id: Option<String>,
    pub link: String,
    /// Slot ranges owned (inclusive); importing/migrating markers are left out.
    pub slots: Vec<(u16, u16)>,
}

impl NodeView {
    pub fn is_master(&self) -> bool {
        self.flags.iter().any(|f| f == "master")
    }

    pub fn is_failed(&self) -> bool {
        self.flags.iter().any(|f| f == "fail" || f == "fail?")
    }

    pub fn owns(&self, slot: u16) -> bool {
        self.slots.iter().any(|&(a, b)| a <= slot && slot <= b)
    }

    pub fn slot_count(&self) -> usize {
        self.slots.iter().map(|&(a, b)| (b - a) as usize + 1).sum()
    }
}

/// Parse the text of `CLUSTER NODES`.
pub fn parse_nodes(text: &str) -> Vec<NodeView> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(f.len() >= 8, "short CLUSTER NODES line: {line}");
        let addr = f[1].split('@').next().unwrap_or("");
        let port: u16 = addr
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in CLUSTER NODES line: {line}"));
        let mut slots = Vec::new();
        for s in &f[8..] {
            if s.starts_with('[') {
                continue;
            }
            let (a, b) = match s.split_once('-') {
                Some((a, b)) => (a.parse().expect("slot"), b.parse().expect("slot")),
                None => {
                    let one: u16 = s.parse().expect("slot");
                    (one, one)
                }
            };
            slots.push((a, b));
        }
        out.push(NodeView {
            id: f[0].to_string(),
            port,
            flags: f[2].split(',').map(str::to_string).collect(),
            master_id: (f[3] != "-").then(|| f[3].to_string()),
            link: f[7].to_string(),
            slots,
        });
    }
    out.sort_by_key(|n| n.port);
    out
}

/// The hash slot of a key, as Redis Cluster computes it (CRC16 of the key or its hash tag);
/// this is the client crate's own function, checked against `CLUSTER KEYSLOT` in the tests.
pub fn key_slot(key: &[u8]) -> u16 {
    redis::cluster_routing::get_slot(key)
}

/// How a cluster is made.
#[derive(Clone, Default)]
pub struct ClusterOpts {
    /// Extra server arguments for every node.
    pub server_args: Vec<String>,
    /// Run this installed server, and create the cluster with its cli, instead of
    /// `$REDIS_SERVER` and `$REDIS_CLI`.
    pub installed: Option<Installed>,
    /// Three masters and no replicas (else one replica per master).
    pub masters_only: bool,
    /// Each node in a network namespace of its own (needs CAP_NET_ADMIN).
    pub netns: bool,
}

/// Six nodes (or three masters) forming one cluster. Dropping it kills every node.
pub struct Cluster {
    nodes: Vec<Server>,
    dead: HashSet<u16>,
    work: TempDir,
    cli: String,
    /// The nodes' namespaces (`ClusterOpts::netns`); dropped after the nodes.
    network: Option<Network>,
    /// The peers each cut-off node is cut from (by port), for `heal`.
    cuts: HashMap<u16, Vec<String>>,
    _one_at_a_time: MutexGuard<'static, ()>,
}

impl Cluster {
    /// Start six nodes, create the cluster (3 masters, 1 replica each) and wait until it is
    /// ready. Panics (after stopping everything) when any step fails.
    pub fn start() -> Cluster {
        Cluster::start_with(&[])
    }

    /// Like `start`, with extra server arguments for every node.
    pub fn start_with(extra: &[&str]) -> Cluster {
        Cluster::start_opts(&ClusterOpts {
            server_args: extra.iter().map(|s| s.to_string()).collect(),
            ..ClusterOpts::default()
        })
    }

    /// Start the nodes `opts` asks for, create the cluster (3 masters, with or without one
    /// replica each) and wait until it is ready.
    pub fn start_opts(opts: &ClusterOpts) -> Cluster {
        let guard = ONE_CLUSTER_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut cluster = Cluster {
            nodes: Vec::new(),
            dead: HashSet::new(),
            work: TempDir::new(),
            cli: match &opts.installed {
                Some(i) => i.cli.display().to_string(),
                None => crate::cli_program(),
            },
            network: None,
            cuts: HashMap::new(),
            _one_at_a_time: guard,
        };
        let (count, replicas) = if opts.masters_only {
            (3, "0")
        } else {
            (6, "1")
        };
        if opts.netns {
            cluster.network = Some(Network::new(count));
        }
        for i in 0..count {
            let host = cluster.network.as_ref().map(|n| n.hosts()[i].clone());
            cluster.nodes.push(start_node(opts, host));
        }
        for node in &cluster.nodes {
            assert!(
                node.dir().join("nodes.conf").is_file(),
                "node {} has no {}/nodes.conf",
                node.port,
                node.dir().display()
            );
        }
        let mut args = vec!["--cluster".to_string(), "create".to_string()];
        args.extend(
            cluster
                .nodes
                .iter()
                .map(|n| format!("{}:{}", n.host, n.port)),
        );
        args.extend(
            ["--cluster-replicas", replicas, "--cluster-yes"]
                .iter()
                .map(|s| s.to_string()),
        );
        let ran = cluster.cli(&args);
        assert!(ran.ok, "redis-cli --cluster create failed:\n{}", ran.output);
        cluster.wait_ready(READY_TIMEOUT);
        let view = cluster.view();
        let masters = view.iter().filter(|n| n.is_master()).count();
        assert_eq!(masters, 3, "expected 3 masters: {view:#?}");
        cluster
    }

    /// Run `redis-cli` with these arguments (time limit `CLI_TIMEOUT`).
    pub fn cli(&self, args: &[String]) -> Ran {
        run_with_timeout(&self.cli, args, self.work.path(), CLI_TIMEOUT)
    }

    /// Every node's server (killed ones too).
    pub fn servers(&self) -> &[Server] {
        &self.nodes
    }

    /// Ports of the nodes that were not killed.
    pub fn live_ports(&self) -> Vec<u16> {
        self.nodes
            .iter()
            .map(|n| n.port)
            .filter(|p| !self.dead.contains(p))
            .collect()
    }

    pub fn server(&self, port: u16) -> &Server {
        self.nodes
            .iter()
            .find(|n| n.port == port)
            .unwrap_or_else(|| panic!("no node on port {port}"))
    }

    /// `host:port` of a node.
    pub fn address(&self, port: u16) -> String {
        format!("{}:{port}", self.server(port).host)
    }

    /// The namespace and address of a node (`ClusterOpts::netns`).
    pub fn host_of(&self, port: u16) -> Host {
        let ip = &self.server(port).host;
        let network = self.network.as_ref().expect("a cluster started with netns");
        network
            .hosts()
            .iter()
            .find(|h| &h.ip == ip)
            .cloned()
            .unwrap_or_else(|| panic!("no namespace for node {port}"))
    }

    /// The address the clients' connections come from (`ClusterOpts::netns`).
    pub fn client_ip(&self) -> String {
        let network = self.network.as_ref().expect("a cluster started with netns");
        network.client_ip()
    }

    /// Cut the node at `port` off from every other node, and from the clients unless
    /// `clients_keep_it`: a real partition, the node alone in its minority (with the clients
    /// on its side when they keep it). `heal` ends it.
    pub fn cut_off(&mut self, port: u16, clients_keep_it: bool) {
        let host = self.host_of(port);
        let mut peers: Vec<String> = self
            .nodes
            .iter()
            .filter(|n| n.port != port)
            .map(|n| n.host.clone())
            .collect();
        if !clients_keep_it {
            peers.push(self.client_ip());
        }
        self.network.as_ref().expect("netns").cut(&host, &peers);
        self.cuts.insert(port, peers);
    }

    /// End the partition `cut_off` made for this node.
    pub fn heal(&mut self, port: u16) {
        let host = self.host_of(port);
        if let Some(peers) = self.cuts.remove(&port) {
            self.network.as_ref().expect("netns").heal(&host, &peers);
        }
    }

    /// A direct (not cluster-aware) connection to one node.
    pub fn conn(&self, port: u16) -> Connection {
        self.server(port).conn()
    }

    /// A cluster-aware connection (the `redis` crate's cluster client) seeded with every
    /// live node, in RESP2.
    pub fn client(&self) -> ClusterConnection {
        self.client_with(false)
    }

    /// [`Cluster::client`] in RESP3 (`HELLO 3` on each node's connection) when `resp3`.
    pub fn client_with(&self, resp3: bool) -> ClusterConnection {
        let seeds: Vec<String> = self
            .live_ports()
            .iter()
            .map(|&p| self.server(p).url())
            .collect();
        let protocol = match resp3 {
            true => redis::ProtocolVersion::RESP3,
            false => redis::ProtocolVersion::RESP2,
        };
        let client = ClusterClient::builder(seeds)
            .connection_timeout(Duration::from_secs(5))
            .use_protocol(protocol)
            .build()
            .expect("cluster client");
        let con = client.get_connection().expect("cluster connection");
        con.set_read_timeout(Some(Duration::from_secs(120)))
            .expect("read timeout");
        con
    }

    /// `CLUSTER NODES` as seen by one node.
    pub fn view_from(&self, port: u16) -> Vec<NodeView> {
        let text: String = redis::cmd("CLUSTER")
            .arg("NODES")
            .query(&mut self.conn(port))
            .expect("CLUSTER NODES");
        parse_nodes(&text)
    }

    /// `CLUSTER NODES` as seen by the first live node.
    pub fn view(&self) -> Vec<NodeView> {
        self.view_from(self.live_ports()[0])
    }

    /// The masters that own slots, by port.
    pub fn masters(&self) -> Vec<NodeView> {
        self.view()
            .into_iter()
            .filter(|n| n.is_master() && !n.slots.is_empty() && !n.is_failed())
            .collect()
    }

    /// The (live) replica of a master.
    pub fn replica_of(&self, master_id: &str) -> NodeView {
        self.view()
            .into_iter()
            .find(|n| n.master_id.as_deref() == Some(master_id) && !n.is_failed())
            .unwrap_or_else(|| panic!("master {master_id} has no live replica"))
    }

    /// The port of the master that owns a key's slot (from a fresh `CLUSTER NODES`).
    pub fn owner(&self, key: &[u8]) -> u16 {
        let slot = key_slot(key);
        self.masters()
            .into_iter()
            .find(|n| n.owns(slot))
            .unwrap_or_else(|| panic!("no master owns slot {slot}"))
            .port
    }

    /// Kill one node with SIGKILL (its process id from `INFO server`) and wait until it is
    /// gone. The process is reaped when the cluster is dropped.
    pub fn kill9(&mut self, port: u16) {
        let pid = self.pid(port);
        kill9(pid);
        wait_address_closed(&self.server(port).host, port, Duration::from_secs(30));
        self.dead.insert(port);
    }

    /// The process id of a live node (from `INFO server`).
    pub fn pid(&self, port: u16) -> u32 {
        server_pid(&mut self.conn(port))
    }

    /// `redis-cli --cluster reshard` moving `slots` slots from the masters `from` (ids) to the
    /// master `to`; waits until the cluster is ready again and `--cluster check` is clean.
    pub fn reshard(&self, from: &[&str], to: &str, slots: usize) -> Ran {
        let args: Vec<String> = [
            "--cluster",
            "reshard",
            &self.address(self.live_ports()[0]),
            "--cluster-from",
            &from.join(","),
            "--cluster-to",
            to,
            "--cluster-slots",
            &slots.to_string(),
            "--cluster-yes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let ran = self.cli(&args);
        assert!(
            ran.ok,
            "redis-cli --cluster reshard failed:\n{}",
            tail(&ran.output, 60)
        );
        self.wait_ready(READY_TIMEOUT);
        let check = self.check();
        assert!(
            check.ok
                && check.output.contains("[OK] All 16384 slots covered.")
                && !check.output.contains("[WARNING]")
                && !check.output.contains("[ERR]"),
            "redis-cli --cluster check after the reshard:\n{}",
            check.output
        );
        ran
    }

    /// `redis-cli --cluster check` against the first live node.
    pub fn check(&self) -> Ran {
        self.cli(&[
            "--cluster".to_string(),
            "check".to_string(),
            self.address(self.live_ports()[0]),
        ])
    }

    /// What is missing for the cluster to be ready, as seen by every live node: `None` when
    /// every live node says `cluster_state:ok` with all 16384 slots assigned and ok, the same
    /// three slot-owning masters, and every replica of a live master has its link up.
    pub fn not_ready(&self) -> Option<String> {
        let live = self.live_ports();
        let mut owners: Option<SlotOwners> = None;
        for &port in &live {
            let mut con = match try_conn(self.server(port)) {
                Ok(c) => c,
                Err(e) => return Some(format!("node {port}: {e}")),
            };
            let info: String = match redis::cmd("CLUSTER").arg("INFO").query(&mut con) {
                Ok(i) => i,
                Err(e) => return Some(format!("node {port}: CLUSTER INFO: {e}")),
            };
            for want in [
                "cluster_state:ok",
                "cluster_slots_assigned:16384",
                "cluster_slots_ok:16384",
            ] {
                if !info.lines().any(|l| l.trim() == want) {
                    return Some(format!("node {port}: no {want} in\n{info}"));
                }
            }
            let view = match redis::cmd("CLUSTER").arg("NODES").query::<String>(&mut con) {
                Ok(t) => parse_nodes(&t),
                Err(e) => return Some(format!("node {port}: CLUSTER NODES: {e}")),
            };
            let mut masters: SlotOwners = view
                .iter()
                .filter(|n| n.is_master() && !n.slots.is_empty())
                .map(|n| (n.port, n.slots.clone()))
                .collect();
            masters.sort();
            if view.len() != self.nodes.len() {
                return Some(format!("node {port} knows {} nodes", view.len()));
            }
            // Every live node is a master with slots or a replica (a node that was created
            // to be a replica but was not told yet shows as a master without slots).
            if let Some(n) = view.iter().find(|n| {
                live.contains(&n.port)
                    && n.master_id.is_none()
                    && (n.slots.is_empty() || !n.is_master())
            }) {
                return Some(format!(
                    "node {port} sees {} neither master nor replica: {n:?}",
                    n.port
                ));
            }
            if masters.iter().any(|(p, _)| !live.contains(p)) {
                return Some(format!(
                    "node {port} still sees a dead master owning slots: {view:?}"
                ));
            }
            match &owners {
                None => owners = Some(masters),
                Some(o) if *o != masters => {
                    return Some(format!(
                        "nodes disagree on slot owners: {o:?} vs {masters:?} (from {port})"
                    ))
                }
                _ => {}
            }
            let me = view.iter().find(|n| n.port == port);
            if let Some(me) = me {
                if !me.is_master() {
                    let repl = info_section(&mut con, "replication");
                    if !repl.contains("master_link_status:up") {
                        return Some(format!("replica {port}: link not up:\n{repl}"));
                    }
                }
            }
        }
        None
    }

    /// Wait until `not_ready` says nothing; panics with the last reason after the timeout.
    pub fn wait_ready(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            match self.not_ready() {
                None => return,
                Some(why) if Instant::now() > deadline => {
                    panic!("cluster not ready after {timeout:?}: {why}")
                }
                Some(_) => sleep(Duration::from_millis(100)),
            }
        }
    }

    /// A picture of the cluster for failure messages: each node's view and log tail.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for node in &self.nodes {
            let state = if self.dead.contains(&node.port) {
                "killed by the test"
            } else {
                "live"
            };
            out.push_str(&format!(
                "=== node {} ({state}) log tail:\n{}\n",
                node.port,
                tail(&node.log_text(), 25)
            ));
        }
        if let Some(&p) = self.live_ports().first() {
            if let Ok(mut c) = try_conn(self.server(p)) {
                if let Ok(t) = redis::cmd("CLUSTER").arg("NODES").query::<String>(&mut c) {
                    out.push_str(&format!("=== CLUSTER NODES from {p}:\n{t}\n"));
                }
            }
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("cluster at the failure:\n{}", self.describe());
        }
        // The nodes are killed (and reaped) as `self.nodes` drops, before the lock is freed.
        self.nodes.clear();
    }
}

/// Start one cluster node: its own directory, a free port and a free cluster-bus port.
fn start_node(opts: &ClusterOpts, host: Option<Host>) -> Server {
    let mut last = String::new();
    for _ in 0..5 {
        let bus = super::free_port();
        let mut args: Vec<String> = [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            &NODE_TIMEOUT_MS.to_string(),
            "--cluster-port",
            &bus.to_string(),
            "--repl-diskless-sync-delay",
            "0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(opts.server_args.iter().cloned());
        let server_opts = ServerOpts {
            server_args: args,
            installed: opts.installed.clone(),
            host: host.clone(),
            ..ServerOpts::default()
        };
        match Server::try_start(server_opts) {
            Ok(server) => return server,
            Err(e) => last = e,
        }
    }
    panic!("could not start a cluster node:\n{last}")
}
