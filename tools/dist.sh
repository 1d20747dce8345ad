#!/usr/bin/env bash
# make dist: the release files, into dist/ (docs/install.md says what each holds).
#
#   rsbloom-<v>-linux-x86_64.tar.gz   librsbloom.so, rsbloom-cli, docs, INSTALL
#   rsbloom_<v>_amd64.deb             /usr/lib/redis/modules/librsbloom.so, /usr/bin/rsbloom-cli
#   rsbloom-<v>-py3-none-any.whl, rsbloom-<v>.tar.gz   the Python client (python -m build)
#   rsbloom-<v>.tgz                   the Node client (npm pack), only once clients/node exists
#   SHA256SUMS
#
# The module and the CLI are linked against glibc 2.17 (the manylinux2014 baseline) by
# cargo-zigbuild with Zig's own glibc stubs, so they load on RHEL/CentOS 7 and everything
# newer whatever the build machine's glibc is. Zig, cargo-zigbuild, build and twine come from
# PyPI into a venv under target/dist-tools (nothing system-wide); lintian and dpkg-dev from apt
# if missing. The archives are reproducible: mtimes are SOURCE_DATE_EPOCH (the commit's time),
# entries sorted, owners 0, gzip without a name or time; the binaries carry no debug info (the
# only place the build directory's path would be), and the registry's path is remapped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/dist
TOOLS=$ROOT/target/dist-tools
STAGE=$ROOT/target/dist-stage
TRIPLE=x86_64-unknown-linux-gnu
GLIBC=2.17
ARCH=x86_64
DEB_ARCH=amd64
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
# The package's Maintainer field (and its changelog's signature line).
MAINTAINER=${DEB_MAINTAINER:-rsbloom maintainers <maintainers@rsbloom.invalid>}

# The version of the [package] table (the first `version =` line of Cargo.toml).
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$VERSION" ] || { echo "dist: no version in Cargo.toml" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export TZ=UTC LC_ALL=C

# --- tools ----------------------------------------------------------------------------
tools() {
    if [ ! -x "$TOOLS/bin/cargo-zigbuild" ] || [ ! -x "$TOOLS/bin/twine" ]; then
        python3 -m venv "$TOOLS"
        "$TOOLS/bin/pip" install --quiet --disable-pip-version-check \
            ziglang==0.17.0 cargo-zigbuild==0.24.0 build==1.6.1 twine==7.0.0
    fi
    local missing=()
    command -v lintian >/dev/null || missing+=(lintian)
    dpkg -s dpkg-dev >/dev/null 2>&1 || missing+=(dpkg-dev)
    if [ ${#missing[@]} -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# --- the binaries -----------------------------------------------------------------------
# A profile of its own settings through the environment, not [profile.release]: the tests'
# release build keeps its debug info. cargo-zigbuild finds Zig as `python -m ziglang` of the
# venv on PATH. It runs from / because Zig names its lib directory relative to the working
# directory when it lies below it, and bindgen (in the build script, run elsewhere) then
# finds none of the C headers cargo-zigbuild points it to.
binaries() {
    local cargo_home=${CARGO_HOME:-$HOME/.cargo}
    (cd / && PATH=$TOOLS/bin:$PATH \
    CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_PROFILE_RELEASE_STRIP=symbols \
    CARGO_ENCODED_RUSTFLAGS="--remap-path-prefix=$cargo_home=/cargo" \
        cargo zigbuild --manifest-path "$ROOT/Cargo.toml" --release --locked \
            --target "$TRIPLE.$GLIBC" -p rsbloom -p rsbloom-cli)
    BIN=$ROOT/target/$TRIPLE/release
    # The ceiling the whole point is: no symbol newer than GLIBC_2.17.
    local f top
    for f in "$BIN/librsbloom.so" "$BIN/rsbloom-cli"; do
        top=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
        if [ "$(printf '%s\n%s\n' "$top" "$GLIBC" | sort -V | tail -n 1)" != "$GLIBC" ]; then
            echo "dist: $f needs GLIBC_$top, more than $GLIBC" >&2
            exit 1
        fi
        echo "dist: $(basename "$f"): highest GLIBC_ symbol version $top"
    done
}

# The example config with the module's installed path in place of the build tree's.
example_conf() {
    sed "s|^loadmodule ./target/release/librsbloom.so|loadmodule $1|" redis.conf.example
}

# tar_gz DIR ARCHIVE: DIR's contents (DIR's name the top entry), reproducibly.
tar_gz() {
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        --format=gnu -C "$(dirname "$1")" -cf - "$(basename "$1")" | gzip -9n >"$2"
}

# --- the portable tarball ----------------------------------------------------------------
tarball() {
    local name=rsbloom-$VERSION-linux-$ARCH
    local d=$STAGE/$name
    rm -rf "$d" && mkdir -p "$d"
    install -m 0755 "$BIN/librsbloom.so" "$BIN/rsbloom-cli" "$d/"
    install -m 0644 README.md CHANGELOG.md LICENSE "$d/"
    install -m 0644 packaging/INSTALL "$d/INSTALL"
    example_conf ./librsbloom.so >"$d/redis.conf.example"
    chmod 0644 "$d/redis.conf.example"
    tar_gz "$d" "$OUT/$name.tar.gz"
}

# --- the Debian package --------------------------------------------------------------------
deb() {
    local d=$STAGE/deb
    rm -rf "$d"
    local doc=$d/usr/share/doc/rsbloom
    install -d "$d/DEBIAN" "$d/usr/lib/redis/modules" "$d/usr/bin" "$doc"
    # Redis 7 refuses a module file without its execute bit ("does not have execute permissions").
    install -m 0755 "$BIN/librsbloom.so" "$d/usr/lib/redis/modules/librsbloom.so"
    install -m 0755 "$BIN/rsbloom-cli" "$d/usr/bin/rsbloom-cli"
    install -m 0644 README.md CHANGELOG.md "$doc/"
    install -m 0644 packaging/debian/copyright "$doc/copyright"
    example_conf /usr/lib/redis/modules/librsbloom.so >"$doc/redis.conf.example"
    # A native package's changelog.gz is the Debian changelog: one entry naming the release.
    sed -e "s/@VERSION@/$VERSION/g" -e "s/@MAINTAINER@/$MAINTAINER/" \
        -e "s/@DATE@/$(date -R -u -d "@$SOURCE_DATE_EPOCH")/" packaging/debian/changelog |
        gzip -9n >"$doc/changelog.gz"
    chmod 0644 "$doc"/*
    # dpkg-shlibdeps names the libraries the binaries need and the versions (libc6 only).
    local depends
    mkdir -p "$STAGE/shlibdeps/debian"
    sed "s/@MAINTAINER@/$MAINTAINER/" packaging/debian/control >"$STAGE/shlibdeps/debian/control"
    depends=$(cd "$STAGE/shlibdeps" &&
        dpkg-shlibdeps -O "$d/usr/lib/redis/modules/librsbloom.so" "$d/usr/bin/rsbloom-cli" |
        sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || { echo "dist: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
    local size
    size=$(du -sk --exclude=DEBIAN "$d" | cut -f1)
    sed -n '/^Package:/,$p' packaging/debian/control |
        sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$DEB_ARCH/" -e "s/@MAINTAINER@/$MAINTAINER/" -e "s/@DEPENDS@/$depends/" \
            -e "s/@SIZE@/$size/" >"$d/DEBIAN/control"
    find "$d" -depth -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
    dpkg-deb --root-owner-group -Zxz --build "$d" "$OUT/rsbloom_${VERSION}_$DEB_ARCH.deb" >/dev/null
    echo "dist: lintian:"
    lintian --tag-display-limit 0 "$OUT/rsbloom_${VERSION}_$DEB_ARCH.deb" | sed 's/^/    /' || true
}

# --- the clients ------------------------------------------------------------------------------
clients() {
    local py=$STAGE/python
    rm -rf "$py" clients/python/build clients/python/src/*.egg-info
    "$TOOLS/bin/python" -m build --outdir "$py" clients/python >/dev/null
    rm -rf clients/python/build clients/python/src/*.egg-info
    # The wheel is reproducible as setuptools writes it (SOURCE_DATE_EPOCH); the sdist is not.
    "$TOOLS/bin/python" tools/sdist-normalize.py "$py"/*.tar.gz "$SOURCE_DATE_EPOCH"
    "$TOOLS/bin/twine" check --strict "$py"/*
    cp "$py"/* "$OUT/"
    # The Node client once it exists (clients/node/package.json).
    if [ -f clients/node/package.json ]; then
        (cd clients/node && npm pack --silent --pack-destination "$OUT" >/dev/null)
    fi
}

rm -rf "$OUT" && mkdir -p "$OUT" "$STAGE"
tools
binaries
tarball
deb
clients
(cd "$OUT" && sha256sum -- * >SHA256SUMS)
echo "dist: $OUT"
(cd "$OUT" && cat SHA256SUMS)
