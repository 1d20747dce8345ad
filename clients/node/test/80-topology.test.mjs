// A slot moved under load: a writer adds batches while one shard's slot migrates between
// masters (CLUSTER SETSLOT IMPORTING / MIGRATING, MIGRATE, SETSLOT NODE), through ASK and
// then MOVED. Every acknowledged item is found afterwards, a cuckoo item is stored once.
// Named to run late: it changes which master owns slots. Each family in RESP2 and RESP3.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { AmbiguousWriteError, BatchError, Command, FilterFullError, ShardedBloom, ShardedCuckoo, Transport, keySlot, shardKey, shardOf } from 'rsbloom';
import { FaultProxy } from './faultproxy.mjs';
import { CLUSTER, PROTOCOLS, closeAll, clusterClient, direct, layOut, needs, nodeClient, quiet, uniqueName } from './helpers.mjs';
import { createCluster } from 'redis';

after(closeAll);

async function calls(conn, command) {
  const text = String(await conn.sendCommand(['INFO', 'commandstats']));
  const m = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(text);
  return m ? Number(m[1]) : 0;
}

for (const RESP of PROTOCOLS) {
  for (const family of ['bloom', 'cuckoo']) {
    describe(`cluster, ${family}, RESP${RESP}`, needs('cluster'), () => {
      test('a batch follows a slot migration while a writer runs', async () => {
        const client = await clusterClient(RESP);
        const name = uniqueName();
        await layOut(client, family, name, 3, 30_000);
        const Filter = family === 'bloom' ? ShardedBloom : ShardedCuckoo;
        const f = new Filter(client, name, { retryTimeout: 20_000 });
        const items = Array.from({ length: 900 }, (_, i) => `m${i}`);
        await f.madd(items.slice(0, 300));

        // The writer: its own client, batches of 100 new items until told to stop.
        const writer = new Filter(await clusterClient(RESP), name, { retryTimeout: 20_000 });
        const acked = [];
        const raised = [];
        let stop = false;
        const writing = (async () => {
          for (let n = 0; !stop; n++) {
            const batch = Array.from({ length: 100 }, (_, i) => `w${n}:${i}`);
            try {
              const got = await writer.madd(batch);
              if (family === 'cuckoo') assert.deepEqual(got, batch.map(() => true));
              acked.push(...batch);
            } catch (e) {
              raised.push(e);
            }
          }
        })();

        const key = shardKey(name, 0, 3);
        const slot = keySlot(key);
        const source = client.slots[slot].master.address;
        const target = client.masters.map((m) => m.address).find((a) => a !== source);
        const src = await direct(source);
        const dst = await direct(target);
        const others = await Promise.all(client.masters.map((m) => m.address).filter((a) => a !== source && a !== target).map((a) => direct(a)));
        const srcId = String(await src.sendCommand(['CLUSTER', 'MYID']));
        const dstId = String(await dst.sendCommand(['CLUSTER', 'MYID']));
        await dst.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', srcId]);
        await src.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', dstId]);
        try {
          // Migrating, the key still on the source: answered there.
          const during = await f.madd(items.slice(300, 600));
          if (family === 'cuckoo') assert.deepEqual(during, items.slice(300, 600).map(() => true));
          // Every key of the slot moves (other filters' shards share the tag, hence the slot).
          const keys = await src.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '100000']);
          const [host, port] = [target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)];
          await src.sendCommand(['MIGRATE', host, port, '', '0', '5000', 'KEYS', ...keys]);
          // The key is on the target, the slot still the source's: the source answers ASK.
          const before = await calls(dst, 'asking');
          const asked = await f.madd(items.slice(600));
          assert.ok((await calls(dst, 'asking')) > before, 'ASKING reached the target');
          if (family === 'cuckoo') assert.deepEqual(asked, items.slice(600).map(() => true));
          for (const conn of [dst, src, ...others]) await conn.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'NODE', dstId]);
        } catch (e) {
          for (const conn of [src, dst]) await conn.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'STABLE']).catch(() => {});
          throw e;
        } finally {
          // A few batches more after the move, then the writer stops.
          const seen = acked.length;
          for (let i = 0; i < 100 && acked.length < seen + 300 && raised.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
          stop = true;
          await writing;
        }
        assert.deepEqual(raised.map(String), []);
        assert.ok(acked.length >= 300, `${acked.length} acknowledged`);
        // The client's map still names the source: MOVED, reread, target.
        assert.deepEqual(await f.mexists(items), items.map(() => true));
        assert.deepEqual(await f.mexists(acked), acked.map(() => true));
        const info = await f.info();
        assert.equal(info.shards[0].node, target);
        if (family === 'cuckoo') {
          for (const item of items.filter((x) => shardOf(x, 3) === 0)) assert.equal(await f.count(item), 1, item);
          for (const item of acked.filter((x) => shardOf(x, 3) === 0).slice(0, 200)) assert.equal(await f.count(item), 1, item);
          assert.equal(await f.card(), items.length + acked.length); // nothing added twice
        }
        await f.delete();
      });
    });
  }
}

for (const RESP of PROTOCOLS) {
  describe(`cluster, TRYAGAIN, RESP${RESP}`, needs('cluster'), () => {
    // A multi-key command on the node migrating its slot, one key moved and one not, is
    // refused with TRYAGAIN (the server did not run it). The proxy sees that reply go by and,
    // before the client gets it, ends the migration (the moved key back, the slot stable):
    // the transport's resend then gets both values. The library's own commands have one key
    // each, so this drives the transport with an MGET.
    test('TRYAGAIN during a slot migration is sent again', async () => {
      const client = await clusterClient(RESP);
      const tag = uniqueName('tryagain');
      const [ka, kb] = [`{${tag}}a`, `{${tag}}b`];
      await client.set(ka, '1');
      await client.set(kb, '2');
      const slot = String(keySlot(ka));
      const source = client.slots[keySlot(ka)].master.address;
      const target = client.masters.map((m) => m.address).find((a) => a !== source);
      const split = (a) => [a.slice(0, a.lastIndexOf(':')), a.slice(a.lastIndexOf(':') + 1)];
      const src = await direct(source);
      const dst = await direct(target);
      const srcId = String(await src.sendCommand(['CLUSTER', 'MYID']));
      const dstId = String(await dst.sendCommand(['CLUSTER', 'MYID']));
      const endTheMigration = async () => {
        // The source stable first (migrating, it would answer the key's RESTORE with ASK);
        // the target, still importing, serves the MIGRATE back after ASKING on one connection.
        await src.sendCommand(['CLUSTER', 'SETSLOT', slot, 'STABLE']);
        await Promise.all([dst.sendCommand(['ASKING']), dst.sendCommand(['MIGRATE', ...split(source), '', '0', '5000', 'KEYS', kb])]);
        await dst.sendCommand(['CLUSTER', 'SETSLOT', slot, 'STABLE']);
      };
      await dst.sendCommand(['CLUSTER', 'SETSLOT', slot, 'IMPORTING', srcId]);
      await src.sendCommand(['CLUSTER', 'SETSLOT', slot, 'MIGRATING', dstId]);
      try {
        await src.sendCommand(['MIGRATE', ...split(target), '', '0', '5000', 'KEYS', kb]);
        await assert.rejects(src.sendCommand(['MGET', ka, kb]), { message: /^TRYAGAIN/ }); // the condition, seen directly
        const proxy = await new FaultProxy(...split(source)).start();
        try {
          proxy.onReply('TRYAGAIN', endTheMigration);
          const via = await nodeClient(RESP, { host: proxy.host, port: proxy.port });
          const cmd = new Command(Buffer.from(ka), ['MGET', ka, kb]);
          await new Transport(via, 10_000).run([cmd]);
          assert.equal(cmd.error, undefined, String(cmd.error));
          assert.deepEqual(cmd.reply.map(String), ['1', '2']);
          assert.equal(proxy.hooked, 1);
          assert.equal(proxy.count('MGET'), 2);
        } finally {
          await proxy.close();
        }
      } finally {
        for (const conn of [src, dst]) await conn.sendCommand(['CLUSTER', 'SETSLOT', slot, 'STABLE']);
      }
      assert.equal(await src.sendCommand(['EXISTS', ka, kb]), 2);
      assert.equal(await dst.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', slot]), 0);
      await client.del([ka, kb]);
    });
  });
}

// The ACL rules docs/sharding.md gives a user of the sharded filters (reads, writes, reserve
// and delete), plus what node-redis' cluster client needs (CLUSTER SLOTS).
const SHARDED_USER = ['-@all', '+bf.insert', '+bf.mexists', '+bf.card', '+bf.info', '+bf.reserve', '+cf.insert',
  '+cf.insertnx', '+cf.mexists', '+cf.count', '+cf.del', '+cf.info', '+cf.reserve', '+hgetall', '+hmget', '+hget',
  '+hset', '+exists', '+eval', '+del', '+asking', '+cluster|slots'];

for (const RESP of PROTOCOLS) {
  for (const asking of [true, false]) {
    describe(`cluster, a restricted user ${asking ? 'with' : 'without'} +asking, RESP${RESP}`, needs('cluster'), () => {
      // With only the documented rules a user follows an ASK and a MOVED; without +asking,
      // the ASK'd shard's items fail with NOPERM (nothing else does), and no reply is ever
      // paired with another command: every answer after the migration is exact.
      test('through a slot migration', async () => {
        const admin = await clusterClient(RESP);
        const name = uniqueName();
        const user = `rs${name.slice(-8)}`;
        const rules = SHARDED_USER.filter((r) => asking || r !== '+asking');
        const everyNode = [...admin.masters, ...admin.replicas].map((n) => n.address);
        for (const address of everyNode) await (await direct(address)).sendCommand(['ACL', 'SETUSER', user, 'on', '>pw', '~*', 'resetchannels', ...rules]);
        const client = quiet(createCluster({ rootNodes: [{ socket: { host: CLUSTER.host, port: CLUSTER.port } }], defaults: { username: user, password: 'pw' }, RESP }));
        try {
          await client.connect();
          const f = new ShardedCuckoo(client, name, { retryTimeout: 5_000 });
          await f.reserve(3000, { shards: 3 });
          const items = Array.from({ length: 900 }, (_, i) => `a${i}`);
          await f.madd(items.slice(0, 300));
          const slot = keySlot(shardKey(name, 0, 3));
          const source = admin.slots[slot].master.address;
          const target = admin.masters.map((m) => m.address).find((a) => a !== source);
          const src = await direct(source);
          const dst = await direct(target);
          const others = await Promise.all(admin.masters.map((m) => m.address).filter((a) => a !== source && a !== target).map((a) => direct(a)));
          const srcId = String(await src.sendCommand(['CLUSTER', 'MYID']));
          const dstId = String(await dst.sendCommand(['CLUSTER', 'MYID']));
          await dst.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', srcId]);
          await src.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', dstId]);
          const on0 = Array.from({ length: 300 }, (_, i) => i).filter((i) => shardOf(items[300 + i], 3) === 0);
          try {
            const keys = await src.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '100000']);
            await src.sendCommand(['MIGRATE', ...[target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)], '', '0', '5000', 'KEYS', ...keys]);
            if (asking) {
              assert.deepEqual(await f.madd(items.slice(300, 600)), items.slice(300, 600).map(() => true));
            } else {
              const err = await f.madd(items.slice(300, 600)).then(() => assert.fail('no error'), (e) => e);
              assert.ok(err instanceof BatchError && !(err instanceof FilterFullError) && !(err instanceof AmbiguousWriteError), String(err));
              assert.deepEqual([...err.failed.keys()], on0);
              assert.deepEqual(err.unknown, []);
              assert.ok([...err.failed.values()].every((e) => /NOPERM|permission/i.test(e.message)), String([...err.failed.values()][0]));
              for (let i = 0; i < 300; i++) assert.equal(err.results[i], on0.includes(i) ? null : true);
            }
            for (const conn of [dst, src, ...others]) await conn.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'NODE', dstId]);
          } catch (e) {
            for (const conn of [src, dst]) await conn.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'STABLE']).catch(() => {});
            throw e;
          }
          // MOVED now; every answer is its own item's.
          const refused = new Set(asking ? [] : on0.map((i) => items[300 + i]));
          const added = new Set(items.slice(0, 600).filter((x) => !refused.has(x)));
          const probes = [...items.slice(0, 600), ...Array.from({ length: 300 }, (_, i) => `never${i}`)];
          assert.deepEqual(await f.mexists(probes), probes.map((p) => added.has(p)));
          assert.equal(await f.card(), added.size);
          await f.delete();
        } finally {
          await client.close().catch(() => {});
          for (const address of everyNode) await (await direct(address)).sendCommand(['ACL', 'DELUSER', user]);
        }
      });
    });
  }
}
