// A fault-injecting TCP proxy: it forwards bytes between clients and one real server on
// loopback and, when told, loses replies the way a failing network does (the server has run
// the commands; the client never hears back).
//
// - dropAfter(verb, keep): the next request chunk holding a command named `verb` (cut at its
//   last whole command) is forwarded; every reply to it is read from the server (so the
//   server ran them all), the client gets the replies for commands before that chunk plus
//   the first `keep` replies of it, and then its connection is closed. `dropped` counts these.
// - onReply(text, hook): before the first server bytes holding `text` are forwarded, await
//   hook() once (the server's side is paused meanwhile); `hooked` counts the calls.
// - commands: every command name forwarded (upper case); count(verb) of one name.
import net from 'node:net';

/** Where the RESP2/RESP3 value starting at `pos` ends, or -1 when `buf` does not hold all of it. */
export function respEnd(buf, pos = 0) {
  if (pos >= buf.length) return -1;
  const kind = String.fromCharCode(buf[pos]);
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return -1;
  const head = buf.subarray(pos + 1, eol).toString();
  let after = eol + 2;
  if ('+-:_#,('.includes(kind)) return after;
  if ('$=!'.includes(kind)) {
    const size = Number(head);
    if (size < 0) return after;
    return buf.length >= after + size + 2 ? after + size + 2 : -1;
  }
  if ('*~>%|'.includes(kind)) {
    let count = Number(head);
    if (kind === '%' || kind === '|') count *= 2;
    for (let i = 0; i < Math.max(count, 0); i++) {
      after = respEnd(buf, after);
      if (after < 0) return -1;
    }
    return kind === '|' ? respEnd(buf, after) : after; // attributes precede their value
  }
  throw new Error(`not RESP at ${pos}: ${JSON.stringify(buf.subarray(pos, pos + 20).toString())}`);
}

/** The names of the whole commands at the start of `buf`, and where the last one ends. */
function splitCommands(buf) {
  const names = [];
  let pos = 0;
  for (;;) {
    const end = respEnd(buf, pos);
    if (end < 0) break;
    const first = buf.indexOf('\r\n', pos) + 2; // after the array header
    const nameStart = buf.indexOf('\r\n', first) + 2; // after the bulk's length line
    names.push(buf.subarray(nameStart, buf.indexOf('\r\n', nameStart)).toString().toUpperCase());
    pos = end;
  }
  return [names, pos];
}

export class FaultProxy {
  constructor(host, port) {
    this.target = { host, port };
    this.commands = [];
    this.errors = [];
    this.dropped = 0;
    this.rule = undefined;
    this.hook = undefined;
    this.hooked = 0;
    this.sockets = new Set();
    this.host = '127.0.0.1';
    this.port = 0;
  }

  async start() {
    this.server = net.createServer((client) => this.#serve(client));
    await new Promise((resolve) => this.server.listen(0, this.host, resolve));
    this.port = this.server.address().port;
    return this;
  }

  dropAfter(verb, keep = 0) {
    this.rule = { verb: verb.toUpperCase(), keep };
  }

  onReply(text, hook) {
    this.hook = { text, hook };
  }

  count(verb) {
    return this.commands.filter((c) => c === verb.toUpperCase()).length;
  }

  #serve(client) {
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    let fromClient = Buffer.alloc(0);
    let fromServer = Buffer.alloc(0);
    let outstanding = 0; // commands forwarded whose replies the client has not had
    let drop; // { total: replies to read, pass: replies to hand on }
    const end = () => {
      client.end(); // after what was written to it (the replies let through)
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      fromClient = Buffer.concat([fromClient, chunk]);
      const [names, cut] = splitCommands(fromClient);
      if (cut === 0) return;
      const piece = fromClient.subarray(0, cut);
      fromClient = fromClient.subarray(cut);
      this.commands.push(...names);
      if (drop) {
        drop.total += names.length; // they run; their replies are lost too
      } else if (this.rule && names.includes(this.rule.verb)) {
        drop = { total: outstanding + names.length, pass: outstanding + this.rule.keep };
        this.rule = undefined;
        this.dropped++;
      }
      outstanding += names.length;
      upstream.write(piece);
    });
    upstream.on('data', (chunk) => {
      const hook = this.hook;
      if (hook && chunk.includes(hook.text)) {
        this.hook = undefined;
        this.hooked++;
        upstream.pause();
        hook.hook().then(
          () => {
            handle(chunk);
            upstream.resume();
          },
          (e) => {
            this.errors.push(e);
            end();
          },
        );
        return;
      }
      handle(chunk);
    });
    const handle = (chunk) => {
      fromServer = Buffer.concat([fromServer, chunk]);
      let pos = 0;
      const forward = [];
      for (;;) {
        const stop = respEnd(fromServer, pos);
        if (stop < 0) break;
        if (!drop || drop.pass > 0) {
          forward.push(fromServer.subarray(pos, stop));
          outstanding--;
        }
        if (drop) {
          drop.pass--;
          drop.total--;
        }
        pos = stop;
      }
      fromServer = fromServer.subarray(pos);
      if (forward.length) client.write(Buffer.concat(forward));
      if (drop && drop.total <= 0) end();
    };
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', () => {
        this.sockets.delete(s);
        end();
      });
    }
  }

  /** Closes every socket and the listener; throws the first error a hook raised. */
  async close() {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(() => resolve()));
    if (this.errors.length) throw this.errors[0];
  }
}
