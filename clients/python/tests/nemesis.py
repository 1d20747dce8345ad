"""A nemesis for the sharded filters: writers of both families run on a cluster while faults
are applied one at a time, then a checker accounts for every item. Used by the suite
(test_zzz_nemesis.py, on the cluster the Rust suite starts) and by bench/sharding.py's
``failover`` part (on clusters of its own, with the figures in docs/sharding.md).

- An item counts as **acknowledged** once ``madd`` answered for it and the master holding
  its shard has it on a replica: on one connection to that master, a write to a key of the
  shard's slot, then ``WAIT 1`` (replication is in order, so the offset covers the batch).
  Bloom items are acknowledged whatever the answer (False is "may have been there"); cuckoo
  items where the answer was True.
- Cuckoo items the client reported **unknown** (``AmbiguousWriteError``) may or may not be
  there; so may items answered on a master without a replica (not acknowledged).
- The checker: every acknowledged Bloom item is found; every acknowledged cuckoo item is
  found, and the cuckoo filter holds at least the acknowledged items and at most those plus
  the unknown and unacknowledged ones (a command run twice would show as more).
- No exception but ``AmbiguousWriteError`` may reach a writer (the library retries the rest).

On a cluster whose nodes run in network namespaces of their own (``Network``, made by the
Rust suite's tests/support ``netns``), ``partition`` cuts a master off with a real partition:
blackhole routes on both sides, so packets vanish and nothing answers or resets.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

import redis

import rsbloom
from rsbloom import protocol as P

from faultproxy import FaultProxy

BATCH = 200
SHARDS = 6


def direct(host: str, port: int, timeout: float = 5.0) -> redis.Redis:
    return redis.Redis(host=host, port=port, socket_timeout=timeout)


Address = Tuple[str, int]


def cluster_nodes(conn) -> List[Tuple[str, Address, str, str]]:
    """CLUSTER NODES as (id, (host, port), flags, master id) per node."""
    out = []
    for line in conn.execute_command("CLUSTER", "NODES").decode().splitlines():
        fields = line.split()
        host, port = fields[1].split("@")[0].rsplit(":", 1)
        out.append((fields[0], (host, int(port)), fields[2], fields[3]))
    return out


class Network:
    """The nodes' network namespaces (``{ip: namespace}``) and the clients' address."""

    def __init__(self, hosts: Dict[str, str], client_ip: str):
        self.hosts = hosts
        self.client_ip = client_ip

    def _route(self, ns: str, verb: str, to: str) -> None:
        subprocess.run(["ip", "-n", ns, "route", verb, "blackhole", f"{to}/32"], check=True,
                       capture_output=True)

    def cut(self, ip: str, peers: List[str]) -> None:
        """Cut ``ip`` off from each of ``peers``, both ways."""
        for peer in peers:
            self._route(self.hosts[ip], "add", peer)
            if peer in self.hosts:
                self._route(self.hosts[peer], "add", ip)

    def heal(self, ip: str, peers: List[str]) -> None:
        for peer in peers:
            self._route(self.hosts[ip], "del", peer)
            if peer in self.hosts:
                self._route(self.hosts[peer], "del", ip)


def settled_replica(host: str, port: int, timeout: float = 20.0) -> Address:
    """The address of the master's replica, once every node's view names it so and flags no
    node failing: a replica the other masters do not know as this master's gets no votes."""
    conn = direct(host, port)
    try:
        me = conn.execute_command("CLUSTER", "MYID").decode()
        deadline = time.monotonic() + timeout
        while True:
            role = conn.execute_command("ROLE")
            ports = [int(r[1]) for r in role[2]] if role[0] == b"master" else []
            if ports:
                views = []
                for _, (h, p), flags, _ in cluster_nodes(conn):
                    if "fail" in flags:
                        continue
                    other = direct(h, p)
                    try:
                        views.append(cluster_nodes(other))
                    except redis.RedisError:
                        pass
                    finally:
                        other.close()
                if all(any(a[1] == ports[0] and "slave" in f and m == me for _, a, f, m in v)
                       for v in views) and not any(
                           "master" in f and "fail" in f for v in views for _, _, f, _ in v):
                    return next(a for _, a, _, _ in views[0] if a[1] == ports[0])
            if time.monotonic() > deadline:
                raise AssertionError(f"no settled replica of {host}:{port} in {timeout} s: "
                                     f"ROLE {role[0]!r} {ports}")
            time.sleep(0.1)
    finally:
        conn.close()


class Writer(threading.Thread):
    """Adds batches of new items to one logical filter until stopped, and sorts them into
    acknowledged, maybe (unknown, or not on a replica) and the exceptions that reached it."""

    def __init__(self, client, admin, family: str, name: str):
        super().__init__(name=f"writer-{family}", daemon=True)
        cls = rsbloom.ShardedBloom if family == "bloom" else rsbloom.ShardedCuckoo
        self.filter = cls(client, name, retry_timeout=45)
        self.admin = admin
        self.family = family
        self.keys = P.shard_keys(name, SHARDS)
        self.tag_of = [k.split(b"}")[0] + b"}" for k in self.keys]
        self.acked: List[str] = []
        self.maybe: List[str] = []
        self.unknown: List[str] = []
        self.raised: List[BaseException] = []
        self.spans: List[Tuple[float, float]] = []
        self.batches = 0
        self.stopping = threading.Event()
        self._conns: Dict[str, redis.Redis] = {}

    def run(self) -> None:
        n = 0
        while not self.stopping.is_set():
            batch = [f"{self.family[0]}{n * BATCH + i}" for i in range(BATCH)]
            n += 1
            began = time.monotonic()
            try:
                answers = self.filter.madd(batch)
                unknown: List[int] = []
            except rsbloom.AmbiguousWriteError as e:
                answers, unknown = e.results, e.unknown
                if e.failed:
                    self.raised.append(e)
            except Exception as e:  # noqa: BLE001 - every other failure is the library's
                self.raised.append(e)
                time.sleep(0.05)
                continue
            self.spans.append((began, time.monotonic()))
            self.batches += 1
            self.unknown += [batch[i] for i in unknown]
            done = [(item, a) for item, a in zip(batch, answers) if a is not None]
            if self.family == "cuckoo":
                done = [(item, a) for item, a in done if a]
            acked = self._acknowledged({P.shard_of(item, SHARDS) for item, _ in done})
            for item, _ in done:
                (self.acked if P.shard_of(item, SHARDS) in acked else self.maybe).append(item)

    def _acknowledged(self, shards) -> set:
        """The shards whose master has the writes so far on a replica."""
        out = set()
        for shard in shards:
            try:
                node = self.admin.get_node_from_key(self.keys[shard])
                conn = self._conns.setdefault(node.name, direct(node.host, node.port, 1.0))
                role = conn.execute_command("ROLE")
                if role[0] != b"master" or not role[2]:
                    continue  # no replica to hold it
                pipe = conn.pipeline(transaction=False)
                pipe.incr(self.tag_of[shard] + b"nemesis:ack")
                pipe.execute_command("WAIT", 1, 500)
                _, replicas = pipe.execute()
            except redis.RedisError:
                continue  # dead, or no longer the slot's master: not acknowledged
            if replicas >= 1:
                out.add(shard)
        return out

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()


class Report:
    """One fault's figures: when it began and ended, the time to recover (the writers'
    longest wait between two answered batches over it) and the items acknowledged
    meanwhile."""

    def __init__(self, fault: str):
        self.fault = fault
        self.began = 0.0
        self.ended = 0.0
        self.recover = 0.0
        self.acked = 0
        self.maybe = 0

    def __repr__(self) -> str:
        return (f"{self.fault}: recovered in {self.recover:.1f} s, {self.acked} item(s) "
                f"acknowledged meanwhile, {self.maybe} answered without a replica")


class Nemesis:
    """Writers of both families through one cluster client (``make_client(remap)``) while
    ``pause``, ``drop`` and ``kill`` are applied; ``check`` accounts for every item."""

    def __init__(self, make_client: Callable[..., redis.cluster.RedisCluster], name: str,
                 network: Optional[Network] = None):
        self.network = network
        self.admin = make_client(None)
        self.proxies: Dict[Address, FaultProxy] = {}
        seed = self.admin.get_default_node()
        conn = direct(seed.host, seed.port)
        try:  # every node, replicas too: a replica promoted later is proxied already
            self.addresses = [a for _, a, _, _ in cluster_nodes(conn)]
        finally:
            conn.close()
        # Lost replies go through a proxy in front of each node; a partition needs none
        # (and would leave a proxy's threads hanging on a cut connection).
        if network is None:
            for a in self.addresses:
                self.proxies[a] = FaultProxy(*a)
        self.client = make_client(self._remap if network is None else None)
        rsbloom.ShardedBloom(self.admin, name).reserve(0.0001, 200_000, shards=SHARDS)
        rsbloom.ShardedCuckoo(self.admin, name + ":cf").reserve(200_000, shards=SHARDS)
        self.writers = [Writer(self.client, self.admin, "bloom", name),
                        Writer(self.client, self.admin, "cuckoo", name + ":cf")]
        self.reports: List[Report] = []
        self.killed: List[int] = []
        self.name = name

    def _remap(self, address):
        proxy = self.proxies.get((address[0], int(address[1])))
        return (proxy.host, proxy.port) if proxy is not None else address

    def start(self, warm_batches: int = 5) -> None:
        for w in self.writers:
            w.start()
        self._wait_batches(warm_batches)

    def _wait_batches(self, n: int, timeout: float = 60.0) -> None:
        goal = [w.batches + n for w in self.writers]
        deadline = time.monotonic() + timeout
        while any(w.batches < g for w, g in zip(self.writers, goal)):
            assert time.monotonic() < deadline, f"the writers stalled: {self.raised()[:3]}"
            assert all(w.is_alive() for w in self.writers)
            time.sleep(0.05)

    def raised(self) -> List[BaseException]:
        return [e for w in self.writers for e in w.raised]

    def _victim(self):
        """The master of the Bloom filter's shard 0, with its settled replica's port."""
        self.admin.nodes_manager.initialize()
        node = self.admin.get_node_from_key(P.shard_key(self.name, 0, SHARDS))
        return node, settled_replica(node.host, node.port)

    def _until_promoted(self, replica: Address, timeout: float = 45.0) -> None:
        conn = direct(*replica)
        try:
            deadline = time.monotonic() + timeout
            while conn.execute_command("ROLE")[0] != b"master":
                assert time.monotonic() < deadline, f"{replica} not promoted"
                time.sleep(0.05)
        finally:
            conn.close()

    def _fault(self, name: str, act: Callable[[], None]) -> Report:
        report = Report(name)
        acked_before = sum(len(w.acked) for w in self.writers)
        maybe_before = sum(len(w.maybe) for w in self.writers)
        report.began = time.monotonic()
        act()
        report.ended = time.monotonic()
        self._wait_batches(3)  # the writers are past it
        report.recover = max((self._stall(w, report) for w in self.writers), default=0.0)
        report.acked = sum(len(w.acked) for w in self.writers) - acked_before
        report.maybe = sum(len(w.maybe) for w in self.writers) - maybe_before
        self.reports.append(report)
        return report

    @staticmethod
    def _stall(writer: Writer, report: Report) -> float:
        """The writer's longest wait between two answered batches, over the fault."""
        ends = [report.began] + sorted(end for _, end in writer.spans if end > report.began)
        gaps = [b - a for a, b in zip(ends, ends[1:]) if a <= report.ended]
        return max(gaps, default=0.0)

    def pause(self, seconds_past_timeout: float = 2.0) -> Report:
        """SIGSTOP the victim until its replica is promoted (past cluster-node-timeout), then
        SIGCONT: it rejoins as a replica."""
        node, replica = self._victim()
        conn = direct(node.host, node.port)
        pid = int(conn.info("server")["process_id"])
        conn.close()

        def act():
            os.kill(pid, signal.SIGSTOP)
            try:
                self._until_promoted(replica)
                time.sleep(seconds_past_timeout)
            finally:
                os.kill(pid, signal.SIGCONT)
        return self._fault("master paused (SIGSTOP) past the node timeout", act)

    def drop(self, times: int = 6) -> Report:
        """Lost replies: the proxy in front of the victim runs a batch's commands, then
        closes the writers' connection before the replies, for BF.INSERT and CF.INSERT in
        turn."""
        node, _ = self._victim()
        proxy = self.proxies[(node.host, node.port)]

        def act():
            for i in range(times):
                before = proxy.dropped
                proxy.drop_after("CF.INSERT" if i % 2 else "BF.INSERT")
                deadline = time.monotonic() + 20
                while proxy.dropped == before:
                    assert time.monotonic() < deadline, "no command reached the proxy"
                    time.sleep(0.01)
        return self._fault("replies lost (connection closed after the request ran)", act)

    def partition(self, clients_keep_it: bool, seconds_past_timeout: float = 2.0) -> Report:
        """Cut the victim off from every other node, and from the clients unless
        ``clients_keep_it`` (then it takes writes until it sees it is in the minority), until
        its replica is promoted and a little more; then heal: it rejoins as a replica."""
        assert self.network is not None, "a partition needs the nodes in namespaces"
        node, replica = self._victim()
        peers = [h for h, _ in self.addresses if h != node.host]
        if not clients_keep_it:
            peers.append(self.network.client_ip)

        def act():
            self.network.cut(node.host, peers)
            try:
                self._until_promoted(replica)
                time.sleep(seconds_past_timeout)
            finally:
                self.network.heal(node.host, peers)
        what = "the clients still reaching it" if clients_keep_it else "and from the clients"
        return self._fault(f"master cut off from every node, {what}", act)

    def kill(self) -> Report:
        """SIGKILL the victim; its replica is promoted."""
        node, replica = self._victim()
        conn = direct(node.host, node.port)
        pid = int(conn.info("server")["process_id"])
        conn.close()

        self.killed.append(node.port)

        def act():
            os.kill(pid, signal.SIGKILL)
            self._until_promoted(replica)
        return self._fault("master killed (SIGKILL)", act)

    def stop(self) -> None:
        for w in self.writers:
            w.stopping.set()
        for w in self.writers:
            w.join(60)
            w.close()

    def check(self) -> Dict[str, int]:
        """Accounts for every item (see the module's text); returns the totals."""
        bloom, cuckoo = self.writers
        found = rsbloom.ShardedBloom(self.admin, self.name).mexists(bloom.acked)
        lost = [i for i, f in zip(bloom.acked, found) if not f]
        cf = rsbloom.ShardedCuckoo(self.admin, self.name + ":cf")
        lost += [i for i, f in zip(cuckoo.acked, cf.mexists(cuckoo.acked)) if not f]
        card = cf.card()
        return {
            "acknowledged": len(bloom.acked) + len(cuckoo.acked),
            "lost": len(lost),
            "unknown": len(cuckoo.unknown),
            "maybe": len(bloom.maybe) + len(cuckoo.maybe),
            "cuckoo_card": card,
            "cuckoo_low": len(cuckoo.acked),
            "cuckoo_high": len(cuckoo.acked) + len(cuckoo.maybe) + len(cuckoo.unknown),
            "raised": len(self.raised()),
        }

    def run(self, faults: List[Callable[[], Report]]) -> Tuple[List[Report], Dict[str, int]]:
        """Starts the writers, applies ``faults`` (bound methods such as ``self.pause``) one
        at a time, stops the writers, checks that no exception reached them and accounts for
        every item; always closes. Prints each fault's report and the totals."""
        try:
            self.start()
            reports = [fault() for fault in faults]
            self.stop()
            raised = self.raised()
            assert not raised, f"{len(raised)} exception(s) reached a writer: {raised[:5]}"
            totals = self.check()
        finally:
            self.stop()
            self.close()
        for report in reports:
            print(report)
        print(totals)
        return reports, totals

    def close(self) -> None:
        self.client.close()
        self.admin.close()
        for (_, port), proxy in self.proxies.items():
            try:
                proxy.close()
            except (ConnectionRefusedError, ConnectionResetError, BrokenPipeError):
                # The killed node's proxy lost its connections to it (reset mid-read, or
                # refused after): expected for that node only.
                if port not in self.killed:
                    raise


def assert_accounted(totals: Dict[str, int]) -> None:
    """What every nemesis run must show: no acknowledged item lost, enough acknowledged to
    mean something, and the cuckoo filter holding nothing twice."""
    assert totals["lost"] == 0, totals
    assert totals["acknowledged"] >= 10 * BATCH, totals
    assert totals["cuckoo_low"] <= totals["cuckoo_card"] <= totals["cuckoo_high"], totals
