#!/usr/bin/env python3
"""valkey-bloom beside rsbloom on Valkey 9.1: ops/s of each workload, three ways.

  valkey-bloom      valkey-bloom's own module (its .so, built from its tree)
  rsbloom bloomfltr rsbloom loaded with `new-filter-format valkey`: keys of valkey-bloom's type
  rsbloom own       rsbloom with its defaults: its own Bloom type (RSbloom--)

Each server runs on 127.0.0.1 with persistence off; each workload creates its key fresh
(capacity 1,000,000 at 0.01, then 200,000 items so lookups hit a filled filter) and runs
`redis-benchmark -c 4` (random items from `__rand_int__`); rounds interleave the three
servers and the medians and ratios to valkey-bloom are printed. Timings swing 20-40 % here:
read the ratios, and back them with instruction counts (bench/callgrind.py --module ...).

valkey-bloom's .so is not in this repository (CI cannot fetch): fetch valkey-io/valkey-bloom
(measured: unstable at 8077d58, reachable as the fork rlunar/valkey-bloom), run
`cargo build --release` there, pass target/release/libvalkey_bloom.so as --valkey-bloom.

Usage: python3 bench/valkey.py --valkey-bloom PATH/libvalkey_bloom.so [--rounds 3] [--n 100000]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "vectors"))
from rawresp import Conn, Server, read_env  # noqa: E402

BENCH = "redis-benchmark"
ITEMS = " ".join(f"i__rand_int__{j}" for j in range(100))
WORKLOADS = [
    ("BF.ADD", ["BF.ADD", "k", "i__rand_int__"], 1),
    ("BF.ADD, pipelined 32", ["BF.ADD", "k", "i__rand_int__"], 32),
    ("BF.EXISTS", ["BF.EXISTS", "k", "i__rand_int__"], 1),
    ("BF.MADD x100", ["BF.MADD", "k"] + ITEMS.split(), 1),
    ("BF.MEXISTS x100", ["BF.MEXISTS", "k"] + ITEMS.split(), 1),
]


def prepare(port):
    c = Conn(port)
    c.send(["FLUSHALL"])
    assert c.send(["BF.RESERVE", "k", "0.01", "1000000"]) == b"+OK\r\n"
    for start in range(0, 200_000, 1000):
        c.send(["BF.MADD", "k"] + [f"fill{i}" for i in range(start, start + 1000)])
    c.close()


def run(port, args, pipeline, n):
    out = subprocess.run(
        [BENCH, "-h", "127.0.0.1", "-p", str(port), "-c", "4", "-n", str(n), "-r", "100000000",
         "-P", str(pipeline), "-q", "--csv"] + args,
        capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line and not line.startswith('"test"')]
    return float(re.findall(r'"([0-9.]+)"', rows[-1])[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--valkey-bloom", required=True)
    p.add_argument("--rsbloom", default=os.path.join(ROOT, "target/release/librsbloom.so"))
    p.add_argument("--env", default=os.path.join(ROOT, "target/servers/valkey-9.1.env"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--n", type=int, default=100_000)
    a = p.parse_args()
    binary = read_env(a.env)["REDIS_SERVER"]
    setups = [("valkey-bloom", a.valkey_bloom, []),
              ("rsbloom bloomfltr", a.rsbloom, ["new-filter-format", "valkey"]),
              ("rsbloom own", a.rsbloom, [])]
    servers = {}
    try:
        for name, module, args in setups:
            # Words after the module path are its load arguments.
            servers[name] = Server(binary, module, extra=args)
        results = {(w, s): [] for w, _, _ in WORKLOADS for s, _, _ in setups}
        for r in range(a.rounds):
            for w, args, pipeline in WORKLOADS:
                n = a.n // 10 if "x100" in w else a.n
                for s, _, _ in setups:
                    prepare(servers[s].port)
                    results[(w, s)].append(run(servers[s].port, args, pipeline, n))
        print("| workload | " + " | ".join(s for s, _, _ in setups) + " |")
        print("|---|" + "---|" * len(setups))
        for w, _, _ in WORKLOADS:
            base = statistics.median(results[(w, "valkey-bloom")])
            cells = []
            for s, _, _ in setups:
                m = statistics.median(results[(w, s)])
                cells.append(f"{m:,.0f}" + ("" if s == "valkey-bloom" else f" ({m / base:.2f}x)"))
            print(f"| {w} | " + " | ".join(cells) + " |")
    finally:
        for srv in servers.values():
            srv.stop()


if __name__ == "__main__":
    main()
