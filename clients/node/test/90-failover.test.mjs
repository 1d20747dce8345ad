// A master killed with SIGKILL under a writer, on the cluster the Rust suite starts. Named to
// run last: the killed node stays dead (the suite reaps it when it stops the cluster); the
// RESP2 run kills one master, the RESP3 run another.
//
// The writer adds batches of new items to a sharded Bloom filter. An item counts as
// acknowledged only once the master holding its shard has it on a replica: on one connection
// to that master, a write to a key of the shard's slot, then WAIT 1, whose offset covers the
// batch (replication is in order). Afterwards every acknowledged item must be found, and no
// error may have reached the writer.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { ShardedBloom, keySlot, shardOf } from 'rsbloom';
import { PROTOCOLS, clusterClient, closeAll, direct, needs, settledReplica, uniqueName, withReplica } from './helpers.mjs';

after(closeAll);

const SHARDS = 6;
const BATCH = 200;
const DEADLINE = 45_000; // the node timeout is 2 s; an election takes about one more

for (const RESP of PROTOCOLS) {
  describe(`cluster, RESP${RESP}`, needs('cluster'), () => {
    test('acknowledged adds survive a master killed with SIGKILL', { timeout: 120_000 }, async () => {
      const client = await clusterClient(RESP);
      const name = uniqueName();
      const bloom = new ShardedBloom(client, name, { retryTimeout: 30_000 });
      await bloom.reserve(0.000001, 1000 * SHARDS, { shards: SHARDS });
      const keys = await bloom.shardKeys();
      // The victim: a master that holds a shard and has a replica (an earlier run's promoted
      // replica has none).
      const masters = [...new Set(keys.map((k) => client.slots[keySlot(k)].master.address))];
      const [victimAddress, victim] = await withReplica(masters);
      const victimId = String(await victim.sendCommand(['CLUSTER', 'MYID']));
      const live = client.masters.map((m) => m.address).concat(client.replicas.map((r) => r.address));
      const replicaPort = await settledReplica(victim, victimId, live.filter((a) => a !== victimAddress));
      const replicaAddress = `${victimAddress.slice(0, victimAddress.lastIndexOf(':'))}:${replicaPort}`;
      const pid = Number(/process_id:(\d+)/.exec(String(await victim.sendCommand(['INFO', 'server'])))[1]);
      const replica = await direct(replicaAddress);
      const onVictim = keys.map((k, i) => [k, i]).filter(([k]) => client.slots[keySlot(k)].master.address === victimAddress).map(([, i]) => i);
      assert.ok(onVictim.length > 0);
      const conns = new Map();

      // The items of the batch whose shard's master has them on a replica.
      async function acknowledged(batch) {
        const byNode = new Map();
        keys.forEach((key, shard) => {
          const address = client.slots[keySlot(key)].master.address;
          if (!byNode.has(address)) byNode.set(address, []);
          byNode.get(address).push(shard);
        });
        const shards = new Set();
        for (const [address, onIt] of byNode) {
          try {
            if (!conns.has(address)) conns.set(address, await direct(address));
            const conn = conns.get(address);
            const role = await conn.sendCommand(['ROLE']);
            if (String(role[0]) !== 'master' || role[2].length === 0) continue; // no replica: nothing acknowledged
            const tag = keys[onIt[0]].toString().split('}')[0] + '}';
            const [, replicas] = await Promise.all([conn.sendCommand(['INCR', `${tag}${name}:ack`]), conn.sendCommand(['WAIT', '1', '2000'])]);
            if (replicas >= 1) onIt.forEach((s) => shards.add(s));
          } catch {
            // dead, or no longer the slot's master: not acknowledged
          }
        }
        return batch.filter((item) => shards.has(shardOf(item, SHARDS)));
      }

      const acked = [];
      const written = [];
      const raised = [];
      let killedAt;
      let promotedAt;
      let batchesAfter = 0;
      let during = 0; // batches begun after the kill, before the promotion was seen
      let longest = 0;
      const start = Date.now();
      let n = 0;
      while (batchesAfter < 3) {
        assert.ok(Date.now() - start < DEADLINE, `no promotion seen in ${DEADLINE} ms: killed=${killedAt !== undefined}, ${raised.length} error(s): ${raised.slice(0, 3)}`);
        const batch = Array.from({ length: BATCH }, (_, i) => `k${n * BATCH + i}`);
        n++;
        const began = Date.now();
        const inOutage = killedAt !== undefined && promotedAt === undefined;
        try {
          await bloom.madd(batch); // every Bloom command may be retried
        } catch (e) {
          raised.push(e);
          continue;
        }
        longest = Math.max(longest, Date.now() - began);
        if (inOutage) during++;
        written.push(...batch);
        acked.push(...(await acknowledged(batch)));
        if (killedAt === undefined && acked.length >= 5 * BATCH) {
          process.kill(pid, 'SIGKILL');
          killedAt = n; // the next batch meets the dead master, long before a promotion
        }
        if (killedAt !== undefined && promotedAt === undefined) {
          try {
            if (String((await replica.sendCommand(['ROLE']))[0]) === 'master') promotedAt = n;
          } catch (e) {
            raised.push(e);
          }
        }
        if (promotedAt !== undefined && n > promotedAt) batchesAfter++;
      }
      assert.deepEqual(raised.map(String), [], 'errors reached the writer');
      assert.ok(acked.length >= 5 * BATCH);
      assert.ok(during >= 1, `${during} batches during the outage`);
      console.log(`RESP${RESP}: ${n} batches, ${acked.length} of ${written.length} acknowledged, ${during} during the outage, longest ${longest} ms`);
      const found = await bloom.mexists(acked);
      const missing = acked.filter((_, i) => !found[i]);
      assert.deepEqual(missing.slice(0, 10), [], `${missing.length} acknowledged item(s) lost`);
      assert.ok((await bloom.mexists(written)).every(Boolean)); // nothing was lost here at all
      const info = await bloom.info();
      for (const i of onVictim) assert.equal(info.shards[i].node, replicaAddress);
    });
  });
}
