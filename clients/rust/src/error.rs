//! The crate's one error type (spec-44 section 7: `Error` with `Batch(BatchError)`, `Exists`,
//! `NotFound`, `Protocol`). Server replies never panic: a reply of an unexpected shape is an
//! [`Error::Reply`]. Errors are `Clone` because one command's cause is every item's of it.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// A batch that did not fully succeed: every item's outcome is in it.
    Batch(BatchError),
    /// `reserve` of a name that already exists (the logical filter or any other key).
    Exists(String),
    /// No description at that name.
    NotFound(String),
    /// The description names a protocol (or a `routing`) this client does not speak.
    Protocol { name: String, protocol: String },
    /// The description is of the other family (a cuckoo filter opened as a Bloom one).
    Family { name: String, found: String },
    /// A field of the description is missing or not a valid value.
    Description { name: String, field: &'static str },
    /// An argument out of range (error rate, capacity, shard count).
    Argument(String),
    /// The server refused a command; its text, e.g. `ERR not found`.
    Server(String),
    /// A full shard refused the item (a non-scaling Bloom shard, a cuckoo shard without room).
    Full(String),
    /// No connection, or it failed and the retries ran out (`retry_timeout`).
    Connection(String),
    /// A reply of a shape the command does not give.
    Reply { command: String, detail: String },
}

pub type Result<T> = std::result::Result<T, Error>;

/// Which kind of [`BatchError`]: any unknown outcome makes it `Ambiguous`; else every failure
/// a full shard's is `Full`; else `Failed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchKind {
    Full,
    Ambiguous,
    Failed,
}

/// A batch's every outcome (spec-44 section 3).
#[derive(Clone, Debug, PartialEq)]
pub struct BatchError {
    /// One entry per item, in the caller's order: its answer, or `None` where it was not
    /// applied or its outcome is unknown.
    pub results: Vec<Option<bool>>,
    /// Sorted positions whose outcome is unknown (a once-only write whose reply was lost).
    pub unknown: Vec<usize>,
    /// The positions not applied, each with its cause, sorted by position.
    pub failed: Vec<(usize, Error)>,
    pub kind: BatchKind,
}

impl BatchError {
    /// The error for these outcomes, its kind by the contract's precedence.
    pub fn new(
        results: Vec<Option<bool>>,
        unknown: Vec<usize>,
        failed: Vec<(usize, Error)>,
    ) -> BatchError {
        let kind = if !unknown.is_empty() {
            BatchKind::Ambiguous
        } else if failed.iter().all(|(_, e)| matches!(e, Error::Full(_))) {
            BatchKind::Full
        } else {
            BatchKind::Failed
        };
        BatchError {
            results,
            unknown,
            failed,
            kind,
        }
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            BatchKind::Full => "refused by a full shard",
            BatchKind::Ambiguous => "of unknown outcome or failed",
            BatchKind::Failed => "failed",
        };
        write!(
            f,
            "{} of {} item(s) {what}",
            self.unknown.len() + self.failed.len(),
            self.results.len()
        )?;
        if let Some((pos, cause)) = self.failed.first() {
            write!(f, " (item {pos}: {cause})")?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Batch(b) => write!(f, "{b}"),
            // The protocol's text for a name taken (docs/sharding.md, "The description").
            Error::Exists(name) => write!(f, "ERR item exists: '{name}'"),
            Error::NotFound(name) => write!(f, "no sharded filter named '{name}'"),
            Error::Protocol { name, protocol } => write!(
                f,
                "'{name}' is a sharded filter of protocol '{protocol}', not {}",
                crate::PROTOCOL
            ),
            Error::Family { name, found } => write!(f, "'{name}' is a sharded {found} filter"),
            Error::Description { name, field } => {
                write!(f, "the description of '{name}' has no valid '{field}'")
            }
            Error::Argument(what) | Error::Server(what) | Error::Connection(what) => {
                f.write_str(what)
            }
            Error::Full(what) => write!(f, "full: {what}"),
            Error::Reply { command, detail } => write!(f, "{command}: unexpected reply: {detail}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Error {
        Error::Connection(e.to_string())
    }
}
