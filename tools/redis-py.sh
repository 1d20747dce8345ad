#!/usr/bin/env bash
# redis-py's own tests of RedisBloom's commands (tests/test_bloom.py and
# tests/test_asyncio/test_bloom.py), run by the suite's server::redis_py against rsbloom.
# The sdist of redis-py carries its tests; it is unpacked into target/redis-py/, and redis-py,
# pytest and pytest-asyncio are installed with `pip --target` into target/redis-py/site
# (nothing system-wide). Done once per version.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/target/redis-py
PY=${PYTHON:-python3}
VERSION=8.1.0
DONE=$OUT/.installed-$VERSION

[ -f "$DONE" ] && exit 0
rm -rf "$OUT" && mkdir -p "$OUT/dl"
"$PY" -m pip download --quiet --no-deps --no-binary :all: -d "$OUT/dl" "redis==$VERSION"
tar xzf "$OUT/dl/redis-$VERSION.tar.gz" -C "$OUT"
mv "$OUT/redis-$VERSION" "$OUT/src"
"$PY" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$OUT/site" "redis==$VERSION" "pytest==9.2.0" "pytest-asyncio==1.5.0"
touch "$DONE"
