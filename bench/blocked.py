#!/usr/bin/env python3
"""Blocked and keyed Bloom filters beside the classic layout and RedisBloom 2.8.2.

Part `cpu`: Redis 7.4.1 (redis-stack's binary, target/servers/redis-7.4.env), two servers of
that binary: one with rsbloom holding four ~1 GiB filters at 0.01 (2^33 / 9.585 items,
NONSCALING): classic, BLOCKED, KEYED, BLOCKED KEYED; one with RedisBloom 2.8.2 holding the same
BF.RESERVE. Every filter is at half density (random bits through BF.LOADCHUNK), as at its
designed load. redis-benchmark on the other core sends BF.ADD and BF.EXISTS (pipeline 32) and
BF.MADD / BF.MEXISTS of 100 random items (pipeline 1); the figures are the server's CPU time per
call (INFO cpu before and after, all its work: its event loop with 50 clients included, which
swings between rounds) and the command's own time (INFO commandstats usec_per_call). Rounds interleave the filters (and the servers,
the first alternating by round); medians, and per round the ratios to the classic filter and
to RedisBloom, whose medians are printed.

Part `rate`: the false-positive rate at capacity, 1,000,000 items at 0.01 and at 0.001, each
layout and keying: a filter filled with that many distinct items (BF.MADD), then 1,000,000
never-added items asked (BF.MEXISTS); the rate measured and its ratio to the rate asked.

Writes bench/results/blocked.csv (one row per measurement).

Usage: python3 bench/blocked.py [--part all|cpu|rate] [--rounds N (3)] [--quick]
"""

import argparse
import csv
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import RESULTS, Server, benchmark, fill_random, stack_server  # noqa: E402

BATCH = 100
BIG = str(int(2 ** 33 / 9.585))
RAND = "__rand_int__"

# (label, the options after BF.RESERVE key 0.01 capacity NONSCALING)
LAYOUTS = [("classic", []), ("blocked", ["BLOCKED"]), ("keyed", ["KEYED"]),
           ("blocked+keyed", ["BLOCKED", "KEYED"])]


def commands(key, quick):
    scale = 0.2 if quick else 1.0
    many = [RAND] * BATCH
    rows = [("BF.ADD P32", 32, ["BF.ADD", key, RAND], 300_000),
            ("BF.EXISTS P32", 32, ["BF.EXISTS", key, RAND], 400_000),
            ("BF.MADD x100", 1, ["BF.MADD", key] + many, 30_000),
            ("BF.MEXISTS x100", 1, ["BF.MEXISTS", key] + many, 40_000)]
    return [(label, pipe, argv, max(1000, int(n * scale))) for label, pipe, argv, n in rows]


def big_filters(server, keys_opts):
    c = server.client
    for key, opts in keys_opts:
        c.call("DEL", key)
        c.call("BF.RESERVE", key, "0.01", BIG, "NONSCALING", *opts)
        fill_random(c, key)


def memory(server, key):
    return int(server.client.call("MEMORY", "USAGE", key))


def cpu_part(args, out):
    program, env, redisbloom = stack_server()
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        ours = Server(d1, program=program, env=env,
                      module_args=("max-filter-bytes", str(4 << 30)))
        theirs = Server(d2, program=program, env=env, module_file=redisbloom, module_args=())
        try:
            filters = [(f"f-{label}", opts) for label, opts in LAYOUTS]
            big_filters(ours, filters)
            big_filters(theirs, [("f-redisbloom", [])])
            for key, _ in filters:
                print(f"{key}: {memory(ours, key) / 2**20:.1f} MiB", flush=True)
            print(f"f-redisbloom: {memory(theirs, 'f-redisbloom') / 2**20:.1f} MiB", flush=True)
            runs = [(label, ours, f"f-{label}") for label, _ in LAYOUTS]
            runs.append(("RedisBloom 2.8.2", theirs, "f-redisbloom"))
            samples = {}
            for r in range(args.rounds):
                order = runs if r % 2 == 0 else runs[-1:] + runs[:-1]
                for name, server, key in order:
                    for label, pipe, argv, n in commands(key, args.quick):
                        _, usec, cpu = benchmark(server, argv[0], argv, pipe, n, cpu=True)
                        samples.setdefault((label, name), []).append(cpu)
                        samples.setdefault((label, name, "usec"), []).append(usec)
                        out.writerow(["cpu", r, label, name, f"{cpu:.3f}", f"{usec:.3f}"])
                        print(f"round {r} {label:16} {name:18} {cpu:8.3f} us/call"
                              f" (command {usec:.3f})", flush=True)
            names = [run[0] for run in runs]
            for what, tail in (("server CPU per call", ()), ("usec_per_call", ("usec",))):
                print(f"\nmedian {what} (us), ratio to classic, ratio to RedisBloom")
                for label, *_ in commands("k", args.quick):
                    base = samples[(label, "classic") + tail]
                    rb = samples[(label, "RedisBloom 2.8.2") + tail]
                    for name in names:
                        s = samples[(label, name) + tail]
                        to_classic = statistics.median(a / b for a, b in zip(s, base))
                        to_rb = statistics.median(a / b for a, b in zip(s, rb))
                        print(f"{label:16} {name:18} {statistics.median(s):8.3f}"
                              f"  x{to_classic:5.2f} classic  x{to_rb:5.2f} RedisBloom")
        finally:
            ours.stop()
            theirs.stop()


def rate_part(args, out):
    n = 200_000 if args.quick else 1_000_000
    probes = 1_000_000
    with tempfile.TemporaryDirectory() as d:
        server = Server(d)
        try:
            c = server.client
            for rate in ("0.01", "0.001"):
                for label, opts in LAYOUTS:
                    key = f"r-{label}-{rate}"
                    c.call("BF.RESERVE", key, rate, str(n), "NONSCALING", *opts)
                    for b in range(0, n, 1000):
                        c.call("BF.MADD", key, *[f"in:{j}" for j in range(b, b + 1000)])
                    positives = 0
                    for b in range(0, probes, 1000):
                        answers = c.call("BF.MEXISTS", key, *[f"out:{j}" for j in range(b, b + 1000)])
                        positives += sum(answers)
                    measured = positives / probes
                    ratio = measured / float(rate)
                    size = memory(server, key)
                    out.writerow(["rate", 0, rate, label, f"{measured:.6f}", f"{ratio:.3f}", size])
                    print(f"{rate:6} {label:14} rate {measured:.5f}  x{ratio:.3f} of asked  "
                          f"{size / n:.3f} bytes/item", flush=True)
                    c.call("DEL", key)
        finally:
            server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("all", "cpu", "rate"), default="all")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "blocked.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["part", "round", "what", "filter", "value", "ratio|usec_per_call", "bytes"])
        if args.part in ("all", "rate"):
            rate_part(args, out)
        if args.part in ("all", "cpu"):
            cpu_part(args, out)


if __name__ == "__main__":
    main()
