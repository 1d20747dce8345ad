"""Where the servers are: the Rust suite (tests/suite/server/python_client.rs) starts them and
sets ``RSBLOOM_TEST_NODE`` (one server, ``host:port``) and ``RSBLOOM_TEST_CLUSTER`` (one node of
a cluster of 3 masters and 3 replicas). Tests that need a server skip when its variable is
absent; nothing here starts a server."""

import os
import uuid

import pytest
import redis
from redis.cluster import RedisCluster


def _address(var):
    value = os.environ.get(var)
    if not value:
        pytest.skip(f"{var} is not set (the Rust suite's python_client test sets it)")
    host, _, port = value.rpartition(":")
    return host or "127.0.0.1", int(port)


@pytest.fixture(scope="session")
def node_client():
    host, port = _address("RSBLOOM_TEST_NODE")
    client = redis.Redis(host=host, port=port, socket_timeout=10)
    client.ping()
    yield client
    client.close()


@pytest.fixture(scope="session")
def cluster_client():
    host, port = _address("RSBLOOM_TEST_CLUSTER")
    client = RedisCluster(host=host, port=port, socket_timeout=10)
    client.ping()
    yield client
    client.close()


@pytest.fixture(params=["node", "cluster"])
def client(request):
    """Each shared test once on the single server and once on the cluster."""
    return request.getfixturevalue(f"{request.param}_client")


@pytest.fixture
def name():
    """A logical filter name no other test uses."""
    return f"pytest:{uuid.uuid4().hex[:12]}"


@pytest.fixture
def sharding(client):
    """The client (node or cluster) for the sharded filters' tests. The module takes
    ``SHARD`` since the shards landed on main (724a1c7): a module that refuses it fails these
    tests rather than skipping them."""
    return client


@pytest.fixture
def cluster(cluster_client):
    """The cluster client, for the sharded filters' tests on the cluster."""
    return cluster_client


@pytest.fixture
def laid_out():
    """``laid_out(client, family, name, shards)``: a logical filter made with the library's
    own ``reserve()`` (the description hash at ``name``, shard ``i`` at ``{tag}name:i``,
    reserved with ``SHARD name i N``), capacity ``1000 * shards``; its shard keys. For the
    tests of the transport's retries, which concern where commands go and how often: the
    module's shard checks then also vouch that every resent command reached its own shard."""
    import rsbloom

    def make(client, family, name, shards):
        if family == "bloom":
            f = rsbloom.ShardedBloom(client, name)
            f.reserve(0.000001, 1000 * shards, shards=shards, expansion=2)
        else:
            f = rsbloom.ShardedCuckoo(client, name)
            f.reserve(1000 * shards, shards=shards)
        return f.shard_keys

    return make
