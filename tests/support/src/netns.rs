//! Hosts of a private network for the tests that cut one node off from the others: each node
//! gets a network namespace of its own, joined to the test by a veth pair on a bridge, so a
//! partition is a real one (packets dropped by the kernel, nothing answers, nothing resets)
//! rather than a proxy's. Made with `ip` (iproute2); needs CAP_NET_ADMIN (root here and in
//! CI). Everything is named after the test process, and removed when the `Network` drops,
//! also when a test panics.
//!
//! Addresses: 10.213.N.1, 10.213.N.2, ... for the hosts, 10.213.N.254 for the bridge in the
//! test's own namespace (the clients' side), where N comes from the process id. They exist
//! only on these interfaces: nothing outside this machine can reach them, and they reach
//! nothing outside.
//!
//! A cut is a blackhole route on each side: the cut host drops what it would send to the
//! peers it is cut from, and each peer drops what it would send to it. Healing deletes them.

use std::process::Command;

/// One host of the network: its namespace and address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub ns: String,
    pub ip: String,
}

/// The bridge, the namespaces and their veth pairs. Dropping it deletes them all.
pub struct Network {
    bridge: String,
    subnet: String,
    hosts: Vec<Host>,
}

/// Run `ip` with these arguments; `Err` with its output when it fails.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Network {
    /// A bridge and `count` hosts on it. Panics (after removing what was made) when the
    /// machine cannot make namespaces.
    pub fn new(count: usize) -> Network {
        let id = std::process::id() % 100_000;
        let mut net = Network {
            bridge: format!("rsb{id}br"),
            subnet: format!("10.213.{}", id % 250),
            hosts: Vec::new(),
        };
        // A namespace left by an earlier process with the same id would make `add` fail.
        net.remove();
        if let Err(e) = net.build(count) {
            panic!("network namespaces: {e}");
        }
        net
    }

    fn build(&mut self, count: usize) -> Result<(), String> {
        let bridge = self.bridge.clone();
        ip(&["link", "add", &bridge, "type", "bridge"])?;
        ip(&[
            "addr",
            "add",
            &format!("{}.254/24", self.subnet),
            "dev",
            &bridge,
        ])?;
        ip(&["link", "set", &bridge, "up"])?;
        for i in 0..count {
            let host = Host {
                ns: format!("{bridge}{i}"),
                ip: format!("{}.{}", self.subnet, i + 1),
            };
            let outer = format!("{bridge}v{i}");
            ip(&["netns", "add", &host.ns])?;
            self.hosts.push(host.clone());
            ip(&[
                "link", "add", &outer, "type", "veth", "peer", "name", "eth0", "netns", &host.ns,
            ])?;
            ip(&["link", "set", &outer, "master", &bridge, "up"])?;
            let inside = |args: &[&str]| {
                let mut all = vec!["-n", host.ns.as_str()];
                all.extend_from_slice(args);
                ip(&all)
            };
            inside(&["addr", "add", &format!("{}/24", host.ip), "dev", "eth0"])?;
            inside(&["link", "set", "eth0", "up"])?;
            inside(&["link", "set", "lo", "up"])?;
        }
        Ok(())
    }

    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The address of the test's own side of the bridge (where clients connect from).
    pub fn client_ip(&self) -> String {
        format!("{}.254", self.subnet)
    }

    /// Cut `host` off from each of `peers` (addresses; the client side's too, to cut it off
    /// from the clients), both ways.
    pub fn cut(&self, host: &Host, peers: &[String]) {
        for peer in peers {
            route(&host.ns, "add", peer);
            if let Some(other) = self.hosts.iter().find(|h| &h.ip == peer) {
                route(&other.ns, "add", &host.ip);
            }
        }
    }

    /// Undo [`Network::cut`] for the same peers.
    pub fn heal(&self, host: &Host, peers: &[String]) {
        for peer in peers {
            route(&host.ns, "del", peer);
            if let Some(other) = self.hosts.iter().find(|h| &h.ip == peer) {
                route(&other.ns, "del", &host.ip);
            }
        }
    }

    fn remove(&mut self) {
        // `ip netns del` takes each namespace's end of its veth pair, and so the pair.
        for i in 0..16 {
            let _ = ip(&["netns", "del", &format!("{}{i}", self.bridge)]);
        }
        let _ = ip(&["link", "del", &self.bridge]);
        self.hosts.clear();
    }
}

/// `ip -n ns route <verb> blackhole <to>/32`; panics when it fails (a cut that did not
/// happen would make the test pass for the wrong reason).
fn route(ns: &str, verb: &str, to: &str) {
    let target = format!("{to}/32");
    if let Err(e) = ip(&["-n", ns, "route", verb, "blackhole", &target]) {
        panic!("{e}");
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        self.remove();
    }
}
