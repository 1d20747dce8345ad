#!/usr/bin/env bash
# A local cluster for trying sharded filters: three masters and three replicas on loopback,
# each with the freshly built module, created with `redis-cli --cluster create`.
#
#   tools/cluster.sh start    ports $CLUSTER_PORT .. $CLUSTER_PORT+5 (default 7000), data in
#                             target/cluster/<port>/, logs there too
#   tools/cluster.sh stop     SHUTDOWN NOSAVE each node, then remove target/cluster/
#
# REDIS_SERVER / REDIS_CLI pick the server (default: redis-server and redis-cli on PATH; for
# another server, `set -a; . target/servers/valkey-9.1.env; set +a` first).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${REDIS_SERVER:-redis-server}
CLI=${REDIS_CLI:-redis-cli}
BASE=${CLUSTER_PORT:-7000}
MODULE=$ROOT/target/release/librsbloom.so
DIR=$ROOT/target/cluster
PORTS=$(seq "$BASE" $((BASE + 5)))

case "${1:-}" in
start)
    [ -f "$MODULE" ] || { echo "no $MODULE: run make build first" >&2; exit 1; }
    for p in $PORTS; do
        if "$CLI" -h 127.0.0.1 -p "$p" PING >/dev/null 2>&1; then
            echo "port $p is taken (tools/cluster.sh stop, or CLUSTER_PORT=...)" >&2
            exit 1
        fi
    done
    for p in $PORTS; do
        mkdir -p "$DIR/$p"
        "$SERVER" --port "$p" --bind 127.0.0.1 --dir "$DIR/$p" --daemonize yes \
            --logfile "$DIR/$p/server.log" --cluster-enabled yes \
            --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
            --appendonly no --save "" --loadmodule "$MODULE"
    done
    for p in $PORTS; do
        until "$CLI" -h 127.0.0.1 -p "$p" PING >/dev/null 2>&1; do sleep 0.1; done
    done
    # shellcheck disable=SC2046
    "$CLI" --cluster create $(for p in $PORTS; do printf '127.0.0.1:%s ' "$p"; done) \
        --cluster-replicas 1 --cluster-yes >"$DIR/create.log"
    until "$CLI" -h 127.0.0.1 -p "$BASE" CLUSTER INFO | grep -q 'cluster_state:ok'; do
        sleep 0.2
    done
    echo "cluster up: 127.0.0.1:$BASE-$((BASE + 5)) (3 masters, 3 replicas); stop with tools/cluster.sh stop"
    ;;
stop)
    for p in $PORTS; do
        "$CLI" -h 127.0.0.1 -p "$p" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    done
    rm -rf "$DIR"
    echo "cluster stopped"
    ;;
*)
    echo "usage: tools/cluster.sh start|stop" >&2
    exit 2
    ;;
esac
