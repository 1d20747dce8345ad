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

    // Cuckoo filters (CF.*).
    /// CF.RESERVE's capacity or CF.INSERT's CAPACITY is not an integer.
    CfBadCapacity,
    /// Capacity below twice the bucket size (CF.INSERT: below 4).
    CfCapacityTooSmall,
    CfBadBucketSize,
    CfBucketSizeRange,
    CfBadMaxIterations,
    CfMaxIterationsRange,
    CfBadExpansion,
    CfExpansionRange,
    /// A CF.INSERT option whose first letter is not c, n or i.
    CfUnknownArgument,
    /// A new filter would have more than 2^56 - 1 buckets.
    CfTooManyBuckets,
    /// The filter has as many sub-filters as it may have.
    CfMaxExpansions,
    /// No room and the filter does not grow (expansion 0).
    CfFull,
    /// Growth refused by RedisBloom's own bounds (bucket count or sub-filter count).
    CfGrowthRefused,
    /// CF.DEL on a missing key or another type.
    CfDelNotFound,
    /// CF.COMPACT on a missing key or another type.
    CfCompactNotFound,
    /// SCANDUMP iterator below 0 or not an integer; LOADCHUNK iterator 0 or not an integer.
    CfInvalidPosition,
    /// A LOADCHUNK header that is not 38 bytes long.
    CfInvalidHeader,
    /// A LOADCHUNK header whose parameters are refused.
    CfCannotCreate,
    /// A LOADCHUNK data chunk that does not fit the filter.
    CfCannotLoadChunk,
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
            // Cuckoo filters: RedisBloom's texts, most of them without an error code.
            Error::CfBadCapacity => f.write_str("Bad capacity"),
            Error::CfCapacityTooSmall => f.write_str("Capacity must be at least (BucketSize * 2)"),
            Error::CfBadBucketSize => f.write_str("Couldn't parse BUCKETSIZE"),
            Error::CfBucketSizeRange => {
                f.write_str("BUCKETSIZE: value must be an integer between 1 and 255, inclusive.")
            }
            Error::CfBadMaxIterations => f.write_str("Couldn't parse MAXITERATIONS"),
            Error::CfMaxIterationsRange => f.write_str(
                "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
            ),
            Error::CfBadExpansion => f.write_str("Couldn't parse EXPANSION"),
            Error::CfExpansionRange => {
                f.write_str("EXPANSION: value must be an integer between 0 and 32768, inclusive.")
            }
            Error::CfUnknownArgument => f.write_str("Unknown argument received"),
            Error::CfTooManyBuckets => f.write_str("ERR Insufficient memory to create filter"),
            Error::CfMaxExpansions => f.write_str("Maximum expansions reached"),
            Error::CfFull => f.write_str("Filter is full"),
            Error::CfGrowthRefused => f.write_str("ERR Insufficient memory"),
            Error::CfDelNotFound => f.write_str("Not found"),
            Error::CfCompactNotFound => f.write_str("Cuckoo filter was not found"),
            Error::CfInvalidPosition => f.write_str("Invalid position"),
            Error::CfInvalidHeader => f.write_str("Invalid header"),
            Error::CfCannotCreate => f.write_str("Couldn't create filter!"),
            Error::CfCannotLoadChunk => f.write_str("Couldn't load chunk!"),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the core and the command layer.
pub type Result<T> = std::result::Result<T, Error>;

/// `TooLarge` if `needed` bytes are over `limit` (`bf.max-filter-bytes`): both families'
/// size checks, made before anything is allocated.
pub fn check_limit(needed: u64, limit: u64) -> Result<()> {
    if needed > limit {
        return Err(Error::TooLarge { needed, limit });
    }
    Ok(())
}

/// Builds a [`Error::BadData`] from anything printable.
pub fn bad_data(what: impl Into<String>) -> Error {
    Error::BadData(what.into())
}
