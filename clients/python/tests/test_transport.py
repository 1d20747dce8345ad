"""The batching transport's retries against the real servers the Rust suite starts, with the
fault in the network: a ``FaultProxy`` (faultproxy.py) between a plain ``redis.Redis`` and the
server runs the client's request on the server, then closes the client's connection before
(all of) the replies got back. Bloom adds and reads are sent again; a cuckoo ``CF.INSERT`` or
``CF.DEL`` is not, and the error names the items whose fate is unknown. ``TRYAGAIN`` comes from
a real slot migration on the cluster (a multi-key command over a half-moved slot)."""

import random
import uuid

import pytest
import redis

import rsbloom
from rsbloom import protocol as P
from rsbloom._transport import Command, Transport

from faultproxy import FaultProxy

ITEMS = [f"item:{i}" for i in range(40)]
SHARDS = 4


@pytest.fixture
def proxy(node_client):
    """A proxy in front of the single server; closed (threads joined) after the test."""
    kwargs = node_client.connection_pool.connection_kwargs
    with FaultProxy(kwargs["host"], kwargs["port"]) as p:
        yield p


def via(proxy, protocol):
    return redis.Redis(host=proxy.host, port=proxy.port, socket_timeout=10, protocol=protocol)


def first_shard_and_rest(items, shards=SHARDS):
    """The commands of a batch go in shard order: the first shard's items (whose reply the
    proxy lets through with ``keep=1``) and the positions of everyone else's."""
    of = [P.shard_of(item, shards) for item in items]
    first = min(of)
    return [i for i, s in enumerate(of) if s == first], [i for i, s in enumerate(of) if s != first]


def test_a_bloom_batch_is_resent_after_its_reply_was_lost(protocol, node_client, proxy, name,
                                                           laid_out):
    laid_out(node_client, "bloom", name, SHARDS)
    bloom = rsbloom.ShardedBloom(via(proxy, protocol), name, retry_timeout=10)
    bloom.description()
    proxy.drop_after("BF.INSERT", keep=1)  # the first shard's reply arrives, no other
    answers = bloom.madd(ITEMS)
    assert proxy.dropped == 1
    known, lost = first_shard_and_rest(ITEMS)
    # One command per shard, then the three whose replies were lost once more.
    assert proxy.count("BF.INSERT") == SHARDS + SHARDS - 1
    # The lost commands had run: sent again, their items answer "was there already".
    assert answers == [i in known for i in range(len(ITEMS))]
    direct = rsbloom.ShardedBloom(node_client, name)
    assert direct.mexists(ITEMS) == [True] * len(ITEMS)
    assert direct.card() == len(ITEMS)


def test_a_whole_lost_bloom_batch_answers_in_the_callers_order(protocol, node_client, proxy, name,
                                                                laid_out):
    laid_out(node_client, "bloom", name, SHARDS)
    direct = rsbloom.ShardedBloom(node_client, name)
    before = ITEMS[::3]
    direct.madd(before)
    bloom = rsbloom.ShardedBloom(via(proxy, protocol), name, retry_timeout=10)
    bloom.description()
    shuffled = list(ITEMS)
    random.Random(7).shuffle(shuffled)
    proxy.drop_after("BF.INSERT")  # no reply at all
    # Every item was added by the lost attempt, so the resent batch finds them all.
    assert bloom.madd(shuffled) == [False] * len(shuffled)
    assert proxy.dropped == 1 and proxy.count("BF.INSERT") == 2 * SHARDS
    # The items added before and after, in the caller's order, beside never-added ones.
    probes = [f"never:{i}" for i in range(20)] + shuffled
    random.Random(8).shuffle(probes)
    assert direct.mexists(probes) == [not p.startswith("never:") for p in probes]


def test_reads_are_resent_after_their_reply_was_lost(protocol, node_client, proxy, name, laid_out):
    laid_out(node_client, "bloom", name, SHARDS)
    rsbloom.ShardedBloom(node_client, name).madd(ITEMS[::2])
    bloom = rsbloom.ShardedBloom(via(proxy, protocol), name, retry_timeout=10)
    proxy.drop_after("HGETALL")  # the description's read
    assert bloom.shard_count == SHARDS
    assert proxy.count("HGETALL") == 2
    probes = list(reversed(ITEMS))
    proxy.drop_after("BF.MEXISTS", keep=2)
    assert bloom.mexists(probes) == [ITEMS.index(p) % 2 == 0 for p in probes]
    assert proxy.dropped == 2
    assert proxy.count("BF.MEXISTS") == SHARDS + SHARDS - 2
    proxy.drop_after("BF.CARD")
    assert bloom.card() == len(ITEMS[::2])


def test_a_cuckoo_insert_is_not_resent_and_names_the_unknown_items(protocol, node_client, proxy,
                                                                   name, laid_out):
    laid_out(node_client, "cuckoo", name, SHARDS)
    cuckoo = rsbloom.ShardedCuckoo(via(proxy, protocol), name, retry_timeout=10)
    cuckoo.description()
    proxy.drop_after("CF.INSERT", keep=1)
    with pytest.raises(rsbloom.AmbiguousWriteError) as caught:
        cuckoo.madd(ITEMS)
    err = caught.value
    known, lost = first_shard_and_rest(ITEMS)
    assert proxy.dropped == 1
    assert proxy.count("CF.INSERT") == SHARDS  # never sent twice
    assert err.unknown == lost
    assert [err.results[i] for i in known] == [True] * len(known)
    assert [err.results[i] for i in lost] == [None] * len(lost)
    assert err.causes and all(isinstance(c, redis.ConnectionError) for c in err.causes.values())
    # The server ran every command once: each item is there once, none twice.
    direct = rsbloom.ShardedCuckoo(node_client, name)
    assert [direct.count(item) for item in ITEMS] == [1] * len(ITEMS)
    assert direct.card() == len(ITEMS)


def test_a_cuckoo_remove_is_not_resent_and_addnx_is(protocol, node_client, proxy, name, laid_out):
    laid_out(node_client, "cuckoo", name, SHARDS)
    direct = rsbloom.ShardedCuckoo(node_client, name)
    cuckoo = rsbloom.ShardedCuckoo(via(proxy, protocol), name, retry_timeout=10)
    cuckoo.description()
    # CF.INSERTNX adds nothing twice, so it is sent again; its items then answer False.
    proxy.drop_after("CF.INSERTNX")
    assert cuckoo.maddnx(ITEMS) == [False] * len(ITEMS)
    assert proxy.count("CF.INSERTNX") == 2 * SHARDS
    assert [direct.count(item) for item in ITEMS] == [1] * len(ITEMS)
    # CF.DEL removes a copy each time: never sent twice.
    direct.add(ITEMS[0])  # a second copy
    proxy.drop_after("CF.DEL")
    with pytest.raises(rsbloom.AmbiguousWriteError) as caught:
        cuckoo.remove(ITEMS[0])
    assert caught.value.unknown == [0]
    assert proxy.count("CF.DEL") == 1
    assert direct.count(ITEMS[0]) == 1  # one copy removed, by the lost command


def test_unknown_protocol_and_family_are_refused(node_client, name, laid_out):
    laid_out(node_client, "bloom", name, 2)
    with pytest.raises(rsbloom.UnknownProtocolError):
        rsbloom.ShardedCuckoo(node_client, name).exists("x")
    node_client.hset(name, "protocol", "rsbloom-sharding/2")
    with pytest.raises(rsbloom.UnknownProtocolError):
        rsbloom.ShardedBloom(node_client, name).exists("x")
    with pytest.raises(rsbloom.FilterNotFoundError):
        rsbloom.ShardedBloom(node_client, name + ":missing").exists("x")


def test_a_plain_client_names_its_node():
    client = redis.Redis(host="10.0.0.9", port=7001)  # never connected
    bloom = rsbloom.ShardedBloom(client, b"\xffname")
    assert bloom._transport.router.name == "10.0.0.9:7001"
    assert bloom.name == b"\xffname"


def direct_node(node):
    return redis.Redis(host=node.host, port=node.port, socket_timeout=10)


def test_tryagain_during_a_slot_migration_is_retried(cluster_client, protocol):
    """A multi-key command on the node migrating its slot, one key moved and one not, is
    refused with TRYAGAIN (the server did not run it). The proxy sees that reply go by and,
    before the client gets it, ends the migration (the moved key back, the slot stable): the
    transport's retry then gets both values. The library's own commands are single-key, so
    this drives the transport with an ``MGET``."""
    tag = uuid.uuid4().hex[:12]
    ka, kb = f"{{{tag}}}a", f"{{{tag}}}b"
    cluster_client.set(ka, "1")
    cluster_client.set(kb, "2")
    slot = P.key_slot(ka)
    source = cluster_client.get_node_from_key(ka)
    target = next(n for n in cluster_client.get_primaries() if n.name != source.name)
    src, dst = direct_node(source), direct_node(target)
    src_id = src.execute_command("CLUSTER", "MYID").decode()
    dst_id = dst.execute_command("CLUSTER", "MYID").decode()

    def end_the_migration():
        # The source stable first (migrating, it would answer the key's RESTORE with ASK);
        # the target, still importing, serves the MIGRATE back after ASKING.
        src.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        back = dst.pipeline(transaction=False)  # one connection: ASKING holds for MIGRATE
        back.execute_command("ASKING")
        back.execute_command("MIGRATE", source.host, source.port, "", 0, 5000, "KEYS", kb)
        back.execute()
        dst.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")

    dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
    src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
    try:
        src.execute_command("MIGRATE", target.host, target.port, "", 0, 5000, "KEYS", kb)
        with pytest.raises(redis.exceptions.TryAgainError):
            src.mget(ka, kb)  # the condition, seen directly
        with FaultProxy(source.host, source.port) as proxy:
            proxy.on_reply("TRYAGAIN", end_the_migration)
            transport = Transport(redis.Redis(host=proxy.host, port=proxy.port,
                                              socket_timeout=10, protocol=protocol),
                                  retry_timeout=10)
            cmd = Command(ka.encode(), (b"MGET", ka, kb))
            transport.run([cmd])
            assert cmd.error is None, cmd.error
            assert cmd.reply == [b"1", b"2"]
            assert proxy.hooked == 1 and proxy.count("MGET") == 2
    finally:
        for node in (src, dst):
            node.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
    assert src.exists(ka, kb) == 2 and dst.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
    cluster_client.delete(ka)
    cluster_client.delete(kb)
