#!/usr/bin/env bash
# make dist-check: what `make dist` wrote, used as a user would use it (run by .ci/run).
#
#   SHA256SUMS        every file in dist/ matches it
#   the tarball       holds what INSTALL says; its librsbloom.so and rsbloom-cli need no
#                     glibc symbol newer than GLIBC_2.17; the .so loads into every server of
#                     target/servers/*.env (make test-servers' five: Redis 7.0, 7.4, 8.2,
#                     Valkey 8.1, 9.1) on a free loopback port and answers there
#   the .deb          lintian reports no error; `apt-get install ./rsbloom_*.deb` installs it,
#                     Debian's /usr/bin/redis-server started on the package's example config
#                     (its loadmodule line, /usr/lib/redis/modules/librsbloom.so) answers;
#                     `apt-get purge` removes every file again
#   the Python wheel  installs into a fresh venv and imports
#
# Output: one line per check, `ok` or `FAIL`, then `N passed, N failed`; exits 1 on a failure.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIST=$ROOT/dist
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)
GLIBC=2.17
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
APT="env DEBIAN_FRONTEND=noninteractive $SUDO apt-get"
WORK=$(mktemp -d /tmp/rsbloom-dist-check.XXXXXX)
passed=0
failed=0

# Each server's pid goes into $WORK/pids (checks run in subshells), so that an interrupted
# run stops them too.
cleanup() {
    local p
    [ -f "$WORK/pids" ] && while read -r p; do kill "$p" 2>/dev/null; done <"$WORK/pids"
    rm -rf "$WORK"
}
trap cleanup EXIT

# check NAME COMMAND...: runs COMMAND, counts and prints the outcome (its output on failure).
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1))
        echo "ok    $name"
    else
        failed=$((failed + 1))
        echo "FAIL  $name"
        printf '%s\n' "$out" | sed 's/^/      /'
    fi
}

# expect_text GOT WANT
expect_text() { [ "$1" = "$2" ] || { echo "got '$1', want '$2'"; return 1; }; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# glibc_ceiling FILE: the highest GLIBC_ version FILE's dynamic symbols need is <= 2.17.
glibc_ceiling() {
    local top
    top=$(objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
    echo "highest GLIBC_ version: $top"
    [ -n "$top" ] && [ "$(printf '%s\n%s\n' "$top" "$GLIBC" | sort -V | tail -n 1)" = "$GLIBC" ]
}

# expect CLI PORT WANT COMMAND...: the command's reply (redis-cli's raw output) is WANT.
expect() {
    local cli=$1 port=$2 want=$3 got
    shift 3
    got=$("$cli" -h 127.0.0.1 -p "$port" "$@" 2>&1)
    [ "$got" = "$want" ] || { echo "$*: got '$got', want '$want'"; return 1; }
}

# module_ver CLI PORT: the `ver` MODULE LIST gives the module `bf` (redis-cli prints one
# element a line: name, bf, ver, 81200, ...).
module_ver() {
    "$1" -h 127.0.0.1 -p "$2" MODULE LIST |
        awk 'prev == "name" && $0 == "bf" { bf = 1 } bf && prev == "ver" { print; exit } { prev = $0 }'
}

# answers CLI PORT: the module is there under its name and versions, and every family answers.
answers() {
    local cli=$1 port=$2
    expect_text "$(module_ver "$cli" "$port")" 81200 &&
        "$cli" -h 127.0.0.1 -p "$port" INFO bf | tr -d '\r' | grep -qx "bf_version:$VERSION" &&
        expect "$cli" "$port" 1 BF.ADD b x && expect "$cli" "$port" 1 BF.EXISTS b x &&
        expect "$cli" "$port" 1 CF.ADD c x && expect "$cli" "$port" OK CMS.INITBYDIM m 10 2 &&
        expect "$cli" "$port" OK TOPK.RESERVE t 3 && expect "$cli" "$port" OK TDIGEST.CREATE d &&
        expect "$cli" "$port" 1 CBF.ADD n x && expect "$cli" "$port" 1 APBF.ADD w x
}

# serve NAME SERVER CLI ARGS...: starts SERVER ARGS on a free port in its own directory,
# waits until it answers PING, checks it with `answers`, stops it.
serve() {
    local name=$1 server=$2 cli=$3 port dir pid i
    shift 3
    port=$(free_port)
    dir=$WORK/$name
    mkdir -p "$dir"
    (cd "$dir" && exec "$server" "$@" --port "$port" --bind 127.0.0.1 --dir "$dir" \
        --save '' --appendonly no --daemonize no --logfile "$dir/log") &
    pid=$!
    echo "$pid" >>"$WORK/pids"
    for i in $(seq 100); do
        [ "$("$cli" -h 127.0.0.1 -p "$port" PING 2>/dev/null)" = PONG ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    local rc=0
    answers "$cli" "$port" || { rc=1; tail -n 20 "$dir/log"; }
    "$cli" -h 127.0.0.1 -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return $rc
}

# serve_env ENV MODULE: serve on the server an env file of tools/servers.sh names.
serve_env() {
    set -a
    . "$1"
    set +a
    serve "$(basename "$1" .env)" "$REDIS_SERVER" "$REDIS_CLI" --loadmodule "$2"
}

# expect_version CLI: `CLI --version` names this version.
expect_version() {
    local got
    got=$("$1" --version)
    [ "$got" = "rsbloom-cli $VERSION" ] || { echo "got '$got'"; return 1; }
}

# --- SHA256SUMS ---------------------------------------------------------------------------
check "SHA256SUMS matches dist/" bash -c "cd '$DIST' && sha256sum --quiet -c SHA256SUMS"

# --- the tarball ---------------------------------------------------------------------------
TARBALL=$DIST/rsbloom-$VERSION-linux-x86_64.tar.gz
T=$WORK/tar/rsbloom-$VERSION-linux-x86_64
mkdir -p "$WORK/tar" && tar -C "$WORK/tar" -xzf "$TARBALL"
listing() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }
check "tarball holds the module, the CLI, the docs and INSTALL" expect_text "$(listing "$T")" \
    "./CHANGELOG.md ./INSTALL ./LICENSE ./README.md ./librsbloom.so ./redis.conf.example ./rsbloom-cli "
check "tarball librsbloom.so needs glibc <= $GLIBC" glibc_ceiling "$T/librsbloom.so"
check "tarball rsbloom-cli needs glibc <= $GLIBC" glibc_ceiling "$T/rsbloom-cli"
check "rsbloom-cli --version is $VERSION" expect_version "$T/rsbloom-cli"
for env in "$ROOT"/target/servers/*.env; do
    name=$(basename "$env" .env)
    check "tarball librsbloom.so on $name" serve_env "$env" "$T/librsbloom.so"
done

# --- the Debian package ------------------------------------------------------------------
DEB=$DIST/rsbloom_${VERSION}_amd64.deb
MODULE=/usr/lib/redis/modules/librsbloom.so
# lintian's errors fail; its warnings and notes are printed (docs/install.md explains each).
no_lintian_errors() {
    local out
    out=$(lintian --tag-display-limit 0 "$DEB" 2>&1)
    printf '%s\n' "$out"
    ! printf '%s\n' "$out" | grep -q '^E:'
}
check "lintian reports no error on the .deb" no_lintian_errors
check "the .deb depends on the C library only" bash -c \
    "dpkg-deb -f '$DEB' Depends | grep -Ex 'libc6 \\(>= [0-9.]+\\)'"
check "apt-get install ./$(basename "$DEB")" bash -c "$APT install -y -qq --reinstall '$DEB' >/dev/null"
# Redis 7 loads no module file without its execute bit.
check "the package puts the module, the CLI and the docs in place" bash -c \
    "test -f $MODULE && test -x $MODULE && test -x /usr/bin/rsbloom-cli && test -f /usr/share/doc/rsbloom/copyright &&
     grep -qx 'loadmodule $MODULE' /usr/share/doc/rsbloom/redis.conf.example"
check "installed rsbloom-cli --version is $VERSION" expect_version /usr/bin/rsbloom-cli
check "installed module answers in Debian's redis-server (the package's example config)" \
    serve deb /usr/bin/redis-server /usr/bin/redis-cli /usr/share/doc/rsbloom/redis.conf.example
check "apt-get purge rsbloom removes its files" bash -c \
    "$APT purge -y -qq rsbloom >/dev/null && ! dpkg -s rsbloom >/dev/null 2>&1 &&
     test ! -e $MODULE && test ! -e /usr/bin/rsbloom-cli && test ! -e /usr/share/doc/rsbloom"

# --- the Python client ---------------------------------------------------------------------
wheel_imports() {
    local whl
    whl=$(ls "$DIST"/*.whl)
    python3 -m venv "$WORK/venv" &&
        "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "$whl" &&
        (cd "$WORK" && "$WORK/venv/bin/python" -c \
            'import rsbloom, importlib.metadata as m; print(rsbloom.__file__, m.version("rsbloom"))') |
        grep -q "$WORK/venv/.* "
}
check "the wheel installs into a fresh venv and imports" wheel_imports

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
