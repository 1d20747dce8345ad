"""A batch through a slot migration (ASK, then MOVED) and a manual failover, on the cluster.
Named to run late (only test_zzz_master_killed.py comes after): it changes which node owns
a slot and which node is a master."""

import time

import pytest
import redis

import rsbloom
from rsbloom import protocol as P

from conftest import cluster_at


def direct(node):
    return redis.Redis(host=node.host, port=node.port, socket_timeout=10)


def node_id(node):
    return direct(node).execute_command("CLUSTER", "MYID").decode()


def count_commands(node, command):
    stats = direct(node).info("commandstats")
    return stats.get(f"cmdstat_{command}", {}).get("calls", 0)


@pytest.mark.parametrize("family", ["bloom", "cuckoo"])
def test_a_batch_follows_a_slot_migration(cluster, name, family):
    client = cluster
    cls = rsbloom.ShardedBloom if family == "bloom" else rsbloom.ShardedCuckoo
    f = cls(client, name)
    f.reserve(*((0.01, 3000) if family == "bloom" else (3000,)), shards=3)
    items = [f"m{i}" for i in range(900)]
    first = [i for i in items if P.shard_of(i, 3) == 0]
    f.madd(items[:300])
    key = P.shard_key(name, 0, 3)
    slot = P.key_slot(key)
    source = client.get_node_from_key(key)
    target = next(n for n in client.get_primaries() if n.name != source.name)
    src, dst = direct(source), direct(target)
    dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", node_id(source))
    src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", node_id(target))
    try:
        # Migrating, the key still on the source: answered there.
        got = f.madd(items[300:600])
        if family == "cuckoo":
            assert got == [True] * 300
        # Every key of the slot moves (other filters' shards share the tag, hence the slot).
        keys = src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100000)
        src.execute_command("MIGRATE", target.host, target.port, "", 0, 5000, "KEYS", *keys)
        # The key is on the target, the slot still the source's: the source answers ASK.
        before = count_commands(target, "asking")
        got = f.madd(items[600:])
        assert count_commands(target, "asking") > before
        if family == "cuckoo":
            assert got == [True] * 300
        for node in [target, source] + [n for n in client.get_primaries()
                                        if n.name not in (target.name, source.name)]:
            direct(node).execute_command("CLUSTER", "SETSLOT", slot, "NODE", node_id(target))
    except BaseException:
        for node in (source, target):
            direct(node).execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        raise
    # The client's map still names the source: MOVED, reload, target.
    assert f.mexists(items) == [True] * len(items)
    shard0 = f.info()["shards"][0]
    assert shard0["node"] == target.name
    if family == "cuckoo":
        assert all(f.count(i) == 1 for i in first)  # nothing was added twice
        assert f.card() == len(items)
    f.delete()


# The ACL rules docs/sharding.md gives a user of the sharded filters (readers and writers,
# with reserve and delete), and redis-py's cluster client's own needs (COMMAND, CLUSTER SLOTS).
SHARDED_USER = ["-@all", "+bf.insert", "+bf.mexists", "+bf.card", "+bf.info", "+bf.reserve",
                "+cf.insert", "+cf.insertnx", "+cf.mexists", "+cf.count", "+cf.del",
                "+cf.info", "+cf.reserve", "+hgetall", "+hmget", "+hget", "+hset", "+exists",
                "+eval", "+del", "+asking", "+command", "+cluster|slots"]


def every_node(client):
    return [n for n in client.get_nodes()]


@pytest.mark.parametrize("asking", [True, False], ids=["with-asking", "without-asking"])
def test_a_restricted_user_through_a_slot_migration(cluster, protocol, name, asking):
    """A user with only the documented rules follows an ASK and a MOVED; without
    ``+asking``, the ASK'd shard's items fail with NOPERM (nothing else does), and no reply is
    ever paired with another command: every answer after the migration is exact."""
    user = f"rs{name[-8:]}"
    rules = [r for r in SHARDED_USER if asking or r != "+asking"]
    for node in every_node(cluster):
        direct(node).execute_command("ACL", "SETUSER", user, "on", ">pw", "~*",
                                     "resetchannels", *rules)
    seed = cluster.get_default_node()
    client = redis.cluster.RedisCluster(host=seed.host, port=seed.port, username=user,
                                        password="pw", protocol=protocol, socket_timeout=10)
    try:
        f = rsbloom.ShardedCuckoo(client, name)
        f.reserve(3000, shards=3)
        items = [f"a{i}" for i in range(900)]
        f.madd(items[:300])
        key = P.shard_key(name, 0, 3)
        slot = P.key_slot(key)
        cluster.nodes_manager.initialize()  # an earlier test moved this very slot
        source = cluster.get_node_from_key(key)
        target = next(n for n in cluster.get_primaries() if n.name != source.name)
        src, dst = direct(source), direct(target)
        dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", node_id(source))
        src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", node_id(target))
        try:
            keys = src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100000)
            src.execute_command("MIGRATE", target.host, target.port, "", 0, 5000, "KEYS", *keys)
            on_0 = [i for i in range(300) if P.shard_of(items[300 + i], 3) == 0]
            if asking:
                assert f.madd(items[300:600]) == [True] * 300
            else:
                with pytest.raises(rsbloom.BatchError) as caught:
                    f.madd(items[300:600])
                err = caught.value
                assert sorted(err.failed) == on_0 and err.unknown == []
                assert all("NOPERM" in str(e) or "permission" in str(e).lower()
                           for e in err.failed.values())
                assert all(err.results[i] is True for i in range(300) if i not in on_0)
            for node in [target, source] + [n for n in cluster.get_primaries()
                                            if n.name not in (target.name, source.name)]:
                direct(node).execute_command("CLUSTER", "SETSLOT", slot, "NODE",
                                             node_id(target))
        except BaseException:
            for node in (source, target):
                direct(node).execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
            raise
        # MOVED now; every answer is its own item's.
        added = set(items[:600]) - (set() if asking else {items[300 + i] for i in on_0})
        probes = items[:600] + [f"never{i}" for i in range(300)]
        assert f.mexists(probes) == [p in added for p in probes]
        assert f.card() == len(added)
        f.delete()
    finally:
        client.close()
        for node in every_node(cluster):
            direct(node).execute_command("ACL", "DELUSER", user)


def test_a_batch_follows_a_manual_failover(name):
    # Once, in RESP2 (a second failover would find no settled replica); the killed master
    # of test_zzz_master_killed.py is the RESP3 one.
    client = cluster_at(2)
    bloom = rsbloom.ShardedBloom(client, name)
    cuckoo = rsbloom.ShardedCuckoo(client, name + ":cf")
    bloom.reserve(0.01, 5000, shards=6)
    cuckoo.reserve(5000, shards=6)
    items = [f"f{i}" for i in range(2000)]
    bloom.madd(items[:1000])
    cuckoo.madd(items[:1000])
    key = P.shard_key(name, 0, 6)
    old = client.get_node_from_key(key)
    old_conn = direct(old)
    old_conn.execute_command("WAIT", 1, 2000)
    replica_port = None
    for line in old_conn.execute_command("CLUSTER", "NODES").decode().splitlines():
        fields = line.split()
        if fields[3] == node_id(old):
            replica_port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
    assert replica_port is not None, "the master has no replica"
    replica = redis.Redis(host=old.host, port=replica_port, socket_timeout=10)
    replica.execute_command("CLUSTER", "FAILOVER")
    deadline = time.monotonic() + 20
    while replica.execute_command("ROLE")[0] != b"master":
        assert time.monotonic() < deadline, "the failover did not happen"
        time.sleep(0.1)
    # The client's map still names the old master, now a replica: it answers MOVED.
    assert bloom.madd(items[1000:]) is not None
    assert cuckoo.madd(items[1000:]) == [True] * 1000
    assert bloom.mexists(items) == [True] * len(items)
    assert cuckoo.mexists(items) == [True] * len(items)
    assert cuckoo.card() == len(items)
    assert bloom.info()["shards"][0]["node"] == f"{old.host}:{replica_port}"
    bloom.delete()
    cuckoo.delete()
