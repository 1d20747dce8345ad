// The Python client (clients/python) and this one agree: items one adds, the other finds, on
// the server and on the cluster. Python runs as a child process (python3 -c) with
// PYTHONPATH=clients/python/src:target/redis-py/site, in RESP2; this client in RESP2 and RESP3.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { ShardedBloom, ShardedCuckoo, shardOf } from 'rsbloom';
import { CLUSTER, NODE, PROTOCOLS, REPO, closeAll, connect, needs, uniqueName } from './helpers.mjs';

after(closeAll);

// Reads one JSON request on argv, prints one JSON answer.
const PYTHON = `
import json, sys
import redis
from redis.cluster import RedisCluster
import rsbloom
req = json.loads(sys.argv[1])
host, port = req["address"].rsplit(":", 1)
client = (RedisCluster if req["cluster"] else redis.Redis)(host=host, port=int(port), socket_timeout=10)
cls = rsbloom.ShardedBloom if req["family"] == "bloom" else rsbloom.ShardedCuckoo
f = cls(client, req["name"])
out = {}
if req.get("reserve"):
    keyed = {"keyed_routing": True} if req.get("keyed") else {}
    if req["family"] == "bloom":
        f.reserve(0.001, 10000, shards=req["reserve"], **keyed)
    else:
        f.reserve(10000, shards=req["reserve"], **keyed)
if req.get("add"):
    out["added"] = f.madd(req["add"])
if req.get("exists"):
    out["exists"] = f.mexists(req["exists"])
if req.get("count"):
    out["count"] = [f.count(x) for x in req["count"]]
out["shards"] = f.shard_count
out["description"] = f.description()
print(json.dumps(out))
`;

const run = promisify(execFile);

async function python(request) {
  const env = { ...process.env, PYTHONPATH: [join(REPO, 'clients/python/src'), join(REPO, 'target/redis-py/site')].join(':'), PYTHONDONTWRITEBYTECODE: '1' };
  const { stdout } = await run('python3', ['-c', PYTHON, JSON.stringify(request)], { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

const items = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}:${i}:caf\u00e9`);

for (const kind of ['node', 'cluster']) {
  for (const RESP of PROTOCOLS) {
    describe(`${kind}, RESP${RESP}`, needs(kind), () => {
      const where = () => ({ address: kind === 'node' ? `${NODE.host}:${NODE.port}` : `${CLUSTER.host}:${CLUSTER.port}`, cluster: kind === 'cluster' });

      test('a Bloom filter Python made: each finds what the other added', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName('crosslang');
        const fromPython = items('py', 300);
        const made = await python({ ...where(), family: 'bloom', name, reserve: 5, add: fromPython });
        assert.equal(made.added.filter(Boolean).length, 300);
        const bloom = new ShardedBloom(client, name);
        assert.deepEqual(await bloom.mexists(fromPython), fromPython.map(() => true));
        const fromNode = items('js', 300);
        assert.ok((await bloom.mexists(fromNode)).filter(Boolean).length < 5); // not there yet
        await bloom.madd(fromNode);
        const seen = await python({ ...where(), family: 'bloom', name, exists: fromNode });
        assert.deepEqual(seen.exists, fromNode.map(() => true));
        assert.equal(seen.shards, 5);
        assert.equal(await bloom.card(), 600);
        await bloom.delete();
      });

      test('a cuckoo filter Python made: each counts one copy of what the other added', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName('crosslang');
        const fromPython = items('py', 100);
        await python({ ...where(), family: 'cuckoo', name, reserve: 3, add: fromPython });
        const cuckoo = new ShardedCuckoo(client, name);
        for (const item of fromPython.slice(0, 20)) assert.equal(await cuckoo.count(item), 1);
        const fromNode = items('js', 100);
        assert.deepEqual(await cuckoo.madd(fromNode), fromNode.map(() => true));
        const seen = await python({ ...where(), family: 'cuckoo', name, count: fromNode.slice(0, 20), exists: fromNode });
        assert.deepEqual(seen.count, fromNode.slice(0, 20).map(() => 1));
        assert.deepEqual(seen.exists, fromNode.map(() => true));
        assert.equal(await cuckoo.card(), 200);
        await cuckoo.delete();
      });

      test('a Bloom filter this client made (with a creation id) is read by Python', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName('crosslang');
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.001, 10_000, { shards: 7 });
        const fromNode = items('js', 400);
        await bloom.madd(fromNode);
        const seen = await python({ ...where(), family: 'bloom', name, exists: [...fromNode, 'never:1'] });
        assert.equal(seen.shards, 7);
        assert.deepEqual(seen.exists.slice(0, 400), fromNode.map(() => true));
        const more = items('py', 50);
        await python({ ...where(), family: 'bloom', name, add: more });
        assert.deepEqual(await bloom.mexists(more), more.map(() => true));
        await bloom.delete();
      });

      test('keyed routing agrees both ways: the same secret routes alike in both clients', async () => {
        const client = await connect(kind, RESP);
        // Python makes a keyed cuckoo filter and adds; this client finds each item once.
        const pyName = uniqueName('crosslang');
        const fromPython = items('{one-tag}py', 200);
        const made = await python({ ...where(), family: 'cuckoo', name: pyName, reserve: 4, keyed: true, add: fromPython });
        assert.equal(made.description.routing, 'keyed');
        const cuckoo = new ShardedCuckoo(client, pyName);
        assert.equal((await cuckoo.info()).routing, 'keyed');
        assert.deepEqual(await cuckoo.mexists(fromPython), fromPython.map(() => true));
        for (const item of fromPython.slice(0, 20)) assert.equal(await cuckoo.count(item), 1);
        const spread = new Set(fromPython.map((x) => shardOf(x, 4, made.description.routing_secret)));
        assert.equal(spread.size, 4); // one hash tag, every shard
        // This client makes a keyed Bloom filter and adds; Python finds them all.
        const jsName = uniqueName('crosslang');
        const bloom = new ShardedBloom(client, jsName);
        await bloom.reserve(0.001, 10_000, { shards: 5, keyedRouting: true });
        const fromNode = items('{one-tag}js', 300);
        await bloom.madd(fromNode);
        const seen = await python({ ...where(), family: 'bloom', name: jsName, exists: fromNode, add: items('py', 50) });
        assert.deepEqual(seen.exists, fromNode.map(() => true));
        assert.equal(seen.description.routing_secret, (await bloom.description()).routing_secret);
        assert.deepEqual(await bloom.mexists(items('py', 50)), items('py', 50).map(() => true));
        await cuckoo.delete();
        await bloom.delete();
      });
    });
  }
}
