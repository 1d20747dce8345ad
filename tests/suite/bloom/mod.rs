//! The Bloom family: BF.* commands on the native `RSbloom--` type and RedisBloom's
//! `MBbloom--` type (`redisbloom_*`, `hostile_redisbloom`), with Guava's files (`guava_*`).

mod acl;
mod bad_args;
mod batches;
mod commands;
mod config;
mod dialect;
mod errors;
mod false_positives;
mod guava_parity;
mod guava_transfer;
mod hostile_loadchunk;
mod hostile_redisbloom;
mod hostile_restore;
mod limits;
mod load_limits;
mod merge;
mod notifications;
mod persistence;
mod redisbloom_load;
mod redisbloom_replication;
mod redisbloom_states;
mod replication;
mod resp3;
mod scaling;
mod valkey;
mod valkey_dialect;
