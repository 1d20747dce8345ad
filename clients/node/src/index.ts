/**
 * Node.js client for the rsbloom module: logical Bloom and cuckoo filters sharded over a
 * Redis or Valkey cluster (protocol rsbloom-sharding/1, issue 44's contract), and typed
 * helpers for the counting Bloom (CBF.*) and sliding-window (APBF.*) families.
 */

export * as protocol from './protocol.js';
export {
  PROTOCOL, SLOTS, keySlot, keyedSlot, slotRange, shardOfSlot, shardOf, tags, shardKey, shardKeys,
  shardCapacity, bloomShardBytes, cuckooShardBytes, defaultBloomShards, defaultCuckooShards, type Item,
} from './protocol.js';
export {
  RsbloomError, BatchError, FilterFullError, AmbiguousWriteError, FilterExistsError, FilterNotFoundError,
  UnknownProtocolError, ShardFullError,
} from './errors.js';
export {
  ShardedBloom, ShardedCuckoo, type ShardedOptions, type BloomReserveOptions, type CuckooReserveOptions,
  type FilterInfo, type ShardInfo,
} from './sharded.js';
export { CBF, APBF, cbf, apbf } from './families.js';
export { Command, Transport, NotSentError, type NodeClient, type ClusterClient, type AnyClient } from './transport.js';

export const VERSION = '0.1.0';
