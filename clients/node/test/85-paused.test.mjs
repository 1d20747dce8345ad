// A master paused (SIGSTOP) past the cluster's node timeout under writers of both families,
// then resumed (SIGCONT): its replica is promoted meanwhile and the old master rejoins as a
// replica. The clients' node connections have an idle timeout (node-redis' socketTimeout),
// so a command in flight to the paused master counts as a lost reply: Bloom adds are sent
// again, cuckoo adds reported unknown. Every WAIT-acknowledged item is found afterwards, no
// cuckoo item is stored twice, and no other error reaches a writer. Named to run before the
// kill test (it needs a master with a replica, and leaves one).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { AmbiguousWriteError, ShardedBloom, ShardedCuckoo, keySlot, shardOf } from 'rsbloom';
import { PROTOCOLS, closeAll, clusterClient, direct, needs, settledReplica, sleep, uniqueName, withReplica } from './helpers.mjs';

after(closeAll);

const SHARDS = 6;
const BATCH = 100;
const DEADLINE = 60_000;

for (const RESP of PROTOCOLS) {
  describe(`cluster, RESP${RESP}`, needs('cluster'), () => {
    test('writes go on through a master paused past the node timeout', { timeout: 120_000 }, async () => {
      // node-redis gives up on a connection after its idle timeout unless told to reconnect.
      const socket = { socketTimeout: 3000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) };
      const client = await clusterClient(RESP, { socket });
      const name = uniqueName();
      const bloom = new ShardedBloom(client, name, { retryTimeout: 30_000 });
      const cuckoo = new ShardedCuckoo(client, `${name}:cf`, { retryTimeout: 30_000 });
      await bloom.reserve(0.000001, 20_000 * SHARDS, { shards: SHARDS });
      await cuckoo.reserve(20_000 * SHARDS, { shards: SHARDS });
      // The same shard count puts both filters' shard i in one slot: one WAIT covers both.
      const keys = await bloom.shardKeys();
      const masters = [...new Set(keys.map((k) => client.slots[keySlot(k)].master.address))];
      const [victimAddress, victim] = await withReplica(masters);
      const victimId = String(await victim.sendCommand(['CLUSTER', 'MYID']));
      const live = [...client.masters, ...client.replicas].map((n) => n.address).filter((a) => a !== victimAddress);
      const replicaPort = await settledReplica(victim, victimId, live);
      const replicaAddress = `${victimAddress.slice(0, victimAddress.lastIndexOf(':'))}:${replicaPort}`;
      const pid = Number(/process_id:(\d+)/.exec(String(await victim.sendCommand(['INFO', 'server'])))[1]);
      const replica = await direct(replicaAddress);
      const conns = new Map();
      let stopped = false;

      // The items whose shard's master (per the client's map) has them on a replica.
      async function acknowledged(batch) {
        const byNode = new Map();
        keys.forEach((key, shard) => {
          const address = client.slots[keySlot(key)].master.address;
          if (!byNode.has(address)) byNode.set(address, []);
          byNode.get(address).push(shard);
        });
        const shards = new Set();
        for (const [address, onIt] of byNode) {
          if (stopped && address === victimAddress) continue; // it cannot answer
          try {
            if (!conns.has(address)) conns.set(address, await direct(address));
            const conn = conns.get(address);
            const role = await conn.sendCommand(['ROLE']);
            if (String(role[0]) !== 'master' || role[2].length === 0) continue;
            const tag = keys[onIt[0]].toString().split('}')[0] + '}';
            const [, replicas] = await Promise.all([conn.sendCommand(['INCR', `${tag}${name}:ack`]), conn.sendCommand(['WAIT', '1', '2000'])]);
            if (replicas >= 1) onIt.forEach((s) => shards.add(s));
          } catch {
            // not the slot's master any more, or unreachable: not acknowledged
          }
        }
        return batch.filter((item) => shards.has(shardOf(item, SHARDS)));
      }

      const acked = { bloom: [], cuckoo: [] };
      const written = { bloom: [], cuckoo: [] };
      const unknown = [];
      const raised = [];
      let promoted = false;
      let resumedAt;
      let n = 0;
      const start = Date.now();
      try {
        while (resumedAt === undefined || n < resumedAt + 3) {
          assert.ok(Date.now() - start < DEADLINE, `no promotion and resume in ${DEADLINE} ms: stopped=${stopped}, promoted=${promoted}, errors: ${raised.slice(0, 3)}`);
          const b = Array.from({ length: BATCH }, (_, i) => `b${n}:${i}`);
          const c = Array.from({ length: BATCH }, (_, i) => `c${n}:${i}`);
          n++;
          const [bloomDone, cuckooDone] = await Promise.allSettled([bloom.madd(b), cuckoo.madd(c)]);
          if (bloomDone.status === 'fulfilled') written.bloom.push(...b);
          else raised.push(bloomDone.reason);
          if (cuckooDone.status === 'fulfilled') {
            written.cuckoo.push(...c);
          } else if (cuckooDone.reason instanceof AmbiguousWriteError && cuckooDone.reason.failed.size === 0) {
            const e = cuckooDone.reason;
            unknown.push(...e.unknown.map((i) => c[i]));
            written.cuckoo.push(...c.filter((_, i) => e.results[i] === true));
          } else {
            raised.push(cuckooDone.reason);
          }
          const known = await acknowledged([...b, ...c]);
          acked.bloom.push(...known.filter((x) => x.startsWith('b') && written.bloom.includes(x)));
          acked.cuckoo.push(...known.filter((x) => x.startsWith('c') && written.cuckoo.includes(x)));
          if (!stopped && resumedAt === undefined && acked.bloom.length >= 3 * BATCH) {
            process.kill(pid, 'SIGSTOP');
            stopped = true;
          }
          if (stopped && !promoted) {
            promoted = String((await replica.sendCommand(['ROLE']))[0]) === 'master';
            if (promoted) {
              process.kill(pid, 'SIGCONT');
              stopped = false;
              resumedAt = n;
            } else {
              await sleep(50);
            }
          }
        }
      } finally {
        if (stopped) process.kill(pid, 'SIGCONT');
      }
      assert.deepEqual(raised.map(String), [], 'errors reached a writer');
      const missing = (await bloom.mexists(acked.bloom)).filter((x) => !x).length;
      assert.equal(missing, 0, `${missing} acknowledged Bloom item(s) lost`);
      assert.deepEqual(await cuckoo.mexists(acked.cuckoo), acked.cuckoo.map(() => true));
      // Never stored twice: an acknowledged item once, an unknown one at most once.
      for (const item of acked.cuckoo.filter((_, i) => i % 10 === 0)) assert.equal(await cuckoo.count(item), 1, item);
      for (const item of unknown) assert.ok((await cuckoo.count(item)) <= 1, item);
      assert.ok((await cuckoo.card()) <= written.cuckoo.length + unknown.length);
      const info = await bloom.info();
      assert.ok(info.shards.every((s) => s.node !== victimAddress), 'the paused master owns no shard now');
      assert.ok(info.shards.some((s) => s.node === replicaAddress));
      console.log(`RESP${RESP}: ${n} batches, ${acked.bloom.length} + ${acked.cuckoo.length} acknowledged, ${unknown.length} cuckoo items unknown`);
      // The old master is back, as a replica of the one promoted.
      const deadline = Date.now() + 20_000;
      while (String((await victim.sendCommand(['ROLE']))[0]) !== 'slave') {
        assert.ok(Date.now() < deadline, 'the resumed master did not become a replica');
        await sleep(100);
      }
    });
  });
}
