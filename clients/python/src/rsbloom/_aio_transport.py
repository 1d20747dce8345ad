"""The asyncio driver of ``_transport.rounds``: the same rounds, retries and policies as the
blocking ``Transport``, over ``redis.asyncio.Redis`` and ``redis.asyncio.cluster.RedisCluster``.
Each node's commands are pipelined on one connection of its own, and the nodes of a round
are served at once."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Sequence

from redis.exceptions import (
    BusyLoadingError,
    ConnectionError,
    RedisClusterException,
    ResponseError,
    TimeoutError,
)

from ._transport import (
    EXCHANGE,
    SLEEP,
    Command,
    _Group,
    _NotSent,
    ask_target,
    lost,
    node_name,
    not_connected,
    packed,
    rounds,
    take_reply,
)

_BROKEN = (ConnectionError, TimeoutError, OSError, asyncio.TimeoutError)


def is_async_cluster(client) -> bool:
    return hasattr(client, "nodes_manager") and hasattr(client, "get_node_from_key")


class _OneNode:
    """A plain ``redis.asyncio.Redis``: every key on its one server."""

    def __init__(self, client):
        self.client = client
        self.name = node_name(client)

    async def ready(self) -> None:
        pass

    def node_for(self, key: bytes):
        return self.name, self.client

    def node_at(self, host: str, port: int):
        raise ResponseError(
            f"ASK to {host}:{port}: the server is a cluster node; use "
            f"redis.asyncio.cluster.RedisCluster")

    async def refresh(self) -> None:
        pass

    async def acquire(self, client):
        if getattr(client, "connection", None) is not None:  # single_connection_client
            return client.connection, None
        conn = await client.connection_pool.get_connection()
        return conn, client.connection_pool

    async def release(self, client, conn, pool) -> None:
        if pool is not None:
            await pool.release(conn)


class _Cluster:
    """A ``redis.asyncio.cluster.RedisCluster``: its slot map says which master holds a
    key; a node's connections are taken from and given back to that node."""

    def __init__(self, client):
        self.client = client

    async def ready(self) -> None:
        await self.client.initialize()  # once; later calls return at once

    def node_for(self, key: bytes):
        node = self.client.get_node_from_key(key)
        if node is None:
            raise _NotSent(f"no node holds the slot of {key!r}")
        return node.name, node

    def node_at(self, host: str, port: int):
        node = ask_target(self.client, host, port)
        return node.name, node

    async def refresh(self) -> None:
        await self.client.nodes_manager.initialize()

    async def acquire(self, node):
        return node.acquire_connection(), node

    async def release(self, node, conn, pool) -> None:
        node.release(conn)


class AsyncTransport:
    def __init__(self, client, retry_timeout: float = 20.0):
        self.client = client
        self.router = _Cluster(client) if is_async_cluster(client) else _OneNode(client)
        self.retry_timeout = retry_timeout

    async def run(self, commands: Sequence[Command]) -> Sequence[Command]:
        await self.router.ready()
        for step, arg in rounds(self.router, commands, self.retry_timeout):
            if step == EXCHANGE:
                await self._exchange(arg)
            elif step == SLEEP:
                await asyncio.sleep(arg)
            else:
                try:
                    await self.router.refresh()
                except (RedisClusterException, *_BROKEN):
                    pass  # the next round tries again (or finds the connection refused)
        return commands

    async def _exchange(self, groups: Dict[Any, _Group]) -> None:
        await asyncio.gather(*(self._one_node(group) for group in groups.values()))

    async def _one_node(self, group: _Group) -> None:
        try:
            conn, pool = await self.router.acquire(group.redis)
        except (RedisClusterException, *_BROKEN) as e:
            not_connected(group, e)
            return
        try:
            try:
                await conn.send_packed_command(conn.pack_commands(packed(group)))
            except _BROKEN as e:
                await conn.disconnect()
                lost(group.commands, e)
                return
            for at, cmd in enumerate(group.commands):
                try:
                    asking = await _read_one(conn) if cmd._ask is not None else None
                    take_reply(cmd, group, asking, await _read_one(conn))
                except _BROKEN as e:
                    await conn.disconnect()
                    lost(group.commands[at:], e)
                    return
        except asyncio.CancelledError:
            await conn.disconnect()  # replies may still be due: the connection is spent
            raise
        finally:
            await self.router.release(group.redis, conn, pool)


async def _read_one(conn) -> Any:
    try:
        return await conn.read_response()
    except (ResponseError, BusyLoadingError) as e:
        return e
