/**
 * Sending batches of single-key commands to the masters that hold their keys.
 *
 * Why not node-redis' cluster client for the commands themselves: its request loop routes by
 * key and follows MOVED / ASK, and future versions may add retries (it already relocates
 * queued commands in maintenance events), while a cuckoo `CF.INSERT` or `CF.DEL` must never
 * be resent once it may have reached a server (issue 44, section 4). So the transport takes
 * the per-node clients from the cluster's own node list (`cluster.slots`, `nodeClient`) and
 * does the routing, MOVED, ASK, TRYAGAIN and failovers itself, with one policy per command:
 *
 * - The commands of a batch for one node are issued in the same tick on that node's one
 *   connection: node-redis writes them as one pipeline, every node at once, and pairs replies
 *   in order (so an `ASKING` answered with an error is paired with `ASKING`, never with the
 *   command after it).
 * - A plain node-redis client never resends a command that was written: when the connection
 *   fails, the commands waiting for a reply are rejected, and only commands it had not
 *   written stay queued (and are written once, after it reconnects). A command is only handed
 *   to a client that is ready, so a dead node's reconnecting client is never given one.
 * - MOVED: the slot goes to the node named (and the cluster's slot map is read again);
 *   ASK: `ASKING` then the command on the node named, this once; TRYAGAIN, CLUSTERDOWN,
 *   MASTERDOWN, LOADING, READONLY and "not sent" (no ready connection, a connect that
 *   failed, node-redis' pre-write timeout): the server did not run it, so it is sent again
 *   after a pause.
 * - A connection that failed after the command was written: `safe` commands (reads, Bloom
 *   adds, CF.INSERTNX, DEL, reserves) are sent again; `once` commands are not: they end with
 *   `lost` set and the caller reports their items as unknown.
 *
 * Retries stop after `retryTimeout` ms; the last error is then the command's.
 */

import { ErrorReply, RESP_TYPES } from 'redis';

import { keySlot } from './protocol.js';

export type Policy = 'safe' | 'once';
export type Arg = string | Buffer;

/** One command for the master holding `key`; its outcome after `Transport.run`. */
export class Command {
  readonly key: Buffer;
  readonly args: Arg[];
  readonly policy: Policy;
  reply: unknown = undefined;
  error: Error | undefined = undefined;
  /** `host:port` of the node that answered. */
  node: string | undefined = undefined;
  /** A once-only command was written and its reply lost: its outcome is unknown. */
  lost = false;
  redirects = 0;
  ask: string | undefined = undefined;
  /** ASKING's own error reply in this round (a user without `+asking`, say). */
  askingError: Error | undefined = undefined;
  done = false;

  constructor(key: Buffer, args: Arg[], policy: Policy = 'safe') {
    this.key = key;
    this.args = args;
    this.policy = policy;
  }
}

/** No connection was ready or could be made: the command never left the client. */
export class NotSentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NotSentError';
  }
}

/** What the transport needs of a node-redis client (`createClient`, or a cluster's node client). */
export interface NodeClient {
  sendCommand(args: Arg[], options?: object): Promise<unknown>;
  readonly isReady: boolean;
  readonly isOpen: boolean;
  readonly options?: { socket?: { host?: string; port?: number; path?: string } } | undefined;
}

interface ClusterNodeLike {
  address: string;
}

/** What the transport needs of a node-redis cluster client (`createCluster`). */
export interface ClusterClient {
  readonly slots: { master: ClusterNodeLike }[];
  readonly masters: ClusterNodeLike[];
  readonly nodeByAddress: Map<string, ClusterNodeLike>;
  nodeClient(node: ClusterNodeLike): Promise<NodeClient>;
}

export type AnyClient = NodeClient | ClusterClient;

export function isCluster(client: unknown): client is ClusterClient {
  const c = client as Partial<ClusterClient> | null;
  return c !== null && typeof c === 'object' && typeof c.nodeClient === 'function' && 'masters' in c;
}

// Replies as bytes (names and items are binary) and RESP3 maps as Maps.
const SEND_OPTIONS = {
  typeMapping: {
    [RESP_TYPES.BLOB_STRING]: Buffer,
    [RESP_TYPES.MAP]: Map,
  },
};

const NOT_RUN = ['TRYAGAIN', 'CLUSTERDOWN', 'MASTERDOWN', 'LOADING', 'READONLY'];

/** How long a round waits for a node's first connection (ms). */
const CONNECT_WAIT = 1000;

/** Errors node-redis raises for a command it never wrote. */
function notWritten(e: Error): boolean {
  return (
    e instanceof NotSentError ||
    e.name === 'ClientClosedError' ||
    e.name === 'ClientOfflineError' ||
    e.name === 'ConnectionTimeoutError' ||
    // node-redis' command timeout only runs until the command is written (commands-queue.js
    // removes it then); written commands wait for their reply or the socket's end.
    e.name === 'TimeoutError'
  );
}

interface Router {
  route(cmd: Command): Promise<[string, NodeClient]>;
  moved(slot: number, address: string): void;
  refresh(): Promise<void>;
}

class OneNode implements Router {
  readonly name: string;
  constructor(private readonly client: NodeClient) {
    const socket = client.options?.socket;
    this.name = socket?.path !== undefined ? `unix:${socket.path}` : `${socket?.host ?? 'localhost'}:${socket?.port ?? 6379}`;
  }
  route(cmd: Command): Promise<[string, NodeClient]> {
    if (cmd.ask !== undefined) {
      return Promise.reject(new ErrorReply(`ASK to ${cmd.ask}: the server is a cluster node; use createCluster`));
    }
    return Promise.resolve([this.name, this.client]);
  }
  moved(): void {}
  refresh(): Promise<void> {
    return Promise.resolve();
  }
}

class ClusterRouter implements Router {
  // Slots a MOVED named a new owner for, until the slot map is read again.
  private readonly overrides = new Map<number, string>();
  constructor(private readonly cluster: ClusterClient) {}

  async route(cmd: Command): Promise<[string, NodeClient]> {
    const slot = keySlot(cmd.key);
    const address = cmd.ask ?? this.overrides.get(slot) ?? this.cluster.slots[slot]?.master.address;
    const node = address === undefined ? undefined : this.cluster.nodeByAddress.get(address);
    if (address === undefined || node === undefined) {
      throw new NotSentError(`no known node for slot ${slot}${address === undefined ? '' : ` (${address})`}`);
    }
    // A node whose first connect never succeeds (a dead node the slot map still names)
    // would keep nodeClient() pending for as long as node-redis retries: wait a moment, then
    // count the command as not sent and go round again.
    const connecting = this.cluster.nodeClient(node);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new NotSentError(`${address}: no connection within ${CONNECT_WAIT} ms`));
      }, CONNECT_WAIT);
    });
    try {
      return [address, await Promise.race([connecting, late])];
    } catch (e) {
      connecting.catch(() => undefined); // its late rejection is not ours to report
      if (e instanceof NotSentError) throw e;
      throw new NotSentError(`${address}: ${(e as Error).message}`, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  }

  moved(slot: number, address: string): void {
    this.overrides.set(slot, address);
  }

  async refresh(): Promise<void> {
    // node-redis has no public call to reread the slot map; its cluster client does so on
    // MOVED through this internal one (node-redis 6; checked on 6.3.1, the version tested).
    const self = (this.cluster as { _self?: unknown })._self ?? this.cluster;
    const slots = (self as { _slots?: { rediscover?: (start?: unknown) => Promise<void> } })._slots;
    if (typeof slots?.rediscover !== 'function') return;
    try {
      await slots.rediscover();
      this.overrides.clear();
    } catch {
      // every known node failed to answer: the next round finds out again
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly router: Router;
  readonly cluster: boolean;

  constructor(client: AnyClient, readonly retryTimeout = 20_000) {
    this.cluster = isCluster(client);
    this.router = isCluster(client) ? new ClusterRouter(client) : new OneNode(client);
  }

  /** The node name a plain client is known by (for `info()`), else undefined. */
  get nodeName(): string | undefined {
    return this.router instanceof OneNode ? this.router.name : undefined;
  }

  /** Runs every command to an outcome; never throws for one command's error (it is in `error`). */
  async run(commands: Command[]): Promise<Command[]> {
    let pending = commands.filter((c) => !c.done);
    const deadline = Date.now() + this.retryTimeout;
    let pause = 20;
    while (pending.length > 0) {
      await this.round(pending);
      const again: Command[] = [];
      let reload = false;
      let wait = false;
      for (const cmd of pending) {
        const outcome = this.judge(cmd);
        if (outcome === 'done') continue;
        again.push(cmd);
        if (outcome === 'reload' || outcome === 'reload-wait') reload = true;
        if (outcome === 'reload-wait') wait = true;
      }
      pending = again;
      if (pending.length === 0) break;
      if (Date.now() >= deadline) {
        for (const cmd of pending) cmd.done = true; // the last error stays
        break;
      }
      if (wait) {
        await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
        pause = Math.min(pause * 2, 500);
      }
      if (reload) await this.router.refresh();
    }
    return commands;
  }

  private async round(pending: Command[]): Promise<void> {
    for (const cmd of pending) {
      cmd.error = undefined;
      cmd.askingError = undefined;
    }
    const routed = await Promise.all(
      pending.map((cmd) =>
        this.router.route(cmd).then(
          (to) => to,
          (e: unknown) => {
            cmd.error = e as Error;
            return undefined;
          },
        ),
      ),
    );
    // Every command issued in this one synchronous loop: node-redis writes each node's
    // share as one pipeline, all nodes at once.
    const replies: Promise<void>[] = [];
    for (let i = 0; i < pending.length; i++) {
      const cmd = pending[i]!;
      const to = routed[i];
      if (to === undefined) continue;
      const [name, client] = to;
      if (!client.isReady) {
        cmd.error = new NotSentError(`${name} has no ready connection`);
        continue;
      }
      if (cmd.ask !== undefined) {
        // Its error, if any, is ASKING's own; the command's reply is read as its own.
        replies.push(
          client.sendCommand(['ASKING']).then(
            () => undefined,
            (e: unknown) => {
              cmd.askingError = e instanceof Error ? e : new Error(String(e));
            },
          ),
        );
      }
      replies.push(
        client.sendCommand(cmd.args, SEND_OPTIONS).then(
          (reply) => {
            cmd.reply = reply;
            cmd.node = name;
          },
          (e: unknown) => {
            cmd.error = e instanceof Error ? e : new Error(String(e));
            cmd.node = name;
          },
        ),
      );
    }
    await Promise.all(replies);
  }

  private judge(cmd: Command): 'done' | 'again' | 'reload' | 'reload-wait' {
    const e = cmd.error;
    cmd.ask = undefined;
    if (e === undefined) {
      cmd.done = true;
      return 'done';
    }
    if (e instanceof ErrorReply) {
      const words = e.message.split(' ');
      if (cmd.askingError !== undefined && (words[0] === 'MOVED' || words[0] === 'ASK')) {
        // ASKING was refused, so the node named by ASK sent the command back: following
        // the ASK cannot work, and the refusal is the command's outcome (it did not run).
        cmd.error = cmd.askingError;
        cmd.done = true;
        return 'done';
      }
      if ((words[0] === 'MOVED' || words[0] === 'ASK') && words.length >= 3 && this.cluster) {
        cmd.redirects++;
        if (words[0] === 'ASK') {
          cmd.ask = words[2];
          return 'again';
        }
        this.router.moved(Number(words[1]), words[2]!);
        return 'reload';
      }
      if (NOT_RUN.includes(words[0]!)) return 'reload-wait';
      cmd.done = true;
      return 'done';
    }
    if (notWritten(e)) {
      // (an ASK target that could not be reached included: the slot's owner is asked again)
      return 'reload-wait';
    }
    // Written, and the reply lost (a reset, a killed node, a closed socket).
    if (cmd.policy === 'once') {
      cmd.lost = true;
      cmd.done = true;
      return 'done';
    }
    return 'reload-wait';
  }
}
