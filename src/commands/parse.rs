//! Argument parsing every family shares: option keywords, option values, iterators.

use rsbloom_core::error::{Error, Result};

use super::argv::Arg;

/// The argument as text, if it is UTF-8.
pub fn text(arg: &Arg) -> Option<&str> {
    std::str::from_utf8(arg.as_slice()).ok()
}

/// The option keyword in upper case, for case-insensitive matching.
pub fn keyword(arg: &Arg) -> String {
    String::from_utf8_lossy(arg.as_slice()).to_ascii_uppercase()
}

/// The value after option `name` at `args[i]`, or `<name> needs a value`.
pub fn value_of<'a>(args: &'a [Arg], i: usize, name: &'static str) -> Result<&'a Arg> {
    args.get(i + 1).ok_or(Error::OptionNeedsValue(name))
}

/// A SCANDUMP / LOADCHUNK iterator.
pub fn iterator(arg: &Arg) -> Result<i64> {
    text(arg)
        .and_then(|t| t.parse().ok())
        .ok_or(Error::BadIterator)
}
