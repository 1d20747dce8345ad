//! The one argument grammar every family parses with: RedisBloom's, so the same words are
//! accepted, refused and checked in the same order.
//!
//! - Numbers are read by the server itself (`RedisModule_StringToLongLong` /
//!   `StringToDouble`), as RedisBloom reads them: integers are Redis's `string2ll` (no `+`,
//!   no leading zeros, no spaces, within i64); doubles are whatever the server's
//!   `getDoubleFromObject` takes (Redis 7 takes hex and `inf`, Redis 8 does not; an
//!   overflow, an underflow to zero and NaN are refused everywhere). Plain decimals such as
//!   `0.99` are read here, to the same value ([`rsbloom_core::decimal`]): the server's
//!   parser costs more than a t-digest add. So are integers of up to 18 digits.
//! - Options come in RedisBloom's two styles. RESERVE-style ([`Keywords`]): each option is
//!   looked up by its whole word, the first occurrence wins, and the command checks them in
//!   its own order, not in the order they were written. INSERT-style ([`Dispatch`]): a loop
//!   up to `ITEMS` that tells options apart by a letter or two.
//! - Where RedisBloom accepts what it did not understand (an unknown word, an abbreviated
//!   keyword), rsbloom refuses it, but only once RedisBloom's own checks have passed, so
//!   every error RedisBloom gives is given first and word for word.

use std::ffi::c_longlong;

use redis_module::raw;
use rsbloom_core::decimal;
use rsbloom_core::error::{Error, Result};

use super::argv::Arg;

/// The argument as an integer, as RedisBloom's `RedisModule_StringToLongLong` reads it.
pub fn integer(arg: &Arg) -> Option<i64> {
    if let Some(n) = decimal::integer(arg.as_slice()) {
        return Some(n);
    }
    let parse = unsafe { raw::RedisModule_StringToLongLong }?;
    let mut n: c_longlong = 0;
    let ok = unsafe { parse(arg.raw(), &mut n) } == raw::REDISMODULE_OK as i32;
    ok.then_some(n)
}

/// The argument as a double, as RedisBloom's `RedisModule_StringToDouble` reads it.
pub fn double(arg: &Arg) -> Option<f64> {
    if let Some(x) = decimal::plain(arg.as_slice()) {
        return Some(x);
    }
    let parse = unsafe { raw::RedisModule_StringToDouble }?;
    let mut x = 0.0f64;
    let ok = unsafe { parse(arg.raw(), &mut x) } == raw::REDISMODULE_OK as i32;
    ok.then_some(x)
}

/// The argument is `word`, ignoring ASCII case (RedisBloom's `strncasecmp` on equal lengths).
pub fn is(arg: &Arg, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

/// An option word the family knows: its whole name, how many values follow it, and the
/// letters RedisBloom's INSERT-style loop tells it by (`(index, lower-case letter)`, all
/// of which must match; options are tried in their declared order).
pub struct Opt {
    pub name: &'static str,
    pub values: usize,
    pub letters: &'static [(usize, u8)],
}

impl Opt {
    /// RedisBloom's test; `name` is rsbloom's (the word in full).
    fn dispatches(&self, word: &[u8]) -> bool {
        self.letters
            .iter()
            .all(|&(i, c)| word.get(i).is_some_and(|b| b.to_ascii_lowercase() == c))
    }
}

/// RESERVE-style options: the words after a command's fixed arguments, looked up by name.
pub struct Keywords<'a> {
    words: &'a [Arg],
    known: &'static [Opt],
}

/// What a RESERVE-style lookup found for an option that takes a value.
pub enum Found<'a> {
    Absent,
    /// The option is the last word: its value is missing.
    Last,
    Value(&'a Arg),
}

impl<'a> Keywords<'a> {
    pub fn new(words: &'a [Arg], known: &'static [Opt]) -> Keywords<'a> {
        Keywords { words, known }
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.words.iter().position(|w| is(w, name))
    }

    /// The flag appears anywhere.
    pub fn flag(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// The word after the option's first occurrence.
    pub fn value(&self, name: &str) -> Found<'a> {
        match self.position(name) {
            None => Found::Absent,
            Some(i) => self.words.get(i + 1).map_or(Found::Last, Found::Value),
        }
    }

    /// The `n` words after the option's first occurrence: `None` when it is absent,
    /// `Some(Err(()))` when fewer than `n` follow it.
    pub fn values(&self, name: &str, n: usize) -> Option<std::result::Result<&'a [Arg], ()>> {
        let i = self.position(name)?;
        Some(self.words.get(i + 1..i + 1 + n).ok_or(()))
    }

    /// rsbloom's stricter reading, once RedisBloom's checks have passed: every word is a
    /// known option or the value right after one.
    pub fn all_known(&self) -> Result<()> {
        let mut i = 0;
        while let Some(word) = self.words.get(i) {
            let opt = self
                .known
                .iter()
                .find(|o| is(word, o.name))
                .ok_or_else(|| unknown(word))?;
            i += 1 + opt.values;
        }
        Ok(())
    }
}

/// The error for a word that is not an option here.
pub fn unknown(word: &Arg) -> Error {
    Error::UnknownOption(word.as_slice().to_vec())
}

/// INSERT-style options: RedisBloom's loop up to the `ITEMS` option (declared with
/// `name: "ITEMS"`), each option told by its letters.
pub struct Dispatch {
    pub options: &'static [Opt],
    /// The reply to a word no option fits (RedisBloom's `Unknown argument received`).
    pub unknown: Error,
}

impl Dispatch {
    /// Runs the loop from `args[first]`, handing `each` every option and its values as they
    /// come (its errors stop the loop, in RedisBloom's order), and returns the index of the
    /// first item. A value missing at the end, or no item after `ITEMS`, is a wrong arity; a
    /// word no option's letters fit is `unknown`. An option told by its letters but not
    /// written in full is refused once the loop has passed, as an unknown option.
    pub fn run<'a>(
        &self,
        args: &'a [Arg],
        first: usize,
        wrong_arity: impl Fn() -> Error,
        mut each: impl FnMut(&'static str, &'a [Arg]) -> Result<()>,
    ) -> Result<usize> {
        let mut abbreviated: Option<&Arg> = None;
        let mut i = first;
        while let Some(word) = args.get(i) {
            let opt = self
                .options
                .iter()
                .find(|o| o.dispatches(word.as_slice()))
                .ok_or_else(|| self.unknown.clone())?;
            if abbreviated.is_none() && !is(word, opt.name) {
                abbreviated = Some(word);
            }
            i += 1;
            if opt.name == "ITEMS" {
                if i == args.len() {
                    return Err(wrong_arity());
                }
                return match abbreviated {
                    Some(word) => Err(unknown(word)),
                    None => Ok(i),
                };
            }
            let values = args.get(i..i + opt.values).ok_or_else(&wrong_arity)?;
            i += opt.values;
            each(opt.name, values)?;
        }
        Err(wrong_arity())
    }
}
