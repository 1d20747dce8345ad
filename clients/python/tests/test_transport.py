"""The batching transport's retries against a scripted fake server (no server needed):
a connection that fails after the commands were sent is retried for Bloom adds and reads,
never for cuckoo inserts, which report the items whose fate is unknown."""

import pytest
import redis
from redis.exceptions import ConnectionError, ResponseError, TryAgainError

import rsbloom
from rsbloom import protocol as P


class FakeServer:
    """Just enough of a server: HGETALL of descriptions, BF/CF.INSERT NOCREATE, MEXISTS.
    ``fail_reads`` replies are read before the next read fails (once); ``tryagain`` the
    number of TRYAGAIN answers to give first."""

    def __init__(self):
        self.hashes = {}
        self.sets = {}
        self.fail_reads = None
        self.tryagain = 0
        self.sent = []

    def run(self, args):
        verb = args[0].upper() if isinstance(args[0], bytes) else args[0].encode().upper()
        self.sent.append(verb)
        if self.tryagain:
            self.tryagain -= 1
            return TryAgainError("Multiple keys request during rehashing of slot")
        if verb == b"HGETALL":
            flat = []
            for k, v in self.hashes.get(args[1], {}).items():
                flat += [k.encode(), v.encode()]
            return flat
        if verb in (b"BF.INSERT", b"CF.INSERT"):
            items = self.sets.setdefault(args[1], [])
            out = []
            for item in args[4:]:
                out.append(0 if verb == b"BF.INSERT" and item in items else 1)
                items.append(item)
            return out
        if verb in (b"BF.MEXISTS", b"CF.MEXISTS"):
            return [int(i in self.sets.get(args[1], [])) for i in args[2:]]
        return ResponseError(f"ERR unknown command {verb!r}")


class FakeConnection:
    def __init__(self, server):
        self.server = server
        self.replies = []

    def pack_commands(self, commands):
        return list(commands)

    def send_packed_command(self, commands, check_health=True):
        self.replies += [self.server.run(c) for c in commands]

    def read_response(self):
        if self.server.fail_reads is not None:
            if self.server.fail_reads == 0:
                self.server.fail_reads = None
                self.replies = []
                raise ConnectionError("Connection closed by server.")
            self.server.fail_reads -= 1
        reply = self.replies.pop(0)
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    def disconnect(self):
        self.replies = []


class FakePool:
    connection_kwargs = {"host": "fake", "port": 1}

    def __init__(self, server):
        self.server = server

    def get_connection(self):
        return FakeConnection(self.server)

    def release(self, conn):
        pass


class FakeRedis:
    connection = None

    def __init__(self, server):
        self.connection_pool = FakePool(server)


def make(family, shards=4):
    server = FakeServer()
    server.hashes[b"f"] = {"protocol": P.PROTOCOL, "family": family, "shards": str(shards)}
    client = FakeRedis(server)
    cls = rsbloom.ShardedBloom if family == "bloom" else rsbloom.ShardedCuckoo
    return server, cls(client, "f", retry_timeout=2.0)


ITEMS = [f"item:{i}" for i in range(40)]


def test_bloom_batch_is_resent_after_a_lost_connection():
    server, bloom = make("bloom")
    bloom.description()
    server.fail_reads = 1  # the first shard's reply comes, then the connection drops
    answers = bloom.madd(ITEMS)
    assert server.sent.count(b"BF.INSERT") == 4 + 3  # the three lost shards resent
    # The lost attempt had run, so the resent items answer "was there already".
    first = P.shard_of(sorted(ITEMS, key=lambda i: P.shard_of(i, 4))[0], 4)
    assert answers == [P.shard_of(item, 4) == first for item in ITEMS]
    assert bloom.mexists(ITEMS) == [True] * len(ITEMS)


def test_cuckoo_insert_is_not_resent_and_reports_the_unknown_items():
    server, cuckoo = make("cuckoo")
    cuckoo.description()
    server.fail_reads = 1
    with pytest.raises(rsbloom.AmbiguousWriteError) as caught:
        cuckoo.madd(ITEMS)
    err = caught.value
    assert server.sent.count(b"CF.INSERT") == 4  # never sent twice
    first_shard = P.shard_of(sorted(ITEMS, key=lambda i: P.shard_of(i, 4))[0], 4)
    known = [i for i, item in enumerate(ITEMS) if P.shard_of(item, 4) == first_shard]
    assert err.unknown == [i for i in range(len(ITEMS)) if i not in known]
    assert [err.results[i] for i in known] == [True] * len(known)
    assert all(err.results[i] is None for i in err.unknown)
    # Every item was in fact added once (the server ran them all); nothing twice.
    assert sum(len(v) for v in server.sets.values()) == len(ITEMS)


def test_tryagain_is_retried_for_every_policy():
    server, cuckoo = make("cuckoo", shards=1)
    cuckoo.description()
    server.tryagain = 2
    assert cuckoo.madd(["a", "b", "a"]) == [True, True, True]
    assert server.sent.count(b"CF.INSERT") == 3  # two refused, one run


def test_answers_come_back_in_the_callers_order():
    server, bloom = make("bloom", shards=16)
    added = ITEMS[::3]
    bloom.madd(added)
    probes = list(reversed(ITEMS))
    assert bloom.mexists(probes) == [p in added for p in probes]


def test_unknown_protocol_and_family_are_refused():
    server, bloom = make("bloom")
    server.hashes[b"f"]["protocol"] = "rsbloom-sharding/2"
    with pytest.raises(rsbloom.UnknownProtocolError):
        bloom.exists("x")
    server, cuckoo = make("bloom")
    with pytest.raises(rsbloom.UnknownProtocolError):
        rsbloom.ShardedCuckoo(cuckoo.client, "f").exists("x")
    with pytest.raises(rsbloom.FilterNotFoundError):
        rsbloom.ShardedBloom(cuckoo.client, "missing").exists("x")


def test_a_plain_client_names_its_node():
    client = redis.Redis(host="10.0.0.9", port=7001)
    bloom = rsbloom.ShardedBloom(client, b"\xffname")
    assert bloom._transport.router.name == "10.0.0.9:7001"
    assert bloom.name == b"\xffname"
