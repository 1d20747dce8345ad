//! Loading rsbloom where another module named `bf` is already loaded (RedisBloom, as in
//! Redis 8's full distribution and Redis Stack; valkey-bloom in Valkey's bundles): the load
//! is refused, the server keeps serving the other module, and its log says in one line who
//! owns the name and what to do (the server itself only says "initialization failed").
//! Started on Redis 7.4.1 with RedisBloom 2.8.2 whatever `$REDIS_SERVER` is.

use rsbloom_test_support as common;

use common::{module_path, raw, Installed, Server, ServerOpts};
use redis::Value;

#[test]
fn a_busy_module_name_is_refused_with_a_clear_log_line() {
    let stack = Installed::get("redis-7.4");
    let opts = ServerOpts::server_args(&["--enable-module-command", "yes"]);
    let mut server = Server::start_with(opts.on(&stack).redisbloom());
    let mut con = server.conn();
    assert_eq!(raw(&mut con, &["BF.ADD", "k", "a"]), Value::Int(1));

    // A private copy: a loaded module file must not be overwritten by a later build.
    let ours = server.dir().join("librsbloom.so");
    std::fs::copy(module_path(), &ours).unwrap();
    let ours = ours.to_str().unwrap();
    let loaded: redis::RedisResult<Value> =
        redis::cmd("MODULE").arg("LOAD").arg(ours).query(&mut con);
    let err = loaded.expect_err("MODULE LOAD of rsbloom beside RedisBloom succeeded");
    assert!(
        err.to_string().contains("Error loading the extension"),
        "{err}"
    );
    server.assert_alive();
    // RedisBloom still answers, with its data.
    assert_eq!(raw(&mut con, &["BF.EXISTS", "k", "a"]), Value::Int(1));
    let log = server.log_text();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("rsbloom is not loaded"))
        .collect();
    assert_eq!(lines.len(), 1, "log:\n{log}");
    for want in [
        "another module named 'bf' is already loaded",
        "RedisBloom",
        "valkey-bloom",
        "remove the other module's loadmodule line",
    ] {
        assert!(
            lines[0].contains(want),
            "{want:?} missing from {:?}",
            lines[0]
        );
    }
}
