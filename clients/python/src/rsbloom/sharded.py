"""Logical Bloom and cuckoo filters sharded over a cluster, protocol ``rsbloom-sharding/1``
(docs/sharding.md)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from redis.exceptions import ResponseError

from . import _replies as R
from . import protocol as P
from ._transport import ONCE, RESERVE, SAFE, Command, Transport
from .errors import (
    AmbiguousWriteError,
    FilterExistsError,
    FilterFullError,
    FilterNotFoundError,
    UnknownProtocolError,
)

# The description script of docs/sharding.md: the hash is written only when the key is absent.
DESCRIPTION_SCRIPT = (
    "if redis.call('exists', KEYS[1]) == 1 then return 0 end\n"
    "redis.call('hset', KEYS[1], unpack(ARGV)) return 1"
)


def _decimal(value: Any) -> str:
    """A number as the description and the reserve commands carry it."""
    if isinstance(value, bool):
        raise TypeError("a number, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _positive_int(what: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} is a positive integer, not {value!r}")
    return value


class _Sharded:
    family = ""
    _insert = b""
    _mexists = b""
    _info = b""

    def __init__(self, client, name, *, retry_timeout: float = 20.0):
        """``client``: a ``redis.cluster.RedisCluster`` or a ``redis.Redis`` (one server).
        ``name``: the logical filter's name (str or bytes), which is also its description's
        key. ``retry_timeout``: how long a batch keeps retrying through redirections and
        failovers (seconds)."""
        self.client = client
        self.name = P.to_bytes(name)
        self._transport = Transport(client, retry_timeout)
        self._description: Optional[Dict[str, str]] = None
        self._keys: List[bytes] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # -- the description ------------------------------------------------------------------

    def description(self, refresh: bool = False) -> Dict[str, str]:
        """The description's fields as text (read once, then cached; ``refresh`` reads again).
        Raises ``FilterNotFoundError`` when there is none, ``UnknownProtocolError`` when it is
        not a ``rsbloom-sharding/1`` filter of this family."""
        if self._description is None or refresh:
            cmd = self._one(Command(self.name, (b"HGETALL", self.name)))
            fields = R.hash_fields(cmd.reply)
            if not fields:
                self._forget()
                raise FilterNotFoundError(f"no logical filter {self.name!r}")
            self._adopt(fields)
        return dict(self._description)  # type: ignore[arg-type]

    def _adopt(self, fields: Dict[str, str]) -> None:
        if fields.get("protocol") != P.PROTOCOL:
            raise UnknownProtocolError(
                f"{self.name!r} has protocol {fields.get('protocol')!r}; this client knows "
                f"{P.PROTOCOL!r}")
        if fields.get("family") != self.family:
            raise UnknownProtocolError(
                f"{self.name!r} is a {fields.get('family')!r} filter, not {self.family!r}")
        try:
            count = int(fields["shards"])
            P.slot_range(0, count)
        except (KeyError, ValueError) as e:
            raise UnknownProtocolError(f"{self.name!r} has no valid shard count: {e}") from e
        self._description = fields
        self._keys = P.shard_keys(self.name, count)

    def _forget(self) -> None:
        self._description = None
        self._keys = []

    @property
    def shard_count(self) -> int:
        return int(self.description()["shards"])

    @property
    def shard_keys(self) -> List[bytes]:
        self.description()
        return list(self._keys)

    def exists_filter(self) -> bool:
        """Whether the logical filter's description exists (read now, not cached)."""
        try:
            self.description(refresh=True)
        except FilterNotFoundError:
            return False
        return True

    # -- running commands -----------------------------------------------------------------

    def _one(self, cmd: Command) -> Command:
        self._transport.run([cmd])
        if cmd.lost:
            raise AmbiguousWriteError(
                f"the connection to {cmd.node or 'the node'} failed after {cmd.args[0]!r} was "
                f"sent: whether it ran is unknown", [None], [0], {"": cmd.error})
        if cmd.error is not None:
            raise cmd.error
        return cmd

    def _run_all(self, commands: Sequence[Command]) -> None:
        """Runs the commands; raises the first error that is not an ambiguity (those are the
        callers' to report)."""
        self._transport.run(commands)
        for cmd in commands:
            if cmd.error is not None and not cmd.lost:
                raise cmd.error

    def _per_shard(self, items: Iterable[Any]) -> Tuple[List[bytes], Dict[int, List[int]]]:
        """The items as bytes, and for each shard the positions of its items, in order."""
        raw = [P.to_bytes(x) for x in items]
        count = self.shard_count
        groups: Dict[int, List[int]] = {}
        for pos, item in enumerate(raw):
            groups.setdefault(P.shard_of(item, count), []).append(pos)
        return raw, groups

    def _batch(self, verb: bytes, items: Iterable[Any], policy: str, nocreate: bool):
        """One command per shard (``verb key [NOCREATE ITEMS] item ...``); the commands and
        the positions each answers for."""
        raw, groups = self._per_shard(items)
        keys = self._keys
        plan = []
        for shard, positions in sorted(groups.items()):
            key = keys[shard]
            head: Tuple[Any, ...] = (verb, key, b"NOCREATE", b"ITEMS") if nocreate else (verb, key)
            plan.append((Command(key, head + tuple(raw[p] for p in positions), policy),
                         positions))
        self._transport.run([cmd for cmd, _ in plan])
        return raw, plan

    def _answers(self, raw, plan, what: str, value=R.boolean) -> List[Any]:
        """The per-item replies in the caller's order; raises ``FilterFullError`` for refused
        items and ``AmbiguousWriteError`` for lost ``ONCE`` commands (after reading every
        other answer)."""
        results: List[Any] = [None] * len(raw)
        refused: List[int] = []
        unknown: List[int] = []
        causes: Dict[str, Exception] = {}
        first_error: Optional[BaseException] = None
        for cmd, positions in plan:
            if cmd.lost:
                unknown.extend(positions)
                causes[cmd.node or P.to_bytes(cmd.key).decode("utf-8", "replace")] = cmd.error
                continue
            if cmd.error is not None:
                first_error = first_error or cmd.error
                continue
            reply = list(cmd.reply)
            for at, pos in enumerate(positions):
                answer = reply[at] if at < len(reply) else None
                if answer is None or isinstance(answer, ResponseError):
                    refused.append(pos)  # a full shard's refusal ends the array
                elif not isinstance(answer, bool) and R.integer(answer) < 0:
                    refused.append(pos)  # CF.INSERT's -1: no room
                else:
                    results[pos] = value(answer)
        if first_error is not None:
            raise first_error
        if unknown:
            unknown.sort()
            raise AmbiguousWriteError(
                f"{what}: the connection failed after the command was sent, for "
                f"{len(unknown)} item(s) (nodes {sorted(causes)}): they may or may not have "
                f"been added, and were not sent again", results, unknown, causes)
        if refused:
            refused.sort()
            raise FilterFullError(
                f"{what}: {len(refused)} item(s) refused by a full shard", results, refused)
        return results

    # -- operations -----------------------------------------------------------------------

    def _create(self, fields: List[Tuple[str, Any]], reserves: List[Tuple[Any, ...]]) -> None:
        argv: List[Any] = []
        for field, value in fields:
            argv += [field, _decimal(value)]
        script = Command(self.name, (b"EVAL", DESCRIPTION_SCRIPT, 1, self.name, *argv), ONCE)
        self._one(script)
        if R.integer(script.reply) == 0:
            raise FilterExistsError(f"ERR item exists: {self.name!r} exists")
        self._adopt({k: _decimal(v) for k, v in fields})
        commands = [Command(self._keys[i], args, RESERVE) for i, args in enumerate(reserves)]
        self._run_all(commands)
        for cmd in commands:
            if cmd.lost:  # not for RESERVE, but kept honest
                raise AmbiguousWriteError("a shard's reserve was lost", [], [], {})

    def _count(self, count: Optional[int]) -> int:
        count = _positive_int("a shard count", count)
        P.slot_range(0, count)
        return count

    def exists(self, item) -> bool:
        """Whether the item may have been added (false positives at the error rate)."""
        return self.mexists([item])[0]

    def mexists(self, items: Iterable[Any]) -> List[bool]:
        """``exists`` for every item, in the caller's order; one command per shard."""
        self.description()
        raw, plan = self._batch(self._mexists, items, SAFE, nocreate=False)
        return self._answers(raw, plan, "exists")

    def add(self, item) -> bool:
        """Adds one item; see ``madd``."""
        return self.madd([item])[0]

    def card(self) -> int:
        """The items the logical filter holds: the sum of its shards' ``CF.INFO``
        ``Number of items inserted``."""
        return sum(entry["items"] for entry in self.info()["shards"])

    def info(self) -> Dict[str, Any]:
        """The logical filter: ``name``, ``family``, ``protocol``, the description's fields
        (``shard_count`` for its ``shards``; numbers as numbers), ``description`` (as stored)
        and ``shards``: per shard ``index``, ``key``, ``node`` (the master that answered,
        ``host:port``), ``slots`` (first, last), ``items``, ``size`` (bytes) and ``info``
        (the shard's whole ``BF.INFO`` / ``CF.INFO``)."""
        fields = self.description()
        count = int(fields["shards"])
        commands = [Command(key, (self._info, key)) for key in self._keys]
        self._run_all(commands)
        shards = []
        for index, cmd in enumerate(commands):
            info = R.info(cmd.reply)
            shards.append({
                "index": index,
                "key": self._keys[index],
                "node": cmd.node,
                "slots": P.slot_range(index, count),
                "items": int(info.get("Number of items inserted", 0)),
                "size": int(info.get("Size", 0)),
                "info": info,
            })
        out: Dict[str, Any] = {"name": self.name, "description": fields}
        for field, value in fields.items():
            out["shard_count" if field == "shards" else field] = R.number(value) \
                if field not in ("protocol", "family") else value
        out["shards"] = shards
        out["size"] = sum(s["size"] for s in shards)
        out["items"] = sum(s["items"] for s in shards)
        return out

    def delete(self) -> bool:
        """Deletes every shard key, then the description. False when there was no filter."""
        try:
            self.description(refresh=True)
        except FilterNotFoundError:
            return False
        self._run_all([Command(key, (b"DEL", key)) for key in self._keys])
        self._one(Command(self.name, (b"DEL", self.name)))
        self._forget()
        return True


class ShardedBloom(_Sharded):
    """A Bloom filter over many shards (``BF.*`` keys) of a cluster or one server.
    Adding an item twice is harmless, so every command of a batch may be retried."""

    family = "bloom"
    _insert = b"BF.INSERT"
    _mexists = b"BF.MEXISTS"
    _info = b"BF.INFO"

    def reserve(self, error_rate: float, capacity: int, shards: Optional[int] = None,
                expansion: Optional[int] = None, nonscaling: bool = False) -> None:
        """Creates the logical filter: the description (refused with ``FilterExistsError``
        when the name exists), then each shard with ``BF.RESERVE ... SHARD name i N``.
        ``shards`` defaults to the protocol's default count; ``expansion`` to 2."""
        rate = float(error_rate)
        if not 0.0 < rate < 1.0:
            raise ValueError(f"an error rate is between 0 and 1, not {error_rate!r}")
        capacity = _positive_int("a capacity", capacity)
        count = self._count(shards) if shards is not None else \
            P.default_bloom_shards(capacity, rate)
        if nonscaling and expansion is not None:
            raise ValueError("NONSCALING takes no expansion")
        each = P.shard_capacity(capacity, count)
        exp = 0 if nonscaling else _positive_int("an expansion", 2 if expansion is None
                                                 else expansion)
        scaling: Tuple[Any, ...] = (b"NONSCALING",) if nonscaling else (b"EXPANSION", exp)
        keys = P.shard_keys(self.name, count)
        self._create(
            [("protocol", P.PROTOCOL), ("family", self.family), ("shards", count),
             ("capacity", capacity), ("shard_capacity", each), ("error_rate", error_rate),
             ("expansion", exp)],
            [(b"BF.RESERVE", keys[i], _decimal(error_rate), each, *scaling,
              b"SHARD", self.name, i, count) for i in range(count)])

    def card(self) -> int:
        """The items the logical filter holds: the sum of its shards' ``BF.CARD``."""
        self.description()
        commands = [Command(key, (b"BF.CARD", key)) for key in self._keys]
        self._run_all(commands)
        return sum(R.integer(cmd.reply) for cmd in commands)

    def madd(self, items: Iterable[Any]) -> List[bool]:
        """Adds the items (``BF.INSERT key NOCREATE ITEMS ...``, one per shard, pipelined per
        node): True for each item that was not there before, in the caller's order. Items a
        full non-scaling shard refused raise ``FilterFullError`` (the others are added).
        A shard's command whose reply was lost (a failover) is sent again; its items then
        answer False if the lost attempt had added them."""
        self.description()
        raw, plan = self._batch(self._insert, items, SAFE, nocreate=True)
        return self._answers(raw, plan, "add")


class ShardedCuckoo(_Sharded):
    """A cuckoo filter over many shards (``CF.*`` keys). ``add`` stores a copy even when the
    item is there (``CF.INSERT``), so an add is never sent twice: when a connection fails
    after a ``CF.INSERT`` left, its items' fate is unknown and ``AmbiguousWriteError`` says
    which (every other shard's answer is in it). ``addnx`` is retried instead."""

    family = "cuckoo"
    _insert = b"CF.INSERT"
    _mexists = b"CF.MEXISTS"
    _info = b"CF.INFO"

    def reserve(self, capacity: int, shards: Optional[int] = None,
                bucket_size: Optional[int] = None, max_iterations: Optional[int] = None,
                expansion: Optional[int] = None) -> None:
        """Creates the logical filter: the description (refused with ``FilterExistsError``
        when the name exists), then each shard with ``CF.RESERVE ... SHARD name i N``.
        Defaults: the protocol's shard count, bucket size 2, 20 iterations, expansion 1."""
        capacity = _positive_int("a capacity", capacity)
        bucket = _positive_int("a bucket size", 2 if bucket_size is None else bucket_size)
        iterations = _positive_int("max iterations",
                                   20 if max_iterations is None else max_iterations)
        exp = 1 if expansion is None else expansion
        if isinstance(exp, bool) or not isinstance(exp, int) or exp < 0:
            raise ValueError(f"an expansion is a non-negative integer, not {expansion!r}")
        count = self._count(shards) if shards is not None else \
            P.default_cuckoo_shards(capacity, bucket)
        each = P.shard_capacity(capacity, count)
        keys = P.shard_keys(self.name, count)
        self._create(
            [("protocol", P.PROTOCOL), ("family", self.family), ("shards", count),
             ("capacity", capacity), ("shard_capacity", each), ("expansion", exp),
             ("bucket_size", bucket), ("max_iterations", iterations)],
            [(b"CF.RESERVE", keys[i], each, b"BUCKETSIZE", bucket, b"MAXITERATIONS", iterations,
              b"EXPANSION", exp, b"SHARD", self.name, i, count) for i in range(count)])

    def madd(self, items: Iterable[Any]) -> List[bool]:
        """Adds the items (``CF.INSERT key NOCREATE ITEMS ...``; an item already there gets
        another copy): True per item added, in the caller's order. ``FilterFullError`` for
        items a full shard had no room for, ``AmbiguousWriteError`` (see the class)."""
        self.description()
        raw, plan = self._batch(self._insert, items, ONCE, nocreate=True)
        return self._answers(raw, plan, "add")

    def addnx(self, item) -> bool:
        """Adds the item unless it may be there already (``CF.INSERTNX``); see ``maddnx``."""
        return self.maddnx([item])[0]

    def maddnx(self, items: Iterable[Any]) -> List[bool]:
        """``CF.INSERTNX key NOCREATE ITEMS ...`` per shard: True per item added, False for
        an item that may have been there. Retried after a lost connection (a second
        ``CF.INSERTNX`` adds nothing twice), so an item the lost attempt added answers False."""
        self.description()
        raw, plan = self._batch(b"CF.INSERTNX", items, SAFE, nocreate=True)
        return self._answers(raw, plan, "addnx")

    def remove(self, item) -> bool:
        """Removes one copy of the item (``CF.DEL``): True if one was there. Never sent twice
        (a second would remove another copy): ``AmbiguousWriteError`` on a lost reply."""
        self.description()
        key = self._keys[P.shard_of(P.to_bytes(item), self.shard_count)]
        return R.boolean(self._one(Command(key, (b"CF.DEL", key, P.to_bytes(item)), ONCE)).reply)

    def count(self, item) -> int:
        """Copies of the item's fingerprint in its shard (``CF.COUNT``)."""
        self.description()
        key = self._keys[P.shard_of(P.to_bytes(item), self.shard_count)]
        return R.integer(self._one(Command(key, (b"CF.COUNT", key, P.to_bytes(item)))).reply)
