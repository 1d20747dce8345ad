#!/usr/bin/env python3
"""valkey-bloom's INFO figures (`bf_bloom_core_metrics`) right after a flush, on one module.

Run it once with valkey-bloom's .so and once with rsbloom's (`new-filter-format valkey`) to
set the two side by side (issue 46). On a Valkey server (`lazyfree-lazy-user-flush yes` by
default since Valkey 8), for FLUSHALL, FLUSHDB and FLUSHALL SYNC in turn:

A. test_copy_metrics' steps, one round trip each, `--rounds` times: `BF.MADD originalKey
   item_prefix1`, `COPY originalKey copiedkey`, the INFO read (768 bytes), the flush,
   `DBSIZE` (0), the INFO read: how many of those last reads were not 0;
B. the same, with the flush and an `INFO memory bf_bloom_core_metrics` sent in one write:
   how many reads were not 0, and how many of those with `lazyfree_pending_objects` 0 (a
   value still counted although the server has freed everything: there must be none);
C. 20,000 default filters, the flush: the first read after it, and how long until 0.

valkey-bloom's .so: see record_valkey_bloom.py.

Usage: valkey_bloom_flush.py --server PATH/valkey-server --module PATH/module.so [ARG ...]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawresp import Conn, Server  # noqa: E402

FLUSHES = (["FLUSHALL"], ["FLUSHDB"], ["FLUSHALL", "SYNC"])


def pipelined(c, cmds):
    """All of `cmds` in one write, so the server reads them together; their replies."""
    payload = b""
    for args in cmds:
        args = [a.encode() for a in args]
        payload += b"*%d\r\n" % len(args)
        payload += b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
    c.sock.sendall(payload)
    out = []
    for _ in cmds:
        end = c._reply_end(0)
        out.append(c.buf[:end])
        c.buf = c.buf[end:]
    return out


def fields(reply):
    return dict(line.split(b":", 1) for line in reply.split(b"\r\n") if b":" in line)


def memory(c):
    return int(fields(c.send(["INFO", "bf_bloom_core_metrics"]))[b"bf_bloom_total_memory_bytes"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--module", required=True)
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("args", nargs="*", help="the module's load arguments")
    a = p.parse_args()
    srv = Server(a.server, os.path.abspath(a.module), extra=a.args + ["--enable-debug-command", "yes"])
    try:
        c = Conn(srv.port)
        lazy = c.send(["CONFIG", "GET", "lazyfree-lazy-user-flush"]).split(b"\r\n")[-2]
        print(f"{os.path.basename(a.module)}: lazyfree-lazy-user-flush {lazy.decode()}")
        for flush in FLUSHES:
            late_a = 0
            for _ in range(a.rounds):
                c.send(["BF.MADD", "originalKey", "item_prefix1"])
                c.send(["COPY", "originalKey", "copiedkey"])
                assert memory(c) == 768
                c.send(flush)
                assert c.send(["DBSIZE"]) == b":0\r\n"
                late_a += memory(c) != 0
            late_b = freed_but_counted = 0
            for _ in range(a.rounds):
                c.send(["BF.MADD", "originalKey", "item_prefix1"])
                c.send(["COPY", "originalKey", "copiedkey"])
                info = fields(pipelined(c, [flush, ["INFO", "memory", "bf_bloom_core_metrics"]])[1])
                if int(info[b"bf_bloom_total_memory_bytes"]):
                    late_b += 1
                    freed_but_counted += int(info[b"lazyfree_pending_objects"]) == 0
            pipelined(c, [["BF.ADD", f"k{i}", "x"] for i in range(20000)])
            before = memory(c)
            t0 = time.monotonic()
            c.send(flush)
            first = memory(c)
            while memory(c):
                time.sleep(0.0005)
            ms = (time.monotonic() - t0) * 1000
            print(f"  {' '.join(flush):13s} A: {late_a}/{a.rounds} not 0; "
                  f"B: {late_b}/{a.rounds} not 0 ({freed_but_counted} with nothing pending); "
                  f"C: {before} bytes, first read {first}, 0 after {ms:.1f} ms")
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
