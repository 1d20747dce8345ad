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
from rawresp import record_scripts  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--module", required=True)
    args = p.parse_args()
    record_scripts(VECTORS, args.server, args.module)


if __name__ == "__main__":
    main()
