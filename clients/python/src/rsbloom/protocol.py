"""Protocol ``rsbloom-sharding/1`` (docs/sharding.md): where an item and a shard live.

Everything here is pure computation, shared by every client that reads or writes a logical
filter: the cluster's key slot, the slot range each shard routes, the shard of a slot, the
shard keys and the sizing rules. ``tests/vectors/sharding/vectors.json`` checks it.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import math
from functools import lru_cache
from typing import List, Optional, Tuple, Union

PROTOCOL = "rsbloom-sharding/1"
#: The description's ``routing``: the item's key slot (the default, also when absent)...
ROUTING_SLOT = "slot"
#: ... or keyed routing, by the item's HMAC-SHA256 under the description's ``routing_secret``.
ROUTING_KEYED = "keyed"
SLOTS = 16384
#: The largest capacity BF.RESERVE and CF.RESERVE take.
MAX_SHARD_CAPACITY = 1 << 30
#: The largest planned shard size the default shard count allows (128 MiB).
MAX_SHARD_BYTES = 1 << 27
#: The smallest default shard count.
MIN_DEFAULT_SHARDS = 16

Item = Union[str, bytes, bytearray, memoryview]


def to_bytes(item: Item) -> bytes:
    """An item's bytes: ``str`` is encoded as UTF-8, bytes-like objects are taken as they are."""
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, (bytes, bytearray, memoryview)):
        return bytes(item)
    raise TypeError(f"an item is str or bytes, not {type(item).__name__}")


def key_slot(item: Item) -> int:
    """The cluster's key slot of ``item`` as if it were a key: CRC16 (XMODEM) of its hash tag
    (the bytes between the first ``{`` and the next ``}``, when not empty), else of all of it,
    modulo 16384."""
    data = to_bytes(item)
    open_at = data.find(b"{")
    if open_at >= 0:
        close_at = data.find(b"}", open_at + 1)
        if close_at > open_at + 1:
            data = data[open_at + 1 : close_at]
    return binascii.crc_hqx(data, 0) & (SLOTS - 1)


def _check_count(count: int) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= SLOTS:
        raise ValueError(f"a shard count is an integer from 1 to {SLOTS}, not {count!r}")
    return count


def slot_range(index: int, count: int) -> Tuple[int, int]:
    """The first and last slot (inclusive) shard ``index`` of ``count`` routes."""
    _check_count(count)
    if not 0 <= index < count:
        raise ValueError(f"shard index {index} is outside 0..{count - 1}")
    return index * SLOTS // count, (index + 1) * SLOTS // count - 1


def shard_of_slot(slot: int, count: int) -> int:
    """The shard of ``count`` whose range holds ``slot``."""
    _check_count(count)
    if not 0 <= slot < SLOTS:
        raise ValueError(f"slot {slot} is outside 0..{SLOTS - 1}")
    return ((slot + 1) * count - 1) // SLOTS


def shard_of(item: Item, count: int) -> int:
    """The shard of ``count`` an item goes to."""
    return shard_of_slot(key_slot(item), count)


def keyed_slot(secret: bytes, item: Item) -> int:
    """An item's routing slot under keyed routing: the first two bytes of
    HMAC-SHA256(secret, item), big-endian, low 14 bits."""
    tag = hmac.new(secret, to_bytes(item), hashlib.sha256).digest()
    return ((tag[0] << 8) | tag[1]) & (SLOTS - 1)


def keyed_shard_of(secret: bytes, item: Item, count: int) -> int:
    """The shard of ``count`` an item goes to under keyed routing."""
    return shard_of_slot(keyed_slot(secret, item), count)


@lru_cache(maxsize=64)
def _tags(count: int) -> Tuple[int, ...]:
    found: List[Optional[int]] = [None] * count
    missing = count
    j = 0
    while missing:
        shard = shard_of_slot(key_slot(str(j).encode("ascii")), count)
        if found[shard] is None:
            found[shard] = j
            missing -= 1
        j += 1
    return tuple(found)  # type: ignore[arg-type]


def tags(count: int) -> Tuple[int, ...]:
    """Every shard's tag: the smallest non-negative integer whose decimal form has a slot in
    the shard's range (computed once per count and cached)."""
    return _tags(_check_count(count))


def shard_key(name: Item, index: int, count: int) -> bytes:
    """Shard ``index``'s key, ``{tag}name:index``, as bytes."""
    slot_range(index, count)
    return b"{%d}" % tags(count)[index] + to_bytes(name) + b":%d" % index


def shard_keys(name: Item, count: int) -> List[bytes]:
    """The keys of every shard of a logical filter, in index order."""
    raw = to_bytes(name)
    return [b"{%d}" % tag + raw + b":%d" % i for i, tag in enumerate(tags(count))]


def shard_capacity(capacity: int, count: int) -> int:
    """The capacity each of ``count`` shards is reserved with for a logical ``capacity``:
    ``ceil(m + 4 sqrt(m))``, ``m = capacity * ceil(16384 / count) / 16384``, at least 1, in
    IEEE doubles step by step."""
    _check_count(count)
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        raise ValueError(f"a capacity is a positive integer, not {capacity!r}")
    widest = -(-SLOTS // count)
    share = float(capacity) * float(widest) / float(SLOTS)
    return max(1, math.ceil(share + 4.0 * math.sqrt(share)))


def bloom_shard_bytes(shard_cap: int, error_rate: float) -> float:
    """The planned size of a Bloom shard, ``capacity * -ln(p) / ln(2)^2 / 8`` bytes."""
    return shard_cap * -math.log(error_rate) / (math.log(2.0) ** 2) / 8.0


def cuckoo_shard_bytes(shard_cap: int, bucket_size: int) -> int:
    """The planned size of a cuckoo shard: buckets rounded up to a power of two, times the
    bucket size."""
    buckets = max(1, -(-shard_cap // bucket_size))
    return (1 << (buckets - 1).bit_length()) * bucket_size


def _default_shards(capacity: int, size) -> int:
    count = MIN_DEFAULT_SHARDS
    while count <= SLOTS:
        each = shard_capacity(capacity, count)
        if each <= MAX_SHARD_CAPACITY and size(each) <= MAX_SHARD_BYTES:
            return count
        count *= 2
    raise ValueError(f"capacity {capacity} does not fit in {SLOTS} shards")


def default_bloom_shards(capacity: int, error_rate: float) -> int:
    """The default shard count of a Bloom logical filter: the smallest power of two from 16
    whose shards take at most 2^30 items and 128 MiB each."""
    if not 0.0 < float(error_rate) < 1.0:
        raise ValueError(f"an error rate is between 0 and 1, not {error_rate!r}")
    return _default_shards(capacity, lambda each: bloom_shard_bytes(each, float(error_rate)))


def default_cuckoo_shards(capacity: int, bucket_size: int = 2) -> int:
    """The default shard count of a cuckoo logical filter (see ``default_bloom_shards``)."""
    if bucket_size < 1:
        raise ValueError(f"a bucket size is positive, not {bucket_size!r}")
    return _default_shards(capacity, lambda each: cuckoo_shard_bytes(each, bucket_size))
