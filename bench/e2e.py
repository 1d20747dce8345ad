#!/usr/bin/env python3
"""End-to-end benchmark: a redis-server of its own with the release module, driven by
redis-benchmark on the other core.

For a 10,000,000 @ 0.01 filter and a ~1 GiB one (both filled with random bits to half
density, as at their designed load) it measures BF.ADD and BF.EXISTS at pipeline 1 and 32,
BF.MADD and BF.MEXISTS with 100 random items per call (prefetching on and off), and GETBIT /
SETBIT at pipeline 32 as the ceiling, several rounds interleaved. It prints medians, min and
max, the ratio to GETBIT from the same run and the server-side usec_per_call, writes
bench/results/e2e.csv and draws bench/results/e2e.svg.

The same rounds measure the families that forget, on 10,000,000-item filters: the counting
Bloom filter (CBF.ADD / EXISTS / DEL at pipeline 32, CBF.MADD / MEXISTS / MDEL x100) at 0.01
and at the cuckoo filter's own rate (1.559 %), beside the cuckoo filter (CF.*); the sliding
window (APBF.ADD / EXISTS at pipeline 32, APBF.MADD / MEXISTS x100 on a COUNT window, APBF.ADD
on a TIME window) beside what users run today, two BF.* filters rotated by a Lua script
(LUA2BF.*, the rueidis scheme, run by EVALSHA). It prints each filter's bytes per item
(MEMORY USAGE / capacity) and the issue's ratios (APBF.ADD / BF.ADD, APBF.ADD / LUA2BF.ADD,
CBF.ADD / BF.ADD, ...). tools/bytes-per-item.py gives bytes per item at other sizes.

Then rsbloom beside RedisBloom 2.8.2: two servers of the same binary (Redis 7.4.1 of
redis-stack, target/servers/redis-7.4.env, installed by `make deps-servers`), one with each
module, take the same Bloom and cuckoo commands on 10,000,000-item filters in interleaved
rounds (each configuration on one server, then on the other, the first alternating by round).
The same rounds measure the sketches (CMS.INCRBY / CMS.QUERY of 1 and 100 items, TOPK.ADD of 1
and 100, TDIGEST.ADD of 100 values, TDIGEST.QUANTILE, CDF, RANK, BYRANK and TRIMMED_MEAN).
Each figure is also given as a ratio to GETBIT measured on the same server in the same round,
and rsbloom / RedisBloom as the median of the per-round ratios. Writes
bench/results/e2e-redisbloom.csv.

--only TEXT runs the rows whose label contains TEXT (or one of its comma-separated parts), GETBIT
always: `--only APBF,LUA2BF,BF.ADD 10M` for the sliding-window rows and their ratios.

Usage: python3 bench/e2e.py [--rounds N (5)] [--quick] [--only TEXT[,TEXT...]]
                            [--part all|rsbloom|redisbloom]
"""

import argparse
import csv
import datetime
import hashlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
MODULE = os.path.join(ROOT, "target", "release", "librsbloom.so")
BATCH = 100

# The filters of the rsbloom part, by the name the rows give them, and their keys.
FILTERS = {"10M": "f10m", "1GiB": "fbig", "CBF10M": "c10m", "CBF10M-CF": "ccf10m",
           "CF10M": "cf10m", "2x10M": ("lcur", "lnext"), "APBF10M": "ap10m",
           "APBF10M-TIME": "apt10m"}
# A cuckoo filter's false-positive bound at bucket size 2: a lookup compares the item's 8-bit
# fingerprint (never 0, so 255 values) with the 2 x 2 slots of its two buckets, each matching
# by chance with probability 1/255 when full: 1 - (254/255)^4 = 1.559 %. CBF10M-CF is a
# counting filter reserved at that rate, to set the two side by side at the same rate.
CF_RATE = round(1 - (254 / 255) ** 4, 5)
# The sliding window's size: the last 10,000,000 items (APBF COUNT), 10,000,000 items per
# span (APBF TIME), and each of the Lua scheme's two filters reserved for 10,000,000.
WINDOW = 10_000_000
APBF_SPAN = 3600

# The sliding-window Bloom filter users build today from two plain filters (rueidis'
# rueidisprob.NewSlidingBloomFilter does it on BITFIELD with client-side hashing; here on
# rsbloom's own BF.*): KEYS[1] the current filter, KEYS[2] the next one, KEYS[3] a marker that
# lives half a window (SET NX PX). Every call first tries to set the marker; the call that
# succeeds rotates (the next filter becomes the current one, a new empty next is reserved). An
# add goes to both filters, a lookup reads the current one only, so an item is remembered for
# between half a window and a whole one. Both filters are reserved for a whole window's items
# at the error rate (the current one has taken adds for one whole window when it is retired).
# ARGV: half the window in ms, the error rate, the capacity, then the items (1 or more).
LUA_ROTATE = """if redis.call('SET', KEYS[3], '1', 'PX', ARGV[1], 'NX') then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('RENAME', KEYS[2], KEYS[1])
  else
    redis.call('DEL', KEYS[1])
    redis.call('BF.RESERVE', KEYS[1], ARGV[2], ARGV[3])
  end
  redis.call('BF.RESERVE', KEYS[2], ARGV[2], ARGV[3])
end
"""
LUA_ADD = LUA_ROTATE + """if #ARGV == 4 then
  redis.call('BF.ADD', KEYS[2], ARGV[4])
  return redis.call('BF.ADD', KEYS[1], ARGV[4])
end
redis.call('BF.MADD', KEYS[2], unpack(ARGV, 4))
return redis.call('BF.MADD', KEYS[1], unpack(ARGV, 4))
"""
LUA_EXISTS = LUA_ROTATE + """if #ARGV == 4 then
  return redis.call('BF.EXISTS', KEYS[1], ARGV[4])
end
return redis.call('BF.MEXISTS', KEYS[1], unpack(ARGV, 4))
"""
# Half of the Lua scheme's window (a 3600 s window, as APBF10M-TIME's): no rotation falls in a
# run, whose filters are made again before it (make_filter), so every run measures the scheme's
# steady state (one failed SET NX per call, two adds or one lookup).
LUA_HALF_WINDOW_MS = APBF_SPAN * 1000 // 2


def script_sha(script):
    return hashlib.sha1(script.encode()).hexdigest()


def check_lua_scheme(client):
    """The Lua scheme on a 1,000-item window of 0.2 s (so 0.1 s halves): an item added is
    found, still found after one rotation, gone after two; batches answer per item."""
    keys = ["3", "tcur", "tnext", "trot", "100", "0.01", "1000"]
    add, exists = (["EVALSHA", script_sha(s)] + keys for s in (LUA_ADD, LUA_EXISTS))
    client.call("DEL", "tcur", "tnext", "trot")
    answers = [client.call(*add, "a"), client.call(*exists, "a"), client.call(*exists, "b"),
               client.call(*add, "b", "c", "b"), client.call(*exists, "a", "b", "x")]
    time.sleep(0.15)
    answers.append(client.call(*exists, "a", "c"))
    time.sleep(0.15)
    answers.append(client.call(*exists, "a", "c"))
    client.call("DEL", "tcur", "tnext", "trot")
    if answers != [1, 1, 0, [1, 1, 0], [1, 1, 0], [1, 1], [0, 0]]:
        sys.exit(f"the Lua sliding-window scheme answered {answers}")


# --- a minimal RESP client, enough to set up the server -------------------------------


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RuntimeError(f"unexpected reply {line!r}")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self._reply()


# --- the server --------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(core):
    """taskset prefix pinning to `core` where there are two or more cores."""
    if (os.cpu_count() or 1) >= 2 and shutil.which("taskset"):
        return ["taskset", "-c", str(core)]
    return []


class Server:
    def __init__(self, workdir, program="redis-server", module_file=MODULE,
                 module_args=("max-filter-bytes", str(2 << 30)), env=None):
        self.port = free_port()
        module = os.path.join(workdir, os.path.basename(module_file))
        shutil.copy(module_file, module)  # never run a .so a rebuild may overwrite
        os.chmod(module, 0o755)  # redis-stack's wheel installs redisbloom.so without +x
        self.proc = subprocess.Popen(
            pin(0) + [program, "--port", str(self.port), "--bind", "127.0.0.1",
                      "--dir", workdir, "--save", "", "--appendonly", "no",
                      "--loadmodule", module] + list(module_args),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.time() + 10
        while True:
            try:
                self.client = Client(self.port)
                self.client.call("PING")
                break
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    self.stop()
                    sys.exit("redis-server did not start")
                time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def fill_random(client, key):
    """Sets half of the filter's bits at random, through the LOADCHUNK data path."""
    size = client.call("BF.DEBUG", key)[1].decode()
    data_len = int(size.split()[0].split(":")[1])
    offset, chunk = 0, 16 << 20
    while offset < data_len:
        data = os.urandom(min(chunk, data_len - offset))
        offset += len(data)
        client.call("BF.LOADCHUNK", key, offset + 1, data)


# --- the measurements --------------------------------------------------------------------


def configs(quick):
    scale = 0.2 if quick else 1.0
    rand = "__rand_int__"
    many = [rand] * BATCH
    out = []
    for fname, key in (("10M", "f10m"), ("1GiB", "fbig")):
        for pipe in (1, 32):
            out.append((fname, "BF.ADD", pipe, True, ["BF.ADD", key, rand], 1, 400_000 if pipe > 1 else 100_000))
            out.append((fname, "BF.EXISTS", pipe, True, ["BF.EXISTS", key, rand], 1, 400_000 if pipe > 1 else 100_000))
        for prefetch in (True, False):
            out.append((fname, "BF.MADD", 1, prefetch, ["BF.MADD", key] + many, BATCH, 20_000))
            out.append((fname, "BF.MEXISTS", 1, prefetch, ["BF.MEXISTS", key] + many, BATCH, 20_000))
    # Deletes: the counting filter (CBF.*) beside the cuckoo filter (CF.*) and the Bloom filter
    # (BF.*) of the same 10,000,000 items: CBF and BF at 0.01, CF at its default bucket size
    # (its fixed rate, about 1.6 %, is the nearest it has). Each filter is made again, at half
    # its capacity, before every run (see make_filter); lookups and deletes draw random items,
    # so most miss, as BF.EXISTS's do.
    # CBF10M is at 0.01 (as BF), CBF10M-CF at the cuckoo filter's own rate (CF_RATE).
    for fname, fam in (("CBF10M", "CBF"), ("CBF10M-CF", "CBF"), ("CF10M", "CF")):
        key = FILTERS[fname]
        for cmd in ("ADD", "EXISTS", "DEL"):
            out.append((fname, f"{fam}.{cmd}", 32, True, [f"{fam}.{cmd}", key, rand], 1, 400_000))
        adds = ["CBF.MADD", key] if fam == "CBF" else ["CF.INSERT", key, "ITEMS"]
        out.append((fname, adds[0], 1, True, adds + many, BATCH, 20_000))
        out.append((fname, f"{fam}.MEXISTS", 1, True, [f"{fam}.MEXISTS", key] + many, BATCH, 20_000))
        if fam == "CBF":
            out.append((fname, "CBF.MDEL", 1, True, ["CBF.MDEL", key] + many, BATCH, 20_000))
    # The sliding window: what users run today (two Bloom filters rotated by a Lua script, the
    # rueidis scheme, on rsbloom's own BF.*; see LUA_ADD) beside APBF.* (COUNT window of
    # 10,000,000 items, and a TIME window of 3600 s for 10,000,000 items per span), all at 0.01.
    lua = ["EVALSHA"]
    lua_keys = ["3", "lcur", "lnext", "lrot", str(LUA_HALF_WINDOW_MS), "0.01", str(WINDOW)]
    for cmd, script, items in (("LUA2BF.ADD", LUA_ADD, [rand]), ("LUA2BF.EXISTS", LUA_EXISTS, [rand]),
                               ("LUA2BF.MADD", LUA_ADD, many), ("LUA2BF.MEXISTS", LUA_EXISTS, many)):
        argv = lua + [script_sha(script)] + lua_keys + items
        if len(items) == 1:
            out.append(("2x10M", cmd, 32, True, argv, 1, 400_000))
        else:
            out.append(("2x10M", cmd, 1, True, argv, BATCH, 20_000))
    ap = FILTERS["APBF10M"]
    out.append(("APBF10M", "APBF.ADD", 32, True, ["APBF.ADD", ap, rand], 1, 400_000))
    out.append(("APBF10M", "APBF.EXISTS", 32, True, ["APBF.EXISTS", ap, rand], 1, 400_000))
    out.append(("APBF10M", "APBF.MADD", 1, True, ["APBF.MADD", ap] + many, BATCH, 20_000))
    out.append(("APBF10M", "APBF.MEXISTS", 1, True, ["APBF.MEXISTS", ap] + many, BATCH, 20_000))
    apt = FILTERS["APBF10M-TIME"]
    out.append(("APBF10M-TIME", "APBF.ADD", 32, True, ["APBF.ADD", apt, rand], 1, 400_000))
    out.append(("-", "GETBIT", 32, True, ["GETBIT", "bits", "12345"], 1, 1_000_000))
    out.append(("-", "SETBIT", 32, True, ["SETBIT", "bits", "12345", "1"], 1, 1_000_000))
    return [(f, c, p, pf, argv, items, max(1000, int(n * scale))) for f, c, p, pf, argv, items, n in out]


def make_10m(client):
    """A fresh 10,000,000 @ 0.01 filter at half density. Made again before every run on it:
    the adds of earlier runs would otherwise fill it past its capacity and grow a second layer,
    and later runs would measure a different filter."""
    client.call("DEL", "f10m")
    client.call("BF.RESERVE", "f10m", "0.01", "10000000")
    fill_random(client, "f10m")


def fill_counting(client, key, rate):
    """A fresh 10,000,000-item counting filter at `rate` with its counters 0 or 1 at random
    (through CBF.LOADCHUNK), the density of BF's half-set bits."""
    client.call("DEL", key)
    client.call("CBF.RESERVE", key, str(rate), "10000000")
    info = client.call("CBF.INFO", key)
    names = [n.decode() if isinstance(n, bytes) else n for n in info[0::2]]
    counters = dict(zip(names, info[1::2]))["Number of counters"]
    data_len, offset, chunk = counters // 2, 0, 16 << 20
    while offset < data_len:
        data = bytes(b & 0x11 for b in os.urandom(min(chunk, data_len - offset)))
        offset += len(data)
        client.call("CBF.LOADCHUNK", key, offset + 1, data)


def make_filter(server, fname):
    """A fresh filter for the rows of `fname`, made again before every run on it (runs' adds
    would otherwise fill it past its capacity):
    - CBF10M / CBF10M-CF: counting filters of 10,000,000 at 0.01 / CF_RATE, counters 0 or 1
      at random (fill_counting);
    - CF10M: a cuckoo filter of 10,000,000 (bucket size 2) after 5,000,000 random adds;
    - 2x10M: the Lua scheme's two Bloom filters of 10,000,000 at 0.01, both at half density
      (the current filter's state when it is retired), and its rotation marker set, so no run
      rotates;
    - APBF10M / APBF10M-TIME: made once per server, then kept: a sliding window holds the last
      window's items whatever came before, so after one window of random adds (10,000,000
      items) it is in its steady state, and later runs' adds keep it there."""
    client = server.client
    if fname == "CBF10M":
        fill_counting(client, FILTERS[fname], "0.01")
    elif fname == "CBF10M-CF":
        fill_counting(client, FILTERS[fname], CF_RATE)
    elif fname == "CF10M":
        client.call("DEL", "cf10m")
        client.call("CF.RESERVE", "cf10m", "10000000")
        benchmark(server, "CF.INSERT", ["CF.INSERT", "cf10m", "ITEMS"] + ["__rand_int__"] * BATCH,
                  1, 5_000_000 // BATCH)
    elif fname == "2x10M":
        client.call("DEL", "lcur", "lnext", "lrot")
        for key in ("lcur", "lnext"):
            client.call("BF.RESERVE", key, "0.01", str(WINDOW))
            fill_random(client, key)
        client.call("SET", "lrot", "1", "PX", str(LUA_HALF_WINDOW_MS))
    elif fname in ("APBF10M", "APBF10M-TIME"):
        key = FILTERS[fname]
        if client.call("EXISTS", key):
            return
        window = ["COUNT", "0.01", str(WINDOW)] if fname == "APBF10M" else \
            ["TIME", "0.01", str(WINDOW), str(APBF_SPAN)]
        client.call("APBF.RESERVE", key, *window)
        benchmark(server, "APBF.MADD", ["APBF.MADD", key] + ["__rand_int__"] * BATCH, 4,
                  WINDOW // BATCH, clients=4)


def apbf_available(client):
    """Whether this module has the sliding-window commands (APBF.*)."""
    return client.call("COMMAND", "INFO", "APBF.ADD")[0] is not None


def bytes_per_item(server, fnames):
    """MEMORY USAGE of each 10,000,000-item filter of `fnames` over its capacity (the Lua
    scheme: its two filters and its marker together, over the window's 10,000,000)."""
    c = server.client
    out = {}
    for fname in fnames:
        if fname == "1GiB":
            continue
        if fname == "10M":
            make_10m(c)
        else:
            make_filter(server, fname)
        keys = FILTERS[fname] if fname == "2x10M" else (FILTERS[fname],)
        if fname == "2x10M":
            keys += ("lrot",)
        out[fname] = sum(c.call("MEMORY", "USAGE", k) for k in keys) / 10_000_000
    return out


def server_cpu(client):
    """The server process's CPU seconds so far (user + system, INFO cpu)."""
    info = client.call("INFO", "cpu").decode()
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return float(fields["used_cpu_user"]) + float(fields["used_cpu_sys"])


def benchmark(server, cmd, argv, pipe, requests, clients=50, keyspace=100_000_000, cpu=False):
    """redis-benchmark of one command on `server`: (calls/s, the server's usec_per_call), and
    with cpu=True also the server's CPU time per call in µs (all its work: reading, parsing,
    the command, replies; unlike the other two, little changed by other processes on a
    shared machine). Each __rand_int__ in argv becomes a random number below `keyspace`, as
    12 digits."""
    server.client.call("CONFIG", "RESETSTAT")
    cpu_before = server_cpu(server.client) if cpu else 0.0
    res = subprocess.run(
        pin(1) + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(server.port), "-n", str(requests),
                  "-P", str(pipe), "-r", str(keyspace), "-c", str(clients), "--csv"] + argv,
        capture_output=True, text=True, check=True)
    rows = [r for r in csv.reader(res.stdout.splitlines()) if r and r[0] != "test"]
    rps = float(rows[-1][1])
    stats = server.client.call("INFO", "commandstats").decode()
    usec = ""
    for line in stats.splitlines():
        if line.startswith(f"cmdstat_{cmd.lower()}:"):
            fields = dict(f.split("=") for f in line.split(":", 1)[1].split(","))
            usec = float(fields["usec_per_call"])
            # redis-benchmark does not read its replies: an error reply would count as a call.
            failed = int(fields.get("failed_calls", 0)) + int(fields.get("rejected_calls", 0))
            if failed:
                print(f"NOTE: {failed} of {fields['calls']} {cmd} calls answered an error", flush=True)
    if cpu:
        return rps, usec, (server_cpu(server.client) - cpu_before) * 1e6 / requests
    return rps, usec


def run_one(server, cfg):
    fname, cmd, pipe, prefetch, argv, items, requests = cfg
    client = server.client
    if fname == "10M":
        make_10m(client)
    elif fname not in ("1GiB", "-"):
        make_filter(server, fname)
    client.call("CONFIG", "SET", "bf.batch-prefetch", "yes" if prefetch else "no")
    rps, usec, cpu = benchmark(server, argv[0], argv, pipe, requests, cpu=True)
    return rps, rps * items, usec, cpu


def selected(only, text):
    """Whether --only's text, or one of its comma-separated parts, is in `text`."""
    return any(part in text for part in only.split(","))


def label(cfg):
    fname, cmd, pipe, prefetch, _, items, _ = cfg
    text = f"{cmd} {fname}" if fname != "-" else cmd
    if items > 1:
        text += f" x{items}" + ("" if prefetch else " no-prefetch")
    return text + f" P{pipe}"


def svg_chart(rows, path, subtitle):
    """Horizontal bars of median items/s with min-max whiskers."""
    width, bar_h, left, top = 900, 22, 290, 60
    height = top + bar_h * len(rows) + 40
    peak = max(r["max"] for r in rows) or 1
    scale = (width - left - 40) / peak
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="10" y="22" font-size="16">rsbloom end to end: items per second (median, min-max)</text>',
           f'<text x="10" y="42" fill="#555">{subtitle}</text>']
    for i, r in enumerate(rows):
        y = top + i * bar_h
        w = r["median"] * scale
        color = "#888" if r["command"] in ("GETBIT", "SETBIT") else "#2b6cb0"
        out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{r["label"]}</text>')
        out.append(f'<rect x="{left}" y="{y + 3}" width="{w:.1f}" height="{bar_h - 6}" fill="{color}"/>')
        x1, x2 = left + r["min"] * scale, left + r["max"] * scale
        out.append(f'<line x1="{x1:.1f}" y1="{y + 11}" x2="{x2:.1f}" y2="{y + 11}" stroke="black"/>')
        out.append(f'<text x="{left + w + 6:.1f}" y="{y + 15}" fill="#333">{r["median"] / 1e6:.2f}M</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def machine_info(version):
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Redis {version}, commit {commit}"


# The aims: (numerator row, denominator row, aim).
RATIOS = (
    ("APBF.ADD APBF10M P32", "BF.ADD 10M P32", 1.0),
    ("APBF.ADD APBF10M P32", "LUA2BF.ADD 2x10M P32", 2.0),
    ("APBF.ADD APBF10M-TIME P32", "BF.ADD 10M P32", 1.0),
    ("APBF.ADD APBF10M-TIME P32", "LUA2BF.ADD 2x10M P32", 2.0),
    ("APBF.EXISTS APBF10M P32", "BF.EXISTS 10M P32", None),
    ("APBF.EXISTS APBF10M P32", "LUA2BF.EXISTS 2x10M P32", None),
    ("APBF.MADD APBF10M x100 P1", "LUA2BF.MADD 2x10M x100 P1", None),
    ("APBF.MEXISTS APBF10M x100 P1", "LUA2BF.MEXISTS 2x10M x100 P1", None),
    ("CBF.ADD CBF10M P32", "BF.ADD 10M P32", 0.8),
    ("CBF.ADD CBF10M-CF P32", "CF.ADD CF10M P32", None),
    ("CBF.EXISTS CBF10M-CF P32", "CF.EXISTS CF10M P32", None),
    ("CBF.DEL CBF10M-CF P32", "CF.DEL CF10M P32", None),
)


def print_ratios(cfgs, samples):
    """Each ratio of RATIOS whose rows ran: of the medians, the median of the per-round ratios
    (rows of one round ran close together, so that one cancels some shared noise), and of
    items per second of server CPU (CPU time per call over items per call: what the server
    would sustain alone on its core, the least disturbed by other work on the machine)."""
    index = {label(cfg): i for i, cfg in enumerate(cfgs)}
    lines = []
    for num, den, aim in RATIOS:
        if num not in index or den not in index:
            continue
        a, b = samples[index[num]], samples[index[den]]
        medians = statistics.median(s[1] for s in a) / statistics.median(s[1] for s in b)
        paired = statistics.median(x[1] / y[1] for x, y in zip(a, b))
        # items per CPU second: items/call over CPU s/call; items/call = items/s over calls/s
        per_cpu = [(x[1] / x[0]) / x[3] for x in a], [(y[1] / y[0]) / y[3] for y in b]
        by_cpu = statistics.median(per_cpu[0]) / statistics.median(per_cpu[1])
        verdict = "" if aim is None else f"  (aim >= {aim:g}x: {'met' if medians >= aim else 'NOT met'})"
        lines.append(f"  {num} / {den}: {medians:.2f}x (per-round median {paired:.2f}x, "
                     f"per server CPU {by_cpu:.2f}x){verdict}")
    if lines:
        print("ratios of items/s:")
        print("\n".join(lines))


def rsbloom_part(args):
    workdir = tempfile.mkdtemp(prefix="rsbloom-bench-")
    server = Server(workdir)
    try:
        c = server.client
        version = c.call("INFO", "server").decode().split("redis_version:")[1].split()[0]
        # 2^33 bits at 0.01 (about 9.585 bits per item): a 1 GiB non-scaling filter. All the
        # runs together add about 2 % of its capacity (density 50 % -> under 51 %).
        c.call("BF.RESERVE", "fbig", "0.01", str(int(2 ** 33 / 9.585)), "NONSCALING")
        fill_random(c, "fbig")
        c.call("SETBIT", "bits", "12345", "1")
        cfgs = [c for c in configs(args.quick)
                if selected(args.only, label(c)) or c[1] == "GETBIT"]
        if not apbf_available(c):
            if any(cfg[1].startswith("APBF.") for cfg in cfgs):
                print("NOTE: this module has no APBF.* commands: the sliding-window rows are left out")
            cfgs = [cfg for cfg in cfgs if not cfg[1].startswith("APBF.")]
        for script in (LUA_ADD, LUA_EXISTS):
            if c.call("SCRIPT", "LOAD", script).decode() != script_sha(script):
                sys.exit("SCRIPT LOAD answered another SHA1 than the script's")
        check_lua_scheme(c)
        samples = {i: [] for i in range(len(cfgs))}
        for rnd in range(args.rounds):
            for i, cfg in enumerate(cfgs):
                samples[i].append(run_one(server, cfg))
                print(f"round {rnd + 1}/{args.rounds}: {label(cfg):40s} "
                      f"{samples[i][-1][1]:>14,.0f} items/s", flush=True)
        fnames = list(dict.fromkeys(cfg[0] for cfg in cfgs if cfg[0] != "-"))
        for fname in ("APBF10M", "APBF10M-TIME"):
            if fname in fnames:
                info = c.call("APBF.INFO", FILTERS[fname])
                info = dict(zip((n.decode() if isinstance(n, bytes) else n for n in info[0::2]), info[1::2]))
                if info.get("Overflows"):
                    print(f"NOTE: {fname} counted {info['Overflows']} overflows (generations that could "
                          f"not close): its rows measured an overfull window")
        per_item = bytes_per_item(server, fnames)
        cf_filters = sub_filters(c, "CF.INFO", "cf10m") if "CF10M" in per_item else None
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    machine = machine_info(version)
    getbit = statistics.median(s[1] for s in samples[[i for i, c in enumerate(cfgs) if c[1] == "GETBIT"][0]])

    os.makedirs(RESULTS, exist_ok=True)
    rows = []
    csv_name = "e2e-partial.csv" if args.only else "e2e.csv"
    with open(os.path.join(RESULTS, csv_name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "machine", "filter", "command", "pipeline", "items_per_call", "prefetch",
                    "run", "calls_per_s", "items_per_s", "usec_per_call", "cpu_usec_per_call"])
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        for i, cfg in enumerate(cfgs):
            for run, (rps, ips, usec, cpu) in enumerate(samples[i]):
                w.writerow([date, machine, cfg[0], cfg[1], cfg[2], cfg[5], cfg[3], run + 1,
                            f"{rps:.0f}", f"{ips:.0f}", usec, f"{cpu:.3f}"])
            ips = [s[1] for s in samples[i]]
            usecs = [s[2] for s in samples[i] if s[2] != ""]
            rows.append({"label": label(cfg), "command": cfg[1], "median": statistics.median(ips),
                         "min": min(ips), "max": max(ips),
                         "usec": statistics.median(usecs) if usecs else float("nan"),
                         "cpu": statistics.median(s[3] for s in samples[i])})

    print(f"\n{machine}\n")
    print(f"{'configuration':42s} {'median items/s':>15s} {'min':>13s} {'max':>13s} {'x GETBIT':>9s} "
          f"{'usec/call':>10s} {'cpu us/call':>12s}")
    for r in rows:
        print(f"{r['label']:42s} {r['median']:>15,.0f} {r['min']:>13,.0f} {r['max']:>13,.0f} "
              f"{r['median'] / getbit:>9.2f} {r['usec']:>10.2f} {r['cpu']:>12.2f}")
    notes = {"10M": "BF at 0.01", "CBF10M": "CBF at 0.01", "CBF10M-CF": f"CBF at {CF_RATE}",
             "CF10M": f"CF, bucket size 2, {CF_RATE * 100:.2f} % at most"
                      + (f", {cf_filters} sub-filters after 5M adds" if cf_filters != 1 else ""),
             "2x10M": "Lua scheme: two BF at 0.01 + marker",
             "APBF10M": "APBF COUNT at 0.01", "APBF10M-TIME": f"APBF TIME {APBF_SPAN} s at 0.01"}
    if per_item:
        print("bytes per item (MEMORY USAGE / 10,000,000):")
        for f, b in per_item.items():
            print(f"  {f:14s} {b:6.2f}  ({notes.get(f, f)})")
    print_ratios(cfgs, samples)
    for fname in ("10M", "1GiB"):
        for cmd in ("BF.MADD", "BF.MEXISTS"):
            on = next((r for r in rows if r["label"] == f"{cmd} {fname} x{BATCH} P1"), None)
            off = next((r for r in rows if r["label"] == f"{cmd} {fname} x{BATCH} no-prefetch P1"), None)
            if not on or not off:
                continue
            print(f"prefetch gain {cmd} {fname}: {on['median'] / off['median']:.2f}x items/s end to end, "
                  f"{off['usec'] / on['usec']:.2f}x server time per call")
    if args.only:
        return  # a partial run does not replace the published results
    svg_chart(rows, os.path.join(RESULTS, "e2e.svg"), machine)
    print(f"\nwrote {os.path.join(RESULTS, 'e2e.csv')} and e2e.svg")


# --- rsbloom beside RedisBloom 2.8.2 -----------------------------------------------------

CAPACITY = 10_000_000
# Random items in the Bloom filter before a round's rows: 3,000,000 of its 10,000,000, so the
# round's adds (about 2.1M) stay within its first layer on both modules.
BF_PREFILL_CALLS = 3_000
# The cuckoo filter (16.7M slots in 2-slot buckets) before a round's rows: 1,000,000 random
# items plus the KNOWN ones, the same filter on both modules (one SCANDUMP, replayed by
# CF.LOADCHUNK into each every round). Its adds fail, and the filter grows a sub-filter, at
# a few million items already (RedisBloom's walk of at most 20 kicks, which rsbloom repeats
# bit for bit; 2.5M to 4.5M in three fills here), and which items a round adds is random:
# the round's adds (about 0.7M) keep it near 10 % full, where that stays rare.
CF_PREFILL_CALLS = 1_000
PREFILL_ITEMS = 1_000
# The range random items are drawn from (redis-benchmark draws with random(), below 2^31). Wide,
# so an item rarely comes twice: a cuckoo filter with 2-slot buckets holds at most 4 copies of
# an item, and a few items drawn 3 or 4 times from a narrow range fail an add and grow it.
WIDE = 2_000_000_000
# Items 0..KNOWN (as redis-benchmark writes them, 12 digits) are added to the cuckoo filter
# once, so CF.COUNT and CF.DEL, drawing from that range, find items that are there.
KNOWN = 200_000
MODULES = ("rsbloom", "RedisBloom")


def stack_server():
    """Redis 7.4.1 of redis-stack as tools/servers.sh installed it: the server program, its
    environment (a private OpenSSL 1.1) and RedisBloom 2.8.2's module file beside it."""
    env_file = os.path.join(ROOT, "target", "servers", "redis-7.4.env")
    if not os.path.exists(env_file):
        sys.exit(f"{env_file} is missing: run make deps-servers (tools/servers.sh redis-7.4)")
    with open(env_file) as f:
        fields = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    program = fields["REDIS_SERVER"]
    env = dict(os.environ)
    if fields.get("LD_LIBRARY_PATH"):
        inherited = env.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = fields["LD_LIBRARY_PATH"] + (f":{inherited}" if inherited else "")
    redisbloom = os.path.join(os.path.dirname(os.path.dirname(program)), "lib", "redisbloom.so")
    for path in (program, redisbloom):
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run tools/servers.sh redis-7.4")
    return program, env, redisbloom


def compare_configs(quick):
    """(command, pipeline, argv, items per call, requests, keyspace): the same on both
    modules. Lookups and adds draw from WIDE (lookups mostly miss); CF.COUNT and CF.DEL draw
    from the KNOWN items (CF.DEL removes each on its first draw, about 63 % of its calls)."""
    scale = 0.2 if quick else 1.0
    rand = "__rand_int__"
    many = [rand] * BATCH
    out = [
        ("BF.ADD", 32, ["BF.ADD", "bf", rand], 1, 100_000, WIDE),
        ("BF.EXISTS", 32, ["BF.EXISTS", "bf", rand], 1, 200_000, WIDE),
        ("BF.MADD", 1, ["BF.MADD", "bf"] + many, BATCH, 10_000, WIDE),
        ("BF.MEXISTS", 1, ["BF.MEXISTS", "bf"] + many, BATCH, 10_000, WIDE),
        ("BF.INSERT", 1, ["BF.INSERT", "bf", "ITEMS"] + many, BATCH, 10_000, WIDE),
        ("CF.ADD", 32, ["CF.ADD", "cf", rand], 1, 100_000, WIDE),
        ("CF.ADDNX", 32, ["CF.ADDNX", "cf", rand], 1, 100_000, WIDE),
        ("CF.EXISTS", 32, ["CF.EXISTS", "cf", rand], 1, 200_000, WIDE),
        ("CF.MEXISTS", 1, ["CF.MEXISTS", "cf"] + many, BATCH, 10_000, WIDE),
        ("CF.INSERT", 1, ["CF.INSERT", "cf", "ITEMS"] + many, BATCH, 5_000, WIDE),
        ("CF.COUNT", 32, ["CF.COUNT", "cf", rand], 1, 200_000, KNOWN),
        ("CF.DEL", 32, ["CF.DEL", "cf", rand], 1, 200_000, KNOWN),
        ("CMS.INCRBY", 32, ["CMS.INCRBY", "cms", rand, "1"], 1, 200_000, WIDE),
        ("CMS.INCRBY", 1, ["CMS.INCRBY", "cms"] + [rand, "1"] * BATCH, BATCH, 10_000, WIDE),
        ("CMS.QUERY", 32, ["CMS.QUERY", "cms", rand], 1, 200_000, WIDE),
        ("CMS.QUERY", 1, ["CMS.QUERY", "cms"] + many, BATCH, 10_000, WIDE),
        ("TOPK.ADD", 32, ["TOPK.ADD", "topk", rand], 1, 200_000, KNOWN),
        ("TOPK.ADD", 1, ["TOPK.ADD", "topk"] + many, BATCH, 10_000, KNOWN),
        ("TDIGEST.ADD", 1, ["TDIGEST.ADD", "td"] + many, BATCH, 10_000, WIDE),
        ("TDIGEST.QUANTILE", 32, ["TDIGEST.QUANTILE", "td", "0.5", "0.99"], 1, 200_000, WIDE),
        ("TDIGEST.CDF", 32, ["TDIGEST.CDF", "td", "1000000000", "1800000000"], 1, 200_000, WIDE),
        ("TDIGEST.RANK", 32, ["TDIGEST.RANK", "td", "1000000000", "1800000000"], 1, 200_000, WIDE),
        ("TDIGEST.BYRANK", 32, ["TDIGEST.BYRANK", "td", "50000", "99000"], 1, 200_000, WIDE),
        ("TDIGEST.TRIMMED_MEAN", 32, ["TDIGEST.TRIMMED_MEAN", "td", "0.1", "0.9"], 1, 200_000, WIDE),
        ("GETBIT", 32, ["GETBIT", "bits", "12345"], 1, 400_000, WIDE),
    ]
    return [(c, p, argv, n, max(1000, int(r * scale)), k) for c, p, argv, n, r, k in out]


def compare_label(cfg):
    cmd, pipe, _, items, _, _ = cfg
    return f"{cmd}" + (f" x{items}" if items > 1 else "") + f" P{pipe}"


def sub_filters(client, cmd, key):
    info = client.call(cmd, key)
    return dict(zip(info[::2], info[1::2]))["Number of filters"]


def cuckoo_chunks(server):
    """The CF.SCANDUMP of a 10M cuckoo filter holding the KNOWN items and random ones, in one
    sub-filter (a fill that grew one is drawn again)."""
    c = server.client
    for _ in range(5):
        c.call("DEL", "cf")
        c.call("CF.RESERVE", "cf", str(CAPACITY))
        for start in range(0, KNOWN, 1000):
            c.call("CF.INSERT", "cf", "ITEMS", *(b"%012d" % i for i in range(start, start + 1000)))
        benchmark(server, "CF.INSERT", ["CF.INSERT", "cf", "ITEMS"] + ["__rand_int__"] * PREFILL_ITEMS,
                  4, CF_PREFILL_CALLS, clients=4, keyspace=WIDE)
        if sub_filters(c, "CF.INFO", "cf") == 1:
            break
    else:
        sys.exit("the cuckoo prefill grew a sub-filter five times")
    chunks, it = [], 0
    while True:
        it, data = c.call("CF.SCANDUMP", "cf", it)
        if it == 0:
            break
        chunks.append((it, data))
    c.call("DEL", "cf")
    return chunks


def fresh_filters(server, cf_chunks):
    """New 10M filters of both kinds on `server`: a Bloom filter with random items, and the
    cuckoo filter of `cf_chunks`; and the sketches: a Count-Min Sketch of 0.1 % error at 99 %
    (2000 x 7 counters), a Top-50 of 2000 x 7 buckets, a t-digest of compression 100 holding
    100,000 random values. Made again every round, so every round starts from the same states
    on both modules."""
    c = server.client
    c.call("DEL", "bf", "cf", "cms", "topk", "td")
    c.call("CMS.INITBYPROB", "cms", "0.001", "0.01")
    c.call("TOPK.RESERVE", "topk", "50", "2000", "7", "0.925")
    c.call("TDIGEST.CREATE", "td", "COMPRESSION", "100")
    benchmark(server, "TDIGEST.ADD", ["TDIGEST.ADD", "td"] + ["__rand_int__"] * PREFILL_ITEMS, 4,
              100, clients=4, keyspace=WIDE)
    c.call("BF.RESERVE", "bf", "0.01", str(CAPACITY))
    benchmark(server, "BF.MADD", ["BF.MADD", "bf"] + ["__rand_int__"] * PREFILL_ITEMS, 4,
              BF_PREFILL_CALLS, clients=4, keyspace=WIDE)
    for it, data in cf_chunks:
        c.call("CF.LOADCHUNK", "cf", it, data)


def filters_grew(server):
    """Whether a round's adds grew a filter past its first layer / sub-filter (then the
    figures would measure another filter than the one described)."""
    return any(sub_filters(server.client, cmd, key) != 1
               for cmd, key in (("BF.INFO", "bf"), ("CF.INFO", "cf")))


def redisbloom_part(args):
    program, env, redisbloom = stack_server()
    cfgs = [c for c in compare_configs(args.quick)
            if selected(args.only, compare_label(c)) or c[0] == "GETBIT"]
    workdirs = [tempfile.mkdtemp(prefix="rsbloom-bench-") for _ in MODULES]
    servers = []
    grew = set()
    # samples[module][i]: (calls/s, items/s, usec_per_call) per round
    samples = {m: {i: [] for i in range(len(cfgs))} for m in MODULES}
    try:
        servers.append(Server(workdirs[0], program, MODULE, (), env))
        servers.append(Server(workdirs[1], program, redisbloom, (), env))
        version = servers[0].client.call("INFO", "server").decode().split("redis_version:")[1].split()[0]
        for server in servers:
            server.client.call("SETBIT", "bits", "12345", "1")
        cf_chunks = cuckoo_chunks(servers[0])
        for rnd in range(args.rounds):
            # A B, then B A: neither module always runs first (warm caches, a busy neighbour).
            order = list(zip(MODULES, servers))
            if rnd % 2:
                order.reverse()
            for _, server in order:
                fresh_filters(server, cf_chunks)
            for i, cfg in enumerate(cfgs):
                cmd, pipe, argv, items, requests, keyspace = cfg
                for module, server in order:
                    rps, usec = benchmark(server, cmd, argv, pipe, requests, keyspace=keyspace)
                    samples[module][i].append((rps, rps * items, usec))
                    print(f"round {rnd + 1}/{args.rounds}: {module:10s} {compare_label(cfg):22s} "
                          f"{rps * items:>14,.0f} items/s", flush=True)
            grew.update((m, rnd + 1) for m, server in order if filters_grew(server))
    finally:
        for server in servers:
            server.stop()
        for d in workdirs:
            shutil.rmtree(d, ignore_errors=True)

    machine = machine_info(version)
    getbit_i = [i for i, c in enumerate(cfgs) if c[0] == "GETBIT"][0]
    getbit = {m: statistics.median(s[1] for s in samples[m][getbit_i]) for m in MODULES}
    os.makedirs(RESULTS, exist_ok=True)
    csv_name = "e2e-redisbloom-partial.csv" if args.only else "e2e-redisbloom.csv"
    with open(os.path.join(RESULTS, csv_name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "machine", "module", "command", "pipeline", "items_per_call", "run",
                    "calls_per_s", "items_per_s", "usec_per_call"])
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        for m in MODULES:
            for i, cfg in enumerate(cfgs):
                for run, (rps, ips, usec) in enumerate(samples[m][i]):
                    w.writerow([date, machine, m, cfg[0], cfg[1], cfg[3], run + 1,
                                f"{rps:.0f}", f"{ips:.0f}", usec])

    print(f"\nrsbloom beside RedisBloom 2.8.2, {args.rounds} interleaved rounds; {machine}\n")
    head = (f"{'configuration':22s} {'rsbloom items/s':>16s} {'x GETBIT':>9s} {'usec':>7s} "
            f"{'RedisBloom items/s':>19s} {'x GETBIT':>9s} {'usec':>7s} {'rsbloom/RB':>11s}")
    print(head)
    for i, cfg in enumerate(cfgs):
        med = {m: statistics.median(s[1] for s in samples[m][i]) for m in MODULES}
        usec = {}
        for m in MODULES:
            us = [s[2] for s in samples[m][i] if s[2] != ""]
            usec[m] = statistics.median(us) if us else float("nan")
        # The same round on both modules: its ratio cancels what the round shared (noise).
        paired = statistics.median(a[1] / b[1] for a, b in
                                   zip(samples["rsbloom"][i], samples["RedisBloom"][i]))
        print(f"{compare_label(cfg):22s} {med['rsbloom']:>16,.0f} "
              f"{med['rsbloom'] / getbit['rsbloom']:>9.2f} {usec['rsbloom']:>7.2f} "
              f"{med['RedisBloom']:>19,.0f} {med['RedisBloom'] / getbit['RedisBloom']:>9.2f} "
              f"{usec['RedisBloom']:>7.2f} {paired:>10.2f}x")
    for m, rnd in sorted(grew):
        print(f"NOTE: a filter on {m} grew past its first layer / sub-filter in round {rnd}: "
              f"the rows after that in the round measured a larger filter there")
    print(f"\nwrote {os.path.join(RESULTS, csv_name)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer requests per run")
    ap.add_argument("--only", default="", help="run only configurations whose label contains this"
                    " or one of its comma-separated parts (GETBIT always runs, as the baseline)")
    ap.add_argument("--part", choices=("all", "rsbloom", "redisbloom"), default="all",
                    help="rsbloom alone on the system redis-server, rsbloom beside RedisBloom on "
                    "Redis 7.4.1, or both")
    args = ap.parse_args()
    for tool in ("redis-server", "redis-benchmark"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing (make bench installs it)")
    if not os.path.exists(MODULE):
        sys.exit(f"{MODULE} is missing: run make build")
    if args.part in ("all", "rsbloom"):
        rsbloom_part(args)
    if args.part in ("all", "redisbloom"):
        redisbloom_part(args)


if __name__ == "__main__":
    main()
