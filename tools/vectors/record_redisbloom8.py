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
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "tests", "vectors", "redisbloom8")
sys.path.insert(0, HERE)
from rawresp import Conn, Server, escape, unescape  # noqa: E402


def record(server, module, name):
    srv = Server(server, module)
    try:
        conns = {2: Conn(srv.port, 2), 3: Conn(srv.port, 3)}
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
        srv.stop()


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
