// cbf() and apbf() on the real server and cluster, in RESP2 and RESP3.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { FilterFullError, apbf, cbf } from 'rsbloom';
import { PROTOCOLS, closeAll, connect, needs, raw, uniqueName } from './helpers.mjs';

after(closeAll);

for (const kind of ['node', 'cluster']) {
  for (const RESP of PROTOCOLS) {
    describe(`${kind}, RESP${RESP}`, needs(kind), () => {
      test('counting Bloom: counts, deletes, info, scandump round trip', async () => {
        const client = await connect(kind, RESP);
        const c = cbf(client);
        const key = uniqueName('cbf');
        assert.equal(await c.reserve(key, 0.001, 1000, { counterBits: 8 }), true);
        assert.deepEqual(await c.madd(key, ['s1', 's2', 's1']), [true, true, false]);
        assert.equal(await c.add(key, Buffer.from([0, 1])), true);
        assert.equal(await c.count(key, 's1'), 2);
        assert.equal(await c.card(key), 4);
        assert.deepEqual(await c.mdelete(key, ['s1', 's1', 's9']), [true, true, false]);
        assert.equal(await c.exists(key, 's1'), false);
        assert.deepEqual(await c.mexists(key, ['s2', 's1']), [true, false]);
        assert.equal(await c.delete(key, 's2'), true);
        const info = await c.info(key);
        assert.equal(info['Counter bits'], 8);
        assert.equal(info['Number of items inserted'], 1);
        assert.ok(Number(info.Size) > 0);
        // SCANDUMP into a copy under another key of the same slot.
        const copy = `{${key}}:copy`;
        const from = `{${key}}:from`;
        await c.reserve(from, 0.01, 100);
        await c.madd(from, ['p', 'q']);
        for (let it = 0; ;) {
          const [next, data] = await c.scandump(from, it);
          if (next === 0) break;
          assert.equal(await c.loadchunk(copy, next, data), true);
          it = next;
        }
        assert.deepEqual(await c.mexists(copy, ['p', 'q', 'r']), [true, true, false]);
        assert.ok((await c.export(from)).length > 0);
        await assert.rejects(c.reserve(key, 0.01, 10), /item exists/);
        for (const k of [key, copy, from]) await raw(client, k, ['DEL', k]);
      });

      test('sliding windows: a COUNT window forgets, a TIME window holds, full refusals', async () => {
        const client = await connect(kind, RESP);
        const a = apbf(client);
        const key = uniqueName('apbf');
        assert.equal(await a.reserveCount(key, 0.01, 100), true);
        assert.equal(await a.add(key, 'old'), true);
        assert.equal(await a.add(key, 'old'), false);
        await a.madd(key, Array.from({ length: 1000 }, (_, i) => `n${i}`)); // ten windows later
        assert.equal(await a.exists(key, 'old'), false);
        assert.deepEqual(await a.mexists(key, ['n999', 'n998']), [true, true]);
        const info = await a.info(key);
        assert.equal(info.Window, 'count');
        assert.equal(info.Capacity, 100);
        assert.ok((await a.count(key)) >= 100);
        const timed = uniqueName('apbf');
        assert.equal(await a.reserveTime(timed, 0.01, 1000, 3600), true);
        const now = Date.now();
        assert.deepEqual(await a.insertat(timed, now, ['t1', 't2']), [true, true]);
        assert.deepEqual(await a.mexists(timed, ['t1', 't2', 't3']), [true, true, false]);
        assert.equal((await a.info(timed)).Span, 3600);
        assert.throws(() => a.reserve(key, 'time', 0.01, 10), RangeError);
        for (const k of [key, timed]) await raw(client, k, ['DEL', k]);
        // A full counting filter ends MADD's array with an error: FilterFullError.
        const tiny = uniqueName('cbf');
        await cbf(client).reserve(tiny, 0.01, 1);
        // Capacity 1: the first item is added, the second refused, the rest never tried.
        const err = await cbf(client).madd(tiny, ['f0', 'f1', 'f2']).then(() => assert.fail('no error'), (e) => e);
        assert.ok(err instanceof FilterFullError, String(err));
        assert.deepEqual(err.results, [true, null, null]);
        assert.deepEqual([...err.failed.keys()], [1, 2]);
        assert.match(err.failed.get(1).message, /full/);
        assert.equal(await cbf(client).card(tiny), 1);
        await raw(client, tiny, ['DEL', tiny]);
      });
    });
  }
}
