//! The integration tests of the root crate, built as one test binary (`cargo test --test
//! suite`). Nearly every test starts real `redis-server` processes with the freshly built module
//! (`target/release/librsbloom.so`). The fixture and the oracles are the crate
//! `rsbloom-test-support` (`tests/support/`), imported as `common`; the core's tests against
//! the vectors, which need no server, are in `core/tests/`.
//!
//! One folder per family, with the same file name for the same area in each (`errors`,
//! `config`, `replication`, `redisbloom_load`, ...), one for the server's side, and the docs:
//! - `bloom/`: the BF.* commands and the two Bloom types (`RSbloom--`, `MBbloom--`);
//! - `cuckoo/`: the CF.* commands and the cuckoo type;
//! - `cms/`, `topk/`, `tdigest/`: the sketches (CMS.*, TOPK.*, TDIGEST.*);
//! - `cbf/`, `apbf/`: rsbloom's counting Bloom (CBF.*) and sliding-window (APBF.*) filters;
//! - `sharding/`: shards of a logical filter (BF.* and CF.* with SHARD), their routing
//!   checks and their place through persistence, replicas and a cluster;
//! - `variants/`: KEYED and BLOCKED Bloom filters (rsbloom's own format), their options,
//!   configs and refusals, and their secret and layout through persistence and replicas;
//! - `server/`: what involves more than one server or server program, for every family:
//!   cluster, durability under kill -9, replication faults, slot migration, RedisBloom beside
//!   rsbloom, a clashing module name;
//! - `docs.rs`: no server; the README's and docs/'s links, error texts and config table
//!   against the files and the code.
//!
//! One area: `cargo test --test suite cuckoo::replication::`; one family: `bloom::`.

mod apbf;
mod bloom;
mod cbf;
mod cms;
mod cuckoo;
mod docs;
mod server;
mod sharding;
mod tdigest;
mod topk;
mod variants;
