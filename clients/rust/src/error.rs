//! The crate's one error type. Server replies never panic: a reply of an unexpected shape
//! is an [`Error::Reply`].

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// The connection failed, or the server refused a command (its text is kept, e.g.
    /// `ERR wrong shard: ...` or `ERR not found`).
    Redis(redis::RedisError),
    /// `reserve` of a name that already exists (the logical filter or any other key).
    Exists(String),
    /// `open` of a name that holds no description.
    NotFound(String),
    /// The description names a protocol this client does not speak.
    Protocol { name: String, protocol: String },
    /// The description is of the other family (a cuckoo filter opened as a Bloom one).
    Family { name: String, found: String },
    /// A field of the description is missing or not a valid value.
    Description { name: String, field: &'static str },
    /// An argument out of range (error rate, capacity, shard count).
    Argument(String),
    /// A reply of a shape the command does not give.
    Reply { command: String, detail: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Redis(e) => write!(f, "{e}"),
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
            Error::Argument(what) => f.write_str(what),
            Error::Reply { command, detail } => write!(f, "{command}: unexpected reply: {detail}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Redis(e) => Some(e),
            _ => None,
        }
    }
}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Error {
        Error::Redis(e)
    }
}
