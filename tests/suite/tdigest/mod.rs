//! The t-digest family: TDIGEST.* commands on RedisBloom's `TDIS-TYPE` type, checked against
//! the RedisBloom vectors of `tests/vectors/redisbloom-tdigest/`.

mod acl;
mod hostile_restore;
mod memory;
mod numbers;
mod persistence;
mod redisbloom_load;
mod redisbloom_replay;
mod redisbloom_states;
mod redisbloom_transfer;
