"""The nemesis (nemesis.py) on the cluster the Rust suite starts, in RESP3 (the manual
failover before it ran in RESP2). Named to run last: it pauses one master past the node
timeout, loses replies in front of one, then kills one, which stays dead (the suite's
fixture reaps it when it stops the cluster).

Every acknowledged item must be found afterwards, the cuckoo filter must hold no more than
the acknowledged, unknown and unacknowledged items (nothing ran twice), and no exception but
a reported ambiguity may have reached a writer."""

import redis

from conftest import _address
from nemesis import Nemesis, assert_accounted


def test_every_acknowledged_item_survives_the_nemesis(name):
    host, port = _address("RSBLOOM_TEST_CLUSTER")

    def make(remap):
        return redis.cluster.RedisCluster(host=host, port=port, socket_timeout=5, protocol=3,
                                          address_remap=remap)

    nemesis = Nemesis(make, name)
    reports, totals = nemesis.run([nemesis.pause, nemesis.drop, nemesis.kill])
    assert_accounted(totals)
    assert all(r.acked > 0 or r.fault.startswith("master killed") for r in reports), reports
    # The lost replies were real: some cuckoo inserts' outcomes were reported unknown.
    assert totals["unknown"] > 0, totals
