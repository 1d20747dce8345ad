// ShardedBloom and ShardedCuckoo on the real server and the real cluster the Rust suite
// starts, every test in RESP2 and RESP3.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import {
  AmbiguousWriteError, BatchError, FilterExistsError, FilterFullError, FilterNotFoundError, ShardFullError, ShardedBloom, ShardedCuckoo,
  UnknownProtocolError, defaultBloomShards, keySlot, shardCapacity, shardKey, shardKeys, shardOf, slotRange,
} from 'rsbloom';
import { PROTOCOLS, closeAll, connect, layOut, needs, raw, uniqueName } from './helpers.mjs';

after(closeAll);

/** n never-added probes, different per seed. */
const probes = (n, seed) => Array.from({ length: n }, (_, i) => `never:${seed}:${i}:${(i * 2654435761) % 1000003}`);

/** A deterministic shuffle (a linear congruential generator). */
function shuffled(list, seed) {
  const out = [...list];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const masterAddresses = (client) => (typeof client.nodeClient === 'function' ? new Set(client.masters.map((m) => m.address)) : undefined);

for (const kind of ['node', 'cluster']) {
  for (const RESP of PROTOCOLS) {
    describe(`${kind}, RESP${RESP}`, needs(kind), () => {
      test('bloom: 10,000 items, their error rate, info and delete', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.01, 10_000, { shards: 16 });
        const items = Array.from({ length: 10_000 }, (_, i) => `url:${i}`);
        const added = await bloom.madd(items);
        assert.equal(added.length, items.length);
        assert.ok(added.filter(Boolean).length > 9_900); // false: a false positive
        assert.ok((await bloom.mexists(items)).every((x) => x === true));
        assert.equal(await bloom.card(), added.filter(Boolean).length);
        // 100,000 never-added probes: 1.1 x 1 % is 3.2 standard deviations above 1,000.
        const found = (await bloom.mexists(probes(100_000, 1))).filter(Boolean).length;
        assert.ok(found / 100_000 <= 0.011, `false-positive rate ${found / 100_000}`);
        const info = await bloom.info();
        assert.equal(info.family, 'bloom');
        assert.equal(info.shardCount, 16);
        assert.equal(info.capacity, 10_000);
        assert.equal(info.errorRate, 0.01);
        assert.equal(info.shardCapacity, shardCapacity(10_000, 16));
        assert.match(info.id, /^[0-9a-f]{32}$/);
        assert.equal(info.routing, 'slot');
        assert.deepEqual(info.shards.map((s) => s.index), [...Array(16).keys()]);
        assert.deepEqual(info.shards.map((s) => s.key.toString()), shardKeys(name, 16).map(String));
        assert.deepEqual(info.shards.map((s) => s.slots), info.shards.map((s) => slotRange(s.index, 16)));
        assert.equal(info.shards.reduce((n, s) => n + s.items, 0), await bloom.card());
        assert.ok(info.shards.every((s) => s.size > 0 && s.id === info.id));
        const masters = masterAddresses(client);
        if (masters) {
          assert.deepEqual(new Set(info.shards.map((s) => s.node)), masters); // spread over all three
          for (const s of info.shards) assert.equal(client.slots[keySlot(s.key)].master.address, s.node);
        } else {
          assert.ok(info.shards.every((s) => s.node === `${client.options.socket.host}:${client.options.socket.port}`));
        }
        assert.equal(await bloom.delete(), true);
        assert.equal(await bloom.delete(), false);
        for (const key of [name, ...shardKeys(name, 16)]) assert.equal(await raw(client, key, ['EXISTS', key]), 0);
      });

      test('cuckoo: 10,000 items, counts, removes, addnx', async () => {
        const client = await connect(kind, RESP);
        const cuckoo = new ShardedCuckoo(client, uniqueName());
        await cuckoo.reserve(10_000, { shards: 16, bucketSize: 4 });
        const items = Array.from({ length: 10_000 }, (_, i) => `user:${i}`);
        assert.ok((await cuckoo.madd(items)).every((x) => x === true));
        assert.ok((await cuckoo.mexists(items)).every((x) => x === true));
        assert.equal(await cuckoo.card(), items.length);
        const expected = (2 * 4) / 255; // about 2 x bucket size / 255, the fingerprint's rate
        const found = (await cuckoo.mexists(probes(50_000, 2))).filter(Boolean).length;
        assert.ok(found / 50_000 <= 1.1 * expected, `rate ${found / 50_000}`);
        // CF.INSERT: a duplicate is another copy; remove takes one away.
        assert.equal(await cuckoo.add('user:7'), true);
        assert.equal(await cuckoo.count('user:7'), 2);
        assert.equal(await cuckoo.remove('user:7'), true);
        assert.equal(await cuckoo.remove('user:7'), true);
        assert.equal(await cuckoo.count('user:7'), 0);
        assert.equal(await cuckoo.remove('user:7'), false);
        assert.deepEqual(await cuckoo.maddnx(['user:8', 'fresh']), [false, true]);
        assert.equal(await cuckoo.addnx('fresh'), false);
        assert.equal(await cuckoo.card(), items.length); // + user:7 again + fresh - two removes
        const info = await cuckoo.info();
        assert.equal(info.family, 'cuckoo');
        assert.equal(info.bucketSize, 4);
        assert.equal(info.maxIterations, 20);
        assert.equal(info.expansion, 1);
        assert.ok(info.shards.every((s) => s.info['Bucket size'] === 4));
        const masters = masterAddresses(client);
        if (masters) assert.deepEqual(new Set(info.shards.map((s) => s.node)), masters);
        assert.equal(await cuckoo.delete(), true);
        for (const key of shardKeys(cuckoo.name, 16)) assert.equal(await raw(client, key, ['EXISTS', key]), 0);
      });

      test("answers come in the caller's order, bytes and text alike", async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.001, 1000, { shards: 5 });
        const items = shuffled([...Array.from({ length: 300 }, (_, i) => `k${i}`), Buffer.from([0, 0xff]), 'caf\u00e9', '{tag}a', '{tag}b'], 3);
        const added = items.filter((_, i) => i % 2 === 0);
        await bloom.madd(added);
        const expected = items.map((x) => added.includes(x));
        assert.deepEqual(await bloom.mexists(items), expected);
        assert.equal(await bloom.exists(Buffer.from('caf\u00e9', 'utf8')), added.includes('caf\u00e9'));
        const cuckoo = new ShardedCuckoo(client, `${name}:cf`);
        await cuckoo.reserve(1000, { shards: 7 });
        assert.deepEqual(await cuckoo.madd(added), added.map(() => true));
        assert.deepEqual(await cuckoo.mexists(items), expected);
        await bloom.delete();
        await cuckoo.delete();
      });

      test('a second client opens the filter by name; other families and protocols are refused', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const first = new ShardedBloom(client, name);
        await first.reserve(0.01, 5000, { shards: 3, expansion: 4 });
        await first.madd(['a', 'b']);
        const second = new ShardedBloom(client, name);
        assert.deepEqual(await second.mexists(['a', 'b', 'c']), [true, true, false]);
        assert.equal(await second.shardCount(), 3);
        assert.equal((await second.description()).expansion, '4');
        assert.equal(await second.add('c'), true);
        assert.equal(await first.exists('c'), true);
        assert.equal(await second.card(), 3);
        await assert.rejects(new ShardedCuckoo(client, name).exists('a'), UnknownProtocolError);
        await second.delete();
        await assert.rejects(first.description(true), FilterNotFoundError);
        await assert.rejects(first.add('x'), FilterNotFoundError);
        const other = uniqueName();
        await raw(client, other, ['HSET', other, 'protocol', 'rsbloom-sharding/9', 'family', 'bloom', 'shards', '4']);
        await assert.rejects(new ShardedBloom(client, other).exists('a'), UnknownProtocolError);
        await raw(client, other, ['HSET', other, 'protocol', 'rsbloom-sharding/1', 'routing', 'rot13']);
        await assert.rejects(new ShardedBloom(client, other).exists('a'), UnknownProtocolError);
        await raw(client, other, ['DEL', other]);
      });

      test('a reserve of a taken name is refused and changes nothing', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.01, 1000, { shards: 4 });
        await assert.rejects(new ShardedBloom(client, name).reserve(0.05, 99, { shards: 8 }), (e) => e instanceof FilterExistsError && /item exists/.test(e.message));
        await assert.rejects(new ShardedCuckoo(client, name).reserve(1000, { shards: 2 }), FilterExistsError);
        assert.equal((await bloom.description(true)).shards, '4');
        await bloom.delete();
        await raw(client, name, ['SET', name, 'a plain string']);
        await assert.rejects(bloom.reserve(0.01, 1000, { shards: 2 }), FilterExistsError);
        assert.equal(String(await raw(client, name, ['GET', name])), 'a plain string');
        await raw(client, name, ['DEL', name]);
      });

      test('reserve records the creation id in the description and in every shard', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.001, 50_000, { nonscaling: true }); // the default count
        const count = defaultBloomShards(50_000, 0.001);
        const desc = await bloom.description();
        assert.match(desc.id, /^[0-9a-f]{32}$/);
        assert.deepEqual(desc, {
          protocol: 'rsbloom-sharding/1', family: 'bloom', shards: String(count), capacity: '50000',
          shard_capacity: String(shardCapacity(50_000, count)), error_rate: '0.001', expansion: '0', id: desc.id,
        });
        for (const shard of (await bloom.info()).shards) {
          assert.equal(shard.info['Shard of'], name);
          assert.equal(shard.info.Shard, shard.index);
          assert.equal(shard.info.Shards, count);
          assert.equal(String(shard.info['Shard slots']), `${shard.slots[0]}-${shard.slots[1]}`);
          assert.equal(shard.info['Shard id'], desc.id);
        }
        // Two reserves never share an id.
        const other = new ShardedBloom(client, `${name}:2`);
        await other.reserve(0.001, 100, { shards: 2 });
        assert.notEqual((await other.description()).id, desc.id);
        await bloom.delete();
        await other.delete();
      });

      test('a failed reserve removes what it made and leaves a foreign shard key alone', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const foreign = shardKey(name, 2, 4);
        await raw(client, foreign, ['BF.RESERVE', foreign, '0.01', '100']); // a plain filter in the way
        await raw(client, foreign, ['BF.ADD', foreign, 'mine']);
        await assert.rejects(new ShardedBloom(client, name).reserve(0.01, 1000, { shards: 4 }), (e) => e instanceof FilterExistsError && e.message.includes(foreign.toString()));
        assert.equal(await raw(client, name, ['EXISTS', name]), 0); // the description is gone
        for (const [i, key] of shardKeys(name, 4).entries()) assert.equal(await raw(client, key, ['EXISTS', key]), i === 2 ? 1 : 0);
        assert.ok([1, true].includes(await raw(client, foreign, ['BF.EXISTS', foreign, 'mine'])));
        await raw(client, foreign, ['DEL', foreign]);
      });

      test('a description without an id (an older client) is opened and used', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        await layOut(client, 'bloom', name, 3);
        const bloom = new ShardedBloom(client, name);
        assert.deepEqual(await bloom.madd(['x', 'y']), [true, true]);
        assert.deepEqual(await bloom.mexists(['x', 'y', 'z']), [true, true, false]);
        const info = await bloom.info();
        assert.equal(info.id, undefined);
        assert.ok(info.shards.every((s) => s.id === undefined));
        assert.equal(await bloom.delete(), true);
      });

      test('a lost shard is never recreated: its positions fail, the others stand', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        await layOut(client, 'bloom', name, 2);
        const bloom = new ShardedBloom(client, name, { retryTimeout: 300 });
        const lost = shardKey(name, 1, 2);
        await raw(client, lost, ['DEL', lost]);
        const items = Array.from({ length: 50 }, (_, i) => `i${i}`);
        const err = await bloom.madd(items).then(() => assert.fail('no error'), (e) => e);
        assert.ok(err instanceof BatchError && !(err instanceof FilterFullError), String(err));
        for (const [i, item] of items.entries()) {
          if (shardOf(item, 2) === 1) {
            assert.match(err.failed.get(i)?.message ?? '', /not found/);
            assert.equal(err.results[i], null);
          } else {
            assert.equal(err.failed.has(i), false);
            assert.equal(err.results[i], true);
          }
        }
        assert.deepEqual(err.unknown, []);
        assert.equal(await raw(client, lost, ['EXISTS', lost]), 0);
        await bloom.delete();
        await assert.rejects(bloom.add('x'), FilterNotFoundError);
      });

      test('a cuckoo batch error keeps every other shard\'s answer, applied once', async () => {
        const client = await connect(kind, RESP);
        const cuckoo = new ShardedCuckoo(client, uniqueName(), { retryTimeout: 300 });
        await cuckoo.reserve(4000, { shards: 4 });
        const gone = (await cuckoo.shardKeys())[2];
        await raw(client, gone, ['DEL', gone]);
        const items = Array.from({ length: 200 }, (_, i) => `i${i}`);
        const err = await cuckoo.madd(items).then(() => assert.fail('no error'), (e) => e);
        const lost = items.flatMap((x, i) => (shardOf(x, 4) === 2 ? [i] : []));
        assert.ok(err instanceof BatchError && !(err instanceof FilterFullError) && !(err instanceof AmbiguousWriteError), String(err));
        assert.deepEqual([...err.failed.keys()], lost);
        assert.deepEqual(err.unknown, []);
        assert.ok([...err.failed.values()].every((e) => /not found/.test(e.message)));
        assert.deepEqual(err.results.map((r) => r === null), items.map((_, i) => lost.includes(i)));
        const kept = items.filter((_, i) => !lost.includes(i));
        assert.ok(err.results.every((r, i) => lost.includes(i) || r === true));
        for (const item of kept.slice(0, 40)) assert.equal(await cuckoo.count(item), 1);
        await cuckoo.delete();
      });

      test('a filter deleted under a reader is not found', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const a = new ShardedBloom(client, name);
        await a.reserve(0.01, 1000, { shards: 3 });
        await a.madd(['x', 'y']);
        assert.equal(await new ShardedBloom(client, name).delete(), true);
        await assert.rejects(a.mexists(['x', 'y']), FilterNotFoundError);
        await assert.rejects(a.card(), FilterNotFoundError);
      });

      test('the module refuses a misrouted item', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        await layOut(client, 'bloom', name, 4);
        const key0 = shardKey(name, 0, 4);
        const stray = Array.from({ length: 1000 }, (_, i) => `x${i}`).find((x) => shardOf(x, 4) === 2);
        await assert.rejects(raw(client, key0, ['BF.INSERT', key0, 'NOCREATE', 'ITEMS', stray]), /wrong shard/);
        await assert.rejects(raw(client, key0, ['BF.MEXISTS', key0, stray]), /wrong shard/);
        assert.equal(await new ShardedBloom(client, name).exists(stray), false);
        await new ShardedBloom(client, name).delete();
      });

      test('a full shard: FilterFullError with every answer and each refused position', async () => {
        const client = await connect(kind, RESP);
        const bloom = new ShardedBloom(client, uniqueName());
        await bloom.reserve(0.01, 10, { shards: 1, nonscaling: true });
        const each = shardCapacity(10, 1);
        const items = Array.from({ length: each + 20 }, (_, i) => `i${i}`);
        const err = await bloom.madd(items).then(() => assert.fail('no error'), (e) => e);
        assert.ok(err instanceof FilterFullError, String(err));
        assert.ok(err.failed.size >= 20 && err.failed.size < items.length, `${err.failed.size} refused`);
        assert.deepEqual(err.unknown, []);
        for (let i = 0; i < items.length; i++) {
          if (err.failed.has(i)) {
            assert.equal(err.results[i], null);
            assert.ok(err.failed.get(i) instanceof ShardFullError);
          } else {
            assert.equal(typeof err.results[i], 'boolean');
          }
        }
        // Exactly the positions answered were added (a false answer: a false positive, there anyway).
        assert.deepEqual(await bloom.mexists(items.filter((_, i) => !err.failed.has(i))), items.filter((_, i) => !err.failed.has(i)).map(() => true));
        await bloom.delete();
        // A cuckoo shard with no room and no expansion refuses with false in RESP3, -1 in RESP2.
        const cuckoo = new ShardedCuckoo(client, uniqueName());
        await cuckoo.reserve(4, { shards: 1, expansion: 0, bucketSize: 1, maxIterations: 1 });
        const many = Array.from({ length: 64 }, (_, i) => `c${i}`);
        const cerr = await cuckoo.madd(many).then(() => assert.fail('no error'), (e) => e);
        assert.ok(cerr instanceof FilterFullError, String(cerr));
        const stored = many.filter((_, i) => cerr.results[i] === true);
        assert.equal(stored.length + cerr.failed.size, many.length);
        assert.ok(stored.length > 0 && cerr.failed.size > 0);
        for (const item of stored) assert.ok((await cuckoo.count(item)) >= 1);
        assert.equal(await cuckoo.card(), stored.length);
        await cuckoo.delete();
      });

      test('no stale answers: A keeps 16 shards cached while B makes the name anew', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const a = new ShardedBloom(client, name);
        await a.reserve(0.01, 1000, { shards: 16 });
        assert.equal(await a.exists('warm'), false); // A has read (and cached) the description
        for (const shards of [4, 16]) {
          const b = new ShardedBloom(client, name);
          assert.equal(await b.delete(), true);
          await b.reserve(0.01, 1000, { shards });
          const items = Array.from({ length: 200 }, (_, i) => `b${shards}:${i}`);
          await b.madd(items);
          // A's cached layout is gone (and, for 16, has the same count but another id).
          assert.deepEqual(await a.mexists(items), items.map(() => true), `after B reserved ${shards}`);
          assert.equal(await a.shardCount(), shards);
          assert.ok((await a.madd(['from-a']))[0]);
          assert.equal(await b.exists('from-a'), true);
        }
        await a.delete();
      });

      test('keyed routing: HMAC-routed shards that refuse aimed items', async () => {
        const client = await connect(kind, RESP);
        const name = uniqueName();
        const bloom = new ShardedBloom(client, name);
        await bloom.reserve(0.01, 4000, { shards: 4, keyedRouting: true });
        const desc = await bloom.description();
        assert.equal(desc.routing, 'keyed');
        assert.match(desc.routing_secret, /^[0-9a-f]{32}$/);
        assert.notEqual(desc.routing_secret, desc.id);
        const items = Array.from({ length: 400 }, (_, i) => `{same-tag}:${i}`); // one slot, by CRC16
        assert.ok((await bloom.madd(items)).filter(Boolean).length > 390);
        assert.deepEqual(await bloom.mexists(items), items.map(() => true));
        const info = await bloom.info();
        assert.equal(info.routing, 'keyed');
        for (const s of info.shards) {
          assert.equal(s.info['Shard routing'], 'keyed');
          assert.equal(s.info['Shard id'], desc.id);
          assert.ok(!Object.values(s.info).includes(desc.routing_secret)); // never shown
          const mine = items.filter((x) => shardOf(x, 4, desc.routing_secret) === s.index).length;
          assert.ok(s.items >= mine - 5 && s.items <= mine, `shard ${s.index}: ${s.items} of ${mine}`);
          assert.ok(mine > 50, 'the items spread over every shard');
        }
        // An item sent to a shard its keyed slot does not name is refused by the module.
        const key0 = shardKey(name, 0, 4);
        const aimed = items.find((x) => shardOf(x, 4, desc.routing_secret) !== 0 && shardOf(x, 4) === 0)
          ?? items.find((x) => shardOf(x, 4, desc.routing_secret) !== 0);
        await assert.rejects(raw(client, key0, ['BF.INSERT', key0, 'NOCREATE', 'ITEMS', aimed]), /wrong shard/);
        const cuckoo = new ShardedCuckoo(client, `${name}:cf`);
        await cuckoo.reserve(4000, { shards: 3, keyedRouting: true });
        assert.deepEqual(await cuckoo.madd(items.slice(0, 100)), items.slice(0, 100).map(() => true));
        assert.equal(await cuckoo.count(items[5]), 1);
        assert.equal(await cuckoo.remove(items[5]), true);
        assert.equal(await cuckoo.card(), 99);
        await bloom.delete();
        await cuckoo.delete();
      });
    });
  }
}
