//! BF.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING]

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::options::{self, Shape};
use super::replicate_creation;
use crate::commands::key::open_write;
use crate::commands::parse::{keyword, value_of};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    let error_rate = options::error_rate(&argv[2])?;
    let capacity = options::capacity(&argv[3])?;
    let mut shape = Shape::default();
    let mut i = 4;
    while i < argv.len() {
        match keyword(&argv[i]).as_str() {
            "EXPANSION" => {
                shape.expansion = Some(options::expansion(value_of(argv, i, "EXPANSION")?)?);
                i += 1;
            }
            "NONSCALING" => shape.nonscaling = true,
            _ => return Err(Error::UnknownOption(argv[i].to_string_lossy())),
        }
        i += 1;
    }
    let defaults = config::defaults();
    let expansion = shape.expansion(defaults.expansion)?;

    let key = open_write(call);
    if !key.is_empty() {
        return Err(Error::ItemExists);
    }
    let limit = config::max_filter_bytes();
    let chain = Chain::create(defaults.scheme, error_rate, capacity, expansion, limit)?;
    let chain = key.store(chain)?;
    replicate_creation(call.ctx, call.key(), &chain, &[]);
    call.notify();
    Ok(Reply::Ok)
}
