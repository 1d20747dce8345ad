#!/usr/bin/env bash
# RedisBloom's own flow tests (a RedisBloom checkout's tests/flow, run with RLTest) against
# rsbloom, in both filter formats: the default, and `new-filter-format redisbloom` (new Bloom
# filters in RedisBloom's MBbloom-- type, as the tests expect of BF.DEBUG and the like). A
# yardstick, not part of CI: it prints, per mode, the pass/fail/skip counts and the failing
# tests; docs/differences.txt names (`flow:`) the tests that fail for a listed difference.
#
#   tools/redisbloom-flow.sh PATH/TO/RedisBloom/tests/flow [RLTest args, e.g. -t test_acl.py]
#
# Environment: MODULE (default target/release/librsbloom.so, built if missing), REDIS_SERVER
# (default: Redis 8.2.3 of target/servers/redis-8.2.env, else redis-server on PATH), MODES
# (default "default redisbloom"), VERBOSE=1 (print each failing test's assertions). RLTest and
# its requirements go once into target/rltest/site (`pip --target`, nothing system-wide); the
# tests run in a copy of the folder under target/rltest/run, servers on one free port. The
# suite's `import paella` (RedisBloom's build helpers, a git submodule) is met by a small
# stand-in that names this platform, and RLTest's count of failed tests is corrected (below).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLOW=${1:?usage: $0 PATH/TO/RedisBloom/tests/flow [RLTest args]}
shift
FLOW=$(cd "$FLOW" && pwd)
[ -f "$FLOW/common.py" ] || { echo "$FLOW: no common.py, not a tests/flow folder" >&2; exit 2; }

PY=${PYTHON:-python3}
SITE=$ROOT/target/rltest/site
RLTEST_VERSION=0.7.5 # the version RedisBloom 8.8's tests/flow/requirements.txt pins
DONE=$SITE/.installed-$RLTEST_VERSION
if [ ! -f "$DONE" ]; then
    rm -rf "$SITE"
    "$PY" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
        --target "$SITE" "RLTest==$RLTEST_VERSION" numpy "setuptools<81" packaging
    touch "$DONE"
fi

if [ -z "${REDIS_SERVER:-}" ] && [ -f "$ROOT/target/servers/redis-8.2.env" ]; then
    set -a
    # shellcheck disable=SC1091
    . "$ROOT/target/servers/redis-8.2.env"
    set +a
fi
REDIS_SERVER=${REDIS_SERVER:-redis-server}
MODULE=${MODULE:-$ROOT/target/release/librsbloom.so}
if [ ! -f "$MODULE" ]; then
    (cd "$ROOT" && cargo build --release -p rsbloom --lib)
fi

RUN=$ROOT/target/rltest/run
rm -rf "$RUN"
mkdir -p "$RUN/shim"
cat >"$RUN/shim/paella.py" <<'PY'
# Stand-in for RedisBloom's build helpers: the flow tests read only these three names.
import platform


class Platform:
    def __init__(self):
        self.os = platform.system().lower()
        self.osnick = self.os
        self.arch = {"x86_64": "x64", "aarch64": "arm64v8"}.get(platform.machine(), platform.machine())
PY
# RLTest (0.7.5 to 0.7.15) judges each test of a class against a doubled running count of
# failed assertions, so after the first failing test of a class most failing ones print PASS.
# This runs RLTest with each test judged, and reported, by the assertions it added itself.
cat >"$RUN/shim/rltest_per_test.py" <<'PY'
from RLTest import __main__ as rltest

run_test = rltest.RLTest._runTest
add_failures = rltest.RLTest.addFailuresFromEnv


def _run_test(self, test, numberOfAssertionFailed=0, **kw):
    self._failed_before = 0
    if test.is_method and self.currEnv is not None:
        self._failed_before = self.currEnv.getNumberOfFailedAssertion()
        numberOfAssertionFailed = self._failed_before
    return run_test(self, test, numberOfAssertionFailed=numberOfAssertionFailed, **kw)


def _add_failures(self, name, env):
    if env is None:
        return add_failures(self, name, env)
    self.addFailure(name, failures=env.assertionFailedSummary[self._failed_before:])


rltest.RLTest._runTest = _run_test
rltest.RLTest.addFailuresFromEnv = _add_failures
rltest.main()
PY

# Each failing test with the rule of docs/differences.txt whose `flow:` lines name it.
cat >"$RUN/shim/flow_rules.py" <<'PY'
import fnmatch
import sys

rules, rule = [], None
for line in open(sys.argv[1]):
    field, _, value = line.strip().partition(": ")
    if field == "id":
        rule = value
    elif field == "flow":
        rules += [(pattern, rule) for pattern in value.split()]
unlisted = 0
for test in sys.stdin.read().split():
    name = test.replace(":", ".py:", 1)  # RLTest's report omits the file's .py
    found = [r for p, r in rules if fnmatch.fnmatchcase(name, p)]
    unlisted += not found
    print(f"   FAIL {name}  [{found[0] if found else 'UNLISTED'}]")
print(f"   {unlisted} failing tests not named by docs/differences.txt")
PY

"$REDIS_SERVER" --version
echo "module: $MODULE"
# A copy, so a build during the run does not change the module under the later tests.
cp "$MODULE" "$RUN/module.so"
MODULE=$RUN/module.so
status=0
for mode in ${MODES:-default redisbloom}; do
    case $mode in
        default) modargs=() ;;
        redisbloom) modargs=(--module-args "new-filter-format redisbloom") ;;
        *) echo "unknown mode $mode (default, redisbloom)" >&2; exit 2 ;;
    esac
    dir=$RUN/$mode
    cp -r "$FLOW" "$dir"
    log=$RUN/$mode.log
    # One free loopback port for every server of the run (never 6379): a test that makes an
    # Env with other module arguments stops the class's server, and the class's own Env
    # reaches the new one only on the same port (--randomize-ports breaks test_configs.py).
    port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    (
        cd "$dir"
        PYTHONPATH="$RUN/shim:$SITE${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$RUN/shim/rltest_per_test.py" \
            --oss-redis-path "$REDIS_SERVER" --module "$MODULE" "${modargs[@]}" \
            --enable-debug-command --redis-port "$port" --log-dir "$dir/logs" \
            -F "$RUN/$mode.failed" "$@"
    ) >"$log" 2>&1 || status=1
    # RLTest colours its report, and its "Failed" count is of assertions: tests are counted
    # here from the run's total and the failed-tests file.
    plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
    run=$(grep -o 'Total Tests Run: [0-9]*' <<<"$plain" | grep -o '[0-9]*$' || true)
    skipped=$(grep -c '\[SKIP\]' <<<"$plain" || true)
    failed=0
    [ -s "$RUN/$mode.failed" ] && failed=$(sort -u "$RUN/$mode.failed" | wc -l)
    echo
    if [ -n "$run" ]; then
        echo "== mode $mode: $((run - failed)) passed ($skipped of them skipped), $failed failed, of $run"
    else
        echo "== mode $mode: no summary (see $log)"
    fi
    if [ -s "$RUN/$mode.failed" ]; then
        sort -u "$RUN/$mode.failed" | "$PY" "$RUN/shim/flow_rules.py" "$ROOT/docs/differences.txt"
    fi
    if [ "${VERBOSE:-0}" = 1 ]; then
        sed -n '/Failed Tests Summary:/,$p' <<<"$plain"
    fi
    echo "   log: $log"
done
exit $status
