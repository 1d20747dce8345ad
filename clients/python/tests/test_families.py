"""The CBF.* and APBF.* helpers on the single server and the cluster, in RESP2 and RESP3."""

import time

import pytest
import redis

import rsbloom


@pytest.fixture
def resp(client):
    """The client (conftest runs each test in RESP2 and RESP3)."""
    return client


def test_counting_bloom(resp, name):
    cbf = rsbloom.cbf(resp)
    assert cbf.reserve(name, 0.001, 1000) is True
    with pytest.raises(redis.ResponseError, match="item exists"):
        cbf.reserve(name, 0.001, 1000)
    assert cbf.madd(name, ["s1", "s2", "s1"]) == [True, True, False]
    assert cbf.add(name, b"s3") is True
    assert cbf.count(name, "s1") == 2 and cbf.card(name) == 4
    assert cbf.mdelete(name, ["s1", "s1", "s9"]) == [True, True, False]
    assert cbf.exists(name, "s1") is False and cbf.mexists(name, ["s2", "s1"]) == [True, False]
    assert cbf.delete(name, "s2") is True and cbf.card(name) == 1
    info = cbf.info(name)
    assert info["Capacity"] == 1000 and info["Error rate"] == 0.001
    assert info["Counter bits"] == 4 and info["Number of items inserted"] == 1
    assert set(info) >= {"Size", "Number of hash functions", "Number of counters",
                         "Saturated counters"}
    assert cbf.reserve(name + ":8", 0.01, 100, counter_bits=8)
    assert cbf.info(name + ":8")["Counter bits"] == 8
    guava = cbf.export(name)
    assert isinstance(guava, bytes) and len(guava) > 8
    # SCANDUMP / LOADCHUNK round trip to a new key.
    chunks, it = [], 0
    while True:
        it, data = cbf.scandump(name, it)
        if it == 0:
            break
        chunks.append((it, data))
    copy = name + ":copy"
    for it, data in chunks:
        assert cbf.loadchunk(copy, it, data)
    assert cbf.exists(copy, "s3") and cbf.card(copy) == 1
    full = name + ":full"
    cbf.reserve(full, 0.01, 3)
    with pytest.raises(rsbloom.FilterFullError) as caught:
        cbf.madd(full, ["a", "b", "c", "d", "e"])
    assert caught.value.results[:3] == [True, True, True] and caught.value.refused == [3, 4]
    for key in (name, name + ":8", copy, full):
        resp.delete(key)


def test_sliding_window(resp, name):
    apbf = rsbloom.apbf(resp)
    assert apbf.reserve_count(name, 0.01, 1000)
    assert apbf.reserve_time(name + ":t", 0.001, 1000, 86400)
    assert apbf.reserve(name + ":h", "time", 0.01, 100, span=0.5)
    with pytest.raises(ValueError):
        apbf.reserve(name + ":bad", "time", 0.01, 100)
    assert apbf.add(name, "item:42") is True and apbf.add(name, "item:42") is False
    assert apbf.madd(name, ["a", "b", "a"]) == [True, True, False]
    assert apbf.mexists(name, ["item:42", "item:43"]) == [True, False]
    assert apbf.exists(name, "a") is True
    now = int(time.time() * 1000)
    assert apbf.insertat(name + ":t", now, ["x", "y"]) == [True, True]
    assert apbf.exists(name + ":t", "x")
    info = apbf.info(name)
    assert info["Window"] == "count" and info["Capacity"] == 1000
    assert info["Number of items inserted"] == 5 and info["Error rate"] == 0.01
    tinfo = apbf.info(name + ":t")
    assert tinfo["Window"] == "time" and tinfo["Span"] == 86400
    assert "Burst layers" in tinfo and "Refused adds" in tinfo
    chunks, it = [], 0
    while True:
        it, data = apbf.scandump(name, it)
        if it == 0:
            break
        chunks.append((it, data))
    for it, data in chunks:
        assert apbf.loadchunk(name + ":copy", it, data)
    assert apbf.mexists(name + ":copy", ["item:42", "zz"]) == [True, False]
    for key in (name, name + ":t", name + ":h", name + ":copy"):
        resp.delete(key)
