"""ShardedBloom and ShardedCuckoo on a real server and a real cluster (the Rust suite's)."""

import random
import re

import pytest
import redis
from redis.exceptions import ResponseError

import rsbloom
from rsbloom import _replies as R
from rsbloom import protocol as P


def primaries(client):
    if isinstance(client, redis.cluster.RedisCluster):
        return {node.name for node in client.get_primaries()}
    return None


def fp_probes(n, seed):
    rng = random.Random(seed)
    return [b"never:%d:%d" % (i, rng.getrandbits(48)) for i in range(n)]


def test_bloom_ten_thousand_items_and_its_error_rate(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.01, 10_000, shards=16)
    items = [f"url:{i}" for i in range(10_000)]
    added = bloom.madd(items)
    assert len(added) == len(items) and sum(added) > 9_900  # False: a false positive
    assert bloom.mexists(items) == [True] * len(items)
    assert bloom.card() == sum(added)
    # 100,000 never-added probes: 1.1 x 1 % is 1,100, 3.2 standard deviations above 1,000
    # (the shards, sized with 4 deviations of room, are not full, so the rate is lower).
    probes = fp_probes(100_000, 1)
    rate = sum(bloom.mexists(probes)) / len(probes)
    assert rate <= 0.011, rate
    info = bloom.info()
    assert info["family"] == "bloom" and info["shard_count"] == 16
    assert info["capacity"] == 10_000 and info["error_rate"] == 0.01
    assert info["shard_capacity"] == P.shard_capacity(10_000, 16)
    assert [s["index"] for s in info["shards"]] == list(range(16))
    assert [s["key"] for s in info["shards"]] == P.shard_keys(name, 16)
    assert sum(s["items"] for s in info["shards"]) == bloom.card()
    assert all(s["size"] > 0 for s in info["shards"])
    assert all(s["slots"] == P.slot_range(s["index"], 16) for s in info["shards"])
    masters = primaries(sharding)
    if masters is not None:
        assert {s["node"] for s in info["shards"]} == masters  # spread over all three
        for s in info["shards"]:
            assert sharding.get_node_from_key(s["key"]).name == s["node"]
    assert bloom.delete()
    assert not bloom.delete()
    assert sum(sharding.exists(k) for k in P.shard_keys(name, 16)) == 0
    assert not sharding.exists(name)


def test_cuckoo_ten_thousand_items_counts_and_removes(sharding, name):
    cuckoo = rsbloom.ShardedCuckoo(sharding, name)
    cuckoo.reserve(10_000, shards=16, bucket_size=4)
    items = [f"user:{i}" for i in range(10_000)]
    assert cuckoo.madd(items) == [True] * len(items)
    assert cuckoo.mexists(items) == [True] * len(items)
    assert cuckoo.card() == len(items)
    # A cuckoo filter's rate is set by its fingerprint: about 2 x bucket size / 255.
    expected = 2 * 4 / 255
    probes = fp_probes(50_000, 2)
    rate = sum(cuckoo.mexists(probes)) / len(probes)
    assert rate <= 1.1 * expected, rate
    # CF.INSERT semantics: a duplicate is another copy; remove takes one away.
    assert cuckoo.add("user:7") is True
    assert cuckoo.count("user:7") == 2
    assert cuckoo.remove("user:7") and cuckoo.remove("user:7")
    assert not cuckoo.exists("user:7") or cuckoo.count("user:7") == 0
    assert cuckoo.remove("user:7") is False
    assert cuckoo.maddnx(["user:8", "fresh"]) == [False, True]
    assert cuckoo.card() == len(items)  # + user:7 again + fresh - two removes
    info = cuckoo.info()
    assert info["family"] == "cuckoo" and info["bucket_size"] == 4
    assert info["max_iterations"] == 20 and info["expansion"] == 1
    assert all(s["info"]["Bucket size"] == 4 for s in info["shards"])
    masters = primaries(sharding)
    if masters is not None:
        assert {s["node"] for s in info["shards"]} == masters
    assert cuckoo.delete()
    assert sum(sharding.exists(k) for k in P.shard_keys(name, 16)) == 0


def test_answers_in_the_callers_order(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.001, 1000, shards=5)
    items = [f"k{i}" for i in range(300)] + [b"\x00\xff", "caf\u00e9", "{tag}a", "{tag}b"]
    random.Random(3).shuffle(items)
    added = items[::2]
    bloom.madd(added)
    assert bloom.mexists(items) == [i in added for i in items]
    assert bloom.exists("caf\u00e9".encode()) == ("caf\u00e9" in added)
    cuckoo = rsbloom.ShardedCuckoo(sharding, name + ":cf")
    cuckoo.reserve(1000, shards=7)
    assert cuckoo.madd(added) == [True] * len(added)
    assert cuckoo.mexists(items) == [i in added for i in items]
    bloom.delete()
    cuckoo.delete()


def test_a_second_client_opens_the_filter_by_name(sharding, name):
    first = rsbloom.ShardedBloom(sharding, name)
    first.reserve(0.01, 5000, shards=3, expansion=4)
    first.madd(["a", "b"])
    second = rsbloom.ShardedBloom(sharding, name)
    assert second.exists("a") and second.exists("b") and not second.exists("c")
    assert second.shard_count == 3 and second.description()["expansion"] == "4"
    assert second.add("c") and first.exists("c")
    assert second.card() == 3
    with pytest.raises(rsbloom.UnknownProtocolError):
        rsbloom.ShardedCuckoo(sharding, name).exists("a")
    second.delete()
    with pytest.raises(rsbloom.FilterNotFoundError):
        first.description(refresh=True)


def test_reserve_of_an_existing_name_is_refused(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.01, 1000, shards=4)
    with pytest.raises(rsbloom.FilterExistsError, match="item exists"):
        rsbloom.ShardedBloom(sharding, name).reserve(0.05, 99, shards=8)
    with pytest.raises(rsbloom.FilterExistsError):
        rsbloom.ShardedCuckoo(sharding, name).reserve(1000, shards=2)
    assert bloom.description(refresh=True)["shards"] == "4"
    bloom.delete()
    sharding.set(name, "a plain string")
    with pytest.raises(rsbloom.FilterExistsError):
        bloom.reserve(0.01, 1000, shards=2)
    assert sharding.get(name) == b"a plain string"
    sharding.delete(name)


def test_an_unknown_protocol_is_refused(sharding, name):
    sharding.hset(name, mapping={"protocol": "rsbloom-sharding/9", "family": "bloom",
                                 "shards": "4"})
    with pytest.raises(rsbloom.UnknownProtocolError):
        rsbloom.ShardedBloom(sharding, name).exists("a")
    sharding.delete(name)


def test_a_lost_shard_is_never_recreated(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.01, 1000, shards=2)
    lost = P.shard_key(name, 1, 2)
    sharding.delete(lost)
    items = [f"i{i}" for i in range(50)]
    with pytest.raises(rsbloom.BatchError, match="not found") as caught:
        bloom.madd(items)
    # The other shard's items were added and answered; the lost shard's are failed.
    on_lost = [i for i, item in enumerate(items) if P.shard_of(item, 2) == 1]
    assert on_lost and sorted(caught.value.failed) == on_lost
    assert all("not found" in str(e) for e in caught.value.failed.values())
    assert caught.value.unknown == []
    assert [r is None for r in caught.value.results] == [i in on_lost for i in range(50)]
    assert all(caught.value.results[i] is True for i in range(50) if i not in on_lost)
    assert not sharding.exists(lost)
    bloom.delete()
    with pytest.raises(rsbloom.FilterNotFoundError):
        bloom.add("x")


def test_reserve_records_the_description_and_shard_places(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.001, 50_000, nonscaling=True)  # the default count
    desc = bloom.description()
    count = P.default_bloom_shards(50_000, 0.001)
    assert re.fullmatch("[0-9a-f]{32}", desc["id"])
    assert desc == {"protocol": P.PROTOCOL, "family": "bloom", "shards": str(count),
                    "capacity": "50000", "shard_capacity": str(P.shard_capacity(50_000, count)),
                    "error_rate": "0.001", "expansion": "0", "id": desc["id"]}
    for shard in bloom.info()["shards"]:
        info = shard["info"]
        assert info.get("Shard of") == name and info.get("Shard") == shard["index"]
        assert R.text(info.get("Shard id")) == desc["id"]
        assert R.text(info.get("Shard routing")) == "slot"
        assert info.get("Shards") == count
        first, last = shard["slots"]
        assert str(info.get("Shard slots")) == f"{first}-{last}"
    bloom.delete()


def test_a_misrouted_insert_is_refused_by_the_module(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.01, 1000, shards=4)
    key0 = P.shard_key(name, 0, 4)
    stray = next(f"x{i}" for i in range(1000) if P.shard_of(f"x{i}", 4) == 2)
    with pytest.raises(ResponseError, match="wrong shard"):
        sharding.execute_command("BF.INSERT", key0, "NOCREATE", "ITEMS", "ok-or-not", stray)
    with pytest.raises(ResponseError, match="wrong shard"):
        sharding.execute_command("BF.MEXISTS", key0, stray)
    assert not bloom.exists(stray)
    cuckoo = rsbloom.ShardedCuckoo(sharding, name + ":cf")
    cuckoo.reserve(1000, shards=4)
    with pytest.raises(ResponseError, match="wrong shard"):
        sharding.execute_command("CF.INSERT", P.shard_key(name + ":cf", 0, 4), "NOCREATE",
                                 "ITEMS", stray)
    bloom.delete()
    cuckoo.delete()


def test_a_full_nonscaling_shard_refuses_items(sharding, name):
    bloom = rsbloom.ShardedBloom(sharding, name)
    bloom.reserve(0.01, 10, shards=1, nonscaling=True)
    each = P.shard_capacity(10, 1)
    with pytest.raises(rsbloom.FilterFullError) as caught:
        bloom.madd([f"i{i}" for i in range(each + 20)])
    assert caught.value.refused and all(caught.value.results[i] is None
                                        for i in caught.value.refused)
    bloom.delete()
