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


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def protocol(request):
    """Every test that talks to a server runs once in RESP2 and once in RESP3, each right
    after the other (a function-scoped parameter keeps the files' order: the tests that
    break the cluster run last)."""
    return request.param


def node_at(protocol, **kwargs):
    """A new plain client of the single server in that protocol."""
    host, port = _address("RSBLOOM_TEST_NODE")
    kwargs.setdefault("socket_timeout", 10)
    return redis.Redis(host=host, port=port, protocol=protocol, **kwargs)


def cluster_at(protocol):
    """A new cluster client in that protocol (for the tests that break the cluster, which
    run once, each in one protocol: see test_zz_cluster_topology.py)."""
    host, port = _address("RSBLOOM_TEST_CLUSTER")
    return RedisCluster(host=host, port=port, socket_timeout=10, protocol=protocol)


@pytest.fixture(scope="session")
def _clients():
    """One client per (kind, protocol), made when first asked for, closed at the end."""
    made = {}
    yield made
    for client in made.values():
        client.close()


def _client(clients, kind, protocol):
    if (kind, protocol) not in clients:
        client = node_at(protocol) if kind == "node" else cluster_at(protocol)
        client.ping()
        clients[kind, protocol] = client
    return clients[kind, protocol]


@pytest.fixture
def node_client(_clients, protocol):
    return _client(_clients, "node", protocol)


@pytest.fixture
def cluster_client(_clients, protocol):
    return _client(_clients, "cluster", protocol)


@pytest.fixture(params=["node", "cluster"])
def client(request, _clients, protocol):
    """Each shared test once on the single server and once on the cluster."""
    return _client(_clients, request.param, protocol)


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
