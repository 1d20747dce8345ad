"""rsbloom.asyncio on the real single server and cluster, in RESP2 and RESP3: the blocking
classes' operations and guarantees, with many batches at once on one event loop."""

import asyncio

import pytest
import redis
import redis.asyncio
import redis.asyncio.cluster

import rsbloom
from rsbloom import asyncio as aio
from rsbloom import protocol as P

from conftest import _address
from faultproxy import FaultProxy


def async_client(kind, protocol, host=None, port=None):
    if host is None:
        host, port = _address("RSBLOOM_TEST_NODE" if kind == "node" else "RSBLOOM_TEST_CLUSTER")
    if kind == "node":
        return redis.asyncio.Redis(host=host, port=port, socket_timeout=10, protocol=protocol)
    return redis.asyncio.cluster.RedisCluster(host=host, port=port, socket_timeout=10,
                                              protocol=protocol)


@pytest.fixture(params=["node", "cluster"])
def kind(request):
    return request.param


def run(coro):
    return asyncio.run(coro)


def test_many_batches_at_once_on_one_loop(kind, protocol, name):
    async def main():
        client = async_client(kind, protocol)
        try:
            bloom = aio.ShardedBloom(client, name)
            await bloom.reserve(0.001, 40_000, shards=8)
            batches = [[f"b{j}:{i}" for i in range(500)] for j in range(20)]
            added = await asyncio.gather(*(bloom.madd(b) for b in batches))
            assert all(a == [True] * 500 for a in added) or \
                sum(map(sum, added)) > 9_990  # false positives at 0.1 %
            found = await asyncio.gather(*(bloom.mexists(b) for b in batches))
            assert all(f == [True] * 500 for f in found)
            assert await bloom.card() == sum(map(sum, added))
            assert (await bloom.info())["shard_count"] == 8
            cuckoo = aio.ShardedCuckoo(client, name + ":cf")
            await cuckoo.reserve(20_000, shards=4)
            items = [f"c{i}" for i in range(3000)]
            chunks = [items[i:i + 300] for i in range(0, 3000, 300)]
            assert all(a == [True] * 300 for a in
                       await asyncio.gather(*(cuckoo.madd(c) for c in chunks)))
            assert await cuckoo.count(items[7]) >= 1
            assert await cuckoo.maddnx(items[:10]) == [False] * 10
            assert await cuckoo.remove(items[7]) is True
            assert await cuckoo.card() == 2999
            assert await bloom.delete() and await cuckoo.delete()
            assert not await bloom.exists_filter()
        finally:
            await client.aclose()
    run(main())


def test_asyncio_and_blocking_clients_agree(client, protocol, name):
    async def main():
        kind = "cluster" if isinstance(client, redis.cluster.RedisCluster) else "node"
        ac = async_client(kind, protocol)
        try:
            await aio.ShardedBloom(ac, name).reserve(0.01, 4000, shards=4)
            rsbloom.ShardedBloom(client, name).madd(["x", "y"])
            assert await aio.ShardedBloom(ac, name).mexists(["x", "y", "z"]) == \
                [True, True, False]
            await aio.ShardedBloom(ac, name).delete()
        finally:
            await ac.aclose()
    run(main())


def test_a_stale_description_and_a_batch_error(kind, protocol, name):
    async def main():
        client = async_client(kind, protocol)
        try:
            a = aio.ShardedCuckoo(client, name)
            await a.reserve(16_000, shards=16)
            b = aio.ShardedCuckoo(client, name)
            await b.delete()
            await b.reserve(4_000, shards=4)
            items = [f"n{i}" for i in range(200)]
            await b.madd(items)
            assert await a.mexists(items) == [True] * 200
            await client.delete(P.shard_key(name, 1, 4))
            with pytest.raises(rsbloom.BatchError) as caught:
                await a.madd([f"m{i}" for i in range(100)])
            lost = [i for i in range(100) if P.shard_of(f"m{i}", 4) == 1]
            assert sorted(caught.value.failed) == lost and caught.value.unknown == []
            assert all(caught.value.results[i] is True for i in range(100) if i not in lost)
            await b.delete()
        finally:
            await client.aclose()
    run(main())


def test_a_lost_cuckoo_insert_is_unknown_and_a_bloom_add_is_resent(node_client, protocol,
                                                                    name, laid_out):
    laid_out(node_client, "cuckoo", name, 4)
    laid_out(node_client, "bloom", name + ":bf", 4)
    kwargs = node_client.connection_pool.connection_kwargs
    items = [f"i{i}" for i in range(40)]

    async def main(proxy):
        client = async_client("node", protocol, proxy.host, proxy.port)
        try:
            cuckoo = aio.ShardedCuckoo(client, name, retry_timeout=10)
            await cuckoo.description()
            proxy.drop_after("CF.INSERT")
            with pytest.raises(rsbloom.AmbiguousWriteError) as caught:
                await cuckoo.madd(items)
            assert caught.value.unknown == list(range(40))
            assert proxy.count("CF.INSERT") == 4  # never sent twice
            bloom = aio.ShardedBloom(client, name + ":bf", retry_timeout=10)
            await bloom.description()
            proxy.drop_after("BF.INSERT")
            assert await bloom.madd(items) == [False] * 40  # resent; the first attempt ran
            assert proxy.count("BF.INSERT") == 8
        finally:
            await client.aclose()

    with FaultProxy(kwargs["host"], kwargs["port"]) as proxy:
        run(main(proxy))
    direct = rsbloom.ShardedCuckoo(node_client, name)
    assert [direct.count(i) for i in items] == [1] * 40


def test_the_family_helpers(kind, protocol, name):
    async def main():
        client = async_client(kind, protocol)
        try:
            cbf = aio.cbf(client)
            assert await cbf.reserve(name, 0.001, 1000) is True
            assert await cbf.madd(name, ["a", "b", "a"]) == [True, True, False]
            assert await cbf.count(name, "a") == 2
            assert await cbf.delete(name, "a") is True
            assert (await cbf.info(name))["Capacity"] == 1000
            apbf = aio.apbf(client)
            assert await apbf.reserve_count(name + ":w", 0.01, 100) is True
            assert await apbf.madd(name + ":w", ["x", "y"]) == [True, True]
            assert await apbf.mexists(name + ":w", ["x", "z"]) == [True, False]
            await client.delete(name, name + ":w")
        finally:
            await client.aclose()
    run(main())
