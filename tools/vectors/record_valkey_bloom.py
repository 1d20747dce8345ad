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
from rawresp import record_scripts  # noqa: E402

EXTRA = ["--bf.bloom-use-random-seed", "no", "--enable-debug-command", "yes"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--module", required=True)
    args = p.parse_args()
    record_scripts(VECTORS, args.server, args.module, extra=EXTRA)


if __name__ == "__main__":
    main()
