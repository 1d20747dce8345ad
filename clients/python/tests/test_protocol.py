"""The protocol's pure functions against tests/vectors/sharding/vectors.json (needs no server)."""

import json
import math
import pathlib

import pytest

from rsbloom import protocol

VECTORS = pathlib.Path(__file__).resolve().parents[3] / "tests/vectors/sharding/vectors.json"


@pytest.fixture(scope="module")
def vectors():
    with open(VECTORS, encoding="utf-8") as f:
        data = json.load(f)
    assert data["protocol"] == protocol.PROTOCOL
    return data


def test_items_slots_and_shards(vectors):
    assert len(vectors["items"]) > 50
    for entry in vectors["items"]:
        raw = bytes.fromhex(entry["hex"])
        assert protocol.key_slot(raw) == entry["slot"], entry
        if "text" in entry:
            assert protocol.key_slot(entry["text"]) == entry["slot"], entry
        for count, shard in entry["shard"].items():
            assert protocol.shard_of(raw, int(count)) == shard, (entry, count)


def test_layouts(vectors):
    for layout in vectors["layouts"]:
        name = bytes.fromhex(layout["name_hex"])
        count = layout["count"]
        keys = protocol.shard_keys(name, count)
        assert len(keys) == count
        for shard in layout["shards"]:
            i = shard["index"]
            assert protocol.slot_range(i, count) == (shard["first_slot"], shard["last_slot"])
            assert protocol.tags(count)[i] == int(shard["tag"])
            key = bytes.fromhex(shard["key_hex"])
            assert protocol.shard_key(name, i, count) == key == keys[i]
            assert protocol.key_slot(key) == shard["key_slot"]
            assert protocol.shard_of(key, count) == i


def test_shard_capacity(vectors):
    for entry in vectors["shard_capacity"]:
        got = protocol.shard_capacity(entry["capacity"], entry["count"])
        assert got == entry["shard_capacity"], entry


def test_default_shards(vectors):
    def shards(entry):
        if entry["family"] == "bloom":
            return protocol.default_bloom_shards(entry["capacity"], entry["error_rate"])
        return protocol.default_cuckoo_shards(entry["capacity"], entry["bucket_size"])

    for entry in vectors["default_shards"]:
        if entry["shards"] is None:
            with pytest.raises(ValueError):
                shards(entry)
        else:
            assert shards(entry) == entry["shards"], entry


def test_every_slot_has_one_shard_and_ranges_tile():
    for count in (1, 2, 3, 7, 16, 1000, 16384):
        ranges = [protocol.slot_range(i, count) for i in range(count)]
        assert ranges[0][0] == 0 and ranges[-1][1] == protocol.SLOTS - 1
        for (_, last), (first, _) in zip(ranges, ranges[1:]):
            assert first == last + 1
        for slot in (0, 1, 5460, 5461, 8191, 8192, 16383):
            first, last = ranges[protocol.shard_of_slot(slot, count)]
            assert first <= slot <= last


def test_documented_example_and_errors():
    assert protocol.shard_keys("urls", 3) == [b"{3}urls:0", b"{1}urls:1", b"{0}urls:2"]
    assert protocol.key_slot(b"{user42}:a") == protocol.key_slot(b"{user42}:b")
    assert protocol.key_slot("caf\u00e9") == protocol.key_slot("caf\u00e9".encode())
    for bad in (0, 16385, True, 2.0):
        with pytest.raises(ValueError):
            protocol.slot_range(0, bad)
    with pytest.raises(TypeError):
        protocol.key_slot(42)
    assert protocol.shard_capacity(1, 16384) == 1
    assert math.isclose(protocol.bloom_shard_bytes(1000, 0.01), 1198.13, rel_tol=1e-4)


def test_keyed_routing(vectors):
    entries = vectors["keyed_routing"]
    assert len(entries) >= 60
    for entry in entries:
        secret, item = bytes.fromhex(entry["secret"]), bytes.fromhex(entry["hex"])
        assert protocol.keyed_slot(secret, item) == entry["slot"], entry
        for count, shard in entry["shard"].items():
            assert protocol.keyed_shard_of(secret, item, int(count)) == shard, entry
