//! Faults for single servers: the process id, `kill -9`, waiting for a server to be gone,
//! attaching a replica by hand, and running helper programs (`redis-cli`) with a time limit.
//!
//! Everything here talks to servers the test started itself (through `Server`), by port or by
//! the process id the server reports about itself.

use super::{info_field, Server};
use redis::Connection;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The process id a server reports in `INFO server` (the id of the `redis-server` we spawned).
pub fn server_pid(con: &mut Connection) -> u32 {
    info_field(con, "server", "process_id")
        .expect("INFO server has process_id")
        .parse()
        .expect("process_id is a number")
}

/// A connection, or the reason there is none (for polling loops that must not panic).
pub fn try_conn(server: &Server) -> Result<Connection, String> {
    let client = redis::Client::open(server.url()).map_err(|e| e.to_string())?;
    let con = client
        .get_connection_with_timeout(Duration::from_secs(2))
        .map_err(|e| e.to_string())?;
    con.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    Ok(con)
}

/// Send SIGKILL to one process, by its id.
pub fn kill9(pid: u32) {
    let status = Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -9 {pid} failed: {status}");
}

/// Send a signal (`STOP`, `CONT`, ...) to one process, by its id.
pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid} failed: {status}");
}

/// True while something accepts connections on the loopback port.
pub fn port_answers(port: u16) -> bool {
    address_answers("127.0.0.1", port)
}

/// True while something accepts connections at `host:port`.
pub fn address_answers(host: &str, port: u16) -> bool {
    let Ok(ip) = host.parse::<std::net::IpAddr>() else {
        return false;
    };
    std::net::TcpStream::connect_timeout(
        &std::net::SocketAddr::new(ip, port),
        Duration::from_millis(300),
    )
    .is_ok()
}

/// Wait until nothing listens on the loopback port any more (the killed server is gone).
pub fn wait_port_closed(port: u16, timeout: Duration) {
    wait_address_closed("127.0.0.1", port, timeout)
}

/// [`wait_port_closed`] at `host:port`.
pub fn wait_address_closed(host: &str, port: u16, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while address_answers(host, port) {
        assert!(
            Instant::now() < deadline,
            "{host}:{port} still answers {timeout:?} after the kill"
        );
        sleep(Duration::from_millis(20));
    }
}

/// Kill a server the hard way (SIGKILL, no chance to flush or save) and wait until it is gone.
/// The `Server` value stays; `restart` then starts a new process on the same directory.
pub fn crash(server: &Server) {
    let pid = server_pid(&mut server.conn());
    kill9(pid);
    wait_port_closed(server.port, Duration::from_secs(30));
}

/// Poll `cond` every 50 ms until it holds; panics with `what()` after the timeout.
pub fn wait_until<F, W>(timeout: Duration, mut cond: F, what: W)
where
    F: FnMut() -> bool,
    W: Fn() -> String,
{
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return;
        }
        if Instant::now() > deadline {
            panic!("timed out after {timeout:?}: {}", what());
        }
        sleep(Duration::from_millis(50));
    }
}

/// An `INFO <section>` field parsed as an integer (panics when missing).
pub fn info_int(con: &mut Connection, section: &str, name: &str) -> i64 {
    info_field(con, section, name)
        .unwrap_or_else(|| panic!("INFO {section} has no {name}"))
        .parse()
        .unwrap_or_else(|e| panic!("INFO {section} {name}: {e}"))
}

/// Make `replica` (a running standalone server) a replica of `primary` with `REPLICAOF`, and
/// wait (up to `timeout`) until its link is up.
pub fn attach_replica(primary: &Server, replica: &Server, timeout: Duration) {
    let mut p = primary.conn();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("repl-diskless-sync-delay")
        .arg("0")
        .query(&mut p)
        .expect("CONFIG SET repl-diskless-sync-delay");
    let mut r = replica.conn();
    let _: () = redis::cmd("REPLICAOF")
        .arg("127.0.0.1")
        .arg(primary.port)
        .query(&mut r)
        .expect("REPLICAOF");
    wait_link_up(replica, timeout);
}

/// Wait until a replica reports `master_link_status:up`.
pub fn wait_link_up(replica: &Server, timeout: Duration) {
    let mut r = replica.conn();
    let deadline = Instant::now() + timeout;
    loop {
        let info = super::info_section(&mut r, "replication");
        if info.contains("master_link_status:up") {
            return;
        }
        if Instant::now() > deadline {
            panic!(
                "replica on {} never linked up within {timeout:?}; INFO:\n{info}\nlog:\n{}",
                replica.port,
                replica.log_text()
            );
        }
        sleep(Duration::from_millis(50));
    }
}

/// What a helper program did: whether it exited with 0, and its stdout and stderr together.
pub struct Ran {
    pub ok: bool,
    pub output: String,
}

/// Run a program with a time limit, its output going to a file in `dir` (no pipe to fill up);
/// killed (by its own id) when it runs over the limit.
pub fn run_with_timeout(program: &str, args: &[String], dir: &Path, timeout: Duration) -> Ran {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Named by the program's file name: a full path joined to `dir` would replace it.
    let name = Path::new(program)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".to_string());
    let out_path = dir.join(format!("{name}-{n}.out"));
    let out = fs::File::create(&out_path).expect("create output file");
    let err = out.try_clone().expect("clone output file");
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let output = fs::read_to_string(&out_path).unwrap_or_default();
    match status {
        Some(s) => Ran {
            ok: s.success(),
            output,
        },
        None => Ran {
            ok: false,
            output: format!(
                "{program} {} ran over {timeout:?} and was killed; output:\n{output}",
                args.join(" ")
            ),
        },
    }
}

/// The last `n` lines of a text (for failure messages).
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A log text in Valkey's words: Valkey 8 and later write "primary" ("Primary", "PRIMARY")
/// in its replication log lines where Redis writes "master"; the events are the same.
pub fn valkey_words(redis_text: &str) -> String {
    redis_text
        .replace("master", "primary")
        .replace("Master", "Primary")
        .replace("MASTER", "PRIMARY")
}

/// How many times a replication log line given in Redis's words shows in `log`, in the words
/// of whichever server wrote it (see [`valkey_words`]).
pub fn log_count(log: &str, redis_text: &str) -> usize {
    let valkey = valkey_words(redis_text);
    let n = log.matches(redis_text).count();
    if valkey == redis_text {
        n
    } else {
        n + log.matches(valkey.as_str()).count()
    }
}
