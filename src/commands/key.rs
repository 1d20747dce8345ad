//! Key access shared by every family: a key opened for the call, and the family's value in
//! it read, written or stored through the [`Family`] trait (which Redis types hold the
//! family's values). Writes go through a [`Writing`] guard that hands what changed (memory,
//! items) to the family's INFO counters when the command is done with the value.

use std::ffi::c_void;
use std::ops::{Deref, DerefMut};

use redis_module::native_types::RedisType;
use redis_module::raw;
use rsbloom_core::error::{Error, Result};

use super::argv::Arg;
use super::Call;
use crate::datatype::Family;
use crate::info::Figures;

/// A key opened for the current command, closed when dropped.
pub struct Key(*mut raw::RedisModuleKey);

impl Drop for Key {
    fn drop(&mut self) {
        raw::close_key(self.0);
    }
}

/// Opens the call's key for reading.
pub fn open_read(call: &Call) -> Key {
    open_named(call, call.key(), false)
}

/// Opens the call's key for reading and writing.
pub fn open_write(call: &Call) -> Key {
    open_named(call, call.key(), true)
}

/// Opens the key named by argument `name` (the call's key, or a source of a MERGE), for
/// reading and, with `write`, writing.
pub fn open_named(call: &Call, name: &Arg, write: bool) -> Key {
    let mode = match write {
        true => raw::KeyMode::READ | raw::KeyMode::WRITE,
        false => raw::KeyMode::READ,
    };
    Key(raw::open_key(call.ctx.ctx, name.raw(), mode))
}

/// The server's handle of a type. Read without the cell's borrow bookkeeping: it is written
/// once, while the module loads, before any command runs.
fn raw_type(t: &RedisType) -> *mut raw::RedisModuleType {
    unsafe { *t.raw_type.as_ptr() }
}

impl Key {
    /// No value at the key (also where the server lacks `KeyType`, which every supported
    /// one has).
    pub fn is_empty(&self) -> bool {
        let key_type = unsafe { raw::RedisModule_KeyType.map_or(0, |f| f(self.0)) };
        key_type == raw::REDISMODULE_KEYTYPE_EMPTY as i32
    }

    /// What the key holds: one type lookup, and the value's address if a module's.
    pub fn held(&self) -> Result<Held> {
        // (No `ok_or(Error)` here: building an error it then drops costs more than the rest.)
        let (Some(get_type), Some(get_value)) =
            (unsafe { raw::RedisModule_ModuleTypeGetType }, unsafe {
                raw::RedisModule_ModuleTypeGetValue
            })
        else {
            return Err(Error::Internal);
        };
        if self.is_empty() {
            return Ok(Held::Empty);
        }
        let held = unsafe { get_type(self.0) };
        if held.is_null() {
            return Ok(Held::Other);
        }
        Ok(Held::Module(held, unsafe { get_value(self.0) }))
    }

    /// The family's value for reading: `None` if the key is missing, WRONGTYPE if it holds
    /// anything else.
    pub fn read<'a, F: Family>(&self) -> Result<Option<&'a F>> {
        self.held()?.read()
    }

    /// The family's value for writing: changes reach the INFO counters when the guard drops.
    pub fn write<'a, F: Family>(&self) -> Result<Option<Writing<'a, F>>> {
        self.held()?.write()
    }

    /// Stores a new value at the empty key, as the type the value asks for, and hands it
    /// back for further writes.
    pub fn store<'a, F: Family>(&self, value: F) -> Result<Writing<'a, F>> {
        let set = unsafe { raw::RedisModule_ModuleTypeSetValue }.ok_or(Error::Internal)?;
        let figures = value.figures();
        let raw_value = Box::into_raw(Box::new(value));
        let stored = unsafe { set(self.0, raw_type(F::type_of(&*raw_value)), raw_value.cast()) };
        if stored != raw::REDISMODULE_OK as i32 {
            // SAFETY: the server refused it and did not take it: still ours.
            drop(unsafe { Box::from_raw(raw_value) });
            return Err(Error::WrongType);
        }
        F::counters().added(figures);
        // SAFETY: the key now holds the value, as in `write`.
        Ok(Writing::new(unsafe { &mut *raw_value }))
    }
}

/// What a key holds, looked up once: commands whose answer depends on the key's type (the
/// BF commands' dialects) match on it, then take the value without a second lookup.
#[derive(Clone, Copy)]
pub enum Held {
    Empty,
    /// A module's value: its type and address.
    Module(*mut raw::RedisModuleType, *mut c_void),
    /// A value of one of the server's own types.
    Other,
}

impl Held {
    /// Whether it is a value of one of family `F`'s types.
    pub fn is<F: Family>(self) -> bool {
        match self {
            Held::Module(held, _) => F::types().iter().any(|t| raw_type(t) == held),
            _ => false,
        }
    }

    /// The value of family `F`: `None` if the key is missing, WRONGTYPE if it holds
    /// anything else.
    fn value<F: Family>(self) -> Result<Option<*mut F>> {
        match self {
            Held::Empty => Ok(None),
            Held::Module(_, value) if self.is::<F>() => {
                Ok((!value.is_null()).then_some(value.cast()))
            }
            _ => Err(Error::WrongType),
        }
    }

    /// As [`Key::read`].
    pub fn read<'a, F: Family>(self) -> Result<Option<&'a F>> {
        // SAFETY: a value of one of `F`'s types is an `F` this module stored; it lives as
        // long as the key holds it, beyond this command's use of it.
        Ok(self.value::<F>()?.map(|v| unsafe { &*v }))
    }

    /// As [`Key::write`].
    pub fn write<'a, F: Family>(self) -> Result<Option<Writing<'a, F>>> {
        // SAFETY: as in `read`; the command is the value's only user while it runs.
        Ok(self.value::<F>()?.map(|v| Writing::new(unsafe { &mut *v })))
    }
}

/// A value open for writing. Its figures (memory, items, parts, capacity) when it was opened
/// are compared with those when the guard drops, and the difference goes to the family's
/// INFO counters. Memory and capacity change only with the number of parts, so they are read
/// again only then.
pub struct Writing<'a, F: Family> {
    value: &'a mut F,
    before: Figures,
}

impl<'a, F: Family> Writing<'a, F> {
    fn new(value: &'a mut F) -> Writing<'a, F> {
        let before = value.figures();
        Writing { value, before }
    }
}

impl<F: Family> Deref for Writing<'_, F> {
    type Target = F;
    fn deref(&self) -> &F {
        self.value
    }
}

impl<F: Family> DerefMut for Writing<'_, F> {
    fn deref_mut(&mut self) -> &mut F {
        self.value
    }
}

impl<F: Family> Drop for Writing<'_, F> {
    fn drop(&mut self) {
        // Wrapping: loaded values may claim counts at the ends of the range.
        let items = self.value.items().wrapping_sub(self.before.items);
        if items != 0 {
            F::counters().items_changed(items);
        }
        if self.value.parts() as i64 != self.before.parts {
            let grown = self.value.figures().since(self.before);
            F::counters().grew(Figures { items: 0, ..grown });
        }
    }
}
