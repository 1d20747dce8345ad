//! What differs between the families, as a table: command names, how a reply entry reads,
//! which commands run once only. Everything else (batching, retries, staleness, errors) is
//! one generic layer over it.

use crate::command::Policy;
use crate::description::FamilyName;

/// How one item's reply entry reads (both protocols).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decode {
    /// 1 / 0 or true / false (`BF.MEXISTS`, `CF.MEXISTS`, `BF.INSERT`, `CF.DEL`).
    Flag,
    /// `CF.INSERT`: 1 / true stored; -1 / false no room, a refusal (never "not added").
    Stored,
    /// `CF.INSERTNX`: 1 added, 0 maybe there already, -1 no room.
    AddedNx,
    /// An integer (`CF.COUNT`).
    Count,
}

/// One per-item command.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Verb {
    pub name: &'static str,
    /// `key NOCREATE ITEMS item ...` (adds: never create a plain filter in a lost shard's
    /// place), else `key item ...`.
    pub nocreate: bool,
    pub policy: Policy,
    /// A read's answers are asked again whenever the description changed under them.
    pub read: bool,
    pub decode: Decode,
    /// One item per command, answered by a single value (`CF.DEL`, `CF.COUNT`).
    pub single: bool,
}

/// A batch command: a read (`key item ...`) or an add (`key NOCREATE ITEMS item ...`).
const fn verb(name: &'static str, read: bool, policy: Policy, decode: Decode) -> Verb {
    Verb {
        name,
        nocreate: !read,
        policy,
        read,
        decode,
        single: false,
    }
}

pub(crate) struct Verbs {
    pub add: Verb,
    pub exists: Verb,
    pub info: &'static str,
    /// The per-shard item count's command; `None`: INFO's `Number of items inserted`.
    pub card: Option<&'static str>,
}

/// A Bloom add may run twice (a second answers false); a cuckoo add may not (a second copy).
static BLOOM: Verbs = Verbs {
    add: verb("BF.INSERT", false, Policy::Safe, Decode::Flag),
    exists: verb("BF.MEXISTS", true, Policy::Safe, Decode::Flag),
    info: "BF.INFO",
    card: Some("BF.CARD"),
};

static CUCKOO: Verbs = Verbs {
    add: verb("CF.INSERT", false, Policy::Once, Decode::Stored),
    exists: verb("CF.MEXISTS", true, Policy::Safe, Decode::Flag),
    info: "CF.INFO",
    card: None,
};

/// `CF.INSERTNX` adds nothing twice, so it is retried.
pub(crate) const CF_ADDNX: Verb = verb("CF.INSERTNX", false, Policy::Safe, Decode::AddedNx);
/// A second `CF.DEL` would remove another copy: once only. A write, never rerun as a read.
pub(crate) const CF_DEL: Verb = Verb {
    name: "CF.DEL",
    nocreate: false,
    policy: Policy::Once,
    read: false,
    decode: Decode::Flag,
    single: true,
};
pub(crate) const CF_COUNT: Verb = Verb {
    name: "CF.COUNT",
    nocreate: false,
    policy: Policy::Safe,
    read: true,
    decode: Decode::Count,
    single: true,
};

pub(crate) fn verbs(family: FamilyName) -> &'static Verbs {
    match family {
        FamilyName::Bloom => &BLOOM,
        FamilyName::Cuckoo => &CUCKOO,
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The family of a sharded filter handle: [`Bloom`] or [`Cuckoo`].
pub trait Family: sealed::Sealed + Send + Sync + 'static {
    const NAME: FamilyName;
}

/// Bloom filters (`BF.*` shards).
#[derive(Clone, Copy, Debug)]
pub struct Bloom;
/// Cuckoo filters (`CF.*` shards).
#[derive(Clone, Copy, Debug)]
pub struct Cuckoo;

impl sealed::Sealed for Bloom {}
impl sealed::Sealed for Cuckoo {}
impl Family for Bloom {
    const NAME: FamilyName = FamilyName::Bloom;
}
impl Family for Cuckoo {
    const NAME: FamilyName = FamilyName::Cuckoo;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lookups_and_counts_are_reads() {
        assert!(BLOOM.exists.read && CUCKOO.exists.read && CF_COUNT.read);
        assert!(!BLOOM.add.read && !CUCKOO.add.read && !CF_ADDNX.read && !CF_DEL.read);
        assert_eq!(CUCKOO.add.policy, Policy::Once);
        assert_eq!(CF_DEL.policy, Policy::Once);
        assert_eq!(BLOOM.add.policy, Policy::Safe);
    }
}
