/**
 * Protocol `rsbloom-sharding/1` (docs/sharding.md): where an item and a shard live, with the
 * keyed routing of issue 44 (section 6 of the clients' contract). Pure computation shared
 * by every client; `tests/vectors/sharding/vectors.json` checks it.
 */

import { createHmac, randomBytes } from 'node:crypto';

export const PROTOCOL = 'rsbloom-sharding/1';
export const SLOTS = 16384;
/** The largest capacity BF.RESERVE and CF.RESERVE take. */
export const MAX_SHARD_CAPACITY = 2 ** 30;
/** The largest planned shard size the default shard count allows (128 MiB). */
export const MAX_SHARD_BYTES = 2 ** 27;
/** The smallest default shard count. */
export const MIN_DEFAULT_SHARDS = 16;

/** An item (or a name): a string is taken as UTF-8, a Buffer / Uint8Array as it is. */
export type Item = string | Buffer | Uint8Array;

export function toBuffer(item: Item): Buffer {
  if (typeof item === 'string') return Buffer.from(item, 'utf8');
  if (Buffer.isBuffer(item)) return item;
  if (item instanceof Uint8Array) return Buffer.from(item.buffer, item.byteOffset, item.byteLength);
  throw new TypeError(`an item is a string or a Buffer, not ${typeof item}`);
}

// CRC16 XMODEM (polynomial 0x1021, initial 0, no reflection), one table built at load.
const CRC_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The bytes the cluster hashes for a key: its hash tag when it has a non-empty one. */
function hashed(data: Buffer): Buffer {
  const open = data.indexOf(0x7b); // '{'
  if (open >= 0) {
    const close = data.indexOf(0x7d, open + 1); // '}'
    if (close > open + 1) return data.subarray(open + 1, close);
  }
  return data;
}

/** The cluster's key slot of `item` as if it were a key (CRC16 of its hash tag or of all of it). */
export function keySlot(item: Item): number {
  return crc16(hashed(toBuffer(item))) & (SLOTS - 1);
}

/**
 * Keyed routing's slot: the first two bytes of HMAC-SHA256(secret, item), big-endian, low 14
 * bits. No hash tag: the point is that an item's bytes cannot choose its shard.
 */
export function keyedSlot(secret: Buffer | string, item: Item): number {
  const key = typeof secret === 'string' ? parseSecret(secret) : secret;
  const mac = createHmac('sha256', key).update(toBuffer(item)).digest();
  return ((mac[0]! << 8) | mac[1]!) & (SLOTS - 1);
}

/** A routing secret as the description stores it: 32 lowercase hex characters. */
export function parseSecret(hex: string): Buffer {
  if (!/^[0-9a-f]{32}$/.test(hex)) {
    throw new RangeError('a routing secret is 32 lowercase hex characters');
  }
  return Buffer.from(hex, 'hex');
}

/** 16 random bytes from the OS's CSPRNG as 32 lowercase hex: a creation id or a routing secret. */
export function randomHex16(): string {
  return randomBytes(16).toString('hex');
}

function checkCount(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > SLOTS) {
    throw new RangeError(`a shard count is an integer from 1 to ${SLOTS}, not ${String(count)}`);
  }
  return count;
}

/** The first and last slot (inclusive) shard `index` of `count` routes. */
export function slotRange(index: number, count: number): [number, number] {
  checkCount(count);
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`shard index ${String(index)} is outside 0..${count - 1}`);
  }
  return [Math.floor((index * SLOTS) / count), Math.floor(((index + 1) * SLOTS) / count) - 1];
}

/** The shard of `count` whose range holds `slot`. */
export function shardOfSlot(slot: number, count: number): number {
  checkCount(count);
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) {
    throw new RangeError(`slot ${String(slot)} is outside 0..${SLOTS - 1}`);
  }
  return Math.floor(((slot + 1) * count - 1) / SLOTS);
}

/** The shard of `count` an item goes to (keyed routing when a secret is given). */
export function shardOf(item: Item, count: number, secret?: Buffer | string): number {
  return shardOfSlot(secret === undefined ? keySlot(item) : keyedSlot(secret, item), count);
}

const tagCache = new Map<number, number[]>();

/** Every shard's tag: the smallest non-negative integer whose decimal form has a slot in the shard's range. */
export function tags(count: number): number[] {
  checkCount(count);
  let found = tagCache.get(count);
  if (found === undefined) {
    const tagsOf: (number | undefined)[] = new Array<number | undefined>(count).fill(undefined);
    let missing = count;
    for (let j = 0; missing > 0; j++) {
      const shard = shardOfSlot(keySlot(String(j)), count);
      if (tagsOf[shard] === undefined) {
        tagsOf[shard] = j;
        missing--;
      }
    }
    found = tagsOf as number[];
    if (tagCache.size >= 64) tagCache.clear();
    tagCache.set(count, found);
  }
  return [...found];
}

/** Shard `index`'s key, `{tag}name:index`, as bytes. */
export function shardKey(name: Item, index: number, count: number): Buffer {
  slotRange(index, count);
  const tag = tags(count)[index]!;
  return Buffer.concat([Buffer.from(`{${tag}}`), toBuffer(name), Buffer.from(`:${index}`)]);
}

/** The keys of every shard of a logical filter, in index order. */
export function shardKeys(name: Item, count: number): Buffer[] {
  const raw = toBuffer(name);
  return tags(count).map((tag, i) =>
    Buffer.concat([Buffer.from(`{${tag}}`), raw, Buffer.from(`:${i}`)]),
  );
}

/**
 * The capacity each of `count` shards is reserved with for a logical `capacity`:
 * ceil(m + 4 sqrt(m)), m = capacity * ceil(16384 / count) / 16384, at least 1, in IEEE
 * doubles step by step (the same integer in every language).
 */
export function shardCapacity(capacity: number, count: number): number {
  checkCount(count);
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new RangeError(`a capacity is a positive integer, not ${String(capacity)}`);
  }
  const widest = Math.ceil(SLOTS / count);
  const share = (capacity * widest) / SLOTS;
  return Math.max(1, Math.ceil(share + 4 * Math.sqrt(share)));
}

/** The planned size of a Bloom shard, capacity * -ln(p) / ln(2)^2 / 8 bytes. */
export function bloomShardBytes(shardCap: number, errorRate: number): number {
  return (shardCap * -Math.log(errorRate)) / Math.LN2 ** 2 / 8;
}

/** The planned size of a cuckoo shard: buckets rounded up to a power of two, times the bucket size. */
export function cuckooShardBytes(shardCap: number, bucketSize: number): number {
  const buckets = Math.max(1, Math.ceil(shardCap / bucketSize));
  let pow = 1;
  while (pow < buckets) pow *= 2;
  return pow * bucketSize;
}

function defaultShards(capacity: number, size: (each: number) => number): number {
  for (let count = MIN_DEFAULT_SHARDS; count <= SLOTS; count *= 2) {
    const each = shardCapacity(capacity, count);
    if (each <= MAX_SHARD_CAPACITY && size(each) <= MAX_SHARD_BYTES) return count;
  }
  throw new RangeError(`capacity ${capacity} does not fit in ${SLOTS} shards`);
}

/** The default shard count of a Bloom logical filter: the smallest power of two from 16 whose shards take at most 2^30 items and 128 MiB each. */
export function defaultBloomShards(capacity: number, errorRate: number): number {
  if (!(errorRate > 0 && errorRate < 1)) {
    throw new RangeError(`an error rate is between 0 and 1, not ${String(errorRate)}`);
  }
  return defaultShards(capacity, (each) => bloomShardBytes(each, errorRate));
}

/** The default shard count of a cuckoo logical filter (see defaultBloomShards). */
export function defaultCuckooShards(capacity: number, bucketSize = 2): number {
  if (!Number.isInteger(bucketSize) || bucketSize < 1) {
    throw new RangeError(`a bucket size is a positive integer, not ${String(bucketSize)}`);
  }
  return defaultShards(capacity, (each) => cuckooShardBytes(each, bucketSize));
}
