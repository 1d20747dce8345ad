"""The errors the client raises besides redis-py's own."""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence

from redis.exceptions import RedisError


class RsbloomError(RedisError):
    """Base of this package's errors."""


class FilterExistsError(RsbloomError):
    """A reserve found the name taken (``ERR item exists``) by another filter or key: nothing
    was changed."""


class FilterNotFoundError(RsbloomError):
    """The logical filter's description does not exist."""


class UnknownProtocolError(RsbloomError):
    """The description names a protocol, family or routing this client does not know."""


class BatchError(RsbloomError):
    """Some items of a batch were not applied, or their outcome is unknown; every other
    item's answer is here. ``results``: one entry per item in the caller's order, the answer
    or None (not applied, or unknown). ``unknown``: the sorted positions whose outcome is
    unknown (a write that must run once was sent and its reply lost). ``failed``: position ->
    the cause, for the positions not applied. One shard's error never hides another's
    answer: the batch is complete when this is raised."""

    def __init__(self, message: str, results: List, unknown: Sequence[int] = (),
                 failed: Optional[Mapping[int, BaseException]] = None):
        super().__init__(message)
        self.results = results
        self.unknown = sorted(unknown)
        self.failed: Dict[int, BaseException] = dict(sorted((failed or {}).items()))


class FilterFullError(BatchError):
    """Every failure is a full shard's refusal (a non-scaling Bloom shard, or a cuckoo
    shard with no room); ``refused`` lists those positions (``failed``'s keys)."""

    def __init__(self, message: str, results: List, refused: Sequence[int],
                 failed: Optional[Mapping[int, BaseException]] = None):
        cause = RsbloomError(message)
        super().__init__(message, results, (),
                         failed if failed is not None else {p: cause for p in refused})

    @property
    def refused(self) -> List[int]:
        return list(self.failed)


class AmbiguousWriteError(BatchError):
    """A write that must not be repeated (a cuckoo ``CF.INSERT`` or ``CF.DEL``) was sent,
    and the connection failed before its reply came: the server may or may not have applied
    it, so it was not sent again. ``unknown`` holds those positions, ``causes`` the
    connection errors by node; ``failed`` any positions that were refused besides."""

    def __init__(self, message: str, results: List, unknown: Sequence[int],
                 causes: Mapping[str, BaseException],
                 failed: Optional[Mapping[int, BaseException]] = None):
        super().__init__(message, results, unknown, failed)
        self.causes = dict(causes)
