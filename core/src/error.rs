//! Every error a user can see, and its exact reply text: the one error table.
//!
//! The core and the command layer both return [`Error`]; the Redis layer turns it into a reply
//! in one place, so no error text is written anywhere else. Variants are grouped by who
//! raises them: any command, then each filter family (texts as RedisBloom words them).

use std::fmt;

/// An error reply. `Display` gives the exact text sent to the client, error code included.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    // Any command.
    /// Wrong number of arguments; carries the command name in lower case.
    WrongArity(&'static str),
    WrongType,
    NotFound,
    ItemExists,
    UnknownOption(String),
    OptionNeedsValue(&'static str),
    /// A create or a growth would take the filter over its size limit.
    TooLarge {
        needed: u64,
        limit: u64,
    },
    BadIterator,
    /// Persistence or LOADCHUNK data that does not fit the format or the filter.
    BadData(String),
    /// A valid request this filter cannot serve (for example exporting to a format that
    /// cannot hold it); the text says why.
    Unsupported(String),
    /// A bug caught at the module boundary (a panic); the server keeps running.
    Internal,

    // Bloom filters (BF.*).
    BadErrorRate,
    ErrorRateRange,
    BadCapacity,
    CapacityRange,
    BadExpansion,
    ExpansionRange,
    NonScalingCannotExpand,
    /// A non-scaling filter at its capacity.
    Full,
    UnknownInfoField(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::WrongArity(cmd) => {
                write!(f, "ERR wrong number of arguments for '{cmd}' command")
            }
            Error::WrongType => {
                f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value")
            }
            Error::NotFound => f.write_str("ERR not found"),
            Error::ItemExists => f.write_str("ERR item exists"),
            Error::UnknownOption(opt) => write!(f, "ERR unknown option '{opt}'"),
            Error::OptionNeedsValue(opt) => write!(f, "ERR {opt} needs a value"),
            Error::TooLarge { needed, limit } => write!(
                f,
                "ERR filter would need {needed} bytes, over bf.max-filter-bytes ({limit})"
            ),
            Error::BadIterator => f.write_str("ERR bad iterator"),
            Error::BadData(what) => write!(f, "ERR received bad data: {what}"),
            Error::Unsupported(why) => write!(f, "ERR {why}"),
            Error::Internal => {
                f.write_str("ERR internal error in the bf module (see the server log)")
            }
            // Bloom filters.
            Error::BadErrorRate => f.write_str("ERR bad error rate"),
            Error::ErrorRateRange => f.write_str("ERR error rate must be in the range (0, 1)"),
            Error::BadCapacity => f.write_str("ERR bad capacity"),
            Error::CapacityRange => f.write_str("ERR capacity must be at least 1"),
            Error::BadExpansion => f.write_str("ERR bad expansion"),
            Error::ExpansionRange => f.write_str("ERR expansion must be in the range [0, 32768]"),
            Error::NonScalingCannotExpand => f.write_str("ERR NONSCALING filters cannot expand"),
            Error::Full => f.write_str("ERR non scaling filter is full"),
            Error::UnknownInfoField(field) => write!(f, "ERR unknown INFO field '{field}'"),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the core and the command layer.
pub type Result<T> = std::result::Result<T, Error>;

/// Builds a [`Error::BadData`] from anything printable.
pub fn bad_data(what: impl Into<String>) -> Error {
    Error::BadData(what.into())
}
