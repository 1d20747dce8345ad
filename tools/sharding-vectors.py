#!/usr/bin/env python3
"""Writes tests/vectors/sharding/vectors.json: the test vectors of protocol
rsbloom-sharding/1 (docs/sharding.md), computed here independently of the Rust code (CRC16
from Python's binascii, keyed routing's HMAC-SHA256 from Python's hmac), for the suite and
for clients in other languages to check against.

    python3 tools/sharding-vectors.py > tests/vectors/sharding/vectors.json
"""
import binascii
import hashlib
import hmac
import json
import math

SLOTS = 16384


def key_slot(key: bytes) -> int:
    start = key.find(b"{")
    if start != -1:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return binascii.crc_hqx(key, 0) % SLOTS


def slot_range(i, n):
    return i * SLOTS // n, (i + 1) * SLOTS // n


def shard_of_slot(slot, n):
    # The shard whose range holds the slot, by the range's definition.
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if slot_range(mid, n)[0] <= slot:
            lo = mid
        else:
            hi = mid - 1
    return lo


def tags(n):
    out = [None] * n
    missing, j = n, 0
    while missing:
        s = shard_of_slot(key_slot(str(j).encode()), n)
        if out[s] is None:
            out[s] = j
            missing -= 1
        j += 1
    return out


def shard_key(name: bytes, i, tag):
    return b"{%d}" % tag + name + b":%d" % i


def shard_capacity(capacity, n):
    widest = -(-SLOTS // n)
    share = capacity * widest / SLOTS
    return max(1, math.ceil(share + 4.0 * math.sqrt(share)))


def bloom_bytes(capacity, p):
    return math.ceil(capacity * -math.log(p) / (math.log(2) ** 2) / 8)


def cuckoo_bytes(capacity, b):
    buckets = max(1, -(-capacity // b))
    return (1 << (buckets - 1).bit_length()) * b


def default_shards(capacity, max_capacity, size):
    n = 16
    while n <= SLOTS:
        each = shard_capacity(capacity, n)
        if each <= max_capacity and size(each) <= 1 << 27:
            return n
        n *= 2
    return None


COUNTS = [1, 2, 3, 5, 16, 64, 1000, 16384]

ITEMS = [b"", b"a", b"foo", b"123456789", b"user:1000", b"{user1000}.following",
         b"foo{}{bar}", b"foo{{bar}}zap", b"{", b"}{", "caf\u00e9".encode(), "\u6f22\u5b57".encode(),
         bytes(range(256)), b"\x00\xff\x00", b"https://example.com/a?b=c#d"]
ITEMS += [b"item:%d" % i for i in range(0, 200, 7)]
ITEMS += [b"%d" % i for i in range(40)]


# Keyed routing's secrets (hex): all zeros, a counting one, and one with every high bit.
SECRETS = ["00" * 16, "000102030405060708090a0b0c0d0e0f", "f0e1d2c3b4a5968778695a4b3c2d1e0f"]


def keyed_slot(secret_hex, item):
    tag = hmac.new(bytes.fromhex(secret_hex), item, hashlib.sha256).digest()
    return ((tag[0] << 8) | tag[1]) & 0x3FFF


def keyed_entry(secret_hex, item):
    slot = keyed_slot(secret_hex, item)
    return {"secret": secret_hex, "hex": item.hex(), "slot": slot,
            "shard": {str(n): shard_of_slot(slot, n) for n in COUNTS}}


def item_entry(item):
    entry = {"hex": item.hex(), "slot": key_slot(item),
             "shard": {str(n): shard_of_slot(key_slot(item), n) for n in COUNTS}}
    try:
        entry["text"] = item.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return entry


def layout(name: bytes, n, every=True):
    t = tags(n)
    picks = range(n) if every else sorted({0, 1, n // 3, n // 2, n - 2, n - 1, 4095 % n})
    shards = []
    for i in picks:
        lo, hi = slot_range(i, n)
        key = shard_key(name, i, t[i])
        shards.append({"index": i, "first_slot": lo, "last_slot": hi - 1, "tag": str(t[i]),
                       "key_hex": key.hex(), "key": key.decode("utf-8", "replace"),
                       "key_slot": key_slot(key)})
    return {"name_hex": name.hex(), "name": name.decode("utf-8", "replace"), "count": n,
            "shards": shards}


def main():
    out = {
        "protocol": "rsbloom-sharding/1",
        "note": "Made by tools/sharding-vectors.py; docs/sharding.md defines every field.",
        "items": [item_entry(i) for i in ITEMS],
        "layouts": [layout(b"urls", 1), layout(b"urls", 3), layout(b"urls", 16),
                    layout(b"a{b}c", 5), layout("f\u00fcr".encode(), 64),
                    layout(b"crawl", 1000, every=False), layout(b"x", 16384, every=False)],
        "keyed_routing": [keyed_entry(s, i) for s in SECRETS for i in ITEMS[:20]],
        "shard_capacity": [{"capacity": c, "count": n, "shard_capacity": shard_capacity(c, n)}
                           for c in [1, 100, 1000, 10**6, 10**9, 10**10]
                           for n in [1, 3, 16, 128, 16384]],
        "default_shards": [
            {"family": "bloom", "capacity": c, "error_rate": p,
             "shards": default_shards(c, 1 << 30, lambda x: bloom_bytes(x, p))}
            for c in [100, 10**6, 10**8, 10**9, 10**10, 10**11] for p in [0.01, 0.001]
        ] + [
            {"family": "cuckoo", "capacity": c, "bucket_size": b,
             "shards": default_shards(c, 1 << 30, lambda x: cuckoo_bytes(x, b))}
            for c in [100, 10**6, 10**9, 10**10] for b in [2, 4]
        ],
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


main()
