//! The Node.js client (`clients/node`, issue 45) tested against real servers: its `node --test`
//! suites run with `RSBLOOM_TEST_NODE` naming one server and `RSBLOOM_TEST_CLUSTER` one node
//! of a cluster of 3 masters and 3 replicas, both started here (the Node tests start no
//! server; its failover test kills a master with SIGKILL, which the cluster reaps when it
//! stops). node-redis, TypeScript and eslint come from `npm ci` in clients/node (`make deps`,
//! tools/node-client.sh); `npm run build` here makes dist/ fresh from src/. The cross-language
//! tests run the Python client from clients/python/src with redis-py from target/redis-py/site.
//! `RSBLOOM_TEST_NPM_INSTALL` has it also install the packed tarball into a fresh project.
//! Every test must run: none may skip.

use std::process::Command;
use std::time::Instant;

use rsbloom_test_support as common;

use common::cluster::Cluster;
use common::*;

/// The count a `node --test` summary line (`# pass 12`) gives, if the output has it.
fn summary(text: &str, field: &str) -> Option<u64> {
    let prefix = format!("# {field} ");
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix(&prefix).and_then(|n| n.trim().parse().ok()))
}

#[test]
fn node_client_tests_pass_on_a_server_and_a_cluster() {
    let root = workspace_root();
    let dir = root.join("clients/node");
    assert!(
        dir.join("node_modules/redis").is_dir() && dir.join("node_modules/typescript").is_dir(),
        "the Node client's npm dependencies are not installed in {}: run `make deps` \
         (tools/node-client.sh)",
        dir.display()
    );
    assert!(
        root.join("target/redis-py/site/redis").is_dir(),
        "redis-py is not installed in target/redis-py/site: run `make deps` (tools/redis-py.sh)"
    );
    let build = Command::new("npm")
        .current_dir(&dir)
        .args(["run", "--silent", "build"])
        .output()
        .expect("npm runs");
    assert!(
        build.status.success(),
        "npm run build failed:\n{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    let server = Server::start();
    let cluster = Cluster::start();
    let seed = cluster.masters()[0].port;
    let started = Instant::now();
    let out = Command::new("npm")
        .current_dir(&dir)
        .args(["test", "--silent"])
        .env("RSBLOOM_TEST_NODE", format!("127.0.0.1:{}", server.port))
        .env("RSBLOOM_TEST_CLUSTER", format!("127.0.0.1:{seed}"))
        .env("RSBLOOM_TEST_NPM_INSTALL", "1")
        .env("NODE_NO_WARNINGS", "1")
        .output()
        .expect("npm runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let failures: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("not ok "))
        .collect();
    println!("{text}");
    println!(
        "node --test took {:.1} s; failing: {failures:?}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        out.status.success(),
        "node --test failed (its output is above)"
    );
    let passed = summary(&text, "pass").expect("a node --test summary");
    assert!(passed > 0, "no test passed");
    for field in ["fail", "skipped", "todo", "cancelled"] {
        assert_eq!(
            summary(&text, field),
            Some(0),
            "node --test reports {field} (every test must run and pass)"
        );
    }
    drop(cluster);
}
