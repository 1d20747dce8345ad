//! CMS.INFO key: width, depth, the total of increments and the cell size, RedisBloom 8.12's
//! four pairs (a flat array in RESP2, a map in RESP3; the total signed, as RedisBloom prints
//! one that wrapped before 8.12).

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
        ("cell_size", Reply::Int(cms.cell_size().bytes() as i64)),
    ]))
}
