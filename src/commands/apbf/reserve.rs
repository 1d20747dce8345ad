//! APBF.RESERVE key COUNT error_rate capacity [KEYED]
//! APBF.RESERVE key TIME error_rate capacity span [KEYED]
//!
//! The window word, BF.RESERVE's checks and texts for the error rate and the capacity, the
//! span (seconds, a decimal), unknown words, then the key's type and existence. `KEYED`
//! hashes with a secret drawn for the window, as BF.RESERVE's (docs/safety.md).

use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::{Window, WindowFilter};

use super::replicate_creation;
use crate::commands::bf::options::{reserve_capacity, reserve_error_rate};
use crate::commands::grammar::{self, Keywords, Opt};
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// APBF.RESERVE's options, after the window's fixed arguments.
const OPTIONS: &[Opt] = &[Opt {
    name: "KEYED",
    values: 0,
    letters: &[],
}];

/// The most milliseconds a span may have (as the core allows).
const MAX_SPAN_MS: f64 = rsbloom_core::window::filter::MAX_SPAN_MS as f64;

/// A span in seconds as whole milliseconds, refused outside 1 ms ..= the core's limit.
fn span_ms(arg: &crate::commands::argv::Arg) -> Result<u64> {
    let seconds = grammar::double(arg).ok_or(Error::ApbfSpanRange)?;
    let ms = seconds * 1000.0;
    if !(1.0..=MAX_SPAN_MS).contains(&ms) {
        return Err(Error::ApbfSpanRange);
    }
    Ok(ms.round() as u64)
}

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    let time = if grammar::is(&argv[2], "COUNT") {
        false
    } else if grammar::is(&argv[2], "TIME") {
        true
    } else {
        return Err(Error::ApbfWindow);
    };
    let needed = if time { 6 } else { 5 };
    if argv.len() < needed {
        return Err(Error::WrongArity("apbf.reserve"));
    }
    let error_rate = reserve_error_rate(&argv[3])?;
    let capacity = reserve_capacity(&argv[4])?;
    let window = if time {
        Window::Time {
            span_ms: span_ms(&argv[5])?,
        }
    } else {
        Window::Count
    };
    let words = Keywords::new(&argv[needed..], OPTIONS);
    let keyed = words.flag("KEYED");
    words.all_known()?;

    let key = open_write(call);
    if key.read::<WindowFilter>()?.is_some() {
        return Err(Error::ItemExists);
    }
    let mut filter = WindowFilter::new(window, error_rate, capacity, call.size_limit())?;
    if keyed {
        filter = filter.with_secret(Secret::random()?);
    }
    let filter = key.store(filter)?;
    replicate_creation(call.ctx, call.key(), &filter);
    call.notify();
    Ok(Reply::Ok)
}
