//! The server's side rather than one family's: both families' ACL categories (`acl`),
//! RedisBloom 8's config names as configs and load arguments (`redisbloom8_configs`), the
//! COMMAND DOCS and command tips against RedisBloom's (`command_docs`), the
//! sketches' AOF rewrite as RESTORE in every database (`aof_restore`), redis-py's own tests
//! (`redis_py`), the Python client's own tests on a server and a cluster (`python_client`), a
//! cluster (reshard, failover), kill -9 with writes in flight, replication faults, Valkey 9's
//! slot migration, migrations to and from RedisBloom, a module name another module already
//! holds, the module's INFO sections with active defragmentation (`info`), the
//! differential fuzzer against the live RedisBloom (`redisbloom_diff`) and the states it
//! generates on RedisBloom loaded here (`redisbloom_states`). `name_clash`,
//! `redisbloom_live`, `redisbloom_states`, `redisbloom_diff`, `slot_migration` and
//! `info::active_defragmentation_*` start particular servers whatever `$REDIS_SERVER` says
//! (`PINNED` in the Makefile).
//! The Node.js client's own tests run on a server and a cluster too (`node_client`).

mod acl;
mod aof_restore;
mod cluster;
mod command_docs;
mod double_replies;
mod durability;
mod info;
mod name_clash;
mod node_client;
mod python_client;
mod redis_py;
mod redisbloom8;
mod redisbloom8_configs;
mod redisbloom_diff;
mod redisbloom_live;
mod redisbloom_states;
mod replication_faults;
mod slot_migration;
mod window_time;
mod window_verbatim;
