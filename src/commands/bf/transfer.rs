//! BF.IMPORT and BF.EXPORT: filters in and out as Guava's `BloomFilter.writeTo()` bytes.

use rsbloom_core::bloom::codec::writeto;
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{escaped, Error, Result};

use super::options;
use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;

/// Only Guava's format exists so far; the keyword leaves room for others.
fn format(arg: &Arg) -> Result<()> {
    match grammar::is(arg, "GUAVA") {
        true => Ok(()),
        false => Err(Error::Unsupported(format!(
            "unknown format '{}' (supported: GUAVA)",
            escaped(arg.as_slice())
        ))),
    }
}

/// BF.IMPORT key GUAVA data [CAPACITY n] [ERROR p]
pub fn import(call: &Call) -> Result<Reply> {
    let argv = call.args;
    format(&argv[2])?;
    let (mut capacity, mut error) = (None, None);
    let mut i = 4;
    while let Some(word) = argv.get(i) {
        let value = argv.get(i + 1).ok_or_else(|| call.wrong_arity());
        if grammar::is(word, "CAPACITY") {
            capacity = Some(options::reserve_capacity(value?)?);
        } else if grammar::is(word, "ERROR") {
            error = Some(options::reserve_error_rate(value?)?);
        } else {
            return Err(grammar::unknown(word));
        }
        i += 2;
    }
    let key = open_write(call);
    if !key.is_empty() {
        return Err(Error::ItemExists);
    }
    let chain = writeto::import(argv[3].as_slice(), capacity, error, call.size_limit())?;
    key.store(chain)?;
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}

/// BF.EXPORT key GUAVA
pub fn export(call: &Call) -> Result<Reply> {
    format(&call.args[2])?;
    let key = open_read(call);
    let chain = key.read::<Chain>()?.ok_or(Error::NotFound)?;
    Ok(Reply::Bulk(writeto::export(chain)?))
}
