/**
 * Typed helpers for the two families only rsbloom has: `cbf(client)` for counting Bloom
 * filters (CBF.*, docs/commands/counting.md) and `apbf(client)` for sliding windows (APBF.*,
 * docs/commands/window.md). One method per command; replies read alike in RESP2 and RESP3
 * (booleans for 1/0 answers, objects for INFO). Over `createClient` or `createCluster` (every
 * command has one key, so the cluster client routes it).
 */

import { FilterFullError, ShardFullError } from './errors.js';
import { type Item } from './protocol.js';
import * as R from './replies.js';
import { type AnyClient, type Arg, isCluster } from './transport.js';
import { RESP_TYPES } from 'redis';

const SEND_OPTIONS = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.MAP]: Map } };

type Key = string | Buffer;

const arg = (x: Item): Arg => (typeof x === 'string' || Buffer.isBuffer(x) ? x : Buffer.from(x));

/** A MADD-style array: 1/0 per item, possibly ended early by a full filter's error entry. */
function answers(reply: unknown, asked: number, what: string): boolean[] {
  const results: (boolean | null)[] = [];
  let cause: Error | undefined;
  for (const answer of R.array(reply)) {
    if (R.isErrorReply(answer)) {
      cause = answer;
      break;
    }
    results.push(R.boolean(answer));
  }
  if (results.length < asked) {
    const failed = new Map<number, Error>();
    const full = new ShardFullError(cause?.message ?? `${what}: the filter is full`, { cause });
    for (let i = results.length; i < asked; i++) {
      results.push(null);
      failed.set(i, full);
    }
    throw new FilterFullError(`${what}: ${full.message}`, results, [], failed);
  }
  return results as boolean[];
}

abstract class Family {
  constructor(readonly client: AnyClient) {}

  protected call(key: Key, args: Arg[], readonly = false): Promise<unknown> {
    const client = this.client as unknown;
    if (isCluster(client)) {
      const cluster = client as unknown as {
        sendCommand(firstKey: Arg, isReadonly: boolean, args: Arg[], options?: object): Promise<unknown>;
      };
      return cluster.sendCommand(key, readonly, args, SEND_OPTIONS);
    }
    return (client as { sendCommand(args: Arg[], options?: object): Promise<unknown> }).sendCommand(args, SEND_OPTIONS);
  }

  protected async ok(key: Key, args: Arg[]): Promise<boolean> {
    return R.text(await this.call(key, args)) === 'OK';
  }

  protected async scan(verb: string, key: Key, iterator: number): Promise<[number, Buffer]> {
    const [it, data] = R.array(await this.call(key, [verb, key, String(iterator)], true));
    return [R.integer(it), Buffer.isBuffer(data) ? data : Buffer.from(data === null || data === undefined ? '' : R.text(data))];
  }
}

export class CBF extends Family {
  /** `CBF.RESERVE key error_rate capacity [COUNTERBITS 4|8] [KEYED]`. */
  reserve(key: Key, errorRate: number, capacity: number, options: { counterBits?: 4 | 8; keyed?: boolean } = {}): Promise<boolean> {
    const args: Arg[] = ['CBF.RESERVE', key, String(errorRate), String(capacity)];
    if (options.counterBits !== undefined) args.push('COUNTERBITS', String(options.counterBits));
    if (options.keyed) args.push('KEYED');
    return this.ok(key, args);
  }

  /** `CBF.ADD`: true if the item was not present before (it is counted either way). */
  async add(key: Key, item: Item): Promise<boolean> {
    return R.boolean(await this.call(key, ['CBF.ADD', key, arg(item)]));
  }

  /** `CBF.MADD`; a full filter's refusal raises FilterFullError (items before it were added, the rest not). */
  async madd(key: Key, items: Iterable<Item>): Promise<boolean[]> {
    const xs = [...items].map(arg);
    return answers(await this.call(key, ['CBF.MADD', key, ...xs]), xs.length, 'CBF.MADD');
  }

  /** `CBF.DEL`: true if the item was present and its counters were decremented. */
  async delete(key: Key, item: Item): Promise<boolean> {
    return R.boolean(await this.call(key, ['CBF.DEL', key, arg(item)]));
  }

  /** `CBF.MDEL`. */
  async mdelete(key: Key, items: Iterable<Item>): Promise<boolean[]> {
    return R.array(await this.call(key, ['CBF.MDEL', key, ...[...items].map(arg)])).map(R.boolean);
  }

  /** `CBF.EXISTS`. */
  async exists(key: Key, item: Item): Promise<boolean> {
    return R.boolean(await this.call(key, ['CBF.EXISTS', key, arg(item)], true));
  }

  /** `CBF.MEXISTS`. */
  async mexists(key: Key, items: Iterable<Item>): Promise<boolean[]> {
    return R.array(await this.call(key, ['CBF.MEXISTS', key, ...[...items].map(arg)], true)).map(R.boolean);
  }

  /** `CBF.COUNT`: the smallest of the item's counters. */
  async count(key: Key, item: Item): Promise<number> {
    return R.integer(await this.call(key, ['CBF.COUNT', key, arg(item)], true));
  }

  /** `CBF.CARD`: adds less deletes. */
  async card(key: Key): Promise<number> {
    return R.integer(await this.call(key, ['CBF.CARD', key], true));
  }

  /** `CBF.INFO` as an object (`Capacity`, `Size`, `Number of items inserted`, `Counter bits`, ...). */
  async info(key: Key): Promise<Record<string, number | string>> {
    return R.info(await this.call(key, ['CBF.INFO', key], true));
  }

  /** `CBF.SCANDUMP`: [next iterator, data]; [0, empty] at the end. */
  scandump(key: Key, iterator: number): Promise<[number, Buffer]> {
    return this.scan('CBF.SCANDUMP', key, iterator);
  }

  /** `CBF.LOADCHUNK`. */
  loadchunk(key: Key, iterator: number, data: Buffer): Promise<boolean> {
    return this.ok(key, ['CBF.LOADCHUNK', key, String(iterator), data]);
  }

  /** `CBF.MERGE destination source [source ...]` (sources share the destination's slot in a cluster). */
  merge(destination: Key, sources: Key[]): Promise<boolean> {
    return this.ok(destination, ['CBF.MERGE', destination, ...sources]);
  }

  /** `CBF.EXPORT key GUAVA`: Guava `BloomFilter.writeTo()` bytes. */
  async export(key: Key): Promise<Buffer> {
    const data = await this.call(key, ['CBF.EXPORT', key, 'GUAVA'], true);
    return Buffer.isBuffer(data) ? data : Buffer.from(R.text(data));
  }
}

export class APBF extends Family {
  /**
   * `APBF.RESERVE key COUNT|TIME error_rate capacity [span]`: `window` is `count` (the last
   * `capacity` items) or `time` (the last `span` seconds).
   */
  reserve(key: Key, window: 'count' | 'time', errorRate: number, capacity: number, span?: number): Promise<boolean> {
    const kind = window.toUpperCase();
    if (kind !== 'COUNT' && kind !== 'TIME') throw new RangeError(`a window is 'count' or 'time', not ${JSON.stringify(window)}`);
    if ((kind === 'TIME') !== (span !== undefined)) throw new RangeError('a TIME window takes a span, a COUNT window none');
    const args: Arg[] = ['APBF.RESERVE', key, kind, String(errorRate), String(capacity)];
    if (span !== undefined) args.push(String(span));
    return this.ok(key, args);
  }

  /** A window over the last `capacity` items. */
  reserveCount(key: Key, errorRate: number, capacity: number): Promise<boolean> {
    return this.reserve(key, 'count', errorRate, capacity);
  }

  /** A window over the last `span` seconds, `capacity` items per span expected. */
  reserveTime(key: Key, errorRate: number, capacity: number, span: number): Promise<boolean> {
    return this.reserve(key, 'time', errorRate, capacity, span);
  }

  /** `APBF.ADD`: true if the item was not in the window (it is added either way). */
  async add(key: Key, item: Item): Promise<boolean> {
    return R.boolean(await this.call(key, ['APBF.ADD', key, arg(item)]));
  }

  /** `APBF.MADD`; a refusal as full raises FilterFullError. */
  async madd(key: Key, items: Iterable<Item>): Promise<boolean[]> {
    const xs = [...items].map(arg);
    return answers(await this.call(key, ['APBF.MADD', key, ...xs]), xs.length, 'APBF.MADD');
  }

  /** `APBF.INSERTAT key ms item ...`: as `madd` at `ms` since the epoch. */
  async insertat(key: Key, ms: number, items: Iterable<Item>): Promise<boolean[]> {
    const xs = [...items].map(arg);
    return answers(await this.call(key, ['APBF.INSERTAT', key, String(Math.trunc(ms)), ...xs]), xs.length, 'APBF.INSERTAT');
  }

  /** `APBF.EXISTS`. */
  async exists(key: Key, item: Item): Promise<boolean> {
    return R.boolean(await this.call(key, ['APBF.EXISTS', key, arg(item)], true));
  }

  /** `APBF.MEXISTS`. */
  async mexists(key: Key, items: Iterable<Item>): Promise<boolean[]> {
    return R.array(await this.call(key, ['APBF.MEXISTS', key, ...[...items].map(arg)], true)).map(R.boolean);
  }

  /** The window's item count (`Items in window` of APBF.INFO). */
  async count(key: Key): Promise<number> {
    return Number((await this.info(key))['Items in window'] ?? 0);
  }

  /** `APBF.INFO` as an object (`Capacity`, `Size`, `Window`, `Span`, `Items in window`, ...). */
  async info(key: Key): Promise<Record<string, number | string>> {
    return R.info(await this.call(key, ['APBF.INFO', key], true));
  }

  /** `APBF.SCANDUMP`: [next iterator, data]; [0, empty] at the end. */
  scandump(key: Key, iterator: number): Promise<[number, Buffer]> {
    return this.scan('APBF.SCANDUMP', key, iterator);
  }

  /** `APBF.LOADCHUNK`. */
  loadchunk(key: Key, iterator: number, data: Buffer): Promise<boolean> {
    return this.ok(key, ['APBF.LOADCHUNK', key, String(iterator), data]);
  }
}

/** The CBF.* commands on `client` (createClient or createCluster). */
export function cbf(client: AnyClient): CBF {
  return new CBF(client);
}

/** The APBF.* commands on `client` (createClient or createCluster). */
export function apbf(client: AnyClient): APBF {
  return new APBF(client);
}
