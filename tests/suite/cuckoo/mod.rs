//! The cuckoo family: CF.* commands on RedisBloom's `MBbloomCF` type, checked against the
//! RedisBloom vectors of `tests/vectors/redisbloom-cf/`.

mod config;
mod hostile_redisbloom;
mod redisbloom_load;
mod redisbloom_replay;
mod replication;
