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

/// Runs pytest from the workspace root with redis-py and pytest from `target/redis-py/site`,
/// these variables and arguments; prints its output, fails unless it passed, returns it.
fn pytest(vars: &[(&str, String)], args: &[&str]) -> String {
    let root = workspace_root();
    let site = root.join("target/redis-py/site");
    assert!(
        site.join("redis").is_dir() && site.join("pytest").is_dir(),
        "redis-py and pytest are not installed in {}: run `make deps` (tools/redis-py.sh)",
        site.display()
    );
    let out = Command::new("python3")
        .current_dir(&root)
        .env("PYTHONPATH", &site)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COLUMNS", "200")
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .args(["-m", "pytest"])
        .args(args)
        .args(["-q", "-p", "no:cacheprovider", "-rs"])
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    println!("{text}");
    assert!(out.status.success(), "pytest failed (its output is above)");
    text
}

#[test]
fn python_client_tests_pass_on_a_server_and_a_cluster() {
    let server = Server::start();
    let cluster = Cluster::start();
    let seed = cluster.masters()[0].port;
    let text = pytest(
        &[
            ("RSBLOOM_TEST_NODE", format!("127.0.0.1:{}", server.port)),
            ("RSBLOOM_TEST_CLUSTER", format!("127.0.0.1:{seed}")),
            ("RSBLOOM_TEST_PIP", "1".to_string()),
        ],
        &[
            "clients/python/tests",
            "--ignore",
            "clients/python/tests/test_partition.py",
        ],
    );
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
    let cluster = Cluster::start_opts(&ClusterOpts {
        netns: true,
        ..ClusterOpts::default()
    });
    let hosts: Vec<String> = cluster
        .live_ports()
        .iter()
        .map(|&p| {
            let h = cluster.host_of(p);
            format!("{}={}", h.ip, h.ns)
        })
        .collect();
    let text = pytest(
        &[
            (
                "RSBLOOM_TEST_NETNS_CLUSTER",
                cluster.address(cluster.masters()[0].port),
            ),
            ("RSBLOOM_TEST_NETNS_HOSTS", hosts.join(",")),
            ("RSBLOOM_TEST_NETNS_CLIENT", cluster.client_ip()),
        ],
        &["clients/python/tests/test_partition.py", "-s"],
    );
    assert!(
        text.lines().any(|l| l.contains("1 passed")) && !text.contains("skipped"),
        "the partition test did not run"
    );
    drop(cluster);
}
