//! The BF commands' option values, mapped to the error table.

use rsbloom_core::bloom::meta::MAX_EXPANSION;
use rsbloom_core::error::{Error, Result};

use crate::commands::argv::Arg;
use crate::commands::parse::text;

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
