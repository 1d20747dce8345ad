#!/usr/bin/env python3
"""Bytes per item of each filter family, measured on a real server.

Starts a redis-server with the release module as bench/e2e.py does (its Server class: a free
loopback port, no persistence, bf.max-filter-bytes 2 GiB), reserves each filter empty and
prints MEMORY USAGE / capacity as a markdown table:

- scaling Bloom filter: BF.RESERVE key rate capacity (its first layer; it grows past capacity),
  and the same with NONSCALING (one layer holding the whole rate);
- cuckoo filter: CF.RESERVE key capacity BUCKETSIZE 2 and 4 (its rate is fixed by the bucket
  size: 1 - (254/255)^(2b) at most, so the same bytes under both rates);
- counting Bloom filter: CBF.RESERVE key rate capacity (4-bit counters, the default);
- sliding window: APBF.RESERVE key COUNT rate capacity and APBF.RESERVE key TIME rate capacity
  3600 (the capacity items per span), "(pending)" where the module has no APBF.* commands;

at 1 % and 0.1 %, capacity 1,000,000 and 10,000,000. Memory is allocated when a filter is
reserved (zeroed), so an empty filter takes what a full one does (a scaling Bloom filter until
it grows).

Usage: python3 tools/bytes-per-item.py [--module target/release/librsbloom.so]
"""

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import e2e  # noqa: E402  (bench/e2e.py: Server, the module path)

RATES = ("0.01", "0.001")
CAPACITIES = (1_000_000, 10_000_000)
SPAN = "3600"


def families():
    """(row name, the reserve command for (rate, capacity), or None where the rate is fixed)."""
    return (
        ("Bloom, scaling (`BF.RESERVE key rate capacity`)",
         lambda r, c: ["BF.RESERVE", "k", r, str(c)]),
        ("Bloom, non-scaling (`BF.RESERVE key rate capacity NONSCALING`)",
         lambda r, c: ["BF.RESERVE", "k", r, str(c), "NONSCALING"]),
        ("cuckoo, bucket size 2 (`CF.RESERVE key capacity BUCKETSIZE 2`; rate fixed, <= 1.56 %)",
         lambda r, c: ["CF.RESERVE", "k", str(c), "BUCKETSIZE", "2"]),
        ("cuckoo, bucket size 4 (`CF.RESERVE key capacity BUCKETSIZE 4`; rate fixed, <= 3.10 %)",
         lambda r, c: ["CF.RESERVE", "k", str(c), "BUCKETSIZE", "4"]),
        ("counting Bloom, 4-bit counters (`CBF.RESERVE key rate capacity`)",
         lambda r, c: ["CBF.RESERVE", "k", r, str(c)]),
        ("sliding window, count (`APBF.RESERVE key COUNT rate capacity`)",
         lambda r, c: ["APBF.RESERVE", "k", "COUNT", r, str(c)]),
        (f"sliding window, time (`APBF.RESERVE key TIME rate capacity {SPAN}`)",
         lambda r, c: ["APBF.RESERVE", "k", "TIME", r, str(c), SPAN]),
    )


def measure(client, argv, capacity):
    client.call("DEL", "k")
    try:
        client.call(*argv)
    except RuntimeError as e:
        if "unknown command" in str(e).lower():
            return None
        raise
    used = client.call("MEMORY", "USAGE", "k")
    client.call("DEL", "k")
    return used / capacity


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", default=e2e.MODULE)
    args = ap.parse_args()
    if not os.path.exists(args.module):
        sys.exit(f"{args.module} is missing: run make build")
    workdir = tempfile.mkdtemp(prefix="rsbloom-bpi-")
    server = e2e.Server(workdir, module_file=args.module)
    try:
        c = server.client
        version = c.call("INFO", "server").decode().split("redis_version:")[1].split()[0]
        table = []
        for name, reserve in families():
            cells = []
            for rate in RATES:
                for cap in CAPACITIES:
                    v = measure(c, reserve(rate, cap), cap)
                    cells.append("(pending)" if v is None else f"{v:.2f}")
            table.append((name, cells))
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    head = [f"{float(r) * 100:g} %, {c:,}" for r in RATES for c in CAPACITIES]
    print(f"Bytes per item (MEMORY USAGE / capacity), {e2e.machine_info(version)}\n")
    print("| filter | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    for name, cells in table:
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
