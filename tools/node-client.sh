#!/usr/bin/env bash
# The Node.js client's npm dependencies (clients/node/package-lock.json, `npm ci`: exactly the
# locked versions, into clients/node/node_modules) and its compiled dist/ (ES module and
# CommonJS builds with their .d.ts), for the suite's server::node_client, `make lint` and
# `make dist`. npm ci runs again only when the lock file changed since the last run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/clients/node
command -v npm >/dev/null || { echo "node-client: npm is not installed (Node.js 20 or newer)" >&2; exit 1; }
STAMP=$DIR/node_modules/.rsbloom-lock.sha256
SUM=$(sha256sum "$DIR/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$SUM" ]; then
    (cd "$DIR" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$SUM" >"$STAMP"
fi
(cd "$DIR" && npm run --silent build)
