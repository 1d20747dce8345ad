/**
 * Logical Bloom and cuckoo filters sharded over a cluster: protocol `rsbloom-sharding/1`
 * (docs/sharding.md) under issue 44's contract (creation id, no stale answers, BatchError,
 * exactly once, keyed routing).
 */

import {
  AmbiguousWriteError,
  BatchError,
  FilterExistsError,
  FilterNotFoundError,
  RsbloomError,
  ShardFullError,
  UnknownProtocolError,
} from './errors.js';
import * as P from './protocol.js';
import * as R from './replies.js';
import { type AnyClient, type Arg, Command, type Policy, Transport } from './transport.js';

// The description script of docs/sharding.md: the hash is written only when the key is absent.
export const DESCRIPTION_SCRIPT =
  "if redis.call('exists', KEYS[1]) == 1 then return 0 end\n" +
  "redis.call('hset', KEYS[1], unpack(ARGV)) return 1";

// Deletes the description only when it is still this reserve's own (section 4).
export const DELETE_OWN_SCRIPT =
  "if redis.call('hget', KEYS[1], 'id') == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export interface ShardedOptions {
  /** How long a batch keeps retrying through redirections, failovers and lost replies (ms, default 20,000). */
  retryTimeout?: number;
}

export interface ShardInfo {
  index: number;
  key: Buffer;
  /** `host:port` of the master that answered. */
  node: string;
  slots: [number, number];
  items: number;
  size: number;
  /** The shard's creation id (`Shard id`), when it has one. */
  id: string | undefined;
  /** The shard's whole BF.INFO / CF.INFO. */
  info: Record<string, number | string>;
}

export interface FilterInfo {
  name: Buffer;
  family: string;
  protocol: string;
  id: string | undefined;
  routing: 'slot' | 'keyed';
  shardCount: number;
  capacity: number;
  shardCapacity: number;
  errorRate?: number;
  expansion: number;
  bucketSize?: number;
  maxIterations?: number;
  /** The description's fields as stored. */
  description: Record<string, string>;
  items: number;
  size: number;
  shards: ShardInfo[];
}

interface Description {
  fields: Record<string, string>;
  count: number;
  keys: Buffer[];
  id: string | undefined;
  secret: Buffer | undefined;
}

type Decode<T> = (answer: unknown) => T;

interface BatchSpec<T> {
  what: string;
  /** The command for one shard's items. */
  command: (key: Buffer, items: Buffer[]) => Arg[];
  policy: Policy;
  read: boolean;
  /** One item per command, its reply a single value (CF.DEL, CF.COUNT). */
  single?: boolean;
  decode: Decode<T>;
  /** Whether an answer is a full shard's refusal (besides negative integers and error entries). */
  refused?: (answer: unknown) => boolean;
}

const isPositiveInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

function positiveInt(what: string, value: unknown): number {
  if (!isPositiveInt(value)) throw new RangeError(`${what} is a positive integer, not ${String(value)}`);
  return value;
}

/** Errors after which the description is read again and the command rerun (section 2). */
function staleError(e: Error | undefined): boolean {
  if (e === undefined || !R.isErrorReply(e)) return false;
  return /^ERR not found|^ERR wrong shard/i.test(e.message) || /wrong shard/.test(e.message);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

abstract class Sharded {
  abstract readonly family: 'bloom' | 'cuckoo';
  protected abstract readonly infoVerb: string;
  protected abstract readonly existsVerb: string;

  readonly client: AnyClient;
  readonly name: Buffer;
  readonly retryTimeout: number;
  protected readonly transport: Transport;
  private desc: Description | undefined;

  /**
   * `client`: a node-redis cluster (`createCluster`) or a client of one server
   * (`createClient`), connected. `name`: the logical filter's name, also its description's key.
   */
  constructor(client: AnyClient, name: P.Item, options: ShardedOptions = {}) {
    this.client = client;
    this.name = P.toBuffer(name);
    this.retryTimeout = options.retryTimeout ?? 20_000;
    this.transport = new Transport(client, this.retryTimeout);
  }

  // -- the description ------------------------------------------------------------------

  /** The description's fields (read once, then cached; `refresh` reads it again). */
  async description(refresh = false): Promise<Record<string, string>> {
    return { ...(await this.open(refresh)).fields };
  }

  /** The shard count, from the description. */
  async shardCount(): Promise<number> {
    return (await this.open()).count;
  }

  /** The shard keys, in index order. */
  async shardKeys(): Promise<Buffer[]> {
    return [...(await this.open()).keys];
  }

  /** Whether the description exists now (read, not cached). */
  async existsFilter(): Promise<boolean> {
    try {
      await this.open(true);
      return true;
    } catch (e) {
      if (e instanceof FilterNotFoundError) return false;
      throw e;
    }
  }

  protected async open(refresh = false): Promise<Description> {
    if (this.desc === undefined || refresh) {
      const cmd = await this.one(new Command(this.name, ['HGETALL', this.name]));
      const fields = R.hashFields(cmd.reply);
      if (Object.keys(fields).length === 0) {
        this.desc = undefined;
        throw new FilterNotFoundError(`no logical filter ${JSON.stringify(this.name.toString())}`);
      }
      this.desc = this.adopt(fields);
    }
    return this.desc;
  }

  private adopt(fields: Record<string, string>): Description {
    const label = JSON.stringify(this.name.toString());
    if (fields.protocol !== P.PROTOCOL) {
      throw new UnknownProtocolError(`${label} has protocol ${JSON.stringify(fields.protocol)}; this client knows ${P.PROTOCOL}`);
    }
    if (fields.family !== this.family) {
      throw new UnknownProtocolError(`${label} is a ${JSON.stringify(fields.family)} filter, not ${this.family}`);
    }
    const count = Number(fields.shards);
    if (!/^[0-9]+$/.test(fields.shards ?? '') || count < 1 || count > P.SLOTS) {
      throw new UnknownProtocolError(`${label} has no valid shard count: ${JSON.stringify(fields.shards)}`);
    }
    let secret: Buffer | undefined;
    const routing = fields.routing ?? 'slot';
    if (routing === 'keyed') {
      try {
        secret = P.parseSecret(fields.routing_secret ?? '');
      } catch {
        throw new UnknownProtocolError(`${label} has keyed routing without a valid routing_secret`);
      }
    } else if (routing !== 'slot') {
      throw new UnknownProtocolError(`${label} has routing ${JSON.stringify(routing)}; this client knows slot and keyed`);
    }
    return { fields, count, keys: P.shardKeys(this.name, count), id: fields.id, secret };
  }

  // -- running commands -----------------------------------------------------------------

  /** One command run to its end; its error thrown (a lost once-only command as AmbiguousWriteError). */
  protected async one(cmd: Command): Promise<Command> {
    await this.transport.run([cmd]);
    if (cmd.lost) {
      throw new AmbiguousWriteError(`${String(cmd.args[0])}: the reply was lost; whether it ran is unknown`, [null], [0], new Map());
    }
    if (cmd.error !== undefined) throw cmd.error;
    return cmd;
  }

  private checkCommand(): Command {
    return new Command(this.name, ['HMGET', this.name, 'id', 'shards']);
  }

  /** Whether HMGET name id shards still matches the cached description. */
  private unchanged(check: Command, desc: Description): boolean {
    if (check.error !== undefined) throw check.error;
    const reply = R.array(check.reply);
    const id = reply[0] === null || reply[0] === undefined ? undefined : R.text(reply[0]);
    const shards = reply[1] === null || reply[1] === undefined ? undefined : R.text(reply[1]);
    return shards !== undefined && shards === desc.fields.shards && id === desc.id;
  }

  /**
   * A batch of items: one command per shard (the items in the caller's order), pipelined
   * per node with the description check, repeated as section 2 says until every position
   * has an answer that stands, a failure or an unknown outcome.
   */
  protected async batch<T>(spec: BatchSpec<T>, items: Iterable<P.Item>): Promise<T[]> {
    const raw = [...items].map(P.toBuffer);
    const results: (T | null)[] = new Array<T | null>(raw.length).fill(null);
    const failed = new Map<number, Error>();
    const unknown: number[] = [];
    let pending = raw.map((_, i) => i);
    let desc = await this.open();
    const deadline = Date.now() + this.retryTimeout;
    while (pending.length > 0) {
      const plan = this.plan(spec, desc, raw, pending);
      const check = this.checkCommand();
      await this.transport.run([...plan.map(([cmd]) => cmd), check]);
      const changed = !this.unchanged(check, desc);
      const rerun: number[] = [];
      let stale = false;
      for (const [cmd, positions] of plan) {
        if (cmd.lost) {
          unknown.push(...positions);
          continue;
        }
        if (cmd.error !== undefined) {
          if (staleError(cmd.error)) {
            stale = true;
            if (Date.now() < deadline) rerun.push(...positions);
            else for (const p of positions) failed.set(p, cmd.error);
          } else {
            for (const p of positions) failed.set(p, cmd.error);
          }
          continue;
        }
        if (spec.read && changed) {
          // A read against a description that changed cannot stand.
          if (Date.now() < deadline) rerun.push(...positions);
          else for (const p of positions) failed.set(p, new RsbloomError(`${spec.what}: the description kept changing until the retry timeout`));
          continue;
        }
        this.answers(spec, cmd, positions, results, failed);
      }
      pending = rerun.sort((a, b) => a - b);
      if (pending.length === 0) break;
      if (changed || stale) {
        desc = await this.open(true);
        if (!changed) await sleep(20);
      }
    }
    if (failed.size > 0 || unknown.length > 0) {
      throw BatchError.of(spec.what, results, unknown, failed);
    }
    return results as T[];
  }

  private plan<T>(spec: BatchSpec<T>, desc: Description, raw: Buffer[], positions: number[]): [Command, number[]][] {
    if (spec.single) {
      return positions.map((p) => {
        const key = desc.keys[P.shardOf(raw[p]!, desc.count, desc.secret)]!;
        return [new Command(key, spec.command(key, [raw[p]!]), spec.policy), [p]];
      });
    }
    const groups = new Map<number, number[]>();
    for (const p of positions) {
      const shard = P.shardOf(raw[p]!, desc.count, desc.secret);
      const group = groups.get(shard);
      if (group === undefined) groups.set(shard, [p]);
      else group.push(p);
    }
    return [...groups.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([shard, ps]) => {
        const key = desc.keys[shard]!;
        return [new Command(key, spec.command(key, ps.map((p) => raw[p]!)), spec.policy), ps];
      });
  }

  private answers<T>(spec: BatchSpec<T>, cmd: Command, positions: number[], results: (T | null)[], failed: Map<number, Error>): void {
    const replies = spec.single ? [cmd.reply] : R.array(cmd.reply);
    // A full non-scaling shard ends BF.INSERT's array with an error entry: it and every item
    // after it were refused.
    let cause: Error | undefined;
    positions.forEach((pos, at) => {
      const answer = at < replies.length ? replies[at] : undefined;
      if (cause === undefined && R.isErrorReply(answer)) {
        cause = /full/i.test(answer.message) ? new ShardFullError(answer.message, { cause: answer }) : answer;
      }
      if (cause !== undefined) {
        failed.set(pos, cause);
      } else if (answer === undefined) {
        failed.set(pos, new RsbloomError(`${spec.what}: no answer for position ${pos}`));
      } else if ((typeof answer === 'number' && answer < 0) || (spec.refused?.(answer) ?? false)) {
        failed.set(pos, new ShardFullError(`${String(cmd.args[0])}: no room in ${cmd.key.toString()}`));
      } else {
        results[pos] = spec.decode(answer);
      }
    });
  }

  /** One command per shard (card, info), rerun while the description changes under it. */
  protected async perShard(make: (key: Buffer) => Arg[]): Promise<{ desc: Description; commands: Command[] }> {
    let desc = await this.open();
    const deadline = Date.now() + this.retryTimeout;
    for (;;) {
      const commands = desc.keys.map((key) => new Command(key, make(key)));
      const check = this.checkCommand();
      await this.transport.run([...commands, check]);
      const changed = !this.unchanged(check, desc);
      if (!changed) {
        const failure = commands.find((c) => c.error !== undefined);
        if (failure?.error !== undefined) throw failure.error;
        return { desc, commands };
      }
      if (Date.now() >= deadline) throw new RsbloomError('the description kept changing until the retry timeout');
      desc = await this.open(true);
    }
  }

  // -- operations -----------------------------------------------------------------------

  protected async create(fields: [string, string | number][], reserve: (key: Buffer, index: number, count: number, id: string, secret: string | undefined) => Arg[], count: number, keyed: boolean): Promise<void> {
    const id = P.randomHex16();
    const secret = keyed ? P.randomHex16() : undefined;
    const all: [string, string][] = fields.map(([f, v]) => [f, String(v)]);
    all.push(['id', id]);
    if (secret !== undefined) all.push(['routing', 'keyed'], ['routing_secret', secret]);
    const script = new Command(this.name, ['EVAL', DESCRIPTION_SCRIPT, '1', this.name, ...all.flat()]);
    await this.one(script);
    if (R.integer(script.reply) === 0) {
      // A lost reply's resend finds its own description: the reserve goes on.
      // (Another type of key answers HGET with WRONGTYPE: not ours either.)
      const owner = new Command(this.name, ['HGET', this.name, 'id']);
      await this.transport.run([owner]);
      if (owner.error !== undefined && !R.fromServer(owner.error)) throw owner.error;
      if (owner.error !== undefined || owner.reply === null || R.text(owner.reply) !== id) {
        throw new FilterExistsError(`ERR item exists: ${JSON.stringify(this.name.toString())} exists`);
      }
    }
    const desc = this.adopt(Object.fromEntries(all));
    const commands = desc.keys.map((key, i) => new Command(key, reserve(key, i, count, id, secret)));
    await this.transport.run(commands);
    const ours: Buffer[] = [];
    let cause: Error | undefined;
    const exists = commands.filter((c) => c.error !== undefined && /item exists/i.test(c.error.message));
    const infos = exists.map((c) => new Command(c.key, [this.infoVerb, c.key]));
    await this.transport.run(infos);
    commands.forEach((cmd) => {
      if (cmd.error === undefined) {
        ours.push(cmd.key);
        return;
      }
      const at = exists.indexOf(cmd);
      if (at >= 0) {
        const info = infos[at]!;
        const shardId = info.error === undefined ? R.info(info.reply)['Shard id'] : undefined;
        if (shardId !== undefined && String(shardId) === id) {
          ours.push(cmd.key); // our own lost reply's retry found it made
          return;
        }
        cause ??= new FilterExistsError(`ERR item exists: the shard key ${JSON.stringify(cmd.key.toString())} belongs to another filter`, { cause: cmd.error });
        return;
      }
      cause ??= cmd.error;
    });
    if (cause !== undefined) {
      // Undo what this call made: its shards, then its description (if still its own).
      await this.transport.run(ours.map((key) => new Command(key, ['DEL', key])));
      await this.transport.run([new Command(this.name, ['EVAL', DELETE_OWN_SCRIPT, '1', this.name, id])]);
      this.desc = undefined;
      throw cause;
    }
    this.desc = desc;
  }

  /** Whether the item may have been added (false positives at the error rate). */
  async exists(item: P.Item): Promise<boolean> {
    return (await this.mexists([item]))[0]!;
  }

  /** `exists` for every item, in the caller's order; one command per shard. */
  mexists(items: Iterable<P.Item>): Promise<boolean[]> {
    return this.batch(
      { what: 'exists', command: (key, xs) => [this.existsVerb, key, ...xs], policy: 'safe', read: true, decode: R.boolean },
      items,
    );
  }

  /** Adds one item; see `madd`. */
  async add(item: P.Item): Promise<boolean> {
    return (await this.madd([item]))[0]!;
  }

  abstract madd(items: Iterable<P.Item>): Promise<boolean[]>;

  /** The items the logical filter holds (the sum over its shards). */
  abstract card(): Promise<number>;

  /** The description and every shard's place and figures (see FilterInfo). */
  async info(): Promise<FilterInfo> {
    const { desc, commands } = await this.perShard((key) => [this.infoVerb, key]);
    const shards = commands.map((cmd, index): ShardInfo => {
      const info = R.info(cmd.reply);
      const id = info['Shard id'];
      return {
        index,
        key: cmd.key,
        node: cmd.node ?? this.transport.nodeName ?? '',
        slots: P.slotRange(index, desc.count),
        items: Number(info['Number of items inserted'] ?? 0),
        size: Number(info.Size ?? 0),
        id: id === undefined ? undefined : String(id),
        info,
      };
    });
    const f = desc.fields;
    const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    const out: FilterInfo = {
      name: this.name,
      family: f.family!,
      protocol: f.protocol!,
      id: f.id,
      routing: desc.secret === undefined ? 'slot' : 'keyed',
      shardCount: desc.count,
      capacity: Number(f.capacity),
      shardCapacity: Number(f.shard_capacity),
      expansion: Number(f.expansion),
      description: { ...f },
      items: shards.reduce((s, x) => s + x.items, 0),
      size: shards.reduce((s, x) => s + x.size, 0),
      shards,
    };
    if (f.error_rate !== undefined) out.errorRate = num(f.error_rate)!;
    if (f.bucket_size !== undefined) out.bucketSize = num(f.bucket_size)!;
    if (f.max_iterations !== undefined) out.maxIterations = num(f.max_iterations)!;
    return out;
  }

  /** Deletes every shard key, then the description. False when there was no filter. */
  async delete(): Promise<boolean> {
    let desc: Description;
    try {
      desc = await this.open(true);
    } catch (e) {
      if (e instanceof FilterNotFoundError) return false;
      throw e;
    }
    const dels = desc.keys.map((key) => new Command(key, ['DEL', key]));
    await this.transport.run(dels);
    const failure = dels.find((c) => c.error !== undefined);
    if (failure?.error !== undefined) throw failure.error;
    await this.one(new Command(this.name, ['DEL', this.name]));
    this.desc = undefined;
    return true;
  }
}

export interface BloomReserveOptions {
  /** The shard count (default: the protocol's default for the capacity and rate). */
  shards?: number;
  /** Each shard's expansion (default 2). */
  expansion?: number;
  nonscaling?: boolean;
  /** Route items by HMAC-SHA256 with a secret drawn now, not by the cluster's CRC16 (hostile items). */
  keyedRouting?: boolean;
}

/** A Bloom filter over many shards (BF.* keys). Adding an item twice is harmless, so every command may be retried. */
export class ShardedBloom extends Sharded {
  readonly family = 'bloom' as const;
  protected readonly infoVerb = 'BF.INFO';
  protected readonly existsVerb = 'BF.MEXISTS';

  /**
   * Creates the logical filter: the description (FilterExistsError when the name is taken),
   * then each shard with `BF.RESERVE ... SHARD name i N SHARDID id`.
   */
  async reserve(errorRate: number, capacity: number, options: BloomReserveOptions = {}): Promise<void> {
    if (!(errorRate > 0 && errorRate < 1)) throw new RangeError(`an error rate is between 0 and 1, not ${String(errorRate)}`);
    positiveInt('a capacity', capacity);
    if (options.nonscaling && options.expansion !== undefined) throw new RangeError('NONSCALING takes no expansion');
    const count = options.shards === undefined ? P.defaultBloomShards(capacity, errorRate) : positiveInt('a shard count', options.shards);
    P.slotRange(0, count);
    const each = P.shardCapacity(capacity, count);
    const exp = options.nonscaling ? 0 : positiveInt('an expansion', options.expansion ?? 2);
    const rate = String(errorRate);
    const scaling = options.nonscaling ? ['NONSCALING'] : ['EXPANSION', String(exp)];
    await this.create(
      [['protocol', P.PROTOCOL], ['family', this.family], ['shards', count], ['capacity', capacity],
        ['shard_capacity', each], ['error_rate', rate], ['expansion', exp]],
      (key, i, n, id, secret) => [
        'BF.RESERVE', key, rate, String(each), ...scaling, 'SHARD', this.name, String(i), String(n), 'SHARDID', id,
        ...(secret === undefined ? [] : ['SHARDSECRET', secret]),
      ],
      count,
      options.keyedRouting === true,
    );
  }

  /**
   * Adds the items (`BF.INSERT key NOCREATE ITEMS ...`, one per shard, pipelined per node):
   * true for each item not there before, in the caller's order. Items a full non-scaling
   * shard refused raise FilterFullError (the others are added). A command whose reply was
   * lost is sent again: its items then answer false if the lost attempt added them.
   */
  madd(items: Iterable<P.Item>): Promise<boolean[]> {
    return this.batch(
      { what: 'add', command: (key, xs) => ['BF.INSERT', key, 'NOCREATE', 'ITEMS', ...xs], policy: 'safe', read: false, decode: R.boolean },
      items,
    );
  }

  /** The sum of the shards' BF.CARD. */
  async card(): Promise<number> {
    const { commands } = await this.perShard((key) => ['BF.CARD', key]);
    return commands.reduce((sum, c) => sum + R.integer(c.reply), 0);
  }
}

export interface CuckooReserveOptions {
  shards?: number;
  /** Default 2. */
  bucketSize?: number;
  /** Default 20. */
  maxIterations?: number;
  /** Default 1. */
  expansion?: number;
  keyedRouting?: boolean;
}

/**
 * A cuckoo filter over many shards (CF.* keys). `add` stores another copy even when the item
 * is there (CF.INSERT), so it is never sent twice: when a reply is lost, AmbiguousWriteError
 * names the items whose outcome is unknown. `addnx` (CF.INSERTNX) is retried instead.
 */
export class ShardedCuckoo extends Sharded {
  readonly family = 'cuckoo' as const;
  protected readonly infoVerb = 'CF.INFO';
  protected readonly existsVerb = 'CF.MEXISTS';

  /** Creates the logical filter (see ShardedBloom.reserve) with `CF.RESERVE ... SHARD name i N SHARDID id`. */
  async reserve(capacity: number, options: CuckooReserveOptions = {}): Promise<void> {
    positiveInt('a capacity', capacity);
    const bucket = positiveInt('a bucket size', options.bucketSize ?? 2);
    const iterations = positiveInt('max iterations', options.maxIterations ?? 20);
    const exp = options.expansion ?? 1;
    if (!Number.isSafeInteger(exp) || exp < 0) throw new RangeError(`an expansion is a non-negative integer, not ${String(exp)}`);
    const count = options.shards === undefined ? P.defaultCuckooShards(capacity, bucket) : positiveInt('a shard count', options.shards);
    P.slotRange(0, count);
    const each = P.shardCapacity(capacity, count);
    await this.create(
      [['protocol', P.PROTOCOL], ['family', this.family], ['shards', count], ['capacity', capacity],
        ['shard_capacity', each], ['expansion', exp], ['bucket_size', bucket], ['max_iterations', iterations]],
      (key, i, n, id, secret) => [
        'CF.RESERVE', key, String(each), 'BUCKETSIZE', String(bucket), 'MAXITERATIONS', String(iterations),
        'EXPANSION', String(exp), 'SHARD', this.name, String(i), String(n), 'SHARDID', id,
        ...(secret === undefined ? [] : ['SHARDSECRET', secret]),
      ],
      count,
      options.keyedRouting === true,
    );
  }

  /**
   * Adds the items (`CF.INSERT key NOCREATE ITEMS ...`; an item already there gets another
   * copy): true per item added. A shard with no room: FilterFullError; a lost reply:
   * AmbiguousWriteError (never resent).
   */
  madd(items: Iterable<P.Item>): Promise<boolean[]> {
    return this.batch(
      {
        what: 'add', command: (key, xs) => ['CF.INSERT', key, 'NOCREATE', 'ITEMS', ...xs], policy: 'once', read: false,
        decode: () => true,
        // RESP3's false from CF.INSERT is a refusal (no room), never "not added".
        refused: (a) => a === false,
      },
      items,
    );
  }

  /** Adds the item unless it may be there (CF.INSERTNX); see `maddnx`. */
  async addnx(item: P.Item): Promise<boolean> {
    return (await this.maddnx([item]))[0]!;
  }

  /**
   * `CF.INSERTNX key NOCREATE ITEMS ...` per shard: true per item added, false for one that
   * may have been there. Retried after a lost reply (it adds nothing twice), so an item the
   * lost attempt added answers false.
   */
  maddnx(items: Iterable<P.Item>): Promise<boolean[]> {
    return this.batch(
      { what: 'addnx', command: (key, xs) => ['CF.INSERTNX', key, 'NOCREATE', 'ITEMS', ...xs], policy: 'safe', read: false, decode: R.boolean },
      items,
    );
  }

  /** Removes one copy of the item (CF.DEL): true if one was there. Never sent twice. */
  async remove(item: P.Item): Promise<boolean> {
    const [removed] = await this.batch(
      { what: 'remove', command: (key, xs) => ['CF.DEL', key, xs[0]!], policy: 'once', read: false, single: true, decode: R.boolean },
      [item],
    );
    return removed!;
  }

  /** Copies of the item's fingerprint in its shard (CF.COUNT). */
  async count(item: P.Item): Promise<number> {
    const [n] = await this.batch(
      { what: 'count', command: (key, xs) => ['CF.COUNT', key, xs[0]!], policy: 'safe', read: true, single: true, decode: R.integer },
      [item],
    );
    return n!;
  }

  /** The sum of the shards' CF.INFO `Number of items inserted`. */
  async card(): Promise<number> {
    return (await this.info()).items;
  }
}
