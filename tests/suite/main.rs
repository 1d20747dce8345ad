//! The integration tests of the root crate, one module per area, built as one test binary
//! (`cargo test --test suite`; one module: `cargo test --test suite acl::`). Most start real
//! `redis-server` processes with the freshly built module (`target/release/librsbloom.so`);
//! the `core_*` modules test the core against the vectors without a server. The fixture and
//! the oracles are the crate `rsbloom-test-support` (`tests/support/`), imported as `common`.

mod acl;
mod bad_args;
mod batches;
mod cf_config;
mod cf_hostile;
mod cf_load;
mod cf_replay;
mod cf_replication;
mod cluster;
mod commands;
mod config;
mod core_cuckoo;
mod core_guava;
mod core_redisbloom;
mod durability;
mod errors;
mod false_positives;
mod guava_parity;
mod guava_transfer;
mod hostile_loadchunk;
mod hostile_redisbloom;
mod hostile_restore;
mod info;
mod limits;
mod name_clash;
mod notifications;
mod persistence;
mod redisbloom_compat;
mod redisbloom_live;
mod redisbloom_replication;
mod replication;
mod replication_faults;
mod resp3;
mod scaling;
mod slot_migration;
