//! The one error type of the tool: a one-line message, printed as
//! `rsbloom-cli: <command>: <message>` with exit code 1.

use std::fmt;

#[derive(Debug)]
pub struct Fail(pub String);

pub type Result<T> = std::result::Result<T, Fail>;

/// Shorthand for an error with this text.
pub fn fail<T>(msg: impl Into<String>) -> Result<T> {
    Err(Fail(msg.into()))
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<redis::RedisError> for Fail {
    fn from(e: redis::RedisError) -> Fail {
        // The server's own text (`ERR filter would need ...`, `ERR Bad data format`) is the
        // useful part.
        match (e.code(), e.detail()) {
            (Some(code), Some(detail)) => Fail(format!("server: {code} {detail}")),
            _ => Fail(format!("redis: {e}")),
        }
    }
}

impl From<rsbloom_core::error::Error> for Fail {
    fn from(e: rsbloom_core::error::Error) -> Fail {
        let text = e.to_string();
        Fail(text.strip_prefix("ERR ").unwrap_or(&text).to_string())
    }
}

/// Adds what was being done to an I/O error (`reading dump.bin: ...`).
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> Context<T> for std::io::Result<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Fail(format!("{}: {e}", what())))
    }
}
