//! CMS.INFO key: width, depth and the total of increments (a flat array in RESP2, a map in
//! RESP3; the total signed, as RedisBloom prints it once it has wrapped).

use rsbloom_core::error::Result;

use super::sketch;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;

pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let cms = sketch(&key)?;
    Ok(Reply::Map(vec![
        ("width", Reply::Int(cms.width() as i64)),
        ("depth", Reply::Int(cms.depth() as i64)),
        ("count", Reply::Int(cms.count() as i64)),
    ]))
}
