"""The pieces the vector recorders share: the .tsv escaping (tests/vectors/redisbloom-cf/
README.md), a raw RESP connection that returns each reply's exact bytes, and a redis-server
with a module on a free loopback port."""

import os
import socket
import subprocess
import tempfile
import time


def escape(data):
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x09:
            out.append("\\t")
        elif b == 0x0A:
            out.append("\\n")
        elif b == 0x0D:
            out.append("\\r")
        elif 0x20 <= b <= 0x7E:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def unescape(field):
    out = bytearray()
    i = 0
    while i < len(field):
        c = field[i]
        if c == "\\":
            n = field[i + 1]
            if n == "x":
                out.append(int(field[i + 2:i + 4], 16))
                i += 4
                continue
            out += {"\\": b"\\", "t": b"\t", "n": b"\n", "r": b"\r"}[n]
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)


class Conn:
    """One connection; send() returns the exact bytes of one reply."""

    def __init__(self, port, proto=2):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(60)
        self.buf = b""
        if proto == 3:
            self.send([b"HELLO", b"3"])

    def close(self):
        self.sock.close()

    def _more(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("connection closed by the server")
        self.buf += chunk

    def _line(self, pos):
        while True:
            end = self.buf.find(b"\r\n", pos)
            if end >= 0:
                return self.buf[pos:end], end + 2
            self._more()

    def _reply_end(self, pos):
        line, pos = self._line(pos)
        t, rest = line[:1], line[1:]
        if t in (b"$", b"=", b"!"):
            n = int(rest)
            if n >= 0:
                while len(self.buf) < pos + n + 2:
                    self._more()
                pos += n + 2
        elif t in (b"*", b"~", b">"):
            for _ in range(max(int(rest), 0)):
                pos = self._reply_end(pos)
        elif t in (b"%", b"|"):
            for _ in range(2 * int(rest)):
                pos = self._reply_end(pos)
            if t == b"|":  # an attribute precedes the real reply
                pos = self._reply_end(pos)
        return pos

    def send(self, args):
        args = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        self.sock.sendall(b"".join([b"*%d\r\n" % len(args)] +
                                   [b"$%d\r\n%s\r\n" % (len(a), a) for a in args]))
        end = self._reply_end(0)
        reply, self.buf = self.buf[:end], self.buf[end:]
        return reply




def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                env[k] = v
    return env


class Server:
    """redis-server `binary` with `module` loaded, stopped by stop()."""

    @classmethod
    def from_env(cls, envfile, module, **kw):
        """The server a target/servers/*.env file names (REDIS_SERVER, LD_LIBRARY_PATH)."""
        e = read_env(envfile)
        return cls(e["REDIS_SERVER"], module, ld_library_path=e.get("LD_LIBRARY_PATH", ""), **kw)

    def __init__(self, binary, module, extra=(), workdir=None, ld_library_path=""):
        self.binary = binary
        self.env = dict(os.environ)
        if ld_library_path:
            self.env["LD_LIBRARY_PATH"] = ld_library_path
        self.dir = workdir or tempfile.mkdtemp(prefix="rbprob-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        args = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", self.dir,
                "--save", "", "--appendonly", "no", "--crash-memcheck-enabled", "no",
                "--loadmodule", module] + list(extra)
        self.log = open(os.path.join(self.dir, "server.log"), "wb")
        self.proc = subprocess.Popen(args, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(200):
            try:
                c = Conn(self.port)
                if c.send(["PING"]) == b"+PONG\r\n":
                    c.close()
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: " + open(self.log.name).read())
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.close()


def record_scripts(vectors, server, module, extra=()):
    """Sends each `NAME.script` of `vectors` to a fresh server with `module` loaded and writes
    `NAME.commands.tsv` beside it (the format record_redisbloom8.py describes)."""
    names = sorted(f[: -len(".script")] for f in os.listdir(vectors) if f.endswith(".script"))
    for name in names:
        srv = Server(server, module, extra=extra)
        try:
            conns = {2: Conn(srv.port, 2), 3: Conn(srv.port, 3)}
            lines = []
            seq = 0
            with open(os.path.join(vectors, name + ".script")) as f:
                for raw in f.read().split("\n"):
                    if not raw or raw.startswith("#"):
                        continue
                    cols = raw.split("\t")
                    proto, args = int(cols[0]), [unescape(c) for c in cols[1:]]
                    seq += 1
                    reply = conns[proto].send(args)
                    lines.append("\t".join([str(seq), str(proto), escape(reply)] +
                                           [escape(a) for a in args]))
            with open(os.path.join(vectors, name + ".commands.tsv"), "w") as f:
                f.write("\n".join(lines) + "\n")
            print(f"{name}: {seq} commands")
        finally:
            srv.stop()
