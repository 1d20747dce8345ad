"""The asyncio client: ``ShardedBloom``, ``ShardedCuckoo``, ``cbf`` and ``apbf`` over
``redis.asyncio.Redis`` and ``redis.asyncio.cluster.RedisCluster``, with the blocking
classes' semantics and errors (the operations are the same code, ``_ops``), so many
batches run at once on one event loop::

    import redis.asyncio
    from rsbloom.asyncio import ShardedBloom

    bloom = ShardedBloom(redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=7000),
                         "urls")
    await bloom.reserve(0.01, 10_000_000)
    await asyncio.gather(*(bloom.madd(batch) for batch in batches))

Every method is a coroutine. Cancelling one closes the connections it was using, so a
cancelled write's outcome is unknown (as after a lost reply); nothing of it is resent.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _ops as O
from ._aio_transport import AsyncTransport
from ._filters import BloomFilter, CuckooFilter
from ._transport import SAFE, Command
from .families import APBF as _APBF
from .families import CBF as _CBF

__all__ = ["APBF", "CBF", "ShardedBloom", "ShardedCuckoo", "apbf", "cbf"]


async def drive(op: O.Op, run) -> Any:
    """Runs an operation with the asyncio transport."""
    try:
        step = next(op)
        while True:
            if isinstance(step, float):
                await asyncio.sleep(step)
            else:
                await run(step)
            step = op.send(None)
    except StopIteration as stop:
        return stop.value


class _Sharded:
    _kind = O.Filter

    def __init__(self, client, name, *, retry_timeout: float = 20.0):
        """As ``rsbloom.ShardedBloom``, with a ``redis.asyncio`` client."""
        self.client = client
        self._filter = self._kind(name, retry_timeout)
        self._transport = AsyncTransport(client, retry_timeout)

    @property
    def name(self) -> bytes:
        return self._filter.name

    def __repr__(self) -> str:
        return f"rsbloom.asyncio.{type(self).__name__}({self.name!r})"

    async def _do(self, op: O.Op) -> Any:
        return await drive(op, self._run)

    async def _run(self, commands: Sequence[Command]) -> None:
        await self._transport.run(commands)

    async def description(self, refresh: bool = False) -> Dict[str, str]:
        return await self._do(self._filter.description(refresh))

    async def shard_count(self) -> int:
        return int((await self.description())["shards"])

    async def shard_keys(self) -> List[bytes]:
        await self.description()
        return list(self._filter.keys)

    async def exists_filter(self) -> bool:
        try:
            await self.description(refresh=True)
        except O.FilterNotFoundError:
            return False
        return True

    async def exists(self, item) -> bool:
        return (await self.mexists([item]))[0]

    async def mexists(self, items: Iterable[Any]) -> List[bool]:
        f = self._filter
        return await self._do(f.batch(f.mexists, items, SAFE, O.BOOLEANS, "exists",
                                      read=True))

    async def add(self, item) -> bool:
        return (await self.madd([item]))[0]

    async def madd(self, items: Iterable[Any]) -> List[bool]:
        return await self._do(self._filter.madd(items))

    async def card(self) -> int:
        return await self._do(self._filter.card())

    async def info(self) -> Dict[str, Any]:
        return await self._do(self._filter.info())

    async def delete(self) -> bool:
        return await self._do(self._filter.delete())


class ShardedBloom(_Sharded):
    """``rsbloom.ShardedBloom`` on asyncio."""

    _kind = BloomFilter

    async def reserve(self, error_rate: float, capacity: int, shards: Optional[int] = None,
                      expansion: Optional[int] = None, nonscaling: bool = False,
                      keyed_routing: bool = False) -> None:
        fields, reserve = self._filter.plan_reserve(error_rate, capacity, shards, expansion,
                                                    nonscaling, keyed_routing)
        await self._do(self._filter.create(fields, reserve))


class ShardedCuckoo(_Sharded):
    """``rsbloom.ShardedCuckoo`` on asyncio."""

    _kind = CuckooFilter

    async def reserve(self, capacity: int, shards: Optional[int] = None,
                      bucket_size: Optional[int] = None, max_iterations: Optional[int] = None,
                      expansion: Optional[int] = None, keyed_routing: bool = False) -> None:
        fields, reserve = self._filter.plan_reserve(capacity, shards, bucket_size,
                                                    max_iterations, expansion, keyed_routing)
        await self._do(self._filter.create(fields, reserve))

    async def addnx(self, item) -> bool:
        return (await self.maddnx([item]))[0]

    async def maddnx(self, items: Iterable[Any]) -> List[bool]:
        return await self._do(self._filter.maddnx(items))

    async def remove(self, item) -> bool:
        return await self._do(self._filter.remove(item))

    async def count(self, item) -> int:
        return await self._do(self._filter.count_of(item))


class _Awaited:
    """The family helpers' commands, each awaited on a ``redis.asyncio`` client."""

    client: Any

    async def _call(self, args: Tuple[Any, ...], read=lambda reply: reply) -> Any:
        return read(await self.client.execute_command(*args))


class CBF(_Awaited, _CBF):
    """``rsbloom.CBF`` on asyncio: the same methods, each a coroutine."""


class APBF(_Awaited, _APBF):
    """``rsbloom.APBF`` on asyncio: the same methods, each a coroutine."""


def cbf(client) -> CBF:
    """The ``CBF.*`` commands on a ``redis.asyncio`` client."""
    return CBF(client)


def apbf(client) -> APBF:
    """The ``APBF.*`` commands on a ``redis.asyncio`` client."""
    return APBF(client)
