"""Typed helpers for the two families only rsbloom has, in the manner of redis-py's
``client.bf()``: ``cbf(client)`` for counting Bloom filters (``CBF.*``,
docs/commands/counting.md) and ``apbf(client)`` for sliding-window filters (``APBF.*``,
docs/commands/window.md). One method per command; replies read alike in RESP2 and RESP3
(booleans for the 1/0 answers, dicts for INFO). They work with ``redis.Redis`` and
``redis.cluster.RedisCluster`` (every command has one key)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from redis.exceptions import ResponseError

from . import _replies as R
from .errors import FilterFullError


def _answers(reply: Any, asked: int, what: str) -> List[bool]:
    """A MADD-style array: 1/0 per item, possibly ended early by a full filter's error."""
    results: List[Any] = []
    for answer in reply:
        if isinstance(answer, ResponseError):
            break
        results.append(R.boolean(answer))
    if len(results) < asked:
        refused = list(range(len(results), asked))
        results += [None] * len(refused)
        cause = next((a for a in reply if isinstance(a, ResponseError)), None)
        raise FilterFullError(f"{what}: {cause or 'the filter is full'}", results, refused)
    return results


def _same(reply: Any) -> Any:
    return reply


def _ok(reply: Any) -> bool:
    return R.text(reply) == "OK"


def _dump_part(reply: Any) -> Tuple[int, bytes]:
    it, data = reply
    return R.integer(it), data if isinstance(data, bytes) else (data or b"")


def _booleans(reply: Any) -> List[bool]:
    return [R.boolean(a) for a in reply]


class _Family:
    """One method per command: each builds its arguments and says how its reply reads;
    ``_call`` sends it (``rsbloom.asyncio``'s classes send it with ``await``)."""

    def __init__(self, client):
        self.client = client

    def _call(self, args: Tuple[Any, ...], read: Callable[[Any], Any] = _same) -> Any:
        return read(self.client.execute_command(*args))


class CBF(_Family):
    """Counting Bloom filter commands (``CBF.*``)."""

    def reserve(self, key, error_rate: float, capacity: int,
                counter_bits: Optional[int] = None) -> bool:
        """``CBF.RESERVE key error_rate capacity [COUNTERBITS 4|8]``."""
        args: Tuple[Any, ...] = ("CBF.RESERVE", key, error_rate, capacity)
        if counter_bits is not None:
            args += ("COUNTERBITS", counter_bits)
        return self._call(args, _ok)

    def add(self, key, item) -> bool:
        """``CBF.ADD``: True if the item was not present before (it is counted either way)."""
        return self._call(("CBF.ADD", key, item), R.boolean)

    def madd(self, key, items: Iterable[Any]) -> List[bool]:
        """``CBF.MADD``; a full filter's refusal raises ``FilterFullError`` (items before it
        were added, the rest not)."""
        items = list(items)
        return self._call(("CBF.MADD", key, *items),
                          lambda r: _answers(r, len(items), "CBF.MADD"))

    def delete(self, key, item) -> bool:
        """``CBF.DEL``: True if the item was present and its counters were decremented."""
        return self._call(("CBF.DEL", key, item), R.boolean)

    def mdelete(self, key, items: Iterable[Any]) -> List[bool]:
        """``CBF.MDEL``."""
        return self._call(("CBF.MDEL", key, *items), _booleans)

    def exists(self, key, item) -> bool:
        """``CBF.EXISTS``."""
        return self._call(("CBF.EXISTS", key, item), R.boolean)

    def mexists(self, key, items: Iterable[Any]) -> List[bool]:
        """``CBF.MEXISTS``."""
        return self._call(("CBF.MEXISTS", key, *items), _booleans)

    def count(self, key, item) -> int:
        """``CBF.COUNT``: the smallest of the item's counters."""
        return self._call(("CBF.COUNT", key, item), R.integer)

    def card(self, key) -> int:
        """``CBF.CARD``: adds less deletes."""
        return self._call(("CBF.CARD", key), R.integer)

    def info(self, key) -> Dict[str, Any]:
        """``CBF.INFO`` as a dict (``Capacity``, ``Size``, ``Number of items inserted``,
        ``Error rate``, ``Number of hash functions``, ``Number of counters``,
        ``Counter bits``, ``Saturated counters``)."""
        return self._call(("CBF.INFO", key), R.info)

    def scandump(self, key, iterator: int) -> Tuple[int, bytes]:
        """``CBF.SCANDUMP``: (next iterator, data); (0, b"") at the end."""
        return self._call(("CBF.SCANDUMP", key, iterator), _dump_part)

    def loadchunk(self, key, iterator: int, data: bytes) -> bool:
        """``CBF.LOADCHUNK``."""
        return self._call(("CBF.LOADCHUNK", key, iterator, data), _ok)

    def export(self, key) -> bytes:
        """``CBF.EXPORT key GUAVA``: Guava ``BloomFilter.writeTo()`` bytes."""
        return self._call(("CBF.EXPORT", key, "GUAVA"))


class APBF(_Family):
    """Sliding-window filter commands (``APBF.*``)."""

    def reserve(self, key, window: str, error_rate: float, capacity: int,
                span: Optional[float] = None) -> bool:
        """``APBF.RESERVE key COUNT|TIME error_rate capacity [span]``: ``window`` is
        ``"count"`` (the last ``capacity`` items) or ``"time"`` (the last ``span`` seconds)."""
        kind = window.upper()
        if kind not in ("COUNT", "TIME"):
            raise ValueError(f"a window is 'count' or 'time', not {window!r}")
        if (kind == "TIME") != (span is not None):
            raise ValueError("a TIME window takes a span, a COUNT window none")
        args: Tuple[Any, ...] = ("APBF.RESERVE", key, kind, error_rate, capacity)
        if span is not None:
            args += (span,)
        return self._call(args, _ok)

    def reserve_count(self, key, error_rate: float, capacity: int) -> bool:
        """A window over the last ``capacity`` items."""
        return self.reserve(key, "count", error_rate, capacity)

    def reserve_time(self, key, error_rate: float, capacity: int, span: float) -> bool:
        """A window over the last ``span`` seconds, ``capacity`` items per span expected."""
        return self.reserve(key, "time", error_rate, capacity, span)

    def add(self, key, item) -> bool:
        """``APBF.ADD``: True if the item was not in the window (it is added either way)."""
        return self._call(("APBF.ADD", key, item), R.boolean)

    def madd(self, key, items: Iterable[Any]) -> List[bool]:
        """``APBF.MADD``; a refusal as full raises ``FilterFullError``."""
        items = list(items)
        return self._call(("APBF.MADD", key, *items),
                          lambda r: _answers(r, len(items), "APBF.MADD"))

    def insertat(self, key, ms: int, items: Iterable[Any]) -> List[bool]:
        """``APBF.INSERTAT key ms item ...``: as ``madd`` at ``ms`` since the epoch."""
        items = list(items)
        return self._call(("APBF.INSERTAT", key, int(ms), *items),
                          lambda r: _answers(r, len(items), "APBF.INSERTAT"))

    def exists(self, key, item) -> bool:
        """``APBF.EXISTS``."""
        return self._call(("APBF.EXISTS", key, item), R.boolean)

    def mexists(self, key, items: Iterable[Any]) -> List[bool]:
        """``APBF.MEXISTS``."""
        return self._call(("APBF.MEXISTS", key, *items), _booleans)

    def info(self, key) -> Dict[str, Any]:
        """``APBF.INFO`` as a dict (``Capacity``, ``Size``, ``Error rate``, ``Window``,
        ``Span``, ``Number of hash functions``, ``Generations``, ``Items in window``, ...)."""
        return self._call(("APBF.INFO", key), R.info)

    def scandump(self, key, iterator: int) -> Tuple[int, bytes]:
        """``APBF.SCANDUMP``: (next iterator, data); (0, b"") at the end."""
        return self._call(("APBF.SCANDUMP", key, iterator), _dump_part)

    def loadchunk(self, key, iterator: int, data: bytes) -> bool:
        """``APBF.LOADCHUNK``."""
        return self._call(("APBF.LOADCHUNK", key, iterator, data), _ok)


def cbf(client) -> CBF:
    """The ``CBF.*`` commands on ``client`` (``redis.Redis`` or ``RedisCluster``)."""
    return CBF(client)


def apbf(client) -> APBF:
    """The ``APBF.*`` commands on ``client`` (``redis.Redis`` or ``RedisCluster``)."""
    return APBF(client)
