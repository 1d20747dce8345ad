//! The description of a logical filter: a hash at the key `name` (docs/sharding.md, "The
//! description"), created only when the key does not exist, read by whoever opens the
//! filter by name.

use std::collections::HashMap;
use std::fmt;

use redis::{Cmd, Value};

use crate::error::{Error, Result};
use crate::transport::Transport;
use crate::PROTOCOL;

/// Creates the hash at KEYS[1] from ARGV's field/value pairs unless the key exists (0).
const CREATE: &str = "if redis.call('exists', KEYS[1]) == 1 then return 0 end \
redis.call('hset', KEYS[1], unpack(ARGV)) return 1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Bloom,
    Cuckoo,
}

impl Family {
    /// The description's `family` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Bloom => "bloom",
            Family::Cuckoo => "cuckoo",
        }
    }

    /// The command prefix, `BF` or `CF`.
    pub fn prefix(self) -> &'static str {
        match self {
            Family::Bloom => "BF",
            Family::Cuckoo => "CF",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What each shard was reserved with, per family.
#[derive(Clone, Debug, PartialEq)]
pub enum Params {
    /// `expansion` 0 is a non-scaling filter.
    Bloom { error_rate: f64, expansion: u32 },
    Cuckoo {
        bucket_size: u32,
        max_iterations: u32,
        expansion: u32,
    },
}

/// A logical filter's description.
#[derive(Clone, Debug, PartialEq)]
pub struct Description {
    pub shards: u32,
    /// The logical capacity asked for.
    pub capacity: u64,
    /// The capacity each shard was reserved with.
    pub shard_capacity: u64,
    pub params: Params,
}

impl Description {
    pub fn family(&self) -> Family {
        match self.params {
            Params::Bloom { .. } => Family::Bloom,
            Params::Cuckoo { .. } => Family::Cuckoo,
        }
    }

    /// The hash's fields and values, in the protocol's order.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = vec![
            ("protocol", PROTOCOL.to_string()),
            ("family", self.family().as_str().to_string()),
            ("shards", self.shards.to_string()),
            ("capacity", self.capacity.to_string()),
            ("shard_capacity", self.shard_capacity.to_string()),
        ];
        match self.params {
            Params::Bloom {
                error_rate,
                expansion,
            } => {
                // Rust's shortest round-trip form, the same text BF.RESERVE is sent.
                fields.push(("error_rate", error_rate.to_string()));
                fields.push(("expansion", expansion.to_string()));
            }
            Params::Cuckoo {
                bucket_size,
                max_iterations,
                expansion,
            } => {
                fields.push(("bucket_size", bucket_size.to_string()));
                fields.push(("max_iterations", max_iterations.to_string()));
                fields.push(("expansion", expansion.to_string()));
            }
        }
        fields
    }

    /// Reads the description of `name`; refuses an unknown protocol.
    pub fn read<C: Transport + ?Sized>(con: &mut C, name: &[u8]) -> Result<Description> {
        let reply = con
            .connection()
            .req_command(redis::cmd("HGETALL").arg(name))?;
        let text = String::from_utf8_lossy(name).into_owned();
        let map: HashMap<String, String> = match reply.extract_error()? {
            Value::Nil => HashMap::new(),
            v => redis::from_owned_redis_value(v).map_err(|e| Error::Reply {
                command: format!("HGETALL {text}"),
                detail: e.to_string(),
            })?,
        };
        if map.is_empty() {
            return Err(Error::NotFound(text));
        }
        Description::from_fields(&text, &map)
    }

    /// A description from the hash's fields (`name` for the errors).
    pub fn from_fields(name: &str, map: &HashMap<String, String>) -> Result<Description> {
        match map.get("protocol") {
            Some(p) if p == PROTOCOL => {}
            found => {
                return Err(Error::Protocol {
                    name: name.to_string(),
                    protocol: found.cloned().unwrap_or_default(),
                })
            }
        }
        fn field<T: std::str::FromStr>(
            name: &str,
            map: &HashMap<String, String>,
            field: &'static str,
        ) -> Result<T> {
            map.get(field)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| Error::Description {
                    name: name.to_string(),
                    field,
                })
        }
        let params = match map.get("family").map(String::as_str) {
            Some("bloom") => Params::Bloom {
                error_rate: field(name, map, "error_rate")?,
                expansion: field(name, map, "expansion")?,
            },
            Some("cuckoo") => Params::Cuckoo {
                bucket_size: field(name, map, "bucket_size")?,
                max_iterations: field(name, map, "max_iterations")?,
                expansion: field(name, map, "expansion")?,
            },
            _ => {
                return Err(Error::Description {
                    name: name.to_string(),
                    field: "family",
                })
            }
        };
        let shards: u32 = field(name, map, "shards")?;
        if !(1..=rsbloom_core::shard::layout::MAX_SHARDS).contains(&shards) {
            return Err(Error::Description {
                name: name.to_string(),
                field: "shards",
            });
        }
        Ok(Description {
            shards,
            capacity: field(name, map, "capacity")?,
            shard_capacity: field(name, map, "shard_capacity")?,
            params,
        })
    }

    /// Creates the hash at `name` unless the key exists (then [`Error::Exists`]).
    pub fn create<C: Transport + ?Sized>(&self, con: &mut C, name: &[u8]) -> Result<()> {
        let mut cmd = create_cmd(name);
        for (field, value) in self.fields() {
            cmd.arg(field).arg(value);
        }
        let made: i64 =
            redis::from_owned_redis_value(con.connection().req_command(&cmd)?.extract_error()?)?;
        if made == 1 {
            Ok(())
        } else {
            Err(Error::Exists(String::from_utf8_lossy(name).into_owned()))
        }
    }
}

/// `EVAL <CREATE> 1 name`, the pairs to follow.
fn create_cmd(name: &[u8]) -> Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(CREATE).arg(1).arg(name);
    cmd
}
