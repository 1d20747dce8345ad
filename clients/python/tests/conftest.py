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


_shard_support = {}


def require_shard(client):
    """Skips unless the module takes ``SHARD`` (an rsbloom from before sharding does not)."""
    from rsbloom import protocol

    key = id(client)
    if key not in _shard_support:
        probe = protocol.shard_key("pytest:probe", 0, 1)
        try:
            client.execute_command("BF.RESERVE", probe, 0.01, 10, "SHARD", "pytest:probe", 0, 1)
            _shard_support[key] = None
        except redis.ResponseError as e:
            _shard_support[key] = str(e)
        client.delete(probe)
    if _shard_support[key] is not None:
        pytest.skip(f"the module does not take SHARD: {_shard_support[key]}")


@pytest.fixture
def sharding(client):
    """The client (node or cluster), once the module is known to take ``SHARD``."""
    require_shard(client)
    return client


@pytest.fixture
def cluster(cluster_client):
    """The cluster client, once the module is known to take ``SHARD``."""
    require_shard(cluster_client)
    return cluster_client


@pytest.fixture
def laid_out():
    """``laid_out(client, family, name, shards)``: a logical filter as ``rsbloom-sharding/1``
    lays it out (the description hash at ``name``, shard ``i`` at ``{tag}name:i``), its shards
    reserved with plain ``BF.RESERVE`` / ``CF.RESERVE``, without ``SHARD``: for the tests of
    the transport's retries, which concern where commands go and how often, not the module's
    shard checks (test_sharded.py has those)."""
    from rsbloom import protocol

    def make(client, family, name, shards):
        fields = {"protocol": protocol.PROTOCOL, "family": family, "shards": shards}
        keys = protocol.shard_keys(name, shards)
        each = protocol.shard_capacity(1000 * shards, shards)
        fields.update(capacity=1000 * shards, shard_capacity=each)
        if family == "bloom":
            fields.update(error_rate="0.000001", expansion=2)
            for key in keys:
                client.execute_command("BF.RESERVE", key, "0.000001", each)
        else:
            fields.update(expansion=1, bucket_size=2, max_iterations=20)
            for key in keys:
                client.execute_command("CF.RESERVE", key, each)
        client.hset(name, mapping=fields)
        return keys

    return make
