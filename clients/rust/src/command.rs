//! One command for the node holding its key, the policy that says whether it may be sent
//! again after its reply was lost, and what became of it.

use redis::Value;

/// Whether a command may run twice (spec-44 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// Running it twice is harmless: resent after a lost reply, until `retry_timeout`.
    Safe,
    /// `CF.INSERT`, `CF.DEL`: never resent once it may have reached a server.
    Once,
}

#[derive(Clone, Debug)]
pub(crate) struct Command {
    /// The key that routes it (the shard key, or the description's name).
    pub key: Vec<u8>,
    /// The arguments, kept as redis-rs packs them: one buffer, no allocation per item, sent
    /// as is by the async connection and copied into one pipeline by the blocking one.
    pub cmd: redis::Cmd,
    pub policy: Policy,
}

impl Command {
    /// `name key`, routed by `key`.
    pub fn new(name: &str, key: &[u8], policy: Policy) -> Command {
        let mut cmd = redis::cmd(name);
        cmd.arg(key);
        Command {
            key: key.to_vec(),
            cmd,
            policy,
        }
    }

    /// Routed by `key` instead of its second argument (`EVAL script 1 key ...`).
    pub fn routed(mut self, key: &[u8]) -> Command {
        self.key = key.to_vec();
        self
    }

    pub fn arg(mut self, arg: impl AsRef<[u8]>) -> Command {
        self.cmd.arg(arg.as_ref());
        self
    }

    pub fn num(self, n: impl ToString) -> Command {
        self.arg(n.to_string())
    }

    /// The RESP request, appended to `out`.
    pub fn pack_into(&self, out: &mut Vec<u8>) {
        self.cmd.write_packed_command(out);
    }
}

/// What became of a command once the transport is done with it.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// The reply (an error reply is a `Value::ServerError`) and the node that gave it.
    Reply(Value, String),
    /// A once-only command was sent and its reply lost: it may have run.
    Lost(String),
    /// It did not run, or its retries ran out (no connection, lost replies of a safe
    /// command): the last error's text.
    Failed(String),
}

/// `ASKING`, packed.
pub(crate) const ASKING: &[u8] = b"*1\r\n$6\r\nASKING\r\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_as_resp_bulk_strings() {
        let mut out = Vec::new();
        Command::new("CF.DEL", b"{0}f:1", Policy::Once)
            .arg(b"a\r\nb")
            .pack_into(&mut out);
        assert_eq!(
            out,
            b"*3\r\n$6\r\nCF.DEL\r\n$6\r\n{0}f:1\r\n$4\r\na\r\nb\r\n"
        );
    }
}
