// The protocol functions against the repository's vectors (tests/vectors/sharding/vectors.json,
// made by tools/sharding-vectors.py), and keyed routing's slot against HMAC-SHA256 itself.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  PROTOCOL, SLOTS, defaultBloomShards, defaultCuckooShards, keySlot, keyedSlot, protocol, shardCapacity,
  shardKey, shardKeys, shardOf, shardOfSlot, slotRange, tags,
} from 'rsbloom';
import { REPO } from './helpers.mjs';

const vectors = JSON.parse(readFileSync(join(REPO, 'tests', 'vectors', 'sharding', 'vectors.json'), 'utf8'));

test('the vectors are of this protocol', () => {
  assert.equal(vectors.protocol, PROTOCOL);
  assert.ok(vectors.items.length > 10 && vectors.layouts.length > 3);
});

test('every item vector: slot and shard per count, from text and from bytes', () => {
  for (const v of vectors.items) {
    const bytes = Buffer.from(v.hex, 'hex');
    assert.equal(keySlot(bytes), v.slot, `slot of ${v.hex}`);
    if (v.text !== undefined) assert.equal(keySlot(v.text), v.slot, `slot of ${JSON.stringify(v.text)}`);
    for (const [count, shard] of Object.entries(v.shard)) {
      assert.equal(shardOf(bytes, Number(count)), shard, `${v.hex} over ${count}`);
      assert.equal(shardOfSlot(v.slot, Number(count)), shard);
    }
  }
});

test('every layout: ranges, tags and keys', () => {
  for (const layout of vectors.layouts) {
    const name = Buffer.from(layout.name_hex, 'hex');
    const keys = shardKeys(name, layout.count);
    assert.equal(keys.length, layout.count);
    const tagsOf = tags(layout.count);
    for (const s of layout.shards) {
      assert.deepEqual(slotRange(s.index, layout.count), [s.first_slot, s.last_slot]);
      assert.equal(String(tagsOf[s.index]), s.tag);
      assert.equal(keys[s.index].toString('hex'), s.key_hex);
      assert.equal(shardKey(name, s.index, layout.count).toString('hex'), s.key_hex);
      assert.equal(keySlot(keys[s.index]), s.key_slot);
      assert.equal(shardOfSlot(s.key_slot, layout.count), s.index); // each key lives in its range
    }
  }
});

test('shard capacities and default shard counts', () => {
  for (const v of vectors.shard_capacity) assert.equal(shardCapacity(v.capacity, v.count), v.shard_capacity, JSON.stringify(v));
  for (const v of vectors.default_shards) {
    const got = v.family === 'bloom' ? defaultBloomShards(v.capacity, v.error_rate) : defaultCuckooShards(v.capacity, v.bucket_size ?? 2);
    assert.equal(got, v.shards, JSON.stringify(v));
  }
});

test('every keyed routing vector: slot and shard per count under its secret', () => {
  const cases = vectors.keyed_routing;
  assert.ok(Array.isArray(cases) && cases.length >= 60, 'keyed_routing holds the cases');
  assert.ok(new Set(cases.map((v) => v.secret)).size >= 3);
  for (const v of cases) {
    const item = Buffer.from(v.hex, 'hex');
    assert.equal(keyedSlot(v.secret, item), v.slot, JSON.stringify(v));
    assert.equal(keyedSlot(Buffer.from(v.secret, 'hex'), item), v.slot);
    for (const [count, shard] of Object.entries(v.shard)) assert.equal(shardOf(item, Number(count), v.secret), shard);
  }
});

test("keyed routing's slot is HMAC-SHA256's first two bytes, low 14 bits", () => {
  // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?") = 5bdcc146...
  assert.equal(keyedSlot(Buffer.from('Jefe'), 'what do ya want for nothing?'), 0x5bdc & 0x3fff);
  const secret = '000102030405060708090a0b0c0d0e0f';
  for (const item of ['', 'a', '{tag}x', Buffer.from([0, 255])]) {
    const mac = createHmac('sha256', Buffer.from(secret, 'hex')).update(item).digest();
    assert.equal(keyedSlot(secret, item), mac.readUInt16BE(0) & 0x3fff);
  }
  // No hash tags under keyed routing: items sharing a tag spread over the shards.
  const shards = new Set(Array.from({ length: 64 }, (_, i) => shardOf(`{user42}:${i}`, 16, secret)));
  assert.ok(shards.size > 8, `${shards.size} shards`);
  assert.equal(new Set(Array.from({ length: 64 }, (_, i) => shardOf(`{user42}:${i}`, 16))).size, 1);
  assert.throws(() => keyedSlot('ABCDEF', 'x'), RangeError);
});

test('the docs example and the edges', () => {
  assert.deepEqual(shardKeys('urls', 3).map(String), ['{3}urls:0', '{1}urls:1', '{0}urls:2']);
  assert.equal(keySlot('{user42}:a'), keySlot('{user42}:b'));
  assert.equal(keySlot('{}x'), keySlot(Buffer.from('{}x'))); // an empty tag hashes the whole key
  assert.equal(keySlot('caf\u00e9'), keySlot(Buffer.from('caf\u00e9', 'utf8')));
  assert.deepEqual(slotRange(0, 1), [0, SLOTS - 1]);
  assert.throws(() => slotRange(3, 3), RangeError);
  assert.throws(() => shardOfSlot(SLOTS, 3), RangeError);
  assert.throws(() => shardCapacity(0, 3), RangeError);
  assert.throws(() => defaultBloomShards(100, 1), RangeError);
  assert.equal(protocol.MAX_SHARD_CAPACITY, 2 ** 30);
});
