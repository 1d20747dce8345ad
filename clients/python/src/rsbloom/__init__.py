"""Python client for the rsbloom module: logical Bloom and cuckoo filters sharded over a Redis
or Valkey cluster (protocol ``rsbloom-sharding/1``), and typed helpers for the counting Bloom
(``CBF.*``) and sliding-window (``APBF.*``) families."""

from . import protocol
from .errors import (
    AmbiguousWriteError,
    BatchError,
    FilterExistsError,
    FilterFullError,
    FilterNotFoundError,
    RsbloomError,
    UnknownProtocolError,
)
from .families import APBF, CBF, apbf, cbf
from .sharded import ShardedBloom, ShardedCuckoo

__version__ = "0.1.0"

__all__ = [
    "APBF", "CBF", "AmbiguousWriteError", "BatchError", "FilterExistsError", "FilterFullError",
    "FilterNotFoundError", "RsbloomError", "ShardedBloom", "ShardedCuckoo",
    "UnknownProtocolError", "apbf", "cbf", "protocol",
]
