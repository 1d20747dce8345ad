//! Argument parsing shared by the commands, mapped to SPEC.md's error texts.

use super::arg::Arg;

use crate::error::{Error, Result};
use crate::filter::chain::MAX_EXPANSION;

fn text(arg: &Arg) -> Option<&str> {
    std::str::from_utf8(arg.as_slice()).ok()
}

/// An error rate in (0, 1).
pub fn error_rate(arg: &Arg) -> Result<f64> {
    let p: f64 = text(arg)
        .and_then(|t| t.parse().ok())
        .filter(|p: &f64| !p.is_nan())
        .ok_or(Error::BadErrorRate)?;
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(Error::ErrorRateRange)
    }
}

/// A capacity of at least 1.
pub fn capacity(arg: &Arg) -> Result<u64> {
    let n: i64 = text(arg)
        .and_then(|t| t.parse().ok())
        .ok_or(Error::BadCapacity)?;
    u64::try_from(n)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or(Error::CapacityRange)
}

/// An expansion factor in [0, 32768]; 0 means non-scaling.
pub fn expansion(arg: &Arg) -> Result<u32> {
    let n: i64 = text(arg)
        .and_then(|t| t.parse().ok())
        .ok_or(Error::BadExpansion)?;
    u32::try_from(n)
        .ok()
        .filter(|&n| n <= MAX_EXPANSION)
        .ok_or(Error::ExpansionRange)
}

/// A SCANDUMP / LOADCHUNK iterator.
pub fn iterator(arg: &Arg) -> Result<i64> {
    text(arg)
        .and_then(|t| t.parse().ok())
        .ok_or(Error::BadIterator)
}

/// The option keyword in upper case, for case-insensitive matching.
pub fn keyword(arg: &Arg) -> String {
    String::from_utf8_lossy(arg.as_slice()).to_ascii_uppercase()
}

/// The value after option `name` at `args[i]`, or `<name> needs a value`.
pub fn value_of<'a>(args: &'a [Arg], i: usize, name: &'static str) -> Result<&'a Arg> {
    args.get(i + 1).ok_or(Error::OptionNeedsValue(name))
}

/// Options shared by RESERVE and INSERT that shape a new filter.
#[derive(Debug, Default)]
pub struct Shape {
    pub expansion: Option<u32>,
    pub nonscaling: bool,
}

impl Shape {
    /// The expansion to create with: 0 for NONSCALING, else the option or the default.
    pub fn expansion(&self, default: u32) -> Result<u32> {
        match (self.nonscaling, self.expansion) {
            (true, Some(e)) if e != 0 => Err(Error::NonScalingCannotExpand),
            (true, _) => Ok(0),
            (false, e) => Ok(e.unwrap_or(default)),
        }
    }
}
