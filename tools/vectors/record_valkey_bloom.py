#!/usr/bin/env python3
"""Records valkey-bloom's exact replies to tests/vectors/valkey-bloom/*.script.

The scripts are in the format of tests/vectors/redisbloom8/ (see record_redisbloom8.py); the
server is started with valkey-bloom's fixed seed (`--bf.bloom-use-random-seed no`) and the
DEBUG command enabled, so every reply (INFO's figures included) is reproducible. CI cannot
build valkey-bloom (no network), so the files are recorded once, here, and kept; the suite
(`bloom::valkey_dialect`) replays them against rsbloom on Valkey 9.1.

valkey-bloom's .so: fetch valkey-io/valkey-bloom (the tree measured: unstable at 8077d58,
reachable as the fork rlunar/valkey-bloom), `cargo build --release` in it, and pass
target/release/libvalkey_bloom.so.

Usage: record_valkey_bloom.py --server PATH/valkey-server --module PATH/libvalkey_bloom.so
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "tests", "vectors", "valkey-bloom")
sys.path.insert(0, HERE)
from rawresp import Conn, Server, escape, unescape  # noqa: E402

EXTRA = ["--bf.bloom-use-random-seed", "no", "--enable-debug-command", "yes"]


def record(server, module, name):
    srv = Server(server, module, extra=EXTRA)
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
