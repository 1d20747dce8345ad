//! The commands: one folder per family (`bf/`, `cf/`, `cms/`, `topk/`, `tdigest/`, `cbf/`,
//! `apbf/`), each with its command rows (`rows.rs`) and a file per group of commands, each
//! command a function that parses its arguments, calls the core and returns a [`Reply`].
//! What every family shares is here: the harness every callback runs in ([`run`]: borrowed
//! arguments, the row's arity checked, panics caught, one reply) and the [`Call`] it hands
//! over; key access ([`key`]); the row types ([`row`]) and their registration
//! ([`register`]); replies; argument access and parsing.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::{raw, Context};
use rsbloom_core::error::{Error, Result};

use crate::datatype::Family;
use argv::Arg;
use reply::Reply;
use row::Command;

pub mod apbf;
pub mod argv;
pub mod bf;
pub mod cbf;
pub mod cf;
pub mod cms;
pub mod grammar;
pub mod key;
pub mod numkeys_keys;
pub mod register;
pub mod reply;
pub mod row;
pub mod shard;
pub mod tdigest;
pub mod topk;
pub mod union_into;

/// One call of a command: the server context, the whole argv (name included, its count
/// already checked against the row's arity) and the command's row.
pub struct Call<'a> {
    pub ctx: &'a Context,
    pub args: &'a [Arg],
    pub command: &'static Command,
}

impl Call<'_> {
    /// The size limit this command's writes are held to: `bf.max-filter-bytes`, or none
    /// when it replays the server's own data ([`crate::size_limit`]).
    pub fn size_limit(&self) -> u64 {
        crate::size_limit::for_command(self.ctx)
    }

    /// The key argument (every command's first).
    pub fn key(&self) -> &Arg {
        &self.args[1]
    }

    /// Emits the command's keyspace event (class generic, `g`, named as the command) for a
    /// write that changed the key.
    pub fn notify(&self) {
        if let Some(notify) = unsafe { raw::RedisModule_NotifyKeyspaceEvent } {
            unsafe {
                notify(
                    self.ctx.ctx,
                    raw::REDISMODULE_NOTIFY_GENERIC,
                    self.command.name.as_ptr(),
                    self.key().raw(),
                )
            };
        }
    }

    /// The error for a wrong number of arguments, named as the command was registered
    /// (`BF.ADD` under valkey-bloom's rows, as valkey-bloom's error names it).
    pub fn wrong_arity(&self) -> Error {
        match bf::valkey_rows::of(self.command) {
            Some(row) => Error::WrongArity(row.name.to_str().unwrap_or("?")),
            None => self.command.wrong_arity(),
        }
    }

    /// A LOADCHUNK's refusal of a header or chunk for a `F` value: counted as a refused
    /// load, and data it cannot take answered with RedisBloom's one reply, why going to the
    /// server log (`bf: <COMMAND> refused: <why>`); other errors as they are.
    pub fn refused_load<F: Family>(&self, e: Error) -> Error {
        match F::refused_load(e) {
            Error::BadData(why) => {
                let name = self.command.name.to_string_lossy().to_ascii_uppercase();
                self.ctx.log_notice(&format!("bf: {name} refused: {why}"));
                Error::ReceivedBadData
            }
            e => e,
        }
    }
}

/// A command body: the call in, a reply out.
pub type Handler = fn(&Call) -> Result<Reply>;

/// The body of every command callback: checks the argument count against `command`'s arity,
/// runs `handler` on the borrowed arguments, catching panics (one would abort the server),
/// and sends its reply.
///
/// # Safety
/// The arguments must be those Redis passed to a command callback.
#[inline(always)]
pub unsafe fn run(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
    command: &'static Command,
    handler: Handler,
) -> c_int {
    let ctx = Context::new(ctx);
    // SAFETY: Redis passes its argument array, valid for the whole callback.
    let args = Arg::slice(argv, argc);
    let call = Call {
        ctx: &ctx,
        args,
        command,
    };
    let allowed = command.arity.allows(args.len()) || bf::valkey_rows::allows(command, args.len());
    let result = match allowed {
        true => catch_unwind(AssertUnwindSafe(|| handler(&call))),
        false => Ok(Err(call.wrong_arity())),
    };
    let reply = match result {
        Ok(Ok(reply)) => reply,
        Ok(Err(e)) => Reply::Error(e),
        Err(_) => {
            ctx.log_warning("bf: a command panicked; replied with an error");
            Reply::Error(Error::Internal)
        }
    };
    if let Some(e) = reply.error() {
        command.family.counters.refused(e);
    }
    reply::send(&ctx, reply);
    raw::Status::Ok as c_int
}
