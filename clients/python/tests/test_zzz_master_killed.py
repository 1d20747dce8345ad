"""A master killed with SIGKILL under a writer, on the cluster the Rust suite starts. Named to
run last: the killed node stays dead (the suite's fixture reaps it when it stops the cluster).

The writer adds batches of new items to a sharded Bloom filter. An item counts as
acknowledged only once the master holding its shard has it on a replica: on one connection to
that master, a write to a key of the shard's slot and then ``WAIT 1``, whose offset covers the
batch (replication is in order). One master is killed while the writer runs; the writer's
batches go through the client's retries until the replica is promoted. Afterwards every
acknowledged item must be found, and no exception may have reached the writer."""

import os
import signal
import threading
import time

import redis

import rsbloom
from rsbloom import protocol as P

from conftest import cluster_at

SHARDS = 6
BATCH = 200
DEADLINE = 45.0  # the node timeout is 2 s; an election takes about one more
SETTLE = 20.0  # for the previous test's failover to reach every node's view


def direct(host, port):
    return redis.Redis(host=host, port=port, socket_timeout=5)


def nodes(conn):
    """CLUSTER NODES as (id, port, flags, master id) per node."""
    out = []
    for line in conn.execute_command("CLUSTER", "NODES").decode().splitlines():
        fields = line.split()
        out.append((fields[0], int(fields[1].split("@")[0].rsplit(":", 1)[1]), fields[2],
                    fields[3]))
    return out


def settled_replica(victim_conn, host, victim_id):
    """The port of the victim's replica, once the cluster agrees on it: the victim streams to
    it (``ROLE``) and every node's ``CLUSTER NODES`` names it a replica of the victim, with
    no node flagged as failing. The manual failover of test_zz_cluster_topology.py runs just
    before this test, and gossip takes a moment to tell every node the new roles; a replica
    the other masters do not yet know as the victim's would get no votes when it is gone."""
    deadline = time.monotonic() + SETTLE
    seen = None
    while True:
        role = victim_conn.execute_command("ROLE")
        ports = [int(r[1]) for r in role[2]] if role[0] == b"master" else []
        seen = (role[0], ports)
        if ports:
            port = ports[0]
            views = []
            for _, p, _, _ in nodes(victim_conn):
                conn = direct(host, p)
                try:
                    views.append(nodes(conn))
                finally:
                    conn.close()
            if all(any(p == port and "slave" in flags and m == victim_id
                       for _, p, flags, m in view)
                   and not any("fail" in flags for _, _, flags, _ in view)
                   for view in views):
                return port
        assert time.monotonic() < deadline, (
            f"the cluster did not settle on a replica of the victim in {SETTLE} s: ROLE {seen}")
        time.sleep(0.1)


def test_acknowledged_adds_survive_a_killed_master(name):
    # Once, in RESP3 (the manual failover before it ran in RESP2): a second kill would find
    # the promoted replica without a replica of its own.
    client = cluster_at(3)
    bloom = rsbloom.ShardedBloom(client, name, retry_timeout=30)
    bloom.reserve(0.000001, 1000 * SHARDS, shards=SHARDS)
    keys = bloom.shard_keys
    # The earlier tests moved a slot and failed a master over: the client's slot map may be
    # stale, so it is read anew, and the victim must answer for shard 0's key itself.
    client.nodes_manager.initialize()
    victim = client.get_node_from_key(keys[0])
    victim_conn = direct(victim.host, victim.port)
    assert victim_conn.exists(keys[0]) == 1, "the victim does not hold shard 0"
    victim_id = victim_conn.execute_command("CLUSTER", "MYID").decode()
    replica_port = settled_replica(victim_conn, victim.host, victim_id)
    pid = int(victim_conn.info("server")["process_id"])
    replica = direct(victim.host, replica_port)
    masters = {}

    def acknowledged(batch):
        """The items of the batch whose shard's master has them on a replica."""
        by_node = {}
        for shard, key in enumerate(keys):
            node = client.get_node_from_key(key)
            by_node.setdefault(node.name, (node, []))[1].append(shard)
        shards = set()
        for node, on_it in by_node.values():
            conn = masters.setdefault(node.name, direct(node.host, node.port))
            tag = keys[on_it[0]].split(b"}")[0] + b"}"
            try:
                role = conn.execute_command("ROLE")
                if role[0] != b"master" or not role[2]:
                    continue  # no replica (the promoted one has none): nothing acknowledged
                pipe = conn.pipeline(transaction=False)
                pipe.incr(tag + P.to_bytes(name) + b":ack")
                pipe.execute_command("WAIT", 1, 2000)
                _, replicas = pipe.execute()
            except redis.RedisError:
                continue  # dead, or no longer the slot's master: not acknowledged
            if replicas >= 1:
                shards.update(on_it)
        return [item for item in batch if P.shard_of(item, SHARDS) in shards]

    kill_now = threading.Event()
    killed = threading.Event()

    def killer():
        if kill_now.wait(DEADLINE):
            os.kill(pid, signal.SIGKILL)
            killed.set()

    thread = threading.Thread(target=killer, name="killer", daemon=True)
    thread.start()
    acked, written, raised = [], [], []
    promoted_at = None
    batches_after = 0
    longest = 0.0
    during = 0  # batches begun after the kill, before the promotion was seen
    start = time.monotonic()
    try:
        n = 0
        while batches_after < 3:
            assert time.monotonic() - start < DEADLINE, (
                f"no promotion seen in {DEADLINE} s: killed={killed.is_set()}, "
                f"{len(raised)} exception(s): {raised[:3]}")
            batch = [f"k{n * BATCH + i}" for i in range(BATCH)]
            n += 1
            began = time.monotonic()
            in_outage = killed.is_set() and promoted_at is None
            try:
                bloom.madd(batch)
            except redis.RedisError as e:  # every Bloom command can be retried
                raised.append(e)
                continue
            longest = max(longest, time.monotonic() - began)
            during += in_outage
            written += batch
            acked += acknowledged(batch)
            if len(acked) >= 5 * BATCH:
                kill_now.set()
                # The next batch begins right after the kill, long before a promotion can
                # happen (the node timeout alone is 2 s), so it meets the dead master.
                killed.wait(DEADLINE)
            if killed.is_set() and promoted_at is None:
                try:
                    if replica.execute_command("ROLE")[0] == b"master":
                        promoted_at = n
                except redis.RedisError as e:
                    raised.append(e)
            if promoted_at is not None and n > promoted_at:
                batches_after += 1
    finally:
        kill_now.set()
        thread.join(DEADLINE)
        for conn in list(masters.values()) + [victim_conn, replica]:
            conn.close()
    assert not thread.is_alive()
    assert not raised, f"{len(raised)} exception(s) reached the writer: {raised[:5]}"
    assert len(acked) >= 5 * BATCH
    # The writer went on through the outage: a batch begun after the kill, before the
    # promotion was seen, went through the client's retries without an error.
    assert during >= 1, during
    print(f"{n} batches, {len(acked)} of {len(written)} items acknowledged, {during} begun "
          f"during the outage, the longest batch {longest:.1f} s, promotion seen after batch "
          f"{promoted_at}")
    found = bloom.mexists(acked)
    missing = [item for item, there in zip(acked, found) if not there]
    assert not missing, f"{len(missing)} acknowledged item(s) lost: {missing[:10]}"
    assert all(bloom.mexists(written))  # nothing was lost here, acknowledged or not
    shard0 = bloom.info()["shards"][0]
    assert shard0["node"] == f"{victim.host}:{replica_port}"
    assert client.get_node_from_key(keys[0]).port == replica_port
