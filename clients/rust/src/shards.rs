//! What both families share: a logical filter's name, description and shard keys; reserving
//! and deleting the shards; splitting a batch by shard and putting the answers back in the
//! caller's order; each shard's place and size.

use redis::{Cmd, FromRedisValue, RedisResult, Value};
use rsbloom_core::shard::layout::{shard_keys, shard_of_item, slot_range};

use crate::description::{Description, Family};
use crate::error::{Error, Result};
use crate::nodes::SlotOwners;
use crate::transport::{Access, Transport};

/// A logical filter as a client holds it: nothing is cached but its layout.
#[derive(Clone, Debug)]
pub struct Shards {
    pub name: Vec<u8>,
    pub description: Description,
    pub keys: Vec<Vec<u8>>,
}

/// One shard's place and size, as `info` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: u32,
    pub key: Vec<u8>,
    /// The master holding the key (`host:port`); `None` when the server is not a cluster.
    pub node: Option<String>,
    /// The first and last slot the shard routes.
    pub slots: (u16, u16),
    /// `Number of items inserted` of BF.INFO / CF.INFO.
    pub items: u64,
    /// `Size` of BF.INFO / CF.INFO, in bytes.
    pub bytes: u64,
}

impl Shards {
    pub fn new(name: &[u8], description: Description) -> Shards {
        Shards {
            keys: shard_keys(name, description.shards),
            name: name.to_vec(),
            description,
        }
    }

    pub fn name_text(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// Opens `name`, refusing the other family.
    pub fn open<C: Transport + ?Sized>(con: &mut C, name: &[u8], family: Family) -> Result<Shards> {
        let description = Description::read(con, name)?;
        if description.family() != family {
            return Err(Error::Family {
                name: String::from_utf8_lossy(name).into_owned(),
                found: description.family().to_string(),
            });
        }
        Ok(Shards::new(name, description))
    }

    /// The description (refused if `name` exists), then every shard with `reserve(key, i)`.
    /// When a shard is refused, the shards made and the description are deleted again.
    pub fn reserve<C: Transport + ?Sized>(
        con: &mut C,
        name: &[u8],
        description: Description,
        reserve: impl Fn(&[u8], u32) -> Cmd,
    ) -> Result<Shards> {
        let shards = Shards::new(name, description);
        shards.description.create(con, name)?;
        let cmds: Vec<Cmd> = (0..shards.description.shards)
            .map(|i| {
                let mut cmd = reserve(&shards.keys[i as usize], i);
                cmd.arg("SHARD")
                    .arg(name)
                    .arg(i)
                    .arg(shards.description.shards);
                cmd
            })
            .collect();
        let replies = match con.batch(&cmds, Access::Write) {
            Ok(replies) => replies,
            Err(e) => {
                let _ = shards.delete(con);
                return Err(e.into());
            }
        };
        if let Some(refused) = replies.iter().position(|r| r.is_err()) {
            let made: Vec<&[u8]> = replies
                .iter()
                .zip(&shards.keys)
                .filter(|(r, _)| r.is_ok())
                .map(|(_, k)| k.as_slice())
                .chain([name])
                .collect();
            let _ = con.connection().req_command(redis::cmd("DEL").arg(made));
            let mut replies = replies;
            return Err(replies.swap_remove(refused).unwrap_err().into());
        }
        Ok(shards)
    }

    /// Groups `items` by shard (each group in the caller's order), sends `cmd(key)` plus the
    /// group's items per shard, and returns one answer per item in the caller's order.
    pub fn per_item<C, I, T>(
        &self,
        con: &mut C,
        items: &[I],
        access: Access,
        cmd: impl Fn(&[u8]) -> Cmd,
    ) -> Result<Vec<T>>
    where
        C: Transport + ?Sized,
        I: AsRef<[u8]>,
        T: FromRedisValue,
    {
        let count = self.description.shards;
        let mut groups: Vec<Vec<usize>> = vec![Vec::new(); count as usize];
        for (pos, item) in items.iter().enumerate() {
            groups[shard_of_item(item.as_ref(), count) as usize].push(pos);
        }
        let used: Vec<usize> = (0..groups.len())
            .filter(|&s| !groups[s].is_empty())
            .collect();
        let cmds: Vec<Cmd> = used
            .iter()
            .map(|&s| {
                let mut c = cmd(&self.keys[s]);
                for &pos in &groups[s] {
                    c.arg(items[pos].as_ref());
                }
                c
            })
            .collect();
        let replies = con.batch(&cmds, access)?;
        let mut answers: Vec<Option<T>> =
            std::iter::repeat_with(|| None).take(items.len()).collect();
        for ((&s, reply), c) in used.iter().zip(replies).zip(&cmds) {
            let got: Vec<T> = convert(c, reply.and_then(Value::extract_error))?;
            if got.len() != groups[s].len() {
                return Err(reply_error(
                    c,
                    format!("{} answers for {} items", got.len(), groups[s].len()),
                ));
            }
            for (&pos, answer) in groups[s].iter().zip(got) {
                answers[pos] = Some(answer);
            }
        }
        // Every position belongs to exactly one group, so every answer is there.
        Ok(answers.into_iter().flatten().collect())
    }

    /// One read command per shard, each reply converted.
    pub fn per_shard<C, T>(&self, con: &mut C, cmd: impl Fn(&[u8]) -> Cmd) -> Result<Vec<T>>
    where
        C: Transport + ?Sized,
        T: FromRedisValue,
    {
        let cmds: Vec<Cmd> = self.keys.iter().map(|k| cmd(k)).collect();
        let replies = con.batch(&cmds, Access::Read)?;
        replies
            .into_iter()
            .zip(&cmds)
            .map(|(reply, c)| convert(c, reply))
            .collect()
    }

    /// Every shard's `BF.INFO` / `CF.INFO` as name/value pairs.
    pub fn infos<C: Transport + ?Sized>(&self, con: &mut C) -> Result<Vec<Vec<(String, Value)>>> {
        let prefix = self.description.family().prefix();
        let cmds: Vec<Cmd> = self
            .keys
            .iter()
            .map(|k| {
                let mut c = redis::cmd(&format!("{prefix}.INFO"));
                c.arg(k);
                c
            })
            .collect();
        let replies = con.batch(&cmds, Access::Read)?;
        replies
            .into_iter()
            .zip(&cmds)
            .map(|(reply, c)| pairs(c, reply?))
            .collect()
    }

    /// Each shard's place, node, items and bytes.
    pub fn info<C: Transport + ?Sized>(&self, con: &mut C) -> Result<Vec<ShardInfo>> {
        let owners = SlotOwners::read(con)?;
        let infos = self.infos(con)?;
        let count = self.description.shards;
        let mut out = Vec::with_capacity(infos.len());
        for (i, (key, info)) in self.keys.iter().zip(infos).enumerate() {
            let number = |field: &str| -> Result<u64> {
                info.iter()
                    .find(|(n, _)| n == field)
                    .and_then(|(_, v)| u64::from_redis_value(v).ok())
                    .ok_or_else(|| Error::Reply {
                        command: format!("{}.INFO", self.description.family().prefix()),
                        detail: format!("no '{field}'"),
                    })
            };
            out.push(ShardInfo {
                index: i as u32,
                key: key.clone(),
                node: owners.as_ref().and_then(|o| o.node_of(key)),
                slots: slot_range(i as u32, count),
                items: number("Number of items inserted")?,
                bytes: number("Size")?,
            });
        }
        Ok(out)
    }

    /// `DEL` of every shard, then of the description; the number of keys deleted.
    pub fn delete<C: Transport + ?Sized>(&self, con: &mut C) -> Result<u64> {
        let cmds: Vec<Cmd> = self
            .keys
            .iter()
            .map(|k| {
                let mut c = redis::cmd("DEL");
                c.arg(k);
                c
            })
            .collect();
        let mut deleted = 0;
        for (reply, c) in con.batch(&cmds, Access::Write)?.into_iter().zip(&cmds) {
            deleted += convert::<u64>(c, reply)?;
        }
        let description = redis::cmd("DEL").arg(&self.name).clone();
        let reply = con.connection().req_command(&description);
        Ok(deleted + convert::<u64>(&description, reply.and_then(Value::extract_error))?)
    }
}

/// A reply as `T`, or the server's error, or [`Error::Reply`] naming the command.
pub fn convert<T: FromRedisValue>(cmd: &Cmd, reply: RedisResult<Value>) -> Result<T> {
    let value = reply?;
    T::from_owned_redis_value(value).map_err(|e| reply_error(cmd, e.to_string()))
}

pub fn reply_error(cmd: &Cmd, detail: String) -> Error {
    let name = cmd
        .args_iter()
        .next()
        .and_then(|a| match a {
            redis::Arg::Simple(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            redis::Arg::Cursor => None,
        })
        .unwrap_or_default();
    Error::Reply {
        command: name,
        detail,
    }
}

/// An INFO-style reply (RESP2 flat array or RESP3 map) as name/value pairs.
fn pairs(cmd: &Cmd, value: Value) -> Result<Vec<(String, Value)>> {
    let flat: Vec<(Value, Value)> = match value {
        Value::Map(map) => map,
        Value::Array(items) if items.len() % 2 == 0 => {
            let mut it = items.into_iter();
            std::iter::from_fn(|| Some((it.next()?, it.next()?))).collect()
        }
        other => return Err(reply_error(cmd, format!("{other:?}"))),
    };
    flat.into_iter()
        .map(|(n, v)| {
            Ok((
                String::from_redis_value(&n).map_err(|e| reply_error(cmd, e.to_string()))?,
                v,
            ))
        })
        .collect()
}
