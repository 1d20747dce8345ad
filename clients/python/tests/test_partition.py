"""The nemesis (nemesis.py) with real network partitions, on a cluster whose nodes each run
in a network namespace of their own. The Rust suite's python_client test starts that cluster
(tests/support's netns) and runs this file alone, with ``RSBLOOM_TEST_NETNS_CLUSTER`` (one
node, ``ip:port``), ``RSBLOOM_TEST_NETNS_HOSTS`` (``ip=namespace,...``) and
``RSBLOOM_TEST_NETNS_CLIENT`` (the clients' address on the bridge); the run of the other files
leaves it out.

A master is cut off from every other node and from the clients, then another from every
other node while the clients still reach it (it takes writes until it sees it is in the
minority; they reach no replica). Every acknowledged item must be found afterwards, the
cuckoo filter must hold nothing twice, no exception but a reported ambiguity may reach a
writer, and the second cut must have taken writes that no replica acknowledged (else the
partition was not what it claims)."""

import os

import redis

from conftest import _address
from nemesis import Nemesis, Network, assert_accounted


def test_every_acknowledged_item_survives_real_partitions(name):
    host, port = _address("RSBLOOM_TEST_NETNS_CLUSTER")
    hosts = dict(pair.split("=") for pair in os.environ["RSBLOOM_TEST_NETNS_HOSTS"].split(","))
    network = Network(hosts, os.environ["RSBLOOM_TEST_NETNS_CLIENT"])

    def make(remap):
        return redis.cluster.RedisCluster(host=host, port=port, socket_timeout=3, protocol=2,
                                          address_remap=remap)

    nemesis = Nemesis(make, name, network)
    reports, totals = nemesis.run([lambda: nemesis.partition(clients_keep_it=False),
                                   lambda: nemesis.partition(clients_keep_it=True)])
    assert_accounted(totals)
    assert all(r.acked > 0 for r in reports), reports
    assert reports[1].maybe > 0, reports
