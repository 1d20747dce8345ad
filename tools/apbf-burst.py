#!/usr/bin/env python3
"""A TIME sliding window under bursts, measured on a real server (issue 30's table).

Starts a redis-server (Redis 8.2.3 from target/servers/redis-8.2.env if REDIS_SERVER is set,
else --server) on a free loopback port with the module, and for each burst size:

1. `APBF.RESERVE tb TIME 0.01 5000 2` (5,000 items per 2-second span), fresh;
2. adds `multiple * 5000` distinct items with `APBF.MADD` in batches of 1,000, pipelined on
   one connection (the burst and its checks must take less than the span; its time is
   printed);
3. right after: looks up 20,000 never-added items with `APBF.MEXISTS` (the share answering
   1 is the false-positive rate) and every added item (each must answer 1), and reads
   `MEMORY USAGE` and `APBF.INFO`;
4. one span after the burst's last add: one `APBF.ADD` of a new item (a window gives memory
   back on a write), then the memory and 20,000 other never-added items again.

With --pinned, the adds are `APBF.INSERTAT tb <T> ...` at a moment T a day ahead of the
server's clock, and the add one span later `APBF.INSERTAT tb <T + 2001> ...`: a window never
goes back before the latest time it has seen, so the lookups are answered at those moments
however long the commands take (the same figures on a loaded machine, where a burst of 30x
may take longer than the span itself).

Refused adds (errors inside the MADD replies) are counted, not fatal. --max-filter-bytes N
sets `bf.max-filter-bytes` first, to see where growth stops.

Usage: python3 tools/apbf-burst.py [--module target/release/librsbloom.so] [--server PATH]
       [--multiples 1,2,4,10,30] [--pinned] [--max-filter-bytes N]
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import e2e  # noqa: E402  (bench/e2e.py: Server, Client, the module path)

RATE, CAPACITY, SPAN_S = "0.01", 5000, 2
BATCH = 1000
QUERIES = 20_000


class Error:
    def __init__(self, text):
        self.text = text


class Client(e2e.Client):
    """e2e's client, with errors inside arrays returned as `Error` instead of raised."""

    def _reply(self):
        line = self._line()
        if line[:1] == b"-":
            return Error(line[1:].decode())
        if line[:1] == b"*":
            n = int(line[1:])
            return None if n < 0 else [self._reply() for _ in range(n)]
        self.buf = line + b"\r\n" + self.buf
        return super()._reply()

    def pipeline(self, commands):
        """Sends every command, then reads every reply (in order)."""
        out = []
        for args in commands:
            out.append(b"*%d\r\n" % len(args))
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return [self._reply() for _ in commands]


def info(client, key):
    reply = client.call("APBF.INFO", key)
    if isinstance(reply, Error):
        raise RuntimeError(reply.text)
    name = lambda n: n.decode() if isinstance(n, bytes) else n  # noqa: E731
    return {name(reply[i]): reply[i + 1] for i in range(0, len(reply), 2)}


def batches(items):
    return [items[i:i + BATCH] for i in range(0, len(items), BATCH)]


def share_found(client, key, items):
    replies = client.pipeline([["APBF.MEXISTS", key, *b] for b in batches(items)])
    return sum(1 for reply in replies for r in reply if r == 1)


def run(client, multiple, pinned):
    key = "tb"
    client.call("DEL", key)
    client.call("APBF.RESERVE", key, "TIME", RATE, CAPACITY, SPAN_S)
    reserved = client.call("MEMORY", "USAGE", key)
    items = [f"add:{multiple}:{i}" for i in range(multiple * CAPACITY)]
    seconds, micros = client.call("TIME")
    moment = int(seconds) * 1000 + int(micros) // 1000 + 86_400_000
    add = ["APBF.INSERTAT", key, moment] if pinned else ["APBF.MADD", key]
    start = time.monotonic()
    # An error ends a MADD's reply: the items after it were not processed (not added).
    first_error = None
    added = []
    replies = client.pipeline([add + b for b in batches(items)])
    for batch, reply in zip(batches(items), replies):
        for item, r in zip(batch, reply):
            if isinstance(r, Error):
                first_error = first_error or r.text
            else:
                added.append(item)
    end = time.monotonic()
    never = [f"never:{multiple}:{j}" for j in range(QUERIES)]
    fp = share_found(client, key, never) / QUERIES
    missing = len(added) - share_found(client, key, added)
    checked = time.monotonic() - end
    inf = info(client, key)
    row = {
        "multiple": multiple,
        "added": len(added),
        "refused": len(items) - len(added),
        "first_error": first_error,
        "burst_s": end - start,
        "checked_s": checked,
        "missing": missing,
        "fp": fp,
        "reserved": reserved,
        "memory": client.call("MEMORY", "USAGE", key),
        "size": inf.get("Size"),
        "burst_bytes": inf.get("Burst size"),
        "overflows": inf.get("Overflows"),
        "layers": inf.get("Burst layers"),
    }
    # One span after the burst's last add, one write.
    if pinned:
        client.call("APBF.INSERTAT", key, moment + SPAN_S * 1000 + 1, f"after:{multiple}")
    else:
        time.sleep(max(0.0, end + SPAN_S + 0.05 - time.monotonic()))
        client.call("APBF.ADD", key, f"after:{multiple}")
    inf = info(client, key)
    later = [f"later:{multiple}:{j}" for j in range(QUERIES)]
    row.update({
        "after_memory": client.call("MEMORY", "USAGE", key),
        "after_size": inf.get("Size"),
        "after_burst_bytes": inf.get("Burst size"),
        "after_fp": share_found(client, key, later) / QUERIES,
    })
    client.call("DEL", key)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", default=e2e.MODULE)
    ap.add_argument("--server", default=os.environ.get("REDIS_SERVER", "redis-server"))
    ap.add_argument("--multiples", default="1,2,4,10,30")
    ap.add_argument("--pinned", action="store_true")
    ap.add_argument("--max-filter-bytes", type=int)
    args = ap.parse_args()
    if not os.path.exists(args.module):
        sys.exit(f"{args.module} is missing: run make build")
    workdir = tempfile.mkdtemp(prefix="rsbloom-apbf-burst-")
    e2e.pin = lambda core: []  # no core of its own: one shared with other work is slower
    server = e2e.Server(workdir, program=args.server, module_file=args.module, module_args=())
    rows = []
    try:
        client = Client(server.port)
        version = client.call("INFO", "server").decode().split("redis_version:")[1].split()[0]
        if args.max_filter_bytes:
            client.call("CONFIG", "SET", "bf.max-filter-bytes", args.max_filter_bytes)
        for m in (int(x) for x in args.multiples.split(",")):
            rows.append(run(client, m, args.pinned))
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    how = "APBF.INSERTAT at a pinned moment" if args.pinned else "APBF.MADD"
    print(f"APBF.RESERVE tb TIME {RATE} {CAPACITY} {SPAN_S}; {how}, batches of {BATCH}; "
          f"{QUERIES:,} never-added items per APBF.MEXISTS check; Redis {version}; "
          f"module {args.module}"
          + (f"; bf.max-filter-bytes {args.max_filter_bytes:,}" if args.max_filter_bytes else "")
          + "\n")
    print("| added | burst took | added items answering 0 | refused | false positives | "
          "MEMORY USAGE (reserved) | INFO Size / burst | Overflows | one span later: "
          "MEMORY USAGE | INFO Size / burst | false positives |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        burst = "-" if r["burst_bytes"] is None else f"{r['burst_bytes']:,}"
        after_burst = "-" if r["after_burst_bytes"] is None else f"{r['after_burst_bytes']:,}"
        print(f"| {r['added']:,} ({r['multiple']}x) | {r['burst_s'] * 1000:.0f} ms | "
              f"{r['missing']} | {r['refused']} | {r['fp'] * 100:.2f} % | "
              f"{r['memory']:,} ({r['reserved']:,}) | {r['size']:,} / {burst} | "
              f"{r['overflows']} | {r['after_memory']:,} | {r['after_size']:,} / {after_burst} | "
              f"{r['after_fp'] * 100:.2f} % |")
    for r in rows:
        if r["first_error"]:
            print(f"\n{r['multiple']}x: first refusal: {r['first_error']}")
        if not args.pinned and r["burst_s"] + r["checked_s"] >= SPAN_S:
            print(f"\n{r['multiple']}x: the burst and its checks took longer than the span: "
                  "items expired before they were looked up")


if __name__ == "__main__":
    main()
