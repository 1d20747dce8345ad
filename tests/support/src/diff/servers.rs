//! The two servers: RedisBloom (`rb`) and rsbloom creating RedisBloom's formats (`rs`), on the
//! same server binary, on free loopback ports; both are `Server`s, so they are stopped when
//! dropped, also on a panic.
//!
//! By default `rb` is Redis 7.4.1 with RedisBloom 2.8.2 (`target/servers/redis-7.4`).
//! `DIFF_RB_SERVER` and `DIFF_RB_MODULE` point it at another build (a RedisBloom 8.2.3 on
//! Redis 8.2.3, say), with `DIFF_RB_LD_LIBRARY_PATH` if that server needs one; rsbloom then
//! runs on that server binary too.

use crate::{Installed, Server, ServerOpts};
use std::path::PathBuf;

/// What the rb side runs.
#[derive(Clone, Debug)]
pub struct Sides {
    pub server: Installed,
    pub module: PathBuf,
}

impl Sides {
    /// From the environment (see the module docs), else Redis 7.4.1 + RedisBloom 2.8.2.
    pub fn from_env() -> Sides {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        match (var("DIFF_RB_SERVER"), var("DIFF_RB_MODULE")) {
            (Some(server), Some(module)) => Sides {
                server: Installed {
                    name: "custom".into(),
                    server: PathBuf::from(server),
                    cli: PathBuf::from("redis-cli"),
                    ld_library_path: var("DIFF_RB_LD_LIBRARY_PATH").unwrap_or_default(),
                },
                module: PathBuf::from(module),
            },
            (None, None) => Sides {
                server: Installed::get("redis-7.4"),
                module: Installed::redisbloom_module(),
            },
            _ => panic!("set both DIFF_RB_SERVER and DIFF_RB_MODULE, or neither"),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "{} + {}",
            self.server.server.display(),
            self.module.display()
        )
    }

    pub fn start_rb(&self) -> Server {
        Server::start_with(ServerOpts {
            module_file: Some(self.module.clone()),
            ..quick_crash(ServerOpts::default().on(&self.server))
        })
    }

    pub fn start_rs(&self) -> Server {
        Server::start_with(ServerOpts {
            module_args: vec!["new-filter-format".into(), "redisbloom".into()],
            ..quick_crash(ServerOpts::default().on(&self.server))
        })
    }
}

/// Without the memory test a crashed server runs (which takes half a minute), so a crash of
/// RedisBloom costs a restart and no more.
fn quick_crash(mut opts: ServerOpts) -> ServerOpts {
    opts.server_args
        .extend(["--crash-memcheck-enabled".to_string(), "no".to_string()]);
    opts
}
