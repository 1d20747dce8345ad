// Where the servers are: the Rust suite (tests/suite/server/node_client.rs) starts one server
// and a cluster of 3 masters and 3 replicas and sets RSBLOOM_TEST_NODE / RSBLOOM_TEST_CLUSTER
// (host:port). Tests that need a server skip only when its variable is unset; the suite
// sets both and counts skips as failures. Nothing here starts a server.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { createClient, createCluster } from 'redis';

import { shardCapacity, shardKeys } from 'rsbloom';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const PROTOCOLS = [2, 3];

export function address(variable) {
  const value = process.env[variable];
  if (!value) return undefined;
  const at = value.lastIndexOf(':');
  return { host: value.slice(0, at) || '127.0.0.1', port: Number(value.slice(at + 1)) };
}

export const NODE = address('RSBLOOM_TEST_NODE');
export const CLUSTER = address('RSBLOOM_TEST_CLUSTER');

/** The test option that skips a server test when its server was not given. */
export function needs(...what) {
  const missing = what.filter((w) => (w === 'node' ? !NODE : !CLUSTER));
  return missing.length ? { skip: `${missing.map((w) => (w === 'node' ? 'RSBLOOM_TEST_NODE' : 'RSBLOOM_TEST_CLUSTER')).join(', ')} not set` } : {};
}

// Every client a test opens; closed by closeAll() in an after() hook.
const opened = [];

export function quiet(client) {
  // A connection a test breaks on purpose emits 'error'; unheard, it would end the process.
  client.on('error', () => {});
  return client;
}

/** A connected client of one server (the test node by default) in protocol RESP. */
export async function nodeClient(RESP, where = NODE, socket = {}) {
  const client = quiet(createClient({ socket: { host: where.host, port: where.port, ...socket }, RESP }));
  opened.push(client);
  await client.connect();
  return client;
}

/** A connected cluster client (seeded with the test cluster's node) in protocol RESP. */
// Every node address a cluster client has seen, as further seeds: the failover test kills a
// master, which may be the one the suite named.
const seeds = new Set();

export async function clusterClient(RESP, defaults = undefined) {
  const rootNodes = [`${CLUSTER.host}:${CLUSTER.port}`, ...seeds].map((a) => {
    const at = a.lastIndexOf(':');
    return { socket: { host: a.slice(0, at), port: Number(a.slice(at + 1)) } };
  });
  const cluster = quiet(createCluster({ rootNodes, RESP, ...(defaults ? { defaults } : {}) }));
  cluster.on('node-error', () => {});
  opened.push(cluster);
  await cluster.connect();
  for (const node of [...cluster.masters, ...cluster.replicas]) seeds.add(node.address);
  return cluster;
}

export async function connect(kind, RESP) {
  return kind === 'node' ? nodeClient(RESP) : clusterClient(RESP);
}

export async function closeAll() {
  while (opened.length) {
    const c = opened.pop();
    try {
      await c.close();
    } catch {
      c.destroy?.();
    }
  }
}

/** A command with a key on either kind of client. */
export function raw(client, key, args) {
  if (typeof client.nodeClient === 'function') return client.sendCommand(key, false, args);
  return client.sendCommand(args);
}

/** A logical filter name no other test uses. */
export function uniqueName(prefix = 'nodetest') {
  return `${prefix}:${randomBytes(6).toString('hex')}`;
}

/**
 * A logical filter laid out by hand as a client before issue 44 made it: a description
 * without `id` and shards reserved with `SHARD name i N` only. The contract says such a
 * filter is still opened and used; the transport tests use it so the module's shard checks
 * vouch that every resent command reached its own shard.
 */
export async function layOut(client, family, name, shards, capacity = 1000 * shards) {
  const each = shardCapacity(capacity, shards);
  const fields = ['protocol', 'rsbloom-sharding/1', 'family', family, 'shards', String(shards), 'capacity', String(capacity), 'shard_capacity', String(each)];
  fields.push(...(family === 'bloom' ? ['error_rate', '0.000001', 'expansion', '2'] : ['expansion', '1', 'bucket_size', '2', 'max_iterations', '20']));
  await raw(client, name, ['HSET', name, ...fields]);
  const keys = shardKeys(name, shards);
  for (let i = 0; i < shards; i++) {
    const args = family === 'bloom'
      ? ['BF.RESERVE', keys[i], '0.000001', String(each), 'EXPANSION', '2', 'SHARD', name, String(i), String(shards)]
      : ['CF.RESERVE', keys[i], String(each), 'BUCKETSIZE', '2', 'MAXITERATIONS', '20', 'EXPANSION', '1', 'SHARD', name, String(i), String(shards)];
    await raw(client, keys[i], args);
  }
  return keys;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A direct client of the cluster node at `address` ("host:port"). */
export async function direct(addressText, RESP = 2) {
  const at = addressText.lastIndexOf(':');
  return nodeClient(RESP, { host: addressText.slice(0, at), port: Number(addressText.slice(at + 1)) });
}

/** CLUSTER NODES as { id, address, port, flags, master } per node. */
export async function clusterNodes(conn) {
  const text = String(await conn.sendCommand(['CLUSTER', 'NODES']));
  return text.trim().split('\n').map((line) => {
    const f = line.split(' ');
    const addr = f[1].split('@')[0];
    return { id: f[0], address: addr, port: Number(addr.slice(addr.lastIndexOf(':') + 1)), flags: f[2].split(','), master: f[3] };
  });
}

// For earlier topology changes to reach every node's view.
const SETTLE = 20_000;

/** The first of these masters with a connected replica (waited for): [address, direct client]. */
export async function withReplica(addresses) {
  const deadline = Date.now() + SETTLE;
  const conns = new Map();
  for (;;) {
    for (const address of addresses) {
      if (!conns.has(address)) conns.set(address, await direct(address));
      const conn = conns.get(address);
      const role = await conn.sendCommand(['ROLE']);
      if (String(role[0]) === 'master' && role[2].length > 0) return [address, conn];
    }
    assert.ok(Date.now() < deadline, `none of ${addresses.join(', ')} has a replica`);
    await sleep(100);
  }
}

/**
 * The port of the victim's replica once the cluster agrees on it: the victim streams to it
 * (ROLE) and every live node's CLUSTER NODES names it the victim's replica and does not flag
 * the victim as failing. A replica the other masters do not yet know as the victim's would
 * get no votes once the victim is gone.
 */
export async function settledReplica(victim, victimId, liveAddresses) {
  const deadline = Date.now() + SETTLE;
  const conns = new Map();
  let seen;
  for (;;) {
    const role = await victim.sendCommand(['ROLE']);
    seen = JSON.stringify(role.map(String));
    if (String(role[0]) === 'master' && role[2].length > 0) {
      const port = Number(role[2][0][1]);
      let agreed = true;
      for (const address of liveAddresses) {
        if (!conns.has(address)) conns.set(address, await direct(address));
        const view = await clusterNodes(conns.get(address));
        const replica = view.find((n) => n.port === port);
        const me = view.find((n) => n.id === victimId);
        if (!replica || !replica.flags.includes('slave') || replica.master !== victimId || me.flags.some((f) => f.includes('fail'))) agreed = false;
      }
      if (agreed) return port;
    }
    assert.ok(Date.now() < deadline, `the cluster did not settle on a replica of the victim in ${SETTLE} ms: ROLE ${seen}`);
    await sleep(100);
  }
}

