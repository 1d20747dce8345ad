#!/usr/bin/env python3
"""Instructions per command, whole server, counted by valgrind's callgrind.

Timings on this machine swing 20-40 % between rounds; instruction counts do not (the same
binary, inputs and environment give the same total). For each command it starts Redis 7.0
(`redis-server` on PATH, or --server) under `valgrind --tool=callgrind --instr-atstart=no`
with a module, creates the key, switches instrumentation on (`callgrind_control -i on`),
sends N commands in pipelines of 32 from one connection, switches it off and divides the
collected instructions (Ir, every thread of the server: parsing, the command, the reply) by
N; also the share of the server's module command dispatcher (the command callback and the
server API calls it makes), which does not move with timing as the whole does (cron runs,
how many commands one read brings: +-3 %). The keys are 10,000,000-item filters (BF at 0.01, CF with the default bucket size) and the
items distinct, as in bench/e2e.py.

Rows: BF.ADD, BF.EXISTS, CF.ADD, CF.EXISTS, CF.COUNT and CF.DEL (of present items), BF.MADD
x100, BF.MEXISTS x100 (of absent items, and `filled`: of present ones), both x100 on a
1M filter holding 200,000 items (`small`: bench/valkey.py's); BF.ADD, BF.EXISTS of present items, BF.MADD and BF.MEXISTS x100 on KEYED
and on BLOCKED filters (labels `... keyed`, `... blocked`) and on shards routed by key slot
and by keyed routing (`... shard`, `... shard keyed`); APBF.ADD (COUNT and TIME windows, and a TIME window in a burst of ten
times its capacity: its burst layers' path; a TIME window's add that moves its clock is
replicated as APBF.INSERTAT, one within the same millisecond as it came, and under valgrind
several adds share a millisecond, so these rows measure a mix, mostly the latter),
APBF.EXISTS (the same three, and BF.EXISTS / APBF.EXISTS filled: lookups of present items
that read every probe), APBF.MADD and APBF.MEXISTS x100, APBF.ADD, APBF.EXISTS filled,
APBF.MADD and APBF.MEXISTS x100 on a KEYED COUNT window (`... keyed`), and LUA2BF.ADD / LUA2BF.EXISTS
(the Lua-rotated pair of Bloom filters, whose module command column counts only the BF.*
calls the script makes); CBF.ADD, CBF.MADD,
CBF.MEXISTS and CBF.MDEL of 100 items (MDEL of 100 items added 15 times, so their 4-bit
counters are saturated: every delete succeeds and the filter stays as it is); the sketches:
CMS.INCRBY and CMS.QUERY of 1 and 100 items, TOPK.ADD of 1 and 100, TDIGEST.ADD of 100 values,
TDIGEST.QUANTILE, CDF and RANK of two values, BYRANK of two ranks and TRIMMED_MEAN, all on one
digest of 5,000 values (with --module pointing at RedisBloom, the same rows measure it).

Usage: python3 bench/callgrind.py [--module PATH] [--n N (20000)] [--only TEXT[,TEXT...]]
                                  [--keep DIR]
--keep DIR leaves each row's callgrind output in DIR (`callgrind_annotate --inclusive=yes`
shows where a command's instructions go).
Compare two builds by running it with each --module and putting the columns side by side; rows
of a family the module lacks (with RedisBloom: CBF, APBF) print `-`.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (LUA_ADD, LUA_EXISTS, LUA_HALF_WINDOW_MS, MODULE, Client, free_port,  # noqa: E402
                 script_sha, selected)

PIPELINE = 32
BATCH = 100

# The Lua-rotated pair of Bloom filters of bench/e2e.py (LUA2BF rows): its filters, its marker
# (set, so no call rotates) and its scripts, and the keys and arguments before the items.
LUA_SETUP = [["BF.RESERVE", "lcur", "0.01", "10000000"], ["BF.RESERVE", "lnext", "0.01", "10000000"],
             ["SET", "lrot", "1", "PX", str(LUA_HALF_WINDOW_MS)],
             ["SCRIPT", "LOAD", LUA_ADD], ["SCRIPT", "LOAD", LUA_EXISTS]]
LUA_ARGS = ["3", "lcur", "lnext", "lrot", str(LUA_HALF_WINDOW_MS), "0.01", "10000000"]
APBF_COUNT = [["APBF.RESERVE", "k", "COUNT", "0.01", "10000000"]]
APBF_TIME = [["APBF.RESERVE", "k", "TIME", "0.01", "10000000", "3600"]]
APBF_KEYED = [["APBF.RESERVE", "k", "COUNT", "0.01", "10000000", "KEYED"]]
# A TIME window in a burst: ten times its capacity of 10,000 within its span, so it holds
# burst layers at levels 1 to 3 and every add measured goes to the third (room for 15 times
# the capacity in all).
APBF_BURST = [["APBF.RESERVE", "k", "TIME", "0.01", "10000", "3600"]] + [
    ["APBF.MADD", "k"] + [f"burst:{b}:{j}" for j in range(10000)] for b in range(10)]

# The t-digest the query rows ask: compression 100, 5,000 values in 0 .. 100,002.
TD_SETUP = [["TDIGEST.CREATE", "k", "COMPRESSION", "100"],
            ["TDIGEST.ADD", "k"] + [str((j * 7919) % 100003) for j in range(5000)]]

# A cuckoo filter holding item:0 .. item:19999 (the rows that count or delete them).
CF_FILLED = [["CF.RESERVE", "k", "10000000"],
             ["CF.INSERT", "k", "ITEMS"] + [f"item:{j}" for j in range(20000)]]

# A Bloom filter and a COUNT window (10M items at 1 %) holding item:0 .. item:19999, so that
# lookups of them read every probe (the plain EXISTS rows ask an empty window, which answers
# before probing, and an empty filter, which stops at its first clear bit).
BF_FILLED = [["BF.RESERVE", "k", "0.01", "10000000"]] + [
    ["BF.MADD", "k"] + [f"item:{j}" for j in range(b, b + 1000)] for b in range(0, 20000, 1000)]
APBF_FILLED = [["APBF.RESERVE", "k", "COUNT", "0.01", "10000000"]] + [
    ["APBF.MADD", "k"] + [f"item:{j}" for j in range(b, b + 1000)] for b in range(0, 20000, 1000)]

# bench/valkey.py's filter: 1M items at 1 % (1.2 MB of bits, below the batches' 2 MiB
# prefetch threshold) holding 200,000 (fill:0 .. fill:199999).
BF_SMALL = [["BF.RESERVE", "k", "0.01", "1000000"]] + [
    ["BF.MADD", "k"] + [f"fill:{j}" for j in range(b, b + 1000)] for b in range(0, 200000, 1000)]


def variant_rows(opts, tag=None):
    """BF.ADD, BF.EXISTS of present items, BF.MADD and BF.MEXISTS x100 on a 10M filter made
    with `opts` (KEYED, BLOCKED, a SHARD place): the plain rows' commands, labelled with the
    options (or `tag`)."""
    reserve = [["BF.RESERVE", "k", "0.01", "10000000"] + opts]
    filled = reserve + BF_FILLED[1:]
    tag = " " + (tag or "+".join(o.lower() for o in opts))
    return [
        ("BF.ADD" + tag, reserve, lambda i: ["BF.ADD", "k", f"item:{i}"]),
        ("BF.EXISTS filled" + tag, filled, lambda i: ["BF.EXISTS", "k", f"item:{i}"]),
        ("BF.MADD x100" + tag, reserve,
         lambda i: ["BF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
        ("BF.MEXISTS x100" + tag, reserve,
         lambda i: ["BF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ]


# (label, setup commands, the command for item i)
COMMANDS = [
    ("BF.ADD", [["BF.RESERVE", "k", "0.01", "10000000"]], lambda i: ["BF.ADD", "k", f"item:{i}"]),
    ("BF.EXISTS", [["BF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["BF.EXISTS", "k", f"item:{i}"]),
    ("CF.ADD", [["CF.RESERVE", "k", "10000000"]], lambda i: ["CF.ADD", "k", f"item:{i}"]),
    ("CF.EXISTS", [["CF.RESERVE", "k", "10000000"]], lambda i: ["CF.EXISTS", "k", f"item:{i}"]),
    ("CF.COUNT", CF_FILLED, lambda i: ["CF.COUNT", "k", f"item:{i}"]),
    ("CF.DEL", CF_FILLED, lambda i: ["CF.DEL", "k", f"item:{i}"]),
    ("BF.MADD x100", [["BF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["BF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("BF.MEXISTS x100", [["BF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["BF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    # Lookups of present items (every probe read) on the 10M filter, and batches on
    # bench/valkey.py's smaller, partly filled filter (lookups of absent items).
    ("BF.MEXISTS x100 filled", BF_FILLED,
     lambda i: ["BF.MEXISTS", "k"] + [f"item:{(i * BATCH + j) % 20000}" for j in range(BATCH)]),
    ("BF.MADD x100 small", BF_SMALL,
     lambda i: ["BF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("BF.MEXISTS x100 small", BF_SMALL,
     lambda i: ["BF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    # The same on KEYED (SipHash-1-3 under the filter's secret) and BLOCKED (one 512-bit block
    # per item) filters of rsbloom's own format: what each costs beside the plain rows above.
    *[row for opts in (["KEYED"], ["BLOCKED"]) for row in variant_rows(opts)],
    # A shard (the only one of its logical filter, so every item is its own): the routing
    # check by key slot, and by keyed routing's HMAC-SHA256.
    *variant_rows(["SHARD", "k", "0", "1"], "shard"),
    *variant_rows(["SHARD", "k", "0", "1", "SHARDSECRET", "00112233445566778899aabbccddeeff"],
                  "shard keyed"),
    # Counting Bloom filters of the BF rows' capacity and rate (4-bit counters).
    ("CBF.ADD", [["CBF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["CBF.ADD", "k", f"item:{i}"]),
    ("CBF.MADD x100", [["CBF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["CBF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("CBF.MEXISTS x100", [["CBF.RESERVE", "k", "0.01", "10000000"]],
     lambda i: ["CBF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("CBF.MDEL x100", [["CBF.RESERVE", "k", "0.01", "10000000"]]
     + [["CBF.MADD", "k"] + [f"item:{j}" for j in range(BATCH)]] * 15,
     lambda i: ["CBF.MDEL", "k"] + [f"item:{j}" for j in range(BATCH)]),
    # The sliding window (COUNT and TIME windows of 10,000,000 at 0.01, as bench/e2e.py's;
    # empty at the start: 20,000 adds turn no generation of a 10M window) and the two
    # Lua-rotated Bloom filters it replaces.
    ("APBF.ADD", APBF_COUNT, lambda i: ["APBF.ADD", "k", f"item:{i}"]),
    ("APBF.ADD TIME", APBF_TIME, lambda i: ["APBF.ADD", "k", f"item:{i}"]),
    ("APBF.ADD TIME 10x", APBF_BURST, lambda i: ["APBF.ADD", "k", f"item:{i}"]),
    ("APBF.EXISTS", APBF_COUNT, lambda i: ["APBF.EXISTS", "k", f"item:{i}"]),
    ("APBF.EXISTS TIME", APBF_TIME, lambda i: ["APBF.EXISTS", "k", f"item:{i}"]),
    ("APBF.EXISTS TIME 10x", APBF_BURST, lambda i: ["APBF.EXISTS", "k", f"item:{i}"]),
    # Lookups that probe: a window and a filter holding item:0 .. item:19999.
    ("BF.EXISTS filled", BF_FILLED, lambda i: ["BF.EXISTS", "k", f"item:{i}"]),
    ("APBF.EXISTS filled", APBF_FILLED, lambda i: ["APBF.EXISTS", "k", f"item:{i}"]),
    ("APBF.MADD x100", APBF_COUNT,
     lambda i: ["APBF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("APBF.MEXISTS x100", APBF_COUNT,
     lambda i: ["APBF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    # The same on a KEYED window (SipHash-1-3 under its secret): what keying costs.
    ("APBF.ADD keyed", APBF_KEYED, lambda i: ["APBF.ADD", "k", f"item:{i}"]),
    ("APBF.EXISTS filled keyed", APBF_KEYED + APBF_FILLED[1:],
     lambda i: ["APBF.EXISTS", "k", f"item:{i}"]),
    ("APBF.MADD x100 keyed", APBF_KEYED,
     lambda i: ["APBF.MADD", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("APBF.MEXISTS x100 keyed", APBF_KEYED,
     lambda i: ["APBF.MEXISTS", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("LUA2BF.ADD", LUA_SETUP, lambda i: ["EVALSHA", script_sha(LUA_ADD)] + LUA_ARGS + [f"item:{i}"]),
    ("LUA2BF.EXISTS", LUA_SETUP,
     lambda i: ["EVALSHA", script_sha(LUA_EXISTS)] + LUA_ARGS + [f"item:{i}"]),
    # The sketches, shaped as in bench/e2e.py.
    ("CMS.INCRBY", [["CMS.INITBYPROB", "k", "0.001", "0.01"]],
     lambda i: ["CMS.INCRBY", "k", f"item:{i}", "1"]),
    ("CMS.INCRBY x100", [["CMS.INITBYPROB", "k", "0.001", "0.01"]],
     lambda i: ["CMS.INCRBY", "k"] + [x for j in range(BATCH) for x in (f"item:{i}:{j}", "1")]),
    ("CMS.QUERY", [["CMS.INITBYPROB", "k", "0.001", "0.01"]],
     lambda i: ["CMS.QUERY", "k", f"item:{i}"]),
    ("CMS.QUERY x100", [["CMS.INITBYPROB", "k", "0.001", "0.01"]],
     lambda i: ["CMS.QUERY", "k"] + [f"item:{i}:{j}" for j in range(BATCH)]),
    ("TOPK.ADD", [["TOPK.RESERVE", "k", "50", "2000", "7", "0.925"]],
     lambda i: ["TOPK.ADD", "k", f"item:{i % 200000}"]),
    ("TOPK.ADD x100", [["TOPK.RESERVE", "k", "50", "2000", "7", "0.925"]],
     lambda i: ["TOPK.ADD", "k"] + [f"item:{(i * BATCH + j) % 200000}" for j in range(BATCH)]),
    ("TDIGEST.ADD x100", [["TDIGEST.CREATE", "k", "COMPRESSION", "100"]],
     lambda i: ["TDIGEST.ADD", "k"] + [str((i * 7919 + j * 104729) % 1000003) for j in range(BATCH)]),
    ("TDIGEST.QUANTILE", TD_SETUP, lambda i: ["TDIGEST.QUANTILE", "k", "0.5", "0.99"]),
    ("TDIGEST.CDF", TD_SETUP, lambda i: ["TDIGEST.CDF", "k", "50000", "90000"]),
    ("TDIGEST.RANK", TD_SETUP, lambda i: ["TDIGEST.RANK", "k", "50000", "90000"]),
    ("TDIGEST.BYRANK", TD_SETUP, lambda i: ["TDIGEST.BYRANK", "k", "2500", "4950"]),
    ("TDIGEST.TRIMMED_MEAN", TD_SETUP, lambda i: ["TDIGEST.TRIMMED_MEAN", "k", "0.1", "0.9"]),
]


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def measure(server, module, setup, command, n, workdir, module_args=()):
    port = free_port()
    out = os.path.join(workdir, "callgrind.out")
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         server, "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir, "--save", "",
         "--appendonly", "no", "--hz", "1", "--loadmodule", module, *module_args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                client = Client(port)
                client.call("PING")
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    sys.exit("the server did not start under valgrind")
                time.sleep(0.2)
        for args in setup:
            try:
                client.call(*args)
            except RuntimeError as e:
                if "unknown command" in str(e):
                    return None  # a row of a family the module lacks (RedisBloom: CBF, APBF)
                raise
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for start in range(0, n, PIPELINE):
            batch = range(start, min(n, start + PIPELINE))
            client.sock.sendall(b"".join(encode(command(i)) for i in batch))
            for _ in batch:
                client._reply()
        subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        proc.terminate()
        proc.wait(60)
    total = dispatch = 0
    for path in glob.glob(out + "*"):
        with open(path) as f:
            for line in f:
                if line.startswith("totals:"):
                    total += int(line.split()[1])
        # The server's module command dispatcher, inclusive: the command callback with the
        # server API calls it makes, none of the event loop, parsing or cron (which vary a
        # little with timing).
        annotated = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
            capture_output=True, text=True, check=True).stdout
        for line in annotated.splitlines():
            # Valkey 8+ names it ValkeyModuleCommandDispatcher.
            if line.rstrip().endswith("]") and re.search(
                    r":(Redis|Valkey)ModuleCommandDispatcher ", line):
                dispatch += int(line.split()[0].replace(",", ""))
                break
    return total / n, dispatch / n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--module", default=MODULE)
    p.add_argument("--server", default="redis-server")
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--only")
    p.add_argument("--keep", help="a folder to keep each row's callgrind output in")
    p.add_argument("--exact", action="store_true",
                   help="--only names whole rows (`BF.ADD` alone, not `BF.ADD keyed`)")
    p.add_argument("--module-args", default="",
                   help="load arguments after the module path, e.g. 'new-filter-format valkey' "
                        "(valkey-bloom's keys, beside valkey-bloom's .so as --module)")
    args = p.parse_args()
    server = shutil.which(args.server) or args.server
    print(f"module {args.module}\nserver {server}\nn {args.n} per command\n")
    print(f"{'command':<18} {'whole server':>14} {'module command':>16}")
    for label, setup, command in COMMANDS:
        if args.only and not (label in args.only.split(",") if args.exact
                              else selected(args.only, label)):
            continue
        with tempfile.TemporaryDirectory() as workdir:
            module = os.path.join(workdir, "module.so")
            shutil.copy(args.module, module)
            measured = measure(server, module, setup, command, args.n, workdir,
                               args.module_args.split())
            if measured is None:
                print(f"{label:<18} {'-':>14} {'-':>16}", flush=True)
                continue
            whole, dispatch = measured
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                name = label.replace(" ", "_").replace(".", "_")
                for i, path in enumerate(sorted(glob.glob(os.path.join(workdir, "callgrind.out*")))):
                    shutil.copy(path, os.path.join(args.keep, f"{name}.{i}.out"))
        print(f"{label:<18} {whole:>14,.0f} {dispatch:>16,.0f}", flush=True)


if __name__ == "__main__":
    main()
