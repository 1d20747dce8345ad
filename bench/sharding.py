#!/usr/bin/env python3
"""What one logical filter over a cluster buys, measured (docs/sharding.md, "Measured").

On a loopback cluster of 3 masters and 3 replicas per server (Redis 7.4 and Valkey 9.1 by
default, from target/servers/, see tools/servers.sh), with the freshly built module and the
Python client of clients/python (redis-py from target/redis-py/site):

  fp          a sharded Bloom filter (error rate 1 %, capacity = --items, default shard count)
              filled with --items items: every one found, and the false-positive rate of
              --probes items never added, against the rate asked for
  memory      MEMORY USAGE of the shards summed per master, against a third of the same
              capacity's one-key filter on one node
  throughput  madd / mexists in batches of 1,000 through the Python client: a plain key on one
              node (BF.MADD / BF.MEXISTS), the sharded filter on one node, the sharded filter
              on the cluster; items/s and server CPU per item summed over the masters; the
              Rust client's rows come from `examples/sharded_filter.rs --bench` when built
  reshard     a writer adds batches while `redis-cli --cluster reshard` moves 2,000 slots
              (with their shards) from one master to another, and on Valkey 9 while
              CLUSTER MIGRATESLOTS moves another range: errors the caller saw, and every
              acknowledged item found afterwards
  bigshard    one shard of the 12 GB / 10^10-URL plan (capacity 78,160,356 at 1 %, its bits
              random as a filled filter's), moved with MIGRATE between two servers: its DUMP
              size and how long the move takes
  (a master killed with SIGKILL under a writer whose batches are acknowledged with WAIT 1 is
  the Python client's test clients/python/tests/test_zzz_master_killed.py, run by the suite)

    python3 bench/sharding.py [--servers redis-7.4,valkey-9.1] [--items N] [--probes N]
                              [--parts fp,memory,throughput,reshard,bigshard] [--quick]

Results: printed, and bench/results/sharding.csv (one row per server and measurement).
Every server started here is stopped on exit, also on failure; only loopback ports are used.
"""

import argparse
import csv
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "target", "redis-py", "site"))
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "src"))
# The nemesis (and the fault proxy it puts in front of every node) is the suite's own.
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "tests"))

import redis  # noqa: E402
from redis.cluster import ClusterNode, RedisCluster  # noqa: E402

import rsbloom  # noqa: E402

MODULE = os.path.join(ROOT, "target", "release", "librsbloom.so")
BATCH = 1000


def server_env(name):
    env = dict(os.environ)
    path = os.path.join(ROOT, "target", "servers", name + ".env")
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().partition("=")
            if key:
                env[key] = value
    return env


def free_port():
    # Two ports per node (the cluster bus on the second); both must be free.
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


class Node:
    def __init__(self, env, cluster, workdir):
        self.port = free_port()
        self.dir = os.path.join(workdir, str(self.port))
        os.makedirs(self.dir)
        args = [env["REDIS_SERVER"], "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", self.dir, "--save", "", "--appendonly", "no",
                "--loadmodule", MODULE, "--logfile", "server.log"]
        if cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                     "--cluster-node-timeout", "3000", "--cluster-port", str(self.port + 10000)]
        self.proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while True:
            try:
                redis.Redis(port=self.port).ping()
                break
            except redis.ConnectionError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("node on port %d did not start" % self.port)
                time.sleep(0.05)

    def client(self):
        return redis.Redis(host="127.0.0.1", port=self.port)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class Cluster:
    """3 masters and 3 replicas (or one node with cluster=False) in a temporary folder."""

    def __init__(self, env, cluster=True):
        self.env = env
        self.workdir = tempfile.mkdtemp(prefix="rsbloom-sharding-")
        self.nodes = []
        try:
            for _ in range(6 if cluster else 1):
                self.nodes.append(Node(env, cluster, self.workdir))
            if cluster:
                addrs = ["127.0.0.1:%d" % n.port for n in self.nodes]
                subprocess.run([env["REDIS_CLI"], "--cluster", "create", *addrs,
                                "--cluster-replicas", "1", "--cluster-yes"], env=env,
                               check=True, stdout=subprocess.DEVNULL)
                self.wait_ok()
                self.wait_replicas()
        except BaseException:
            self.stop()
            raise

    def wait_ok(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            states = []
            for n in self.nodes:
                if n.proc.poll() is not None:
                    continue
                try:
                    states.append(n.client().execute_command("CLUSTER", "INFO"))
                except redis.ConnectionError:
                    states.append(b"")
            if all(b"cluster_state:ok" in s for s in states):
                return
            time.sleep(0.2)
        raise RuntimeError("cluster not ok after %ds" % timeout)

    def wait_replicas(self, timeout=60):
        """Until every master streams to its replica and every node knows the three."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            views = [n.client().execute_command("CLUSTER", "NODES") for n in self.nodes]
            views = [v.decode() if isinstance(v, bytes) else v for v in views]
            linked = all(n.client().info("replication").get("connected_slaves", 0) == 1
                         for n, _, _ in self.masters())
            replicas = [sum("slave" in line.split()[2] for line in v.splitlines()) for v in views]
            if linked and replicas == [3] * len(views):
                return
            time.sleep(0.2)
        raise RuntimeError("replicas not attached after %ds" % timeout)

    def client(self):
        return RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in self.nodes
                                           if n.proc.poll() is None])

    def masters(self):
        """(node, id, [(first, last)]) of each master, by CLUSTER NODES of a live node."""
        live = next(n for n in self.nodes if n.proc.poll() is None)
        text = live.client().execute_command("CLUSTER", "NODES")
        if isinstance(text, bytes):
            text = text.decode()
        out = []
        for line in text.splitlines():
            f = line.split()
            if "master" not in f[2] or "fail" in f[2]:
                continue
            port = int(f[1].split("@")[0].rsplit(":", 1)[1])
            ranges = []
            for r in f[8:]:
                if r.startswith("["):
                    continue
                a, _, b = r.partition("-")
                ranges.append((int(a), int(b or a)))
            if not ranges:
                continue  # a replica-to-be, before `--cluster create` has attached it
            node = next(n for n in self.nodes if n.port == port)
            out.append((node, f[0], ranges))
        return out

    def stop(self):
        for n in self.nodes:
            n.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def items(prefix, n, start=0):
    return [b"%s:%d" % (prefix, i) for i in range(start, start + n)]


def batches(seq, size=BATCH):
    for i in range(0, len(seq), size):
        yield seq[i:i + size]


def cpu_seconds(nodes):
    total = 0.0
    for n in nodes:
        info = n.client().info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


# --- fp and memory ---------------------------------------------------------------------

def measure_fp_memory(env, args, out):
    cl = Cluster(env)
    one = Cluster(env, cluster=False)
    try:
        rc = cl.client()
        bloom = rsbloom.ShardedBloom(rc, "fp")
        bloom.reserve(0.01, args.items)
        t = time.time()
        for b in batches(items(b"item", args.items)):
            bloom.madd(b)
        fill = time.time() - t
        missing = sum(1 for b in batches(items(b"item", args.items))
                      for found in bloom.mexists(b) if not found)
        positives = sum(1 for b in batches(items(b"probe", args.probes))
                        for found in bloom.mexists(b) if found)
        rate = positives / args.probes
        info = bloom.info()
        row(out, env, "fp", shards=len(info["shards"]), items=args.items, probes=args.probes,
            missing=missing, false_positives=positives, rate=rate, ratio=rate / 0.01,
            fill_seconds=round(fill, 2))
        # Memory: each shard's MEMORY USAGE, summed per master, against one node's one key.
        per_master = {}
        for shard in info["shards"]:
            node = shard["node"]
            host, port = node.rsplit(":", 1)
            used = redis.Redis(host=host, port=int(port)).memory_usage(shard["key"], samples=0)
            per_master[node] = per_master.get(node, 0) + used
        single = one.nodes[0].client()
        single.execute_command("BF.RESERVE", "one", 0.01, args.items)
        for b in batches(items(b"item", args.items)):
            single.execute_command("BF.MADD", "one", *b)
        one_bytes = single.memory_usage("one", samples=0)
        third = one_bytes / 3
        for node, used in sorted(per_master.items()):
            shards = sum(1 for s in info["shards"] if s["node"] == node)
            row(out, env, "memory", node=node, shards=shards, bytes=used,
                one_node_bytes=one_bytes, share_of_third=round(used / third, 3))
    finally:
        cl.stop()
        one.stop()


# --- throughput ------------------------------------------------------------------------

def throughput(env, args, out):
    cl = Cluster(env)
    one = Cluster(env, cluster=False)
    try:
        n = args.items
        plain = one.nodes[0].client()
        plain.execute_command("BF.RESERVE", "plain", 0.01, n)
        one_sharded = rsbloom.ShardedBloom(one.nodes[0].client(), "t")
        one_sharded.reserve(0.01, n)
        rc = cl.client()
        cl_sharded = rsbloom.ShardedBloom(rc, "t")
        cl_sharded.reserve(0.01, n)
        masters = [m[0] for m in cl.masters()]
        setups = [
            ("plain key, one node", [one.nodes[0]],
             lambda b: plain.execute_command("BF.MADD", "plain", *b),
             lambda b: plain.execute_command("BF.MEXISTS", "plain", *b)),
            ("sharded, one node", [one.nodes[0]], one_sharded.madd, one_sharded.mexists),
            ("sharded, cluster", masters, cl_sharded.madd, cl_sharded.mexists),
        ]
        data = items(b"t", n)
        probes = items(b"p", n)
        for label, nodes, madd, mexists in setups:
            for op, fn, seq in (("madd", madd, data), ("mexists", mexists, probes)):
                cpu0, t0 = cpu_seconds(nodes), time.time()
                for b in batches(seq):
                    fn(b)
                wall, cpu = time.time() - t0, cpu_seconds(nodes) - cpu0
                row(out, env, "throughput", client="python", setup=label, op=op, items=len(seq),
                    items_per_s=round(len(seq) / wall), server_cpu_us_per_item=round(
                        cpu * 1e6 / len(seq), 3))
        rust = os.path.join(ROOT, "target", "release", "examples", "sharded_filter")
        if os.path.exists(rust):
            for label, nodes in (("sharded, one node", [one.nodes[0]]),
                                 ("sharded, cluster", masters)):
                cpu0 = cpu_seconds(nodes)
                target = ["127.0.0.1:%d" % nd.port for nd in nodes]
                if label.endswith("one node"):
                    target = ["--single"] + target
                res = subprocess.run([rust, "--bench", str(n)] + target, capture_output=True,
                                     text=True, env=env)
                cpu = cpu_seconds(nodes) - cpu0
                for line in res.stdout.splitlines():
                    if line.startswith("bench "):
                        _, op, count, secs = line.split()
                        row(out, env, "throughput", client="rust", setup=label, op=op,
                            items=int(count), items_per_s=round(int(count) / float(secs)),
                            server_cpu_us_per_item=round(cpu * 1e6 / (2 * int(count)), 3))
                if res.returncode != 0:
                    print(res.stderr, file=sys.stderr)
    finally:
        cl.stop()
        one.stop()


# --- writers under reshard and failover ------------------------------------------------

class Writer(threading.Thread):
    """Adds batches of new items until stopped; a batch counts as acknowledged when madd
    returned. A batch that raised is retried (Bloom adds are idempotent) and counted as an
    error the caller saw."""

    def __init__(self, cl, name, size=200):
        super().__init__(daemon=True)
        self.cl, self.name, self.size = cl, name, size
        self.acked, self.errors, self.error_kinds = [], 0, {}
        self.stopping = threading.Event()

    def run(self):
        bloom = rsbloom.ShardedBloom(self.cl.client(), self.name)
        i = 0
        pending = None
        while not self.stopping.is_set():
            if pending is None:
                pending = items(b"w", self.size, i)
                i += self.size
            try:
                bloom.madd(pending)
                self.acked.extend(pending)
                pending = None
            except Exception as e:  # noqa: BLE001 - every failure is counted and retried
                self.errors += 1
                kind = type(e).__name__
                self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1
                time.sleep(0.1)


def check_acked(cl, name, acked):
    bloom = rsbloom.ShardedBloom(cl.client(), name)
    return sum(1 for b in batches(acked) for f in bloom.mexists(b) if not f)


def reshard(env, args, out):
    cl = Cluster(env)
    try:
        rsbloom.ShardedBloom(cl.client(), "r").reserve(0.01, 1_000_000)
        writer = Writer(cl, "r")
        writer.start()
        time.sleep(1)
        masters = cl.masters()
        src, dst = masters[0], masters[1]
        t = time.time()
        subprocess.run([env["REDIS_CLI"], "--cluster", "reshard", "127.0.0.1:%d" % src[0].port,
                        "--cluster-from", src[1], "--cluster-to", dst[1], "--cluster-slots",
                        "2000", "--cluster-yes"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        moved = time.time() - t
        time.sleep(1)
        writer.stopping.set()
        writer.join()
        missing = check_acked(cl, "r", writer.acked)
        row(out, env, "reshard", how="redis-cli --cluster reshard 2000 slots",
            seconds=round(moved, 1), acked=len(writer.acked), missing=missing,
            caller_errors=writer.errors, kinds=writer.error_kinds)
        if "valkey-9" in env.get("SERVER_NAME", ""):
            masters = cl.masters()
            src, dst = masters[1], masters[2]
            first, last = src[2][0]
            writer = Writer(cl, "r")
            writer.start()
            time.sleep(1)
            t = time.time()
            src[0].client().execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", first,
                                            min(last, first + 1999), "NODE", dst[1])
            deadline = time.time() + 300
            while time.time() < deadline:
                jobs = src[0].client().execute_command("CLUSTER", "GETSLOTMIGRATIONS")
                text = repr(jobs)
                if "success" in text and "running" not in text.lower():
                    break
                time.sleep(0.2)
            moved = time.time() - t
            time.sleep(1)
            writer.stopping.set()
            writer.join()
            missing = check_acked(cl, "r", writer.acked)
            row(out, env, "reshard", how="CLUSTER MIGRATESLOTS 2000 slots",
                seconds=round(moved, 1), acked=len(writer.acked), missing=missing,
                caller_errors=writer.errors, kinds=writer.error_kinds)
    finally:
        cl.stop()


def bigshard(env, args, out):
    """One 10^10-URL shard moved with MIGRATE between two standalone servers."""
    src, dst = Cluster(env, cluster=False), Cluster(env, cluster=False)
    try:
        a = src.nodes[0].client()
        a.config_set("proto-max-bulk-len", str(1 << 30))
        capacity = 78_160_356
        a.execute_command("BF.RESERVE", "plan", 0.01, capacity, "NONSCALING")
        chunks, it = [], 0
        while True:
            it, data = a.execute_command("BF.SCANDUMP", "plan", it)
            if it == 0:
                break
            chunks.append((it, data))
        a.delete("plan")
        rnd = random.Random(1)
        for i, (it, data) in enumerate(chunks):
            body = data if i == 0 else rnd.randbytes(len(data))
            a.execute_command("BF.LOADCHUNK", "plan", it, body)
        payload = len(a.dump("plan"))
        t = time.time()
        a.execute_command("MIGRATE", "127.0.0.1", dst.nodes[0].port, "plan", 0, 60000)
        seconds = time.time() - t
        b = dst.nodes[0].client()
        row(out, env, "bigshard", capacity=capacity, dump_bytes=payload,
            memory_usage=b.memory_usage("plan", samples=0), migrate_seconds=round(seconds, 2),
            moved=b.exists("plan") == 1 and a.exists("plan") == 0)
    finally:
        src.stop()
        dst.stop()


# --- the nemesis: a paused master, lost replies, a killed master ----------------------

def failover(env, args, out):
    """The suite's nemesis on a cluster of its own: writers of both families, the faults one
    at a time; per fault the time to recover (the longest batch overlapping it) and the items
    acknowledged meanwhile, then lost (0 expected), unknown and the exceptions the writers
    saw (0 expected)."""
    from nemesis import Nemesis

    cl = Cluster(env)
    try:
        seed = cl.nodes[0].port

        def make(remap):
            return RedisCluster(host="127.0.0.1", port=seed, socket_timeout=5,
                                address_remap=remap)

        nemesis = Nemesis(make, "nemesis")
        try:
            nemesis.start()
            reports = [nemesis.pause(), nemesis.drop(), nemesis.kill()]
            nemesis.stop()
            totals = nemesis.check()
        finally:
            nemesis.stop()
            nemesis.close()
        for r in reports:
            row(out, env, "failover", fault=r.fault, recover_s=round(r.recover, 1),
                acked_meanwhile=r.acked)
        row(out, env, "failover-totals", **totals)
    finally:
        cl.stop()


# --- output ----------------------------------------------------------------------------

ROWS = []


def row(out, env, what, **fields):
    r = {"server": env.get("SERVER_NAME", "?"), "what": what}
    r.update(fields)
    ROWS.append(r)
    print("  ".join("%s=%s" % kv for kv in r.items()), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--servers", default="redis-7.4,valkey-9.1")
    p.add_argument("--items", type=int, default=1_000_000)
    p.add_argument("--probes", type=int, default=1_000_000)
    p.add_argument("--parts", default="fp,memory,throughput,reshard,failover,bigshard")
    p.add_argument("--quick", action="store_true", help="100,000 items and probes")
    args = p.parse_args()
    if args.quick:
        args.items = args.probes = 100_000
    parts = set(args.parts.split(","))
    for name in args.servers.split(","):
        env = server_env(name)
        env["SERVER_NAME"] = name
        print("== %s" % name, flush=True)
        if parts & {"fp", "memory"}:
            measure_fp_memory(env, args, None)
        if "throughput" in parts:
            throughput(env, args, None)
        if "reshard" in parts:
            reshard(env, args, None)
        if "failover" in parts:
            failover(env, args, None)
        if "bigshard" in parts:
            bigshard(env, args, None)
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", "sharding.csv")
    keys = []
    for r in ROWS:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(ROWS)
    print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
