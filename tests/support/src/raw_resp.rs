//! A raw RESP connection: commands out as RESP arrays, each reply back as the exact bytes
//! the server sent (RESP2 or, after `HELLO 3`, RESP3), with no parsing beyond finding where
//! the reply ends. For byte-for-byte comparisons with recorded replies (the `.tsv` escaping
//! they are recorded in is `files::unescape`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub struct RawConn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl RawConn {
    /// A RESP2 connection to the server on loopback `port`.
    pub fn connect(port: u16) -> RawConn {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        stream.set_nodelay(true).expect("nodelay");
        RawConn {
            stream,
            buf: Vec::new(),
        }
    }

    /// A connection that speaks RESP3 (`HELLO 3` sent, its reply dropped).
    pub fn connect_resp3(port: u16) -> RawConn {
        let mut c = RawConn::connect(port);
        let hello = c.send(&[b"HELLO".as_slice(), b"3"]);
        assert!(hello.starts_with(b"%"), "HELLO 3 answered {hello:?}");
        c
    }

    /// Sends a command and returns its reply's exact bytes.
    pub fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Vec<u8> {
        self.stream.write_all(&encode(args)).expect("write");
        self.read_reply()
    }

    /// Sends all commands at once, then reads one reply per command.
    pub fn pipeline<A: AsRef<[u8]>>(&mut self, cmds: &[Vec<A>]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for c in cmds {
            out.extend(encode(c));
        }
        self.stream.write_all(&out).expect("write");
        cmds.iter().map(|_| self.read_reply()).collect()
    }

    /// The next reply's exact bytes: one a command sent, or one the server pushes (MONITOR's
    /// lines).
    pub fn read_reply(&mut self) -> Vec<u8> {
        loop {
            if let Some(end) = reply_end(&self.buf, 0) {
                return self.buf.drain(..end).collect();
            }
            let mut chunk = [0u8; 64 * 1024];
            let n = self.stream.read(&mut chunk).expect("read");
            assert!(n > 0, "connection closed by the server");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// A command as a RESP array of bulk strings.
pub fn encode<A: AsRef<[u8]>>(args: &[A]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        let a = a.as_ref();
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The end of the line starting at `pos` (the index after its CRLF), and the line.
fn line(b: &[u8], pos: usize) -> Option<(usize, &[u8])> {
    let at = b.get(pos..)?.windows(2).position(|w| w == b"\r\n")?;
    Some((pos + at + 2, &b[pos + 1..pos + at]))
}

fn number(text: &[u8]) -> i64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("bad RESP length {text:?}"))
}

/// Where the complete reply starting at `pos` ends, or `None` if more bytes are needed.
pub fn reply_end(b: &[u8], pos: usize) -> Option<usize> {
    let kind = *b.get(pos)?;
    let (after, text) = line(b, pos)?;
    match kind {
        b'+' | b'-' | b':' | b'_' | b'#' | b',' | b'(' => Some(after),
        b'$' | b'!' | b'=' => {
            let len = number(text);
            if len < 0 {
                return Some(after);
            }
            let end = after + len as usize + 2;
            (b.len() >= end).then_some(end)
        }
        b'*' | b'~' | b'>' | b'%' | b'|' => {
            let n = number(text);
            let n = if matches!(kind, b'%' | b'|') {
                n * 2
            } else {
                n
            };
            let mut at = after;
            for _ in 0..n.max(0) {
                at = reply_end(b, at)?;
            }
            // An attribute is followed by the reply it annotates.
            if kind == b'|' {
                return reply_end(b, at);
            }
            Some(at)
        }
        other => panic!("unknown RESP type byte {other:#x}"),
    }
}

/// The bytes of a bulk-string reply (`$n\r\n...\r\n`), `None` for any other reply.
pub fn bulk_payload(reply: &[u8]) -> Option<&[u8]> {
    if reply.first() != Some(&b'$') {
        return None;
    }
    let (after, text) = line(reply, 0)?;
    let len = usize::try_from(number(text)).ok()?;
    reply.get(after..after + len)
}

/// Whether rsbloom's reply `got` to `argv` is the recorded reply `expected`: byte for byte,
/// but a DUMP payload without its last 10 bytes (the server's RDB version and CRC, which
/// differ between servers).
pub fn same_reply(argv: &[Vec<u8>], expected: &[u8], got: &[u8]) -> bool {
    let dump = argv
        .first()
        .is_some_and(|c| c.eq_ignore_ascii_case(b"DUMP"));
    match (bulk_payload(expected), bulk_payload(got)) {
        (Some(e), Some(g)) if dump && e.len() > 10 && g.len() > 10 => {
            e[..e.len() - 10] == g[..g.len() - 10]
        }
        _ => expected == got,
    }
}

/// One line of a recorded session (`NAME.commands.tsv`: `line`, protocol `2`/`3`, the reply
/// and the arguments, tab-separated, escaped as [`crate::files::escape`] writes).
pub struct Recorded {
    pub seq: u64,
    pub resp3: bool,
    pub expected: Vec<u8>,
    pub argv: Vec<Vec<u8>>,
}

/// Every line of a recorded session's `.tsv` text.
pub fn recorded(tsv: &str) -> Vec<Recorded> {
    tsv.lines()
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            Recorded {
                seq: cols[0].parse().expect("line number"),
                resp3: cols[1] == "3",
                expected: crate::files::unescape(cols[2]),
                argv: cols[3..]
                    .iter()
                    .map(|a| crate::files::unescape(a))
                    .collect(),
            }
        })
        .collect()
}

/// A RESP2 and a RESP3 connection to one server: each recorded line goes to the protocol it
/// was recorded on.
pub struct Replay {
    resp2: RawConn,
    resp3: RawConn,
}

impl Replay {
    pub fn connect(port: u16) -> Replay {
        Replay {
            resp2: RawConn::connect(port),
            resp3: RawConn::connect_resp3(port),
        }
    }

    /// The raw reply to `line`'s command.
    pub fn send(&mut self, line: &Recorded) -> Vec<u8> {
        let conn = if line.resp3 {
            &mut self.resp3
        } else {
            &mut self.resp2
        };
        conn.send(&line.argv)
    }
}
