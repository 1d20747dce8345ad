"""What differs between the two families of logical filters: their commands, how a reserve
is planned (arguments checked, the description's fields, each shard's reserve command),
and the family's own operations. Shared by the blocking and the asyncio classes."""

from __future__ import annotations

from typing import Any, Iterable, Optional, Tuple

from . import _ops as O
from . import _replies as R
from . import protocol as P
from ._transport import ONCE, SAFE


def positive_int(what: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} is a positive integer, not {value!r}")
    return value


def shard_count(count: Optional[int]) -> int:
    count = positive_int("a shard count", count)
    P.slot_range(0, count)
    return count


class BloomFilter(O.Filter):
    family = "bloom"
    insert = b"BF.INSERT"
    mexists = b"BF.MEXISTS"
    info_verb = b"BF.INFO"

    def plan_reserve(self, error_rate: float, capacity: int, shards: Optional[int],
                     expansion: Optional[int], nonscaling: bool, keyed_routing: bool):
        """The description's fields and each shard's BF.RESERVE, checked (``ValueError``)."""
        rate = float(error_rate)
        if not 0.0 < rate < 1.0:
            raise ValueError(f"an error rate is between 0 and 1, not {error_rate!r}")
        capacity = positive_int("a capacity", capacity)
        count = shard_count(shards) if shards is not None else \
            P.default_bloom_shards(capacity, rate)
        if nonscaling and expansion is not None:
            raise ValueError("NONSCALING takes no expansion")
        each = P.shard_capacity(capacity, count)
        exp = 0 if nonscaling else positive_int("an expansion",
                                                2 if expansion is None else expansion)
        scaling: Tuple[Any, ...] = (b"NONSCALING",) if nonscaling else (b"EXPANSION", exp)
        fields = [("protocol", P.PROTOCOL), ("family", self.family), ("shards", count),
                  ("capacity", capacity), ("shard_capacity", each),
                  ("error_rate", error_rate), ("expansion", exp), ("id", O.new_id())]
        fields += O.routing_fields(keyed_routing)
        return fields, lambda i, key: (b"BF.RESERVE", key, O.decimal(error_rate), each) + scaling

    def madd(self, items: Iterable[Any]) -> O.Op:
        return self.batch(self.insert, items, SAFE, O.BOOLEANS, "add", nocreate=True)

    def card(self) -> O.Op:
        commands = yield from self.over_shards(lambda key: (b"BF.CARD", key))
        return sum(R.integer(cmd.reply) for cmd in commands)


class CuckooFilter(O.Filter):
    family = "cuckoo"
    insert = b"CF.INSERT"
    mexists = b"CF.MEXISTS"
    info_verb = b"CF.INFO"

    def plan_reserve(self, capacity: int, shards: Optional[int], bucket_size: Optional[int],
                     max_iterations: Optional[int], expansion: Optional[int],
                     keyed_routing: bool):
        capacity = positive_int("a capacity", capacity)
        bucket = positive_int("a bucket size", 2 if bucket_size is None else bucket_size)
        iterations = positive_int("max iterations",
                                  20 if max_iterations is None else max_iterations)
        exp = 1 if expansion is None else expansion
        if isinstance(exp, bool) or not isinstance(exp, int) or exp < 0:
            raise ValueError(f"an expansion is a non-negative integer, not {expansion!r}")
        count = shard_count(shards) if shards is not None else \
            P.default_cuckoo_shards(capacity, bucket)
        each = P.shard_capacity(capacity, count)
        fields = [("protocol", P.PROTOCOL), ("family", self.family), ("shards", count),
                  ("capacity", capacity), ("shard_capacity", each), ("expansion", exp),
                  ("bucket_size", bucket), ("max_iterations", iterations), ("id", O.new_id())]
        fields += O.routing_fields(keyed_routing)
        return fields, lambda i, key: (b"CF.RESERVE", key, each, b"BUCKETSIZE", bucket,
                                       b"MAXITERATIONS", iterations, b"EXPANSION", exp)

    def madd(self, items: Iterable[Any]) -> O.Op:
        # CF.INSERT stores another copy when run twice: sent once, lost replies unknown.
        return self.batch(self.insert, items, ONCE, O.CF_INSERT, "add", nocreate=True)

    def maddnx(self, items: Iterable[Any]) -> O.Op:
        return self.batch(b"CF.INSERTNX", items, SAFE, O.BOOLEANS, "addnx", nocreate=True)

    def remove(self, item: Any) -> O.Op:
        # CF.DEL twice would remove a copy that belongs to another item: sent once.
        answers = yield from self.batch(b"CF.DEL", [item], ONCE, O.BOOLEANS, "remove",
                                        per_item=True)
        return answers[0]

    def count_of(self, item: Any) -> O.Op:
        answers = yield from self.batch(b"CF.COUNT", [item], SAFE, O.COUNTS, "count",
                                        read=True, per_item=True)
        return answers[0]

    def card(self) -> O.Op:
        info = yield from self.info()
        return sum(entry["items"] for entry in info["shards"])
