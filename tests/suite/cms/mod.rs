//! The Count-Min Sketch family: CMS.* commands on RedisBloom's `CMSk-TYPE`, checked against
//! the RedisBloom vectors of `tests/vectors/redisbloom-cms/`.

mod commands;
mod hostile_restore;
mod persistence;
mod redisbloom_load;
mod redisbloom_replay;
mod replication;
