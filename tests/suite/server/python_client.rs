//! The Python client (`clients/python`, issue 38) tested against real servers: its pytest
//! suite runs with `RSBLOOM_TEST_NODE` naming one server and `RSBLOOM_TEST_CLUSTER` one node
//! of a cluster of 3 masters and 3 replicas, both started here (Python starts no server).
//! redis-py and pytest come from `target/redis-py/site` (`make deps`); `RSBLOOM_TEST_PIP`
//! also has it check `pip install ./clients/python` (setuptools comes from the package index
//! through pip's build isolation). Every test must run: none may skip.

use std::process::Command;

use rsbloom_test_support as common;

use common::cluster::{Cluster, ClusterOpts};
use common::*;

#[test]
fn python_client_tests_pass_on_a_server_and_a_cluster() {
    let root = workspace_root();
    let site = root.join("target/redis-py/site");
    assert!(
        site.join("redis").is_dir() && site.join("pytest").is_dir(),
        "redis-py and pytest are not installed in {}: run `make deps` (tools/redis-py.sh)",
        site.display()
    );
    let server = Server::start();
    let cluster = Cluster::start();
    let seed = cluster.masters()[0].port;
    let out = Command::new("python3")
        .current_dir(&root)
        .env("PYTHONPATH", &site)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COLUMNS", "200")
        .env("RSBLOOM_TEST_NODE", format!("127.0.0.1:{}", server.port))
        .env("RSBLOOM_TEST_CLUSTER", format!("127.0.0.1:{seed}"))
        .env("RSBLOOM_TEST_PIP", "1")
        .args(["-m", "pytest", "clients/python/tests", "-q"])
        .args(["--ignore", "clients/python/tests/test_partition.py"])
        .args(["-p", "no:cacheprovider", "-rs"])
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    println!("{text}");
    assert!(out.status.success(), "pytest failed (its output is above)");
    let summary = text
        .lines()
        .rev()
        .find(|l| l.contains(" passed"))
        .expect("a pytest summary line");
    assert!(
        !summary.contains("skipped"),
        "tests were skipped: {summary}"
    );
    drop(cluster);
}

/// clients/python/tests/test_partition.py, alone, on a cluster whose nodes each run in a
/// network namespace of their own (so the nemesis can cut a master off for real).
#[test]
fn python_client_keeps_every_acknowledged_item_through_real_partitions() {
    let root = workspace_root();
    let cluster = Cluster::start_opts(&ClusterOpts {
        netns: true,
        ..ClusterOpts::default()
    });
    let ports = cluster.live_ports();
    let hosts: Vec<String> = ports
        .iter()
        .map(|&p| {
            let h = cluster.host_of(p);
            format!("{}={}", h.ip, h.ns)
        })
        .collect();
    let out = Command::new("python3")
        .current_dir(&root)
        .env("PYTHONPATH", root.join("target/redis-py/site"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COLUMNS", "200")
        .env(
            "RSBLOOM_TEST_NETNS_CLUSTER",
            cluster.address(cluster.masters()[0].port),
        )
        .env("RSBLOOM_TEST_NETNS_HOSTS", hosts.join(","))
        .env("RSBLOOM_TEST_NETNS_CLIENT", cluster.client_ip())
        .args([
            "-m",
            "pytest",
            "clients/python/tests/test_partition.py",
            "-q",
            "-s",
        ])
        .args(["-p", "no:cacheprovider", "-rs"])
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    println!("{text}");
    assert!(out.status.success(), "pytest failed (its output is above)");
    assert!(
        text.lines().any(|l| l.contains("1 passed")) && !text.contains("skipped"),
        "the partition test did not run"
    );
    drop(cluster);
}
