//! BF.IMPORT and BF.EXPORT: filters in and out as Guava's `BloomFilter.writeTo()` bytes.

use redis_module::Context;

use super::arg::Arg;
use super::args;
use super::reply::Reply;
use super::{arity, notify, open_read, open_write, read_filter, store_filter};
use crate::codec::guava;
use crate::config;
use crate::error::{Error, Result};

/// Only Guava's format exists so far; the keyword leaves room for others.
fn format(arg: &Arg) -> Result<()> {
    match args::keyword(arg).as_str() {
        "GUAVA" => Ok(()),
        _ => Err(Error::Unsupported(format!(
            "unknown format '{}' (supported: GUAVA)",
            arg.to_string_lossy()
        ))),
    }
}

/// BF.IMPORT key GUAVA data [CAPACITY n] [ERROR p]
pub fn import(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 4, usize::MAX, "bf.import")?;
    format(&argv[2])?;
    let (mut capacity, mut error) = (None, None);
    let mut i = 4;
    while i < argv.len() {
        match args::keyword(&argv[i]).as_str() {
            "CAPACITY" => capacity = Some(args::capacity(args::value_of(argv, i, "CAPACITY")?)?),
            "ERROR" => error = Some(args::error_rate(args::value_of(argv, i, "ERROR")?)?),
            _ => return Err(Error::UnknownOption(argv[i].to_string_lossy())),
        }
        i += 2;
    }
    let key = open_write(ctx, &argv[1]);
    if !key.is_empty() {
        return Err(Error::ItemExists);
    }
    let chain = guava::import(
        argv[3].as_slice(),
        capacity,
        error,
        config::max_filter_bytes(),
    )?;
    store_filter(&key, chain)?;
    ctx.replicate_verbatim();
    notify(ctx, c"bf.import", &argv[1]);
    Ok(Reply::Ok)
}

/// BF.EXPORT key GUAVA
pub fn export(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.export")?;
    format(&argv[2])?;
    let key = open_read(ctx, &argv[1]);
    let chain = read_filter(&key)?.ok_or(Error::NotFound)?;
    Ok(Reply::Bulk(guava::export(chain)?))
}
