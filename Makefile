# rsbloom: build the module, run a server with it, test it.
#   make build   release build -> target/release/librsbloom.so
#   make run     build, then redis-server in the foreground on 127.0.0.1:6379 (redis.conf.example)
#   make test    install what a fresh Debian machine lacks, build, run every test
#   make lint    rustfmt and clippy, warnings are errors
#   make bench   Criterion benchmarks of the core, then the end-to-end benchmark (bench/e2e.py)
#   make fuzz    coverage-guided fuzzing of the decoders (FUZZ_SECONDS per target, default 600)
#   make test-slow  build, then only the slow #[ignore]d tests (full resync of a 200+ MB filter)
#   make test-guava  filters exported by rsbloom-cli read by the real Guava (installs a JDK and
#                    Guava with apt if missing; uses ../shared/tools/guava/GuavaCheck.java)

CARGO  ?= cargo
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := rdb_value redisbloom_value loadchunk_session
MODULE := target/release/librsbloom.so
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT    := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get

.PHONY: build run test lint bench fuzz deps-build deps-server clean

build: deps-build
	$(CARGO) build --release

run: deps-server build
	redis-server redis.conf.example

test: deps-build deps-server
	$(CARGO) build --release --workspace
	$(CARGO) test --release --workspace --all-targets

# The tests marked #[ignore] because they take minutes and gigabytes (not part of `make test`).
.PHONY: test-slow
test-slow: deps-build deps-server
	$(CARGO) build --release
	$(CARGO) test --release -- --ignored

lint: deps-build
	$(CARGO) fmt --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

# Results: target/criterion/ (core) and bench/results/e2e.csv + e2e.svg (end to end).
bench: deps-server build
	$(CARGO) bench --bench core
	python3 bench/e2e.py

# libFuzzer on the stable toolchain: no sanitizer (-s none), coverage only. Seeds are valid
# encodings written by examples/fuzz_seeds.rs; findings land in fuzz/artifacts/.
fuzz: deps-build
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	$(CARGO) run --release --example fuzz_seeds
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		$(CARGO) fuzz run $$t -s none -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# bindgen (inside the redis-module crate) needs libclang and its headers.
deps-build:
	@dpkg -s libclang-dev >/dev/null 2>&1 || { $(APT) update -qq && $(APT) install -y -qq libclang-dev; }

# The reference server: Debian's redis-server 7.0 and redis-cli.
deps-server:
	@command -v redis-server >/dev/null && command -v redis-cli >/dev/null || \
		{ $(APT) update -qq && $(APT) install -y -qq redis-server redis-tools; }

clean:
	$(CARGO) clean

# Filters exported by rsbloom-cli read by the real Guava, and Guava's filters imported (not
# part of `make test`). Guava 31.1 and a JDK come from Debian; GuavaCheck.java from shared/.
GUAVA_CHECK ?= ../shared/tools/guava/GuavaCheck.java
GUAVA_JAR   := /usr/share/java/guava.jar
GUAVA_BUILD := target/guava-check
.PHONY: test-guava deps-guava
test-guava: deps-build deps-server deps-guava
	$(CARGO) build --release --workspace
	mkdir -p $(GUAVA_BUILD)
	javac -d $(GUAVA_BUILD) -cp $(GUAVA_JAR) $(GUAVA_CHECK)
	python3 tools/test-guava.py $(GUAVA_JAR):$(GUAVA_BUILD)

deps-guava:
	@command -v javac >/dev/null && [ -f $(GUAVA_JAR) ] || \
		{ $(APT) update -qq && $(APT) install -y -qq default-jdk-headless libguava-java; }
