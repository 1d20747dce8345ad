"""The errors the client raises besides redis-py's own."""

from __future__ import annotations

from typing import Dict, List, Sequence

from redis.exceptions import RedisError


class RsbloomError(RedisError):
    """Base of this package's errors."""


class FilterExistsError(RsbloomError):
    """A reserve found the name taken (``ERR item exists``): nothing was changed."""


class FilterNotFoundError(RsbloomError):
    """The logical filter's description does not exist."""


class UnknownProtocolError(RsbloomError):
    """The description names a protocol (or family) this client does not know."""


class FilterFullError(RsbloomError):
    """Some items were refused because their shard is full (a non-scaling Bloom shard, or a
    cuckoo shard with no room). ``results`` has the caller's order: True/False for the items
    that were answered, None for the refused ones; ``refused`` their positions."""

    def __init__(self, message: str, results: List, refused: Sequence[int]):
        super().__init__(message)
        self.results = results
        self.refused = list(refused)


class AmbiguousWriteError(RsbloomError):
    """A write that must not be repeated (a cuckoo ``CF.INSERT``) was sent, and the connection
    failed before its reply came: the server may or may not have applied it, so it was not
    retried. ``results`` holds the answers in the caller's order (None where unknown),
    ``unknown`` the positions whose outcome is unknown and ``causes`` the connection errors by
    node. Every other command of the batch was completed (retried where that is safe)."""

    def __init__(self, message: str, results: List, unknown: Sequence[int],
                 causes: Dict[str, Exception]):
        super().__init__(message)
        self.results = results
        self.unknown = list(unknown)
        self.causes = dict(causes)
