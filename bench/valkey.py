#!/usr/bin/env python3
"""valkey-bloom beside rsbloom on Valkey 9.1: each workload's ops/s, server CPU per command
and time in the command, three ways.

  valkey-bloom      valkey-bloom's own module (its .so, built from its tree)
  rsbloom bloomfltr rsbloom loaded with `new-filter-format valkey`: keys of valkey-bloom's type
  rsbloom own       rsbloom with its defaults: its own Bloom type (RSbloom--)

Each server runs on 127.0.0.1 with persistence off; each workload creates its key fresh
(capacity 1,000,000 at 0.01, then 200,000 items so lookups hit a filled filter; `present`
looks those items up, the other lookups miss) and runs
`redis-benchmark -c 4` (random items from `__rand_int__`); rounds interleave the three
servers and the medians and ratios to valkey-bloom are printed, in three tables:

  ops/s         what redis-benchmark reached; on a machine whose cores the client shares
                (2 here), the client's own work caps it and pulls every ratio toward 1
  CPU us / op   the server's CPU time (INFO cpu, user + sys, every thread) over the run,
                per command: what the server spent, whatever the client did
  us / call     INFO commandstats' usec_per_call: the time inside the command

Timings swing 20-40 % here: read the ratios, and back them with instruction counts
(bench/callgrind.py --module ...).

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
ITEMS = [f"i__rand_int__{j}" for j in range(100)]
FILL = 200_000
# redis-benchmark writes __rand_int__ as 12 digits below -r: `fill__rand_int__` under
# -r FILL names an item the filter holds.
PRESENT = ["fill__rand_int__"] * 100
ANY = 100_000_000
# (label, command, pipeline, -r)
WORKLOADS = [
    ("BF.ADD", ["BF.ADD", "k", "i__rand_int__"], 1, ANY),
    ("BF.ADD, pipelined 32", ["BF.ADD", "k", "i__rand_int__"], 32, ANY),
    ("BF.EXISTS", ["BF.EXISTS", "k", "i__rand_int__"], 1, ANY),
    ("BF.MADD x100", ["BF.MADD", "k"] + ITEMS, 1, ANY),
    ("BF.MEXISTS x100", ["BF.MEXISTS", "k"] + ITEMS, 1, ANY),
    ("BF.MEXISTS x100, present", ["BF.MEXISTS", "k"] + PRESENT, 1, FILL),
]


def prepare(port):
    c = Conn(port)
    c.send(["FLUSHALL"])
    assert c.send(["BF.RESERVE", "k", "0.01", "1000000"]) == b"+OK\r\n"
    for start in range(0, FILL, 1000):
        c.send(["BF.MADD", "k"] + [f"fill{i:012d}" for i in range(start, start + 1000)])
    c.close()


def info_fields(port, section):
    c = Conn(port)
    text = c.send(["INFO", section]).decode()
    c.close()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def server_cpu(port):
    f = info_fields(port, "cpu")
    return float(f["used_cpu_user"]) + float(f["used_cpu_sys"])


def usec_per_call(port, command):
    """usec_per_call of `command` (its stat's name in either case: valkey-bloom's BF.ADD or
    rsbloom's bf.add)."""
    for name, value in info_fields(port, "commandstats").items():
        if name.lower() == "cmdstat_" + command.lower():
            return float(re.search(r"usec_per_call=([0-9.]+)", value).group(1))
    raise KeyError(command)


def run(port, args, pipeline, n, spread):
    """ops/s, server CPU us per command, us per call of one redis-benchmark run."""
    c = Conn(port)
    c.send(["CONFIG", "RESETSTAT"])
    c.close()
    cpu = server_cpu(port)
    out = subprocess.run(
        [BENCH, "-h", "127.0.0.1", "-p", str(port), "-c", "4", "-n", str(n), "-r", str(spread),
         "-P", str(pipeline), "-q", "--csv"] + args,
        capture_output=True, text=True, check=True).stdout
    cpu = server_cpu(port) - cpu
    rows = [line for line in out.splitlines() if line and not line.startswith('"test"')]
    ops = float(re.findall(r'"([0-9.]+)"', rows[-1])[0])
    return ops, cpu * 1e6 / n, usec_per_call(port, args[0])


def table(title, setups, results, index, higher_is_better):
    print(f"\n{title}\n")
    print("| workload | " + " | ".join(s for s, _, _ in setups) + " |")
    print("|---|" + "---|" * len(setups))
    for w, *_ in WORKLOADS:
        base = statistics.median(r[index] for r in results[(w, "valkey-bloom")])
        cells = []
        for s, _, _ in setups:
            m = statistics.median(r[index] for r in results[(w, s)])
            ratio = m / base if higher_is_better else base / m
            text = f"{m:,.0f}" if m >= 100 else f"{m:.2f}"
            cells.append(text + ("" if s == "valkey-bloom" else f" ({ratio:.2f}x)"))
        print(f"| {w} | " + " | ".join(cells) + " |")


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
        results = {(w, s): [] for w, *_ in WORKLOADS for s, _, _ in setups}
        for r in range(a.rounds):
            for w, args, pipeline, spread in WORKLOADS:
                n = a.n // 10 if "x100" in w else a.n
                for s, _, _ in setups:
                    prepare(servers[s].port)
                    results[(w, s)].append(run(servers[s].port, args, pipeline, n, spread))
        # Ratios are valkey-bloom's cost over the other's: above 1 is faster.
        table("ops/s", setups, results, 0, True)
        table("server CPU us per command", setups, results, 1, False)
        table("us per call (INFO commandstats)", setups, results, 2, False)
    finally:
        for srv in servers.values():
            srv.stop()


if __name__ == "__main__":
    main()
