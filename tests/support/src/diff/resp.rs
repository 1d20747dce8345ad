//! Raw replies as text: one line per reply, every RESP type marked, so rules can be written
//! against it and reports read. Also the connection the fuzzer drives, which reports a dead
//! server as an error instead of panicking (a RedisBloom crash is an event, not a failure).

use crate::raw_resp::{encode, reply_end};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Bulk strings longer than this are shown by their start and length.
const SHOW_BYTES: usize = 96;

/// A raw RESP connection whose errors are values.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn connect(port: u16, resp3: bool, timeout: Duration) -> Result<Conn, String> {
        let stream =
            TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(timeout))
            .map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut conn = Conn {
            stream,
            buf: Vec::new(),
        };
        if resp3 {
            let hello = conn.send(&[b"HELLO".to_vec(), b"3".to_vec()])?;
            if !hello.starts_with(b"%") {
                return Err(format!("HELLO 3 answered {}", render(&hello)));
            }
        }
        Ok(conn)
    }

    /// Sends one command, returns the reply's exact bytes.
    pub fn send(&mut self, args: &[Vec<u8>]) -> Result<Vec<u8>, String> {
        self.stream
            .write_all(&encode(args))
            .map_err(|e| format!("write: {e}"))?;
        loop {
            if !self.buf.is_empty() {
                if let Some(end) = reply_end(&self.buf, 0) {
                    return Ok(self.buf.drain(..end).collect());
                }
            }
            let mut chunk = [0u8; 64 * 1024];
            let n = self
                .stream
                .read(&mut chunk)
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("connection closed by the server".into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// One argument as text: bare when printable and free of spaces and quotes, else quoted with
/// escapes; long ones shortened.
pub fn show_arg(a: &[u8]) -> String {
    let plain = !a.is_empty()
        && a.len() <= SHOW_BYTES
        && a.iter()
            .all(|&b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
    if plain {
        String::from_utf8_lossy(a).into_owned()
    } else {
        quoted(a)
    }
}

/// A command's arguments as one line.
pub fn show_args(args: &[Vec<u8>]) -> String {
    args.iter()
        .map(|a| show_arg(a))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quoted(a: &[u8]) -> String {
    let shown = &a[..a.len().min(SHOW_BYTES)];
    let mut s = String::from("\"");
    for &b in shown {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b' '..=b'~' => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    if a.len() > SHOW_BYTES {
        s.push_str(&format!("...({} bytes)", a.len()));
    }
    s
}

/// A parsed reply, only as far as rendering needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Int(String),
    Bulk(Vec<u8>),
    Nil,
    Bool(bool),
    Double(String),
    Big(String),
    Array(Vec<Reply>),
    Set(Vec<Reply>),
    Map(Vec<(Reply, Reply)>),
    Verbatim(Vec<u8>),
}

/// Parses one complete reply (as `Conn::send` returns it).
pub fn parse(bytes: &[u8]) -> Reply {
    parse_at(bytes, 0).0
}

fn parse_at(b: &[u8], pos: usize) -> (Reply, usize) {
    let eol = pos
        + b[pos..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .unwrap_or(b.len() - pos);
    let text = String::from_utf8_lossy(&b[pos + 1..eol]).into_owned();
    let after = eol + 2;
    let count = || text.parse::<i64>().unwrap_or(-1);
    match b[pos] {
        b'+' => (Reply::Simple(text), after),
        b'-' => (Reply::Error(text), after),
        b':' => (Reply::Int(text), after),
        b'_' => (Reply::Nil, after),
        b'#' => (Reply::Bool(text == "t"), after),
        b',' => (Reply::Double(text), after),
        b'(' => (Reply::Big(text), after),
        b'$' | b'!' | b'=' => {
            let n = count();
            if n < 0 {
                return (Reply::Nil, after);
            }
            let data = b[after..after + n as usize].to_vec();
            let end = after + n as usize + 2;
            match b[pos] {
                b'=' => (Reply::Verbatim(data), end),
                b'!' => (
                    Reply::Error(String::from_utf8_lossy(&data).into_owned()),
                    end,
                ),
                _ => (Reply::Bulk(data), end),
            }
        }
        b'*' | b'~' | b'>' => {
            let n = count();
            if n < 0 {
                return (Reply::Nil, after);
            }
            let mut at = after;
            let mut items = Vec::new();
            for _ in 0..n {
                let (r, next) = parse_at(b, at);
                items.push(r);
                at = next;
            }
            if b[pos] == b'~' {
                (Reply::Set(items), at)
            } else {
                (Reply::Array(items), at)
            }
        }
        b'%' | b'|' => {
            let mut at = after;
            let mut pairs = Vec::new();
            for _ in 0..count().max(0) {
                let (k, next) = parse_at(b, at);
                let (v, next) = parse_at(b, next);
                pairs.push((k, v));
                at = next;
            }
            if b[pos] == b'|' {
                // An attribute: show the reply it annotates.
                return parse_at(b, at);
            }
            (Reply::Map(pairs), at)
        }
        _ => (Reply::Error(format!("<unparsed {:?}>", &b[pos..])), b.len()),
    }
}

/// The reply as text: `+OK`, `-ERR ...`, `:1`, `"bulk"`, `nil`, `#t`, `,1.5`, `[a, b]`,
/// `~[a]` (set), `{k: v}` (map).
pub fn render(bytes: &[u8]) -> String {
    show(&parse(bytes), false)
}

/// The reply as text with numbers replaced by `N`, quoted words in errors by `'*'`, binary or
/// long bulks by `"<bytes>"`, and arrays by their distinct elements: the "kind" of an
/// unlisted divergence.
pub fn normalized(bytes: &[u8]) -> String {
    show(&parse(bytes), true)
}

fn digits_to_n(s: &str) -> String {
    let mut out = String::new();
    let mut in_num = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                out.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// Quoted words in an error text (`'FOO'`) become `'*'`.
fn unquote_words(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('\'') {
        out.push_str(&rest[..i]);
        match rest[i + 1..].find('\'') {
            Some(j) => {
                out.push_str("'*'");
                rest = &rest[i + 1 + j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn show_list(items: &[Reply], norm: bool) -> String {
    let mut shown: Vec<String> = Vec::new();
    for r in items {
        let text = show(r, norm);
        // Normalized, an array is the set of its distinct elements in order of appearance.
        if !norm || !shown.contains(&text) {
            shown.push(text);
        }
    }
    shown.join(", ")
}

fn show(r: &Reply, norm: bool) -> String {
    let num = |s: &str| if norm { digits_to_n(s) } else { s.to_string() };
    match r {
        Reply::Simple(s) => format!("+{}", num(s)),
        Reply::Error(s) => {
            if norm {
                format!("-{}", digits_to_n(&unquote_words(s)))
            } else {
                format!("-{s}")
            }
        }
        Reply::Int(s) => format!(":{}", num(s)),
        Reply::Bulk(b) | Reply::Verbatim(b) => {
            if norm {
                if b.is_empty() {
                    "\"\"".into()
                } else if b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') && b.len() < 200 {
                    format!("\"{}\"", digits_to_n(&String::from_utf8_lossy(b)))
                } else {
                    "\"<bytes>\"".into()
                }
            } else {
                quoted(b)
            }
        }
        Reply::Nil => "nil".into(),
        Reply::Bool(t) => if *t { "#t" } else { "#f" }.into(),
        Reply::Double(s) => format!(",{}", num(s)),
        Reply::Big(s) => format!("({}", num(s)),
        Reply::Array(items) => format!("[{}]", show_list(items, norm)),
        Reply::Set(items) => format!("~[{}]", show_list(items, norm)),
        Reply::Map(pairs) => {
            let shown: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", show(k, norm), show(v, norm)))
                .collect();
            format!("{{{}}}", shown.join(", "))
        }
    }
}

/// A text cut to `max` characters, saying how much was left out.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}... ({} characters)", text.chars().count())
}
