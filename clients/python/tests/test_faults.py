"""What a sharded filter's client promises when things go wrong (docs/sharding.md, "What can
fail and what you get"), on the real servers, in RESP2 and RESP3: a stale description never
answers "absent" for an item the current filter holds; a batch error keeps every item's
outcome; a full shard is a refusal in both protocols; a reserve is idempotent and leaves
nothing behind when it fails; keyed routing spreads items an outsider aimed at one shard."""

import pytest
import redis

import rsbloom
from rsbloom import _replies as R
from rsbloom import protocol as P

from faultproxy import FaultProxy


def test_a_stale_description_never_answers_absent(client, name):
    """A opens 16 shards; B deletes the filter, reserves it again with 4 shards and adds 200
    items: A's reads find all of them, A's adds land in the new filter."""
    a = rsbloom.ShardedBloom(client, name)
    a.reserve(0.001, 16_000, shards=16)
    a.madd([f"old{i}" for i in range(50)])
    assert a.shard_count == 16
    b = rsbloom.ShardedBloom(client, name)
    assert b.delete()
    b.reserve(0.001, 4_000, shards=4)
    items = [f"new{i}" for i in range(200)]
    b.madd(items)
    assert a.mexists(items) == [True] * 200
    assert all(a.exists(item) for item in items[:20])
    assert a.shard_count == 4  # A read the description again
    later = [f"later{i}" for i in range(100)]
    a.madd(later)
    assert b.mexists(later) == [True] * 100
    assert b.card() == a.card() == 300

    # The same with cuckoo filters, whose adds must not run twice.
    ca = rsbloom.ShardedCuckoo(client, name + ":cf")
    ca.reserve(16_000, shards=16)
    cb = rsbloom.ShardedCuckoo(client, name + ":cf")
    cb.delete()
    cb.reserve(4_000, shards=4)
    cb.madd(items)
    assert ca.mexists(items) == [True] * 200
    assert ca.madd(later) == [True] * 100
    assert [cb.count(item) for item in later[:30]] == [1] * 30
    assert cb.card() == 300
    assert ca.count(items[0]) == 1 and ca.remove(items[0]) and cb.count(items[0]) == 0
    a.delete()
    cb.delete()


def test_a_filter_deleted_under_a_reader_is_not_found(client, name):
    a = rsbloom.ShardedBloom(client, name)
    a.reserve(0.01, 1000, shards=3)
    a.madd(["x", "y"])
    rsbloom.ShardedBloom(client, name).delete()
    with pytest.raises(rsbloom.FilterNotFoundError):
        a.mexists(["x", "y"])


def test_a_full_cuckoo_shard_refuses_in_both_protocols(client, name):
    """A non-expanding cuckoo shard of 8: RESP3's CF.INSERT answers false for what it did not
    store, which is a refusal (FilterFullError), never a False answer."""
    cuckoo = rsbloom.ShardedCuckoo(client, name)
    cuckoo.reserve(8, shards=1, expansion=0)
    items = [f"i{i}" for i in range(60)]
    with pytest.raises(rsbloom.FilterFullError) as caught:
        cuckoo.madd(items)
    err = caught.value
    assert isinstance(err, rsbloom.BatchError) and err.unknown == []
    stored = [i for i, r in enumerate(err.results) if r is True]
    assert stored and sorted(set(stored) | set(err.failed)) == list(range(60))
    assert all(err.results[i] is None for i in err.failed)
    # (Copies of a fingerprint: two items may share one in a filter of 8.)
    assert all(cuckoo.count(items[i]) >= 1 for i in stored)
    assert cuckoo.card() == len(stored)
    cuckoo.delete()


def test_a_batch_error_keeps_every_shards_answer(client, name):
    """One shard key lost (deleted by hand): its items fail with the cause, every other
    item is added once and answered, nothing is unknown."""
    cuckoo = rsbloom.ShardedCuckoo(client, name)
    cuckoo.reserve(4000, shards=4)
    client.delete(P.shard_key(name, 2, 4))
    items = [f"i{i}" for i in range(200)]
    with pytest.raises(rsbloom.BatchError) as caught:
        cuckoo.madd(items)
    err = caught.value
    lost = [i for i, item in enumerate(items) if P.shard_of(item, 4) == 2]
    assert not isinstance(err, (rsbloom.FilterFullError, rsbloom.AmbiguousWriteError))
    assert sorted(err.failed) == lost and err.unknown == []
    assert all("not found" in str(e) for e in err.failed.values())
    assert [err.results[i] is None for i in range(200)] == [i in lost for i in range(200)]
    kept = [i for i in range(200) if i not in lost]
    assert all(err.results[i] is True for i in kept)
    assert [cuckoo.count(items[i]) for i in kept[:40]] == [1] * 40
    cuckoo.delete()


@pytest.fixture
def proxy(node_client):
    kwargs = node_client.connection_pool.connection_kwargs
    with FaultProxy(kwargs["host"], kwargs["port"]) as p:
        yield p


@pytest.mark.parametrize("lost", ["EVAL", "BF.RESERVE"])
def test_a_reserve_whose_reply_was_lost_is_recognized_as_its_own(node_client, protocol,
                                                                  proxy, name, lost):
    client = redis.Redis(host=proxy.host, port=proxy.port, socket_timeout=10,
                         protocol=protocol)
    proxy.drop_after(lost)
    bloom = rsbloom.ShardedBloom(client, name, retry_timeout=10)
    bloom.reserve(0.01, 3000, shards=3)
    assert proxy.dropped == 1 and proxy.count(lost) >= 2
    desc = rsbloom.ShardedBloom(node_client, name).description()
    for key in P.shard_keys(name, 3):
        info = R.hash_fields(node_client.execute_command("BF.INFO", key))
        assert info["Shard id"] == desc["id"]
    bloom.madd(["a", "b"])
    assert rsbloom.ShardedBloom(node_client, name).mexists(["a", "b"]) == [True, True]
    # Another reserve of the name is still refused: its id is not the filter's.
    with pytest.raises(rsbloom.FilterExistsError):
        rsbloom.ShardedBloom(node_client, name).reserve(0.01, 3000, shards=3)
    bloom.delete()


def test_a_failed_reserve_leaves_nothing_behind(client, name):
    """Shard 2's key is taken by a stranger's filter: the reserve fails with its refusal,
    deletes the shards it made and the description, and leaves the stranger's key alone."""
    taken = P.shard_key(name, 2, 4)
    client.execute_command("BF.RESERVE", taken, 0.01, 100)
    client.execute_command("BF.ADD", taken, "mine")
    bloom = rsbloom.ShardedBloom(client, name)
    with pytest.raises(redis.ResponseError, match="item exists"):
        bloom.reserve(0.01, 4000, shards=4)
    keys = P.shard_keys(name, 4)
    assert [client.exists(k) for k in keys] == [0, 0, 1, 0]
    assert client.exists(name) == 0
    assert client.execute_command("BF.EXISTS", taken, "mine") in (1, True)
    client.delete(taken)
    bloom.reserve(0.01, 4000, shards=4)  # the name is free again
    bloom.delete()


def test_keyed_routing_spreads_items_aimed_at_one_shard(client, name):
    """Items picked so that their key slot lands in shard 0 of 8 (what an outsider can do
    with the public routing) spread over every shard of a keyed filter, which the module
    checks: a key-slot-routed item is refused by the keyed shard it does not belong to."""
    aimed = [f"u{i}" for i in range(20_000) if P.shard_of(f"u{i}", 8) == 0][:1000]
    plain = rsbloom.ShardedBloom(client, name + ":plain")
    plain.reserve(0.01, 8000, shards=8)
    plain.madd(aimed)
    counts = [s["items"] for s in plain.info()["shards"]]
    assert counts[0] > 950 and counts[1:] == [0] * 7, counts
    keyed = rsbloom.ShardedBloom(client, name)
    keyed.reserve(0.01, 8000, shards=8, keyed_routing=True)
    desc = keyed.description()
    assert desc["routing"] == "keyed" and len(desc["routing_secret"]) == 32
    assert "routing_secret" not in keyed.info()
    keyed.madd(aimed)
    counts = [s["items"] for s in keyed.info()["shards"]]
    assert min(counts) > 60 and max(counts) < 200, counts  # about 125 each
    assert keyed.mexists(aimed) == [True] * 1000
    secret = bytes.fromhex(desc["routing_secret"])
    stray = next(x for x in aimed if P.keyed_shard_of(secret, x, 8) != 0)
    with pytest.raises(redis.ResponseError, match="wrong shard"):
        client.execute_command("BF.MEXISTS", P.shard_key(name, 0, 8), stray)
    # Another client opens it and routes the same way.
    assert rsbloom.ShardedBloom(client, name).mexists(aimed[:100]) == [True] * 100
    plain.delete()
    keyed.delete()
