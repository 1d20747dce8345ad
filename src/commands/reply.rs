//! Replies, written straight to the client through the module API so RESP2 and RESP3 get
//! the right shapes: booleans become integers in RESP2, maps become flat arrays.

use std::ffi::{c_char, c_long, CString};
use std::sync::OnceLock;

use redis_module::{raw, Context, ContextFlags};

use rsbloom_core::double_text::{self, Style};
use rsbloom_core::error::Error;

#[derive(Debug)]
pub enum Reply {
    Ok,
    /// A simple string (valkey-bloom's BF.INFO field names).
    Simple(&'static str),
    Int(i64),
    Bool(bool),
    Bulk(Vec<u8>),
    /// A double as the server writes one (RESP2: a bulk string in the server's own format,
    /// `inf` and `nan` included; RESP3: a double), as RedisBloom replies its sketches' numbers.
    Double(f64),
    Null,
    /// An error, as a whole reply or as one element of an array.
    Error(Error),
    Array(Vec<Reply>),
    /// An array of bulk strings or nulls (Top-K's expelled items), without a `Reply` per
    /// item.
    Items(Vec<Option<Box<[u8]>>>),
    /// An array of booleans: a batch's answers, without a `Reply` per item.
    Bools(Vec<bool>),
    /// An array of 0 and 1 integers in either protocol (valkey-bloom's batch answers),
    /// without a `Reply` per item.
    Flags(Vec<bool>),
    /// An array of counts (integers, clamped to 2^63 - 1), without a `Reply` per item.
    Counts(Vec<u64>),
    /// An array of doubles (each as [`Reply::Double`]), without a `Reply` per item.
    Doubles(Vec<f64>),
    /// Keys are sent as simple strings (client libraries match RedisBloom's names).
    Map(Vec<(&'static str, Reply)>),
}

/// A bulk string.
fn bulk(ctx: &Context, data: &[u8]) {
    raw::reply_with_string_buffer(ctx.ctx, data.as_ptr().cast::<c_char>(), data.len());
}

fn simple(ctx: &Context, text: &str) {
    let text = CString::new(text).unwrap_or_default();
    raw::reply_with_simple_string(ctx.ctx, text.as_ptr());
}

/// True when the client speaks RESP3 (some replies differ in shape).
pub fn resp3(ctx: &Context) -> bool {
    ctx.get_flags().contains(ContextFlags::FLAGS_RESP3)
}

impl Reply {
    /// The error the reply ends with: the whole reply's, or a batch's last element's.
    pub fn error(&self) -> Option<&Error> {
        match self {
            Reply::Error(e) => Some(e),
            Reply::Array(items) => match items.last() {
                Some(Reply::Error(e)) => Some(e),
                _ => None,
            },
            _ => None,
        }
    }

    /// An integer reply of a count that may exceed what RESP integers hold: clamped.
    pub fn count(n: u64) -> Reply {
        Reply::Int(n.min(i64::MAX as u64) as i64)
    }
}

/// The hosting server's RESP2 double format, set at load when known (unset: the server
/// writes the module's doubles).
static DOUBLE_STYLE: OnceLock<Style> = OnceLock::new();

/// Called once at load with the server's format, if known.
pub fn set_double_style(style: Option<Style>) {
    if let Some(style) = style {
        // A second load in the same process runs on the same server: the same style.
        let _ = DOUBLE_STYLE.set(style);
    }
}

/// Writes doubles for one reply: as the server's own RESP2 bulk string where the module
/// knows the server's format and the client speaks RESP2, else through the server. Asking the
/// protocol (RedisModule_GetContextFlags, ~210 instructions on Redis 8.2) is done once per
/// reply, and only where it pays: `%.17g` costs the server ~2,700 instructions a double,
/// `d2string` ~800 against the module's ~550 plus a bulk string reply's ~260, so on those
/// servers a lone double goes to the server unless the protocol is known already.
struct Doubles<'a> {
    ctx: &'a Context,
    style: Option<Option<Style>>,
}

impl Doubles<'_> {
    /// The style to write `count` doubles in, asking the protocol if that pays.
    fn style(&mut self, count: usize) -> Option<Style> {
        if let Some(known) = self.style {
            return known;
        }
        let style = match DOUBLE_STYLE.get() {
            Some(Style::Printf17g) => Style::Printf17g,
            Some(Style::D2string) if count >= 2 => Style::D2string,
            _ => return None,
        };
        let known = (!resp3(self.ctx)).then_some(style);
        self.style = Some(known);
        known
    }

    fn send(&mut self, x: f64, style: Option<Style>) {
        match style {
            Some(style) => {
                let mut text = [0u8; double_text::MAX_LEN];
                let len = double_text::write(style, x, &mut text);
                bulk(self.ctx, &text[..len]);
            }
            None => {
                unsafe { raw::RedisModule_ReplyWithDouble.unwrap()(self.ctx.ctx, x) };
            }
        }
    }
}

/// Sends the reply, consuming it.
pub fn send(ctx: &Context, reply: Reply) {
    send_with(ctx, reply, &mut Doubles { ctx, style: None });
}

/// Each arm drops only what its variant holds.
fn send_with(ctx: &Context, reply: Reply, doubles: &mut Doubles) {
    match reply {
        Reply::Ok => simple(ctx, "OK"),
        Reply::Simple(text) => simple(ctx, text),
        Reply::Int(n) => {
            raw::reply_with_long_long(ctx.ctx, n);
        }
        Reply::Bool(b) => {
            raw::reply_with_bool(ctx.ctx, b as i32);
        }
        Reply::Bulk(data) => bulk(ctx, &data),
        Reply::Double(x) => {
            let style = doubles.style(1);
            doubles.send(x, style);
        }
        Reply::Null => {
            raw::reply_with_null(ctx.ctx);
        }
        Reply::Error(e) => {
            // Texts that echo a word escape it; a NUL here would be a bug, and must not
            // empty the reply.
            let text = CString::new(e.to_string().replace('\0', "\\x00")).unwrap_or_default();
            unsafe { raw::RedisModule_ReplyWithError.unwrap()(ctx.ctx, text.as_ptr()) };
        }
        Reply::Array(items) => {
            raw::reply_with_array(ctx.ctx, items.len() as c_long);
            items
                .into_iter()
                .for_each(|item| send_with(ctx, item, doubles));
        }
        Reply::Items(items) => {
            raw::reply_with_array(ctx.ctx, items.len() as c_long);
            for item in items {
                match item {
                    Some(data) => bulk(ctx, &data),
                    None => {
                        raw::reply_with_null(ctx.ctx);
                    }
                }
            }
        }
        Reply::Bools(answers) => {
            raw::reply_with_array(ctx.ctx, answers.len() as c_long);
            for b in answers {
                raw::reply_with_bool(ctx.ctx, b as i32);
            }
        }
        Reply::Flags(flags) => {
            raw::reply_with_array(ctx.ctx, flags.len() as c_long);
            for f in flags {
                raw::reply_with_long_long(ctx.ctx, f as i64);
            }
        }
        Reply::Counts(counts) => {
            raw::reply_with_array(ctx.ctx, counts.len() as c_long);
            for n in counts {
                raw::reply_with_long_long(ctx.ctx, n.min(i64::MAX as u64) as i64);
            }
        }
        Reply::Doubles(values) => {
            raw::reply_with_array(ctx.ctx, values.len() as c_long);
            let style = doubles.style(values.len());
            for x in values {
                doubles.send(x, style);
            }
        }
        Reply::Map(entries) => {
            raw::reply_with_map(ctx.ctx, entries.len() as c_long);
            for (name, value) in entries {
                simple(ctx, name);
                send_with(ctx, value, doubles);
            }
        }
    }
}

/// C's `printf("%g")`: six significant digits, trailing zeros dropped, scientific notation
/// below 1e-4 or from 1e6 (RedisBloom prints layer error rates this way in BF.DEBUG).
pub fn format_g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        trim(&format!("{x:.*}", (5 - exp) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::format_g;

    #[test]
    fn formats_like_printf_g() {
        for (x, text) in [
            (0.01, "0.01"),
            (0.005, "0.005"),
            (0.000625, "0.000625"),
            (0.00078125, "0.00078125"),
            (0.0000390625, "3.90625e-05"),
            (1e-300, "1e-300"),
            (0.1, "0.1"),
            (0.123456789, "0.123457"),
            (1234567.0, "1.23457e+06"),
            (0.5, "0.5"),
        ] {
            assert_eq!(format_g(x), text);
        }
    }
}
