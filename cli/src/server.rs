//! Talking to the server: connections (standalone or cluster), one SCANDUMP step, and the
//! temporary key a transfer is loaded into before it is renamed over the real key.

use std::time::{Duration, Instant};

use redis::ConnectionLike;

use crate::fail::{fail, Fail, Result};
use crate::family::Family;
use crate::payload;
use crate::slot::staging_key;

pub type Conn = Box<dyn ConnectionLike>;

/// Connects to `url` (auth and database in the URL); with `cluster`, to the cluster it
/// belongs to (keys are routed to their slot's node).
pub fn connect(url: &str, cluster: bool) -> Result<Conn> {
    let what = |e: redis::RedisError| Fail(format!("cannot connect to {url}: {e}"));
    if cluster {
        let client = redis::cluster::ClusterClient::new(vec![url]).map_err(what)?;
        Ok(Box::new(client.get_connection().map_err(what)?))
    } else {
        let client = redis::Client::open(url).map_err(what)?;
        let mut con = client.get_connection().map_err(what)?;
        redis::cmd("PING").query::<()>(&mut con).map_err(what)?;
        Ok(Box::new(con))
    }
}

/// The family of the filter at `key` (an error if it is none, or not a filter).
pub fn family_of(con: &mut Conn, key: &str) -> Result<Family> {
    let type_name: String = redis::cmd("TYPE").arg(key).query(con.as_mut())?;
    Family::of_type(key, &type_name)
}

/// `BF.SCANDUMP` / `CF.SCANDUMP key iter`: the next iterator and the bytes (none for the
/// cuckoo family's nil).
pub fn scandump(con: &mut Conn, family: Family, key: &str, iter: u64) -> Result<(u64, Vec<u8>)> {
    let cmd = format!("{}.SCANDUMP", family.prefix());
    let (next, data): (i64, Option<Vec<u8>>) = redis::cmd(&cmd)
        .arg(key)
        .arg(iter)
        .query(con.as_mut())
        .map_err(|e| Fail(format!("{cmd} {key} {iter}: {}", Fail::from(e))))?;
    if next < 0 {
        return fail(format!("{cmd} {key} answered a negative iterator"));
    }
    Ok((next as u64, data.unwrap_or_default()))
}

/// `DUMP key` without its footer (the body `payload::seal` makes portable again).
pub fn dump_body(con: &mut Conn, key: &str) -> Result<Vec<u8>> {
    let payload: Option<Vec<u8>> = redis::cmd("DUMP")
        .arg(key)
        .query(con.as_mut())
        .map_err(|e| Fail(format!("DUMP {key}: {}", Fail::from(e))))?;
    match payload {
        Some(p) => payload::unseal(key, p),
        None => fail(format!("key '{key}' does not exist")),
    }
}

/// `CF.DEBUG key`: one line of the filter's parameters and counters.
pub fn cuckoo_debug(con: &mut Conn, key: &str) -> Result<String> {
    redis::cmd("CF.DEBUG")
        .arg(key)
        .query(con.as_mut())
        .map_err(|e| Fail(format!("CF.DEBUG {key}: {}", Fail::from(e))))
}

pub fn exists(con: &mut Conn, key: &str) -> Result<bool> {
    Ok(redis::cmd("EXISTS").arg(key).query::<i64>(con.as_mut())? == 1)
}

/// The temporary key keeps a TTL while it is being filled, so an interrupted transfer
/// (killed process, lost connection) leaves nothing behind for long.
const STAGING_TTL_MS: u64 = 10 * 60 * 1000;
const TTL_REFRESH: Duration = Duration::from_secs(60);

/// Renames the temporary key over the target and drops the TTL, atomically; with
/// ARGV[1] = "0" it refuses (returns 0) if the target exists.
const COMMIT: &str = "if ARGV[1] == '0' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end \
redis.call('RENAME', KEYS[1], KEYS[2]) redis.call('PERSIST', KEYS[2]) return 1";

/// A filter being loaded under a temporary key in the target key's slot (see `slot`). It
/// becomes the target key only at [`Staging::commit`]; dropped before that, the temporary
/// key is deleted. It borrows the connection, so one connection loads many keys in turn.
pub struct Staging<'a> {
    con: &'a mut Conn,
    family: Family,
    key: String,
    tmp: String,
    replace: bool,
    committed: bool,
    ttl_set: Instant,
}

impl<'a> Staging<'a> {
    /// Checks that `key` may be written (absent, or `replace`) and picks the temporary key.
    pub fn new(con: &'a mut Conn, family: Family, key: &str, replace: bool) -> Result<Staging<'a>> {
        if !replace && exists(con, key)? {
            return fail(format!("key '{key}' exists (use --replace)"));
        }
        Ok(Staging {
            con,
            family,
            key: key.to_string(),
            tmp: staging_key(key),
            replace,
            committed: false,
            ttl_set: Instant::now(),
        })
    }

    /// `BF.LOADCHUNK` / `CF.LOADCHUNK tmp iter data` (iterator 1 is the header and creates
    /// the key); for a sketch, `RESTORE tmp ttl payload` of its whole body.
    pub fn load(&mut self, iter: u64, data: &[u8]) -> Result<()> {
        if self.family.whole() {
            if iter != 1 {
                return fail(format!("a {} value comes whole", self.family.prefix()));
            }
            redis::cmd("RESTORE")
                .arg(&self.tmp)
                .arg(STAGING_TTL_MS)
                .arg(payload::seal(data))
                .query::<()>(self.con.as_mut())
                .map_err(|e| Fail(format!("RESTORE of '{}': {}", self.key, Fail::from(e))))?;
            self.ttl_set = Instant::now();
            return Ok(());
        }
        let cmd = format!("{}.LOADCHUNK", self.family.prefix());
        redis::cmd(&cmd)
            .arg(&self.tmp)
            .arg(iter)
            .arg(data)
            .query::<()>(self.con.as_mut())
            .map_err(|e| Fail(format!("{cmd} at iterator {iter}: {}", Fail::from(e))))?;
        if iter == 1 || self.ttl_set.elapsed() > TTL_REFRESH {
            redis::cmd("PEXPIRE")
                .arg(&self.tmp)
                .arg(STAGING_TTL_MS)
                .query::<()>(self.con.as_mut())?;
            self.ttl_set = Instant::now();
        }
        Ok(())
    }

    /// Moves the loaded filter to the target key.
    pub fn commit(mut self) -> Result<()> {
        let done: i64 = redis::cmd("EVAL")
            .arg(COMMIT)
            .arg(2)
            .arg(&self.tmp)
            .arg(&self.key)
            .arg(if self.replace { "1" } else { "0" })
            .query(self.con.as_mut())?;
        if done != 1 {
            return fail(format!(
                "key '{}' was created during the transfer (use --replace)",
                self.key
            ));
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.committed {
            let _ = redis::cmd("DEL")
                .arg(&self.tmp)
                .query::<()>(self.con.as_mut());
        }
    }
}
