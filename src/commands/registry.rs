//! The command table: every BF command's entry point, flags, arity, key spec and COMMAND
//! DOCS, and its registration with Redis (`CreateCommand`, then `SetCommandInfo` so ACL key
//! permissions know which commands only read, and the ACL category where there is one).

use std::ffi::{c_char, c_int, CStr};
use std::ptr;

use redis_module::{raw, Context};

use super::{add, dump, exists, guava, info, reserve};

/// A command callback as Redis calls it.
type CommandFn =
    extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int;

/// The `extern "C"` callback of one command: [`super::run`] with its handler, so arguments
/// reach the handler borrowed, with no copies on the way in.
macro_rules! callback {
    ($handler:path) => {{
        extern "C" fn callback(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            // SAFETY: these are the arguments Redis passed to this callback.
            unsafe { super::run(ctx, argv, argc, $handler) }
        }
        callback as CommandFn
    }};
}

/// How a command uses its key.
#[derive(Clone, Copy)]
pub enum Access {
    /// Reads metadata only (CARD, INFO, DEBUG).
    Read,
    /// Reads and returns user data (EXISTS, MEXISTS, SCANDUMP).
    ReadData,
    /// Adds data (RESERVE, ADD, MADD, INSERT).
    Insert,
    /// Overwrites data (LOADCHUNK).
    Update,
}

impl Access {
    fn flags(self) -> u64 {
        (match self {
            Access::Read => raw::REDISMODULE_CMD_KEY_RO,
            Access::ReadData => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
            Access::Insert => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_INSERT,
            Access::Update => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_UPDATE,
        }) as u64
    }
}

/// Argument types of COMMAND DOCS.
#[derive(Clone, Copy)]
pub enum Kind {
    Key,
    Text,
    Integer,
    Double,
    /// A keyword standing alone (`NONSCALING`).
    Flag,
    /// A group of arguments (`ITEMS item [item ...]`).
    Block,
}

/// One documented argument. `token` is the keyword that introduces it, if any.
pub struct Arg {
    pub name: &'static CStr,
    pub kind: Kind,
    pub token: Option<&'static CStr>,
    pub optional: bool,
    pub multiple: bool,
    pub sub: &'static [Arg],
}

/// A command: how Redis reaches it and what COMMAND DOCS says of it.
pub struct Doc {
    pub name: &'static CStr,
    pub callback: CommandFn,
    /// `CreateCommand` flags.
    pub flags: &'static CStr,
    pub summary: &'static CStr,
    pub complexity: &'static CStr,
    pub arity: c_int,
    pub access: Access,
    pub args: &'static [Arg],
}

const fn arg(name: &'static CStr, kind: Kind) -> Arg {
    Arg {
        name,
        kind,
        token: None,
        optional: false,
        multiple: false,
        sub: &[],
    }
}

const fn option(name: &'static CStr, kind: Kind, token: &'static CStr) -> Arg {
    Arg {
        token: Some(token),
        optional: true,
        ..arg(name, kind)
    }
}

const fn items(name: &'static CStr) -> Arg {
    Arg {
        multiple: true,
        ..arg(name, Kind::Text)
    }
}

const KEY: Arg = arg(c"key", Kind::Key);
const ITEM: Arg = arg(c"item", Kind::Text);
const ITERATOR: Arg = arg(c"iterator", Kind::Integer);
const EXPANSION: Arg = option(c"expansion", Kind::Integer, c"EXPANSION");
const NONSCALING: Arg = option(c"nonscaling", Kind::Flag, c"NONSCALING");

pub static COMMANDS: &[Doc] = &[
    Doc {
        name: c"bf.reserve",
        callback: callback!(reserve::reserve),
        flags: c"write deny-oom",
        summary: c"Creates an empty Bloom filter with an error rate and a capacity",
        complexity: c"O(1)",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            arg(c"error_rate", Kind::Double),
            arg(c"capacity", Kind::Integer),
            EXPANSION,
            NONSCALING,
        ],
    },
    Doc {
        name: c"bf.add",
        callback: callback!(add::add),
        flags: c"write deny-oom",
        summary: c"Adds an item to a Bloom filter, creating the filter if needed",
        complexity: c"O(k), k the number of hash functions",
        arity: 3,
        access: Access::Insert,
        args: &[KEY, ITEM],
    },
    Doc {
        name: c"bf.madd",
        callback: callback!(add::madd),
        flags: c"write deny-oom",
        summary: c"Adds items to a Bloom filter, creating the filter if needed",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -3,
        access: Access::Insert,
        args: &[KEY, items(c"item")],
    },
    Doc {
        name: c"bf.insert",
        callback: callback!(add::insert),
        flags: c"write deny-oom",
        summary: c"Adds items to a Bloom filter, creating it with the given options if needed",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            option(c"capacity", Kind::Integer, c"CAPACITY"),
            option(c"error", Kind::Double, c"ERROR"),
            EXPANSION,
            option(c"nocreate", Kind::Flag, c"NOCREATE"),
            NONSCALING,
            Arg {
                token: Some(c"ITEMS"),
                sub: &[items(c"item")],
                ..arg(c"items", Kind::Block)
            },
        ],
    },
    Doc {
        name: c"bf.exists",
        callback: callback!(exists::exists),
        flags: c"readonly fast",
        summary: c"Tells whether an item may be in a Bloom filter",
        complexity: c"O(k), k the number of hash functions",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITEM],
    },
    Doc {
        name: c"bf.mexists",
        callback: callback!(exists::mexists),
        flags: c"readonly fast",
        summary: c"Tells for each item whether it may be in a Bloom filter",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -3,
        access: Access::ReadData,
        args: &[KEY, items(c"item")],
    },
    Doc {
        name: c"bf.card",
        callback: callback!(info::card),
        flags: c"readonly fast",
        summary: c"Returns the number of items added to a Bloom filter",
        complexity: c"O(1)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
    },
    Doc {
        name: c"bf.info",
        callback: callback!(info::info),
        flags: c"readonly fast",
        summary: c"Returns information about a Bloom filter",
        complexity: c"O(1)",
        arity: -2,
        access: Access::Read,
        args: &[
            KEY,
            Arg {
                optional: true,
                ..arg(c"field", Kind::Text)
            },
        ],
    },
    Doc {
        name: c"bf.debug",
        callback: callback!(info::debug),
        flags: c"readonly",
        summary: c"Returns the size of each layer of a Bloom filter",
        complexity: c"O(layers)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
    },
    Doc {
        name: c"bf.scandump",
        callback: callback!(dump::scandump),
        flags: c"readonly",
        summary: c"Returns the next chunk of a Bloom filter's dump",
        complexity: c"O(n), n the chunk size",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITERATOR],
    },
    Doc {
        name: c"bf.loadchunk",
        callback: callback!(dump::loadchunk),
        flags: c"write deny-oom",
        summary: c"Restores a Bloom filter from chunks returned by BF.SCANDUMP",
        complexity: c"O(n), n the chunk size",
        arity: 4,
        access: Access::Update,
        args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
    },
    Doc {
        name: c"bf.import",
        callback: callback!(guava::import),
        flags: c"write deny-oom",
        summary:
            c"Creates a non-scaling Bloom filter from the bytes of Guava's BloomFilter.writeTo()",
        complexity: c"O(n), n the size of the data",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            arg(c"format", Kind::Text),
            arg(c"data", Kind::Text),
            option(c"capacity", Kind::Integer, c"CAPACITY"),
            option(c"error", Kind::Double, c"ERROR"),
        ],
    },
    Doc {
        name: c"bf.export",
        callback: callback!(guava::export),
        flags: c"readonly",
        summary: c"Returns a single-layer Bloom filter as Guava's BloomFilter.writeTo() bytes",
        complexity: c"O(n), n the size of the filter",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, arg(c"format", Kind::Text)],
    },
];

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
fn c_args(args: &'static [Arg]) -> *mut raw::RedisModuleCommandArg {
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
            },
            key_spec_index: if matches!(a.kind, Kind::Key) { 0 } else { -1 },
            token: opt_ptr(a.token),
            summary: ptr::null(),
            since: ptr::null(),
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

/// One key spec: the key is argument 1, alone.
fn c_key_specs(access: Access) -> *mut raw::RedisModuleCommandKeySpec {
    // SAFETY: all-zero key specs are valid values (null notes, zero unions); the second one
    // terminates the array.
    let mut specs: Vec<raw::RedisModuleCommandKeySpec> = vec![unsafe { std::mem::zeroed() }; 2];
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

/// The ACL category of every BF command, where the server has module categories (7.2+).
const ACL_CATEGORY: &CStr = c"bloom";

/// Adds the `bloom` ACL category and puts every command in it; a no-op on servers without
/// module ACL categories (Redis 7.0), where `@read` / `@write` / `@fast` still come from the
/// command flags.
fn add_acl_category(ctx: &Context) -> Result<(), String> {
    let (Some(add_category), Some(get_command), Some(set_categories)) = (
        unsafe { raw::RedisModule_AddACLCategory },
        unsafe { raw::RedisModule_GetCommand },
        unsafe { raw::RedisModule_SetCommandACLCategories },
    ) else {
        return Ok(());
    };
    if unsafe { add_category(ctx.ctx, ACL_CATEGORY.as_ptr()) } != raw::REDISMODULE_OK as c_int {
        return Err("Redis refused the ACL category 'bloom'".into());
    }
    for doc in COMMANDS {
        let command = unsafe { get_command(ctx.ctx, doc.name.as_ptr()) };
        if command.is_null()
            || unsafe { set_categories(command, ACL_CATEGORY.as_ptr()) }
                != raw::REDISMODULE_OK as c_int
        {
            return Err(format!(
                "could not put {:?} in the 'bloom' ACL category",
                doc.name
            ));
        }
    }
    Ok(())
}

/// Creates every command, then publishes its metadata and ACL category. Called once from
/// `init` (commands can only be created while the module loads).
pub fn register(ctx: &Context, since: &'static CStr) -> Result<(), String> {
    let create = unsafe { raw::RedisModule_CreateCommand }.ok_or("no CreateCommand")?;
    for doc in COMMANDS {
        // The key is argument 1 (first = last = 1, step 1), for cluster routing and ACLs.
        let status = unsafe {
            create(
                ctx.ctx,
                doc.name.as_ptr(),
                Some(doc.callback),
                doc.flags.as_ptr(),
                1,
                1,
                1,
            )
        };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(format!("could not create command {:?}", doc.name));
        }
    }
    publish(ctx, since)
}

/// Publishes every command's metadata and ACL category.
fn publish(ctx: &Context, since: &'static CStr) -> Result<(), String> {
    let (Some(get_command), Some(set_info)) = (unsafe { raw::RedisModule_GetCommand }, unsafe {
        raw::RedisModule_SetCommandInfo
    }) else {
        return Ok(()); // Before Redis 7.0 there is nothing to publish.
    };
    for doc in COMMANDS {
        let command = unsafe { get_command(ctx.ctx, doc.name.as_ptr()) };
        if command.is_null() {
            return Err(format!("command {:?} is not registered", doc.name));
        }
        let info = raw::RedisModuleCommandInfo {
            version: &INFO_VERSION,
            summary: doc.summary.as_ptr(),
            complexity: doc.complexity.as_ptr(),
            since: since.as_ptr(),
            history: ptr::null_mut(),
            tips: ptr::null(),
            arity: doc.arity,
            key_specs: c_key_specs(doc.access),
            args: c_args(doc.args),
        };
        if unsafe { set_info(command, &info) } != raw::REDISMODULE_OK as c_int {
            return Err(format!("Redis refused the command info of {:?}", doc.name));
        }
    }
    add_acl_category(ctx)
}
