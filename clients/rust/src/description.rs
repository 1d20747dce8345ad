//! The description of a logical filter: a hash at the key `name` (docs/sharding.md, "The
//! description"; spec-44 adds `id`, `routing`, `routing_secret`), and the layout a client
//! derives from it.

use std::fmt;

use rsbloom_core::shard::keyed::RoutingSecret;
use rsbloom_core::shard::layout::{shard_keys, shard_of_slot, MAX_SHARDS};

use crate::error::{Error, Result};
use crate::routing::Routing;
use crate::PROTOCOL;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FamilyName {
    Bloom,
    Cuckoo,
}

impl FamilyName {
    /// The description's `family` value.
    pub fn as_str(self) -> &'static str {
        match self {
            FamilyName::Bloom => "bloom",
            FamilyName::Cuckoo => "cuckoo",
        }
    }

    /// The command prefix, `BF` or `CF`.
    pub fn prefix(self) -> &'static str {
        match self {
            FamilyName::Bloom => "BF",
            FamilyName::Cuckoo => "CF",
        }
    }
}

impl fmt::Display for FamilyName {
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
    /// The creation id (32 lowercase hex); `None` for a filter made by an older client.
    pub id: Option<String>,
    pub routing: Routing,
}

impl Description {
    pub fn family(&self) -> FamilyName {
        match self.params {
            Params::Bloom { .. } => FamilyName::Bloom,
            Params::Cuckoo { .. } => FamilyName::Cuckoo,
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
        if let Some(id) = &self.id {
            fields.push(("id", id.clone()));
        }
        if let Routing::Keyed(secret) = &self.routing {
            fields.push(("routing", "keyed".into()));
            fields.push(("routing_secret", secret.to_hex()));
        }
        fields
    }

    /// A description from the hash's fields (`name` for the errors); `None` fields: no
    /// description there.
    pub fn from_fields(name: &str, map: &[(String, String)]) -> Result<Description> {
        let get = |f: &str| map.iter().find(|(n, _)| n == f).map(|(_, v)| v.as_str());
        if map.is_empty() {
            return Err(Error::NotFound(name.to_string()));
        }
        match get("protocol") {
            Some(PROTOCOL) => {}
            found => {
                return Err(Error::Protocol {
                    name: name.to_string(),
                    protocol: found.unwrap_or_default().to_string(),
                })
            }
        }
        let field = |f: &'static str| -> Result<&str> {
            get(f).ok_or_else(|| Error::Description {
                name: name.to_string(),
                field: f,
            })
        };
        fn parse<T: std::str::FromStr>(name: &str, f: &'static str, v: &str) -> Result<T> {
            v.parse().map_err(|_| Error::Description {
                name: name.to_string(),
                field: f,
            })
        }
        let num = |f: &'static str| -> Result<u64> { parse(name, f, field(f)?) };
        let small = |f: &'static str| -> Result<u32> { parse(name, f, field(f)?) };
        let params = match get("family") {
            Some("bloom") => Params::Bloom {
                error_rate: parse(name, "error_rate", field("error_rate")?)?,
                expansion: small("expansion")?,
            },
            Some("cuckoo") => Params::Cuckoo {
                bucket_size: small("bucket_size")?,
                max_iterations: small("max_iterations")?,
                expansion: small("expansion")?,
            },
            _ => {
                return Err(Error::Description {
                    name: name.to_string(),
                    field: "family",
                })
            }
        };
        let shards = small("shards")?;
        if !(1..=MAX_SHARDS).contains(&shards) {
            return Err(Error::Description {
                name: name.to_string(),
                field: "shards",
            });
        }
        let routing = match get("routing") {
            None | Some("slot") => Routing::Slot,
            Some("keyed") => Routing::Keyed(
                get("routing_secret")
                    .filter(|s| s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
                    .and_then(|s| RoutingSecret::from_hex(s.as_bytes()))
                    .ok_or_else(|| Error::Description {
                        name: name.to_string(),
                        field: "routing_secret",
                    })?,
            ),
            Some(other) => {
                return Err(Error::Protocol {
                    name: name.to_string(),
                    protocol: format!("{PROTOCOL} with routing '{other}'"),
                })
            }
        };
        Ok(Description {
            shards,
            capacity: num("capacity")?,
            shard_capacity: num("shard_capacity")?,
            params,
            id: get("id").map(str::to_string),
            routing,
        })
    }
}

/// A logical filter as a client holds it: its name, description and shard keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub name: Vec<u8>,
    pub description: Description,
    pub keys: Vec<Vec<u8>>,
}

impl Layout {
    pub fn new(name: &[u8], description: Description) -> Layout {
        Layout {
            keys: shard_keys(name, description.shards),
            name: name.to_vec(),
            description,
        }
    }

    pub fn name_text(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// The shard that holds `item`.
    pub fn shard_of(&self, item: &[u8]) -> usize {
        shard_of_slot(self.description.routing.slot(item), self.description.shards) as usize
    }

    /// What `HMGET name id shards` answers while this description stands.
    pub fn check(&self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        (
            self.description.id.as_ref().map(|i| i.as_bytes().to_vec()),
            Some(self.description.shards.to_string().into_bytes()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(fields: Vec<(&'static str, String)>) -> Vec<(String, String)> {
        fields
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect()
    }

    #[test]
    fn a_description_reads_back_as_written() {
        let d = Description {
            shards: 16,
            capacity: 1000,
            shard_capacity: 100,
            params: Params::Cuckoo {
                bucket_size: 2,
                max_iterations: 20,
                expansion: 1,
            },
            id: Some("0123456789abcdef0123456789abcdef".into()),
            routing: Routing::keyed([7; 16]),
        };
        assert_eq!(Description::from_fields("f", &own(d.fields())), Ok(d));
    }

    #[test]
    fn an_old_description_has_no_id_and_unknown_routings_are_refused() {
        let mut fields = own(vec![
            ("protocol", PROTOCOL.into()),
            ("family", "bloom".into()),
            ("shards", "3".into()),
            ("capacity", "10".into()),
            ("shard_capacity", "9".into()),
            ("error_rate", "0.01".into()),
            ("expansion", "2".into()),
        ]);
        let d = Description::from_fields("f", &fields).unwrap();
        assert_eq!((d.id, d.routing), (None, Routing::Slot));
        fields.push(("routing".into(), "sideways".into()));
        assert!(matches!(
            Description::from_fields("f", &fields),
            Err(Error::Protocol { .. })
        ));
        assert_eq!(
            Description::from_fields("f", &[]),
            Err(Error::NotFound("f".into()))
        );
    }
}
