// Lost replies, with the fault in the network: a FaultProxy (faultproxy.mjs) between a plain
// client and the real server lets the server run a request, then closes the client's
// connection before (all of) its replies got back. Bloom adds and reads are sent again; a
// cuckoo CF.INSERT or CF.DEL is not, and AmbiguousWriteError names the items whose outcome
// is unknown. Every test in RESP2 and RESP3.
import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';

import { AmbiguousWriteError, ShardedBloom, ShardedCuckoo, shardKeys, shardOf } from 'rsbloom';
import { FaultProxy } from './faultproxy.mjs';
import { NODE, PROTOCOLS, closeAll, layOut, needs, nodeClient, raw, uniqueName } from './helpers.mjs';

after(closeAll);

const ITEMS = Array.from({ length: 40 }, (_, i) => `item:${i}`);
const SHARDS = 4;

/** The positions of the first shard's items (the one reply `keep: 1` lets through) and of the rest. */
function firstShardAndRest(items, shards = SHARDS) {
  const of = items.map((x) => shardOf(x, shards));
  const first = Math.min(...of);
  return [of.flatMap((s, i) => (s === first ? [i] : [])), of.flatMap((s, i) => (s !== first ? [i] : []))];
}

let proxies = [];
afterEach(async () => {
  for (const p of proxies) await p.close();
  proxies = [];
});

async function proxied(RESP) {
  const proxy = await new FaultProxy(NODE.host, NODE.port).start();
  proxies.push(proxy);
  return [proxy, await nodeClient(RESP, { host: proxy.host, port: proxy.port })];
}

for (const RESP of PROTOCOLS) {
  describe(`node through a fault proxy, RESP${RESP}`, needs('node'), () => {
    test('a Bloom batch is resent after its replies were lost', async () => {
      const direct = await nodeClient(RESP);
      const name = uniqueName();
      await layOut(direct, 'bloom', name, SHARDS);
      const [proxy, client] = await proxied(RESP);
      const bloom = new ShardedBloom(client, name, { retryTimeout: 10_000 });
      await bloom.description();
      proxy.dropAfter('BF.INSERT', 1); // the first shard's reply arrives, no other
      const answers = await bloom.madd(ITEMS);
      assert.equal(proxy.dropped, 1);
      const [known] = firstShardAndRest(ITEMS);
      // One command per shard, then the three whose replies were lost once more.
      assert.equal(proxy.count('BF.INSERT'), SHARDS + SHARDS - 1);
      // The lost commands had run: sent again, their items answer "was there already".
      assert.deepEqual(answers, ITEMS.map((_, i) => known.includes(i)));
      const check = new ShardedBloom(direct, name);
      assert.deepEqual(await check.mexists(ITEMS), ITEMS.map(() => true));
      assert.equal(await check.card(), ITEMS.length);
    });

    test('reads are resent after their replies were lost', async () => {
      const direct = await nodeClient(RESP);
      const name = uniqueName();
      await layOut(direct, 'bloom', name, SHARDS);
      await new ShardedBloom(direct, name).madd(ITEMS.filter((_, i) => i % 2 === 0));
      const [proxy, client] = await proxied(RESP);
      const bloom = new ShardedBloom(client, name, { retryTimeout: 10_000 });
      proxy.dropAfter('HGETALL'); // the description's read
      assert.equal(await bloom.shardCount(), SHARDS);
      assert.equal(proxy.count('HGETALL'), 2);
      const probes = [...ITEMS].reverse();
      proxy.dropAfter('BF.MEXISTS', 2);
      assert.deepEqual(await bloom.mexists(probes), probes.map((p) => ITEMS.indexOf(p) % 2 === 0));
      assert.equal(proxy.dropped, 2);
      assert.equal(proxy.count('BF.MEXISTS'), SHARDS + SHARDS - 2);
      proxy.dropAfter('BF.CARD');
      assert.equal(await bloom.card(), ITEMS.length / 2);
    });

    test('a cuckoo CF.INSERT is never resent: its items are unknown, none applied twice', async () => {
      const direct = await nodeClient(RESP);
      const name = uniqueName();
      await layOut(direct, 'cuckoo', name, SHARDS);
      const [proxy, client] = await proxied(RESP);
      const cuckoo = new ShardedCuckoo(client, name, { retryTimeout: 10_000 });
      await cuckoo.description();
      proxy.dropAfter('CF.INSERT', 1);
      const err = await cuckoo.madd(ITEMS).then(() => assert.fail('no error'), (e) => e);
      assert.ok(err instanceof AmbiguousWriteError, String(err));
      const [known, lost] = firstShardAndRest(ITEMS);
      assert.equal(proxy.dropped, 1);
      assert.equal(proxy.count('CF.INSERT'), SHARDS); // never sent twice
      assert.deepEqual(err.unknown, lost);
      assert.equal(err.failed.size, 0);
      assert.deepEqual(known.map((i) => err.results[i]), known.map(() => true));
      assert.deepEqual(lost.map((i) => err.results[i]), lost.map(() => null));
      // The server ran every command once: each item is there once, none twice.
      const check = new ShardedCuckoo(direct, name);
      for (const item of ITEMS) assert.equal(await check.count(item), 1, item);
      assert.equal(await check.card(), ITEMS.length);
    });

    test('CF.DEL is never resent; CF.INSERTNX is', async () => {
      const direct = await nodeClient(RESP);
      const name = uniqueName();
      await layOut(direct, 'cuckoo', name, SHARDS);
      const check = new ShardedCuckoo(direct, name);
      const [proxy, client] = await proxied(RESP);
      const cuckoo = new ShardedCuckoo(client, name, { retryTimeout: 10_000 });
      await cuckoo.description();
      // CF.INSERTNX adds nothing twice, so it is sent again; its items then answer false.
      proxy.dropAfter('CF.INSERTNX');
      assert.deepEqual(await cuckoo.maddnx(ITEMS), ITEMS.map(() => false));
      assert.equal(proxy.count('CF.INSERTNX'), 2 * SHARDS);
      for (const item of ITEMS) assert.equal(await check.count(item), 1);
      // CF.DEL removes a copy each time: never sent twice.
      await check.add(ITEMS[0]); // a second copy
      proxy.dropAfter('CF.DEL');
      const err = await cuckoo.remove(ITEMS[0]).then(() => assert.fail('no error'), (e) => e);
      assert.ok(err instanceof AmbiguousWriteError, String(err));
      assert.deepEqual(err.unknown, [0]);
      assert.equal(proxy.count('CF.DEL'), 1);
      assert.equal(await check.count(ITEMS[0]), 1); // one copy removed, by the lost command
    });

    test('a reserve whose replies were lost goes on: its own description and shards are known by their id', async () => {
      const direct = await nodeClient(RESP);
      const [proxy, client] = await proxied(RESP);
      // The description script's reply lost: resent, it answers 0, and HGET id is ours.
      const name = uniqueName();
      const bloom = new ShardedBloom(client, name, { retryTimeout: 10_000 });
      proxy.dropAfter('EVAL');
      await bloom.reserve(0.01, 1000, { shards: SHARDS });
      assert.equal(proxy.dropped, 1);
      assert.equal(proxy.count('EVAL'), 2);
      assert.equal(proxy.count('HGET'), 1);
      const id = (await new ShardedBloom(direct, name).description()).id;
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.deepEqual(await bloom.madd(['a', 'b']), [true, true]);
      // Shard reserves' replies lost: resent, they answer "item exists", and BF.INFO's
      // Shard id says each is ours.
      const other = uniqueName();
      const cuckoo = new ShardedCuckoo(client, other, { retryTimeout: 10_000 });
      proxy.dropAfter('CF.RESERVE', 1);
      await cuckoo.reserve(1000, { shards: SHARDS });
      assert.equal(proxy.count('CF.RESERVE'), SHARDS + SHARDS - 1);
      assert.equal(proxy.count('CF.INFO'), SHARDS - 1);
      const check = new ShardedCuckoo(direct, other);
      const info = await check.info();
      assert.ok(info.shards.every((s) => s.id === info.id));
      assert.deepEqual(await cuckoo.madd(['x']), [true]);
      assert.equal(await check.count('x'), 1);
      await bloom.delete();
      await cuckoo.delete();
      for (const key of [name, other, ...shardKeys(name, SHARDS), ...shardKeys(other, SHARDS)]) assert.equal(await raw(direct, key, ['EXISTS', key]), 0);
    });
  });
}
