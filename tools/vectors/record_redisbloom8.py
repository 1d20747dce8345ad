#!/usr/bin/env python3
"""Records RedisBloom 8's exact replies to the scripts in tests/vectors/redisbloom8/.

Each `NAME.script` holds one command per line, `proto<TAB>arg<TAB>arg...` (proto 2 or 3: the
connection that sends it; arguments escaped as in every .tsv there: `\\\\`, `\\t`, `\\n`, `\\r`,
`\\xHH`; `#` lines and blank lines are skipped). The script is sent to a fresh server with
RedisBloom loaded, and `NAME.commands.tsv` is written: `seq<TAB>proto<TAB>reply<TAB>args...`
with the reply's exact RESP bytes, escaped. CI cannot build RedisBloom 8 (no network), so the
files are recorded once, here, and kept in the repository; the suite replays them against
rsbloom.

Usage: record_redisbloom8.py --server PATH/redis-server --module PATH/redisbloom.so
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "tests", "vectors", "redisbloom8")


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


class Raw:
    """A connection that returns each reply's exact bytes."""

    def __init__(self, port, proto):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""
        if proto == 3:
            self.send([b"HELLO", b"3"])

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def _line(self, pos):
        while self.buf.find(b"\r\n", pos) < 0:
            self._fill()
        end = self.buf.index(b"\r\n", pos)
        return self.buf[pos:end], end + 2

    def _skip(self, pos):
        line, pos = self._line(pos)
        kind, rest = line[:1], line[1:]
        if kind in b"$=!":
            n = int(rest)
            if n >= 0:
                while len(self.buf) < pos + n + 2:
                    self._fill()
                pos += n + 2
        elif kind in b"*~>":
            for _ in range(max(int(rest), 0)):
                pos = self._skip(pos)
        elif kind in b"%|":
            for _ in range(2 * int(rest)):
                pos = self._skip(pos)
        return pos

    def send(self, args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        end = self._skip(0)
        reply, self.buf = self.buf[:end], self.buf[end:]
        return reply


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def record(server, module, name):
    port = free_port()
    work = tempfile.mkdtemp(prefix="rb8-record-")
    proc = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--dir", work, "--save", "",
         "--appendonly", "no", "--loadmodule", module],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                conns = {2: Raw(port, 2), 3: Raw(port, 3)}
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("the server did not start")
        lines = []
        seq = 0
        with open(os.path.join(VECTORS, name + ".script")) as f:
            for raw in f.read().split("\n"):
                if not raw or raw.startswith("#"):
                    continue
                cols = raw.split("\t")
                proto, args = int(cols[0]), [unescape(c) for c in cols[1:]]
                seq += 1
                reply = conns[proto].send(args)
                lines.append("\t".join([str(seq), str(proto), escape(reply)] +
                                       [escape(a) for a in args]))
        with open(os.path.join(VECTORS, name + ".commands.tsv"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{name}: {seq} commands")
    finally:
        proc.kill()
        proc.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--module", required=True)
    args = p.parse_args()
    names = sorted(f[:-len(".script")] for f in os.listdir(VECTORS) if f.endswith(".script"))
    for name in names:
        record(args.server, args.module, name)


if __name__ == "__main__":
    main()
