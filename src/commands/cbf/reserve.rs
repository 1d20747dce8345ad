//! CBF.RESERVE key error_rate capacity [COUNTERBITS 4|8] [KEYED]
//!
//! BF.RESERVE's checks and texts for the error rate and the capacity, then COUNTERBITS
//! (missing value, not 4 or 8), unknown words, then the key's type and existence. `KEYED`
//! hashes with a secret drawn for the filter, as BF.RESERVE's (docs/safety.md).

use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{Error, Result};

use super::replicate_creation;
use crate::commands::bf::options::{reserve_capacity, reserve_error_rate};
use crate::commands::grammar::{self, Found, Keywords, Opt};
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// CBF.RESERVE's options.
const OPTIONS: &[Opt] = &[
    Opt {
        name: "COUNTERBITS",
        values: 1,
        letters: &[],
    },
    Opt {
        name: "KEYED",
        values: 0,
        letters: &[],
    },
];

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    let error_rate = reserve_error_rate(&argv[2])?;
    let capacity = reserve_capacity(&argv[3])?;
    let words = Keywords::new(&argv[4..], OPTIONS);
    let counter_bits = match words.value("COUNTERBITS") {
        Found::Absent => config::cbf_defaults().counter_bits,
        Found::Last => return Err(Error::CbfNoCounterBits),
        Found::Value(arg) => match grammar::integer(arg) {
            Some(4) => 4,
            Some(8) => 8,
            _ => return Err(Error::CbfCounterBits),
        },
    };
    let keyed = words.flag("KEYED");
    words.all_known()?;

    let key = open_write(call);
    if key.read::<CountingFilter>()?.is_some() {
        return Err(Error::ItemExists);
    }
    let mut filter = CountingFilter::new(error_rate, capacity, counter_bits, call.size_limit())?;
    if keyed {
        filter = filter.with_secret(Secret::random()?);
    }
    let filter = key.store(filter)?;
    replicate_creation(call.ctx, call.key(), &filter, &[]);
    call.notify();
    Ok(Reply::Ok)
}
