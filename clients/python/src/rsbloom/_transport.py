"""Sending batches of single-key commands to the nodes that hold their keys.

Commands for one node are pipelined on one connection (all nodes written first, then read),
with no retry hidden underneath: redis-py's pipelines repeat a whole pipeline after a
connection error, which would repeat a cuckoo ``CF.INSERT`` the server may already have run.
Instead each command carries a policy, and after every round:

- ``MOVED``: the slot map is reloaded and the command goes to the new owner.
- ``ASK``: the command goes to the node named, preceded by ``ASKING``, this once. When
  ``ASKING`` itself is refused (an ACL user without ``+asking``), the command's own reply
  is still read and paired with it, and the command ends with ``ASKING``'s error.
- ``TRYAGAIN``, ``CLUSTERDOWN``, ``MASTERDOWN``, ``READONLY``, ``LOADING``: the server did not
  run it; it is sent again after a pause (the slot map reloaded).
- No connection could be made: nothing was sent; reload, pause, send again.
- The connection failed after the command was sent (a failover, a killed node, a timeout):
  the server may or may not have run it. ``SAFE`` commands (reads, Bloom adds, deletes,
  reserves, which the caller recognizes as its own by their creation id) are sent again;
  ``ONCE`` commands (cuckoo inserts and deletes) are not: they end with ``lost`` set and the
  caller reports the ambiguity.

Retries stop after ``retry_timeout`` seconds; the last error is then the command's.

The rounds are one generator, ``rounds``, shared by the blocking ``Transport`` here and the
asyncio one (``_aio_transport``): it yields what to do (exchange these groups, sleep, reload
the slot map) and the driver does it with its own I/O.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    ConnectionError,
    MovedError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TimeoutError,
    TryAgainError,
)

SAFE = "safe"
ONCE = "once"

# Replies saying the server did not run the command, so sending it again is always safe.
_NOT_RUN = (TryAgainError, ClusterDownError, ReadOnlyError, BusyLoadingError)


class _NotSent(ConnectionError):
    """No connection could be made: the command never left the client."""


class Command:
    """One command for the node holding ``key``. After ``Transport.run``: ``reply`` (when
    ``error`` is None), ``error``, ``node`` (``host:port`` of the node that answered),
    ``lost`` (an ambiguous connection failure ended a ``ONCE`` command), ``redirects``."""

    __slots__ = ("key", "args", "policy", "reply", "error", "node", "lost", "redirects",
                 "_ask", "_was_lost", "_done")

    def __init__(self, key: bytes, args: Sequence[Any], policy: str = SAFE):
        self.key = key
        self.args = tuple(args)
        self.policy = policy
        self.reply: Any = None
        self.error: Optional[BaseException] = None
        self.node: Optional[str] = None
        self.lost = False
        self.redirects = 0
        self._ask: Optional[Tuple[str, int]] = None  # (host, port) of an ASK, this once
        self._was_lost = False
        self._done = False


def node_name(client) -> str:
    """A plain client's server as ``host:port`` (or ``unix:path``)."""
    kwargs = client.connection_pool.connection_kwargs
    if kwargs.get("path"):
        return "unix:" + str(kwargs["path"])
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"


def is_cluster(client) -> bool:
    return hasattr(client, "nodes_manager") and hasattr(client, "get_node_from_key")


class _OneNode:
    """A plain ``redis.Redis``: every key on its one server."""

    def __init__(self, client):
        self.client = client
        self.name = node_name(client)

    def node_for(self, key: bytes):
        return self.name, self.client

    def node_at(self, host: str, port: int):
        raise ResponseError(
            f"ASK to {host}:{port}: the server is a cluster node; use redis.cluster.RedisCluster"
        )

    def refresh(self) -> None:
        pass


class _Cluster:
    """A ``redis.cluster.RedisCluster``: its slot map says which master holds a key."""

    def __init__(self, client):
        self.client = client

    def node_for(self, key: bytes):
        node = self.client.get_node_from_key(key)
        return node.name, self.client.get_redis_connection(node)

    def node_at(self, host: str, port: int):
        node = ask_target(self.client, host, port)
        return node.name, self.client.get_redis_connection(node)

    def refresh(self) -> None:
        self.client.nodes_manager.initialize()


def ask_target(client, host: str, port: int):
    """The cluster client's node an ASK names (blocking and asyncio clients alike). An ASK
    names the node as the cluster announces it; the client knows its nodes by their
    remapped addresses when it was given an ``address_remap``."""
    remap = getattr(client.nodes_manager, "remap_host_port", None)
    if remap is not None:
        host, port = remap(host, port)
    node = client.get_node(host=host, port=port)
    if node is None:  # the next round reloads the slot map first
        raise _NotSent(f"ASK names {host}:{port}, which the cluster's nodes do not list")
    return node


def _acquire(redis_node):
    """A connection of this node's pool (connected), and whether it goes back to the pool."""
    if getattr(redis_node, "connection", None) is not None:
        return redis_node.connection, False
    pool = redis_node.connection_pool
    try:
        return pool.get_connection(), True
    except TypeError:  # redis-py 5.0 wants a command name
        return pool.get_connection("_"), True


class _Group:
    __slots__ = ("name", "redis", "commands", "conn", "pooled", "sent")

    def __init__(self, name, redis_node):
        self.name = name
        self.redis = redis_node
        self.commands: List[Command] = []
        self.conn = None
        self.pooled = False
        self.sent = False


EXCHANGE, SLEEP, REFRESH = "exchange", "sleep", "refresh"


def rounds(router, commands: Sequence[Command], retry_timeout: float):
    """Runs every command to an outcome (see the module's text), yielding ``(EXCHANGE,
    groups)``, ``(SLEEP, seconds)`` and ``(REFRESH, None)`` for the driver to carry out;
    never raises for one command's error, which is left in its ``error``."""
    pending = [c for c in commands if not c._done]
    deadline = time.monotonic() + retry_timeout
    pause = 0.02
    while pending:
        groups = _group(router, pending)
        yield EXCHANGE, groups
        again: List[Command] = []
        reload = wait = False
        for cmd in pending:
            outcome = _judge(cmd)
            if outcome is None:
                continue
            again.append(cmd)
            reload = reload or outcome in ("reload", "lost", "reload-wait")
            wait = wait or outcome in ("lost", "reload-wait")
        pending = again
        if not pending:
            break
        if time.monotonic() >= deadline:
            for cmd in pending:
                cmd._done = True  # the last error stays
            break
        if wait:
            yield SLEEP, pause
            pause = min(pause * 2, 0.5)
        if reload:
            yield REFRESH, None


def _group(router, pending: List[Command]) -> Dict[Any, _Group]:
    groups: Dict[Any, _Group] = {}
    for cmd in pending:
        cmd.error = None
        try:
            name, node = router.node_at(*cmd._ask) if cmd._ask is not None \
                else router.node_for(cmd.key)
        except ResponseError as e:  # an ASK a plain server cannot follow: final
            cmd._ask = None
            cmd.error = e
            continue
        except (RedisClusterException, ConnectionError, TimeoutError) as e:
            cmd.error = e if isinstance(e, _NotSent) else _NotSent(str(e))
            continue
        group = groups.get(id(node))
        if group is None:
            group = groups[id(node)] = _Group(name, node)
        group.commands.append(cmd)
    return groups


def packed(group: _Group) -> List[Tuple[Any, ...]]:
    """The group's commands as sent, each ASK'd one after its ``ASKING``."""
    out: List[Tuple[Any, ...]] = []
    for cmd in group.commands:
        if cmd._ask is not None:
            out.append((b"ASKING",))
        out.append(cmd.args)
    return out


def not_connected(group: _Group, e: BaseException) -> None:
    for cmd in group.commands:
        cmd.error = _NotSent(f"{group.name}: {e}")


def lost(commands: Sequence[Command], e: BaseException) -> None:
    """The connection failed with these commands sent and their replies not read."""
    for cmd in commands:
        cmd.error = e
        cmd._was_lost = True


def take_reply(cmd: Command, group: _Group, asking: Any, reply: Any) -> None:
    """Pairs a reply read off the connection with its command (``asking``: ASKING's reply,
    or None when there was none); errors come as exception values."""
    cmd.node = group.name
    if isinstance(asking, BaseException):
        cmd.error = asking  # the command's own reply (likely an ASK again) was read too
    elif isinstance(reply, BaseException):
        cmd.error = reply
    else:
        cmd.reply = reply


def _judge(cmd: Command) -> Optional[str]:
    """None when the command is finished (``reply`` or ``error``), else why to go again."""
    e = cmd.error
    if e is None:
        cmd._done = True
        return None
    if isinstance(e, MovedError):  # before AskError: MovedError is one
        cmd._ask = None
        cmd.redirects += 1
        return "reload"
    if isinstance(e, AskError):
        cmd.redirects += 1
        cmd._ask = (e.host, e.port)
        return "again"
    cmd._ask = None
    if isinstance(e, _NOT_RUN) or isinstance(e, _NotSent):
        return "reload-wait"
    if cmd._was_lost and isinstance(e, (ConnectionError, TimeoutError, OSError)):
        if cmd.policy == ONCE:
            cmd.lost = True
            cmd._done = True
            return None
        cmd._was_lost = False
        return "lost"
    cmd._done = True
    return None


class Transport:
    """The blocking driver of ``rounds`` over redis-py's ``Redis`` / ``RedisCluster``."""

    def __init__(self, client, retry_timeout: float = 20.0):
        self.client = client
        self.router = _Cluster(client) if is_cluster(client) else _OneNode(client)
        self.retry_timeout = retry_timeout

    @property
    def cluster(self) -> bool:
        return isinstance(self.router, _Cluster)

    def run(self, commands: Sequence[Command]) -> Sequence[Command]:
        for step, arg in rounds(self.router, commands, self.retry_timeout):
            if step == EXCHANGE:
                self._exchange(arg)
            elif step == SLEEP:
                time.sleep(arg)
            else:
                try:
                    self.router.refresh()
                except (RedisClusterException, ConnectionError, TimeoutError):
                    pass  # the next round tries again (or finds the connection refused)
        return commands

    def _exchange(self, groups: Dict[Any, _Group]) -> None:
        try:
            for group in groups.values():
                self._write(group)
            for group in groups.values():
                if group.sent:
                    self._read(group)
        finally:
            for group in groups.values():
                if group.conn is not None and group.pooled:
                    group.redis.connection_pool.release(group.conn)

    def _write(self, group: _Group) -> None:
        try:
            group.conn, group.pooled = _acquire(group.redis)
        except (ConnectionError, TimeoutError, OSError) as e:
            not_connected(group, e)
            return
        try:
            group.conn.send_packed_command(group.conn.pack_commands(packed(group)))
            group.sent = True
        except (ConnectionError, TimeoutError, OSError) as e:
            group.conn.disconnect()
            lost(group.commands, e)

    def _read(self, group: _Group) -> None:
        conn = group.conn
        for at, cmd in enumerate(group.commands):
            try:
                asking = _read_one(conn) if cmd._ask is not None else None
                take_reply(cmd, group, asking, _read_one(conn))
            except (ConnectionError, TimeoutError, OSError) as e:
                conn.disconnect()
                lost(group.commands[at:], e)
                return


def _read_one(conn) -> Any:
    """One reply, an error reply as its exception value."""
    try:
        return conn.read_response()
    except (ResponseError, BusyLoadingError) as e:
        return e
