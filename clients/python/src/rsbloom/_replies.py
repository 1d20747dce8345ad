"""Reading replies the same way in RESP2 and RESP3, with or without ``decode_responses``."""

from __future__ import annotations

from typing import Any, Dict


def text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def number(value: Any) -> Any:
    """An integer or a double when the value reads as one, else its text."""
    if isinstance(value, (int, float)):  # bool included (RESP3)
        return value
    s = text(value)
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def integer(value: Any) -> int:
    if isinstance(value, (int, float)):
        return int(value)
    return int(text(value))


def boolean(value: Any) -> bool:
    """1/0 in RESP2, true/false in RESP3."""
    return integer(value) == 1


# INFO fields that are text even when they look like numbers (a name, an id of digits).
_TEXT_FIELDS = ("Shard of", "Shard id", "Shard routing", "Shard slots")


def info(reply: Any) -> Dict[str, Any]:
    """An INFO reply (a flat list of names and values in RESP2, a map in RESP3) as a dict
    from name to value, values read with ``number`` but for the shard's text fields."""
    if isinstance(reply, dict):
        pairs = reply.items()
    else:
        items = list(reply)
        pairs = zip(items[0::2], items[1::2])
    out = {}
    for k, v in pairs:
        name = text(k)
        out[name] = text(v) if name in _TEXT_FIELDS else number(v)
    return out


def hash_fields(reply: Any) -> Dict[str, str]:
    """HGETALL as text (a list in RESP2 without redis-py's callback, a map in RESP3)."""
    if isinstance(reply, dict):
        pairs = reply.items()
    else:
        items = list(reply)
        pairs = zip(items[0::2], items[1::2])
    return {text(k): text(v) for k, v in pairs}
