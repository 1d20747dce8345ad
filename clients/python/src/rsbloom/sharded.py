"""Logical Bloom and cuckoo filters sharded over a cluster, protocol ``rsbloom-sharding/1``
(docs/sharding.md): the blocking classes. The operations themselves are in ``_ops`` (shared
with ``rsbloom.asyncio``); the methods here check their arguments, then drive them."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterable, List, Optional

from . import _ops as O
from ._filters import BloomFilter, CuckooFilter
from ._transport import SAFE, Transport


class _Sharded:
    _kind = O.Filter

    def __init__(self, client, name, *, retry_timeout: float = 20.0):
        """``client``: a ``redis.cluster.RedisCluster`` or a ``redis.Redis`` (one server).
        ``name``: the logical filter's name (str or bytes), which is also its description's
        key. ``retry_timeout``: how long a batch keeps retrying through redirections,
        failovers and a changed description (seconds)."""
        self.client = client
        self._filter = self._kind(name, retry_timeout)
        self._transport = Transport(client, retry_timeout)

    @property
    def name(self) -> bytes:
        return self._filter.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def _do(self, op: O.Op) -> Any:
        return O.drive(op, self._transport.run, time.sleep)

    def description(self, refresh: bool = False) -> Dict[str, str]:
        """The description's fields as text (read once, then cached; ``refresh`` reads again).
        Raises ``FilterNotFoundError`` when there is none, ``UnknownProtocolError`` when it is
        not a ``rsbloom-sharding/1`` filter of this family. Every batch checks it is still
        current (its ``id`` and ``shards``) and reads it again when not."""
        return self._do(self._filter.description(refresh))

    @property
    def shard_count(self) -> int:
        return int(self.description()["shards"])

    @property
    def shard_keys(self) -> List[bytes]:
        self.description()
        return list(self._filter.keys)

    def exists_filter(self) -> bool:
        """Whether the logical filter's description exists (read now, not cached)."""
        try:
            self.description(refresh=True)
        except O.FilterNotFoundError:
            return False
        return True

    def exists(self, item) -> bool:
        """Whether the item may have been added (false positives at the error rate)."""
        return self.mexists([item])[0]

    def mexists(self, items: Iterable[Any]) -> List[bool]:
        """``exists`` for every item, in the caller's order; one command per shard. Never
        False for an item the current filter held when the call began, even when another
        client re-created the filter meanwhile."""
        f = self._filter
        return self._do(f.batch(f.mexists, items, SAFE, O.BOOLEANS, "exists", read=True))

    def add(self, item) -> bool:
        """Adds one item; see ``madd``."""
        return self.madd([item])[0]

    def madd(self, items: Iterable[Any]) -> List[bool]:
        return self._do(self._filter.madd(items))

    def card(self) -> int:
        return self._do(self._filter.card())

    def info(self) -> Dict[str, Any]:
        """The logical filter: ``name``, ``family``, ``protocol``, ``id``, the description's
        fields (``shard_count`` for its ``shards``; numbers as numbers; never the routing
        secret), ``description`` (as stored) and ``shards``: per shard ``index``, ``key``,
        ``node`` (the master that answered, ``host:port``), ``slots`` (first, last),
        ``items``, ``size`` (bytes) and ``info`` (the shard's whole ``BF.INFO`` /
        ``CF.INFO``)."""
        return self._do(self._filter.info())

    def delete(self) -> bool:
        """Deletes every shard key, then the description. False when there was no filter."""
        return self._do(self._filter.delete())


class ShardedBloom(_Sharded):
    """A Bloom filter over many shards (``BF.*`` keys) of a cluster or one server.
    Adding an item twice is harmless, so every command of a batch may be retried."""

    _kind = BloomFilter

    def reserve(self, error_rate: float, capacity: int, shards: Optional[int] = None,
                expansion: Optional[int] = None, nonscaling: bool = False,
                keyed_routing: bool = False) -> None:
        """Creates the logical filter: the description (refused with ``FilterExistsError``
        when the name exists), then each shard with ``BF.RESERVE ... SHARD name i N SHARDID
        id``. ``shards`` defaults to the protocol's default count; ``expansion`` to 2.
        ``keyed_routing``: items are routed by a secret only the description holds, so items
        picked by an outsider cannot pile into one shard (docs/sharding.md). Safe to call
        again after a lost reply; a reserve that fails leaves nothing behind."""
        fields, reserve = self._filter.plan_reserve(error_rate, capacity, shards, expansion,
                                                    nonscaling, keyed_routing)
        self._do(self._filter.create(fields, reserve))

    def madd(self, items: Iterable[Any]) -> List[bool]:
        """Adds the items (``BF.INSERT key NOCREATE ITEMS ...``, one per shard, pipelined per
        node): True for each item that was not there before, in the caller's order. Items a
        full non-scaling shard refused raise ``FilterFullError`` (a ``BatchError``: the
        others are added and answered in it). A shard's command whose reply was lost (a
        failover) is sent again; its items then answer False if the lost attempt had added
        them."""
        return super().madd(items)

    def card(self) -> int:
        """The items the logical filter holds: the sum of its shards' ``BF.CARD``."""
        return super().card()


class ShardedCuckoo(_Sharded):
    """A cuckoo filter over many shards (``CF.*`` keys). ``add`` stores a copy even when the
    item is there (``CF.INSERT``), so an add is never sent twice: when a connection fails
    after a ``CF.INSERT`` left, its items' fate is unknown and ``AmbiguousWriteError`` says
    which (every other shard's answer is in it). ``addnx`` is retried instead."""

    _kind = CuckooFilter

    def reserve(self, capacity: int, shards: Optional[int] = None,
                bucket_size: Optional[int] = None, max_iterations: Optional[int] = None,
                expansion: Optional[int] = None, keyed_routing: bool = False) -> None:
        """Creates the logical filter: the description (refused with ``FilterExistsError``
        when the name exists), then each shard with ``CF.RESERVE ... SHARD name i N SHARDID
        id``. Defaults: the protocol's shard count, bucket size 2, 20 iterations, expansion
        1. ``keyed_routing`` as for ``ShardedBloom.reserve``."""
        fields, reserve = self._filter.plan_reserve(capacity, shards, bucket_size,
                                                    max_iterations, expansion, keyed_routing)
        self._do(self._filter.create(fields, reserve))

    def madd(self, items: Iterable[Any]) -> List[bool]:
        """Adds the items (``CF.INSERT key NOCREATE ITEMS ...``; an item already there gets
        another copy): True per item added, in the caller's order. ``FilterFullError`` for
        items a full shard had no room for, ``AmbiguousWriteError`` (see the class); both
        are ``BatchError``s holding every other item's answer."""
        return super().madd(items)

    def addnx(self, item) -> bool:
        """Adds the item unless it may be there already (``CF.INSERTNX``); see ``maddnx``."""
        return self.maddnx([item])[0]

    def maddnx(self, items: Iterable[Any]) -> List[bool]:
        """``CF.INSERTNX key NOCREATE ITEMS ...`` per shard: True per item added, False for
        an item that may have been there. Retried after a lost connection (a second
        ``CF.INSERTNX`` adds nothing twice), so an item the lost attempt added answers False."""
        return self._do(self._filter.maddnx(items))

    def remove(self, item) -> bool:
        """Removes one copy of the item (``CF.DEL``): True if one was there. Never sent twice
        (a second would remove another copy): ``AmbiguousWriteError`` on a lost reply."""
        return self._do(self._filter.remove(item))

    def count(self, item) -> int:
        """Copies of the item's fingerprint in its shard (``CF.COUNT``)."""
        return self._do(self._filter.count_of(item))

    def card(self) -> int:
        """The items the logical filter holds: the sum of its shards' ``CF.INFO``
        ``Number of items inserted``."""
        return super().card()
