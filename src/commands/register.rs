//! Registration of every family's command rows with the server: `CreateCommand`, then
//! `SetCommandInfo` (COMMAND DOCS, and key specs so ACL key permissions know which commands
//! only read), then the ACL categories where the server has them. This file imports the
//! families; they import only [`row`](super::row).

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;

use redis_module::{raw, Context};

use super::row::{Access, ArgDoc, Command, Kind, Since};
use super::{apbf, bf, cbf, cf, cms, tdigest, topk};

/// Every family's commands.
pub static FAMILIES: &[&[&Command]] = &[
    bf::rows::COMMANDS,
    cf::rows::COMMANDS,
    cms::rows::COMMANDS,
    topk::rows::COMMANDS,
    tdigest::rows::COMMANDS,
    cbf::rows::COMMANDS,
    apbf::rows::COMMANDS,
];

/// Every command of every family.
pub fn commands() -> impl Iterator<Item = &'static Command> {
    FAMILIES.iter().flat_map(|family| family.iter().copied())
}

/// The version of the command-info structs this module was built against.
static INFO_VERSION: raw::RedisModuleCommandInfoVersion = raw::RedisModuleCommandInfoVersion {
    version: 1,
    sizeof_historyentry: std::mem::size_of::<raw::RedisModuleCommandHistoryEntry>(),
    sizeof_keyspec: std::mem::size_of::<raw::RedisModuleCommandKeySpec>(),
    sizeof_arg: std::mem::size_of::<raw::RedisModuleCommandArg>(),
};

fn opt_ptr(s: Option<&'static CStr>) -> *const c_char {
    s.map_or(ptr::null(), CStr::as_ptr)
}

/// The argument array Redis expects, ending with a zeroed entry. Leaked: it is built once at
/// load time and Redis may keep pointers into it.
/// The n-th key argument documents the n-th key spec (a merge's sources the second).
fn c_args(args: &'static [ArgDoc]) -> *mut raw::RedisModuleCommandArg {
    let mut keys_before = 0;
    let mut out: Vec<raw::RedisModuleCommandArg> = args
        .iter()
        .map(|a| raw::RedisModuleCommandArg {
            name: a.name.as_ptr(),
            type_: match a.kind {
                Kind::Key => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY,
                Kind::Text => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_STRING,
                Kind::Integer => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_INTEGER,
                Kind::Double => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_DOUBLE,
                Kind::Flag => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_PURE_TOKEN,
                Kind::Block => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_BLOCK,
                Kind::OneOf => raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_ONEOF,
            },
            key_spec_index: if matches!(a.kind, Kind::Key) {
                keys_before += 1;
                keys_before - 1
            } else {
                -1
            },
            token: opt_ptr(a.token),
            summary: ptr::null(),
            since: opt_ptr(a.since),
            flags: ((a.optional as u32 * raw::REDISMODULE_CMD_ARG_OPTIONAL)
                | (a.multiple as u32 * raw::REDISMODULE_CMD_ARG_MULTIPLE))
                as c_int,
            deprecated_since: ptr::null(),
            subargs: if a.sub.is_empty() {
                ptr::null_mut()
            } else {
                c_args(a.sub)
            },
            display_text: ptr::null(),
        })
        .collect();
    // SAFETY: an all-zero RedisModuleCommandArg (null pointers, zero ints) is the terminator.
    out.push(unsafe { std::mem::zeroed() });
    Box::leak(out.into_boxed_slice()).as_mut_ptr()
}

/// The key specs: the key is argument 1, alone; for [`Access::MergeInto`] also the source
/// keys, counted by argument 2 and following it, read-only; for [`Access::UnionInto`] also
/// every argument from 2 to the last, read-only.
fn c_key_specs(access: Access) -> *mut raw::RedisModuleCommandKeySpec {
    let sourced = matches!(access, Access::MergeInto | Access::UnionInto);
    // SAFETY: all-zero key specs are valid values (null notes, zero unions); the last one
    // terminates the array.
    let mut specs: Vec<raw::RedisModuleCommandKeySpec> =
        vec![unsafe { std::mem::zeroed() }; 2 + sourced as usize];
    if sourced {
        let sources = &mut specs[1];
        sources.flags = (raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS) as u64;
        sources.begin_search_type =
            raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
        sources.bs.index.pos = 2;
        if matches!(access, Access::UnionInto) {
            sources.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
            sources.fk.range.lastkey = -1;
            sources.fk.range.keystep = 1;
            sources.fk.range.limit = 0;
        } else {
            sources.find_keys_type =
                raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_KEYNUM;
            sources.fk.keynum.keynumidx = 0;
            sources.fk.keynum.firstkey = 1;
            sources.fk.keynum.keystep = 1;
        }
    }
    let spec = &mut specs[0];
    spec.flags = access.flags();
    spec.begin_search_type = raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
    spec.bs.index.pos = 1;
    spec.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
    spec.fk.range.lastkey = 0;
    spec.fk.range.keystep = 1;
    spec.fk.range.limit = 0;
    Box::leak(specs.into_boxed_slice()).as_mut_ptr()
}

/// Puts every command in its row's built-in ACL categories and its family's module category
/// (`"write fast bloom"`, `"read cuckoo"`, ...), adding each family's category first; a no-op
/// on servers without module ACL categories (Redis 7.0). A server that refuses a family's
/// category or the built-in names does not fail the load: each command goes in what the
/// server takes (its built-in categories alone, else its family's alone) and the log says
/// which. Every server tested (Redis 7.4, 8.2, Valkey 8.1, 9.1) takes them all.
fn add_acl_categories(ctx: &Context) -> Result<(), String> {
    let (Some(add_category), Some(get_command), Some(set_categories)) = (
        unsafe { raw::RedisModule_AddACLCategory },
        unsafe { raw::RedisModule_GetCommand },
        unsafe { raw::RedisModule_SetCommandACLCategories },
    ) else {
        return Ok(());
    };
    let ok = raw::REDISMODULE_OK as c_int;
    let mut added: Vec<&CStr> = Vec::new();
    // The commands the server took with fewer categories, by what they are in.
    let mut partial: Vec<(String, Vec<&str>)> = Vec::new();
    for command in commands() {
        let family = command.family.acl;
        if !added.contains(&family) {
            added.push(family);
            if unsafe { add_category(ctx.ctx, family.as_ptr()) } != ok {
                ctx.log_warning(&format!(
                    "bf: the server refused to add the ACL category {family:?}"
                ));
            }
        }
        let handle = unsafe { get_command(ctx.ctx, command.name.as_ptr()) };
        if handle.is_null() {
            return Err(format!("command {:?} is not registered", command.name));
        }
        let family = family.to_str().unwrap_or_default();
        let own = bf::valkey_rows::of(command).map_or(command.acl.names(), |r| r.acl);
        let choices = [
            format!("{own} {family}"),
            own.to_string(),
            family.to_string(),
        ];
        let taken = choices.iter().position(|names| {
            CString::new(names.as_str())
                .is_ok_and(|names| unsafe { set_categories(handle, names.as_ptr()) } == ok)
        });
        if taken == Some(0) {
            continue;
        }
        let got = taken.map_or_else(
            || "put in no category".to_string(),
            |i| format!("put only in {:?}", choices[i]),
        );
        match partial.iter_mut().find(|(g, _)| *g == got) {
            Some((_, names)) => names.push(command.name_str()),
            None => partial.push((got, vec![command.name_str()])),
        }
    }
    for (got, names) in partial {
        ctx.log_warning(&format!(
            "bf: the server refused some ACL categories: {} {got}",
            names.join(", ")
        ));
    }
    Ok(())
}

/// Creates every command, then publishes its metadata and ACL categories. Called once from
/// `init` (commands can only be created while the module loads).
pub fn register(ctx: &Context) -> Result<(), String> {
    let create = unsafe { raw::RedisModule_CreateCommand }.ok_or("no CreateCommand")?;
    bf::valkey_rows::choose(crate::config::new_filters_valkey());
    for doc in commands() {
        // valkey-bloom's name and flags for its commands, if its rows were chosen.
        let valkey = bf::valkey_rows::of(doc);
        let name = valkey.map_or(doc.name, |r| r.name);
        let flags = valkey.map_or(doc.flags, |r| r.flags);
        // The key is argument 1 (first = last = 1, step 1), for cluster routing and ACLs;
        // a union's keys are every argument from 1.
        let (first, last, step) = doc.access.key_range();
        let status = unsafe {
            create(
                ctx.ctx,
                name.as_ptr(),
                Some(doc.callback),
                flags.as_ptr(),
                first,
                last,
                step,
            )
        };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(format!(
                "could not create command {:?}: the server or another module already has it \
                 (Redis 8 with its own Bloom commands, or a Bloom module loaded under another \
                 name); load rsbloom only where no other module provides BF.* / CF.*",
                doc.name
            ));
        }
    }
    publish(ctx)
}

/// The `history` array Redis expects, ending with a zeroed entry; null if there is none.
/// Leaked, as [`c_args`].
fn c_history(doc: &'static Command) -> *mut raw::RedisModuleCommandHistoryEntry {
    if doc.docs.history.is_empty() {
        return ptr::null_mut();
    }
    let mut out: Vec<raw::RedisModuleCommandHistoryEntry> = doc
        .docs
        .history
        .iter()
        .map(|h| raw::RedisModuleCommandHistoryEntry {
            since: h.version.as_ptr(),
            changes: h.change.as_ptr(),
        })
        .collect();
    // SAFETY: an all-zero entry (null pointers) is the terminator.
    out.push(unsafe { std::mem::zeroed() });
    Box::leak(out.into_boxed_slice()).as_mut_ptr()
}

/// Publishes every command's metadata and ACL categories (rsbloom's own commands give
/// [`crate::VERSION`] as their `since`, as rsbloom's arguments do).
fn publish(ctx: &Context) -> Result<(), String> {
    let (Some(get_command), Some(set_info)) = (unsafe { raw::RedisModule_GetCommand }, unsafe {
        raw::RedisModule_SetCommandInfo
    }) else {
        return Ok(()); // Before Redis 7.0 there is nothing to publish.
    };
    for doc in commands() {
        let command = unsafe { get_command(ctx.ctx, doc.name.as_ptr()) };
        if command.is_null() {
            return Err(format!("command {:?} is not registered", doc.name));
        }
        let info = raw::RedisModuleCommandInfo {
            version: &INFO_VERSION,
            summary: doc.summary.as_ptr(),
            complexity: doc.complexity.as_ptr(),
            since: match doc.since() {
                Since::RedisBloom(version) => version.as_ptr(),
                Since::Rsbloom => crate::VERSION.as_ptr(),
            },
            history: c_history(doc),
            tips: opt_ptr(doc.docs.tips),
            arity: match bf::valkey_rows::of(doc) {
                Some(_) => -1,
                None => doc.arity.redis(),
            },
            key_specs: c_key_specs(doc.access),
            args: c_args(doc.args),
        };
        if unsafe { set_info(command, &info) } != raw::REDISMODULE_OK as c_int {
            return Err(format!("Redis refused the command info of {:?}", doc.name));
        }
    }
    add_acl_categories(ctx)
}
