#!/usr/bin/env bash
# Builds a self-contained rsconform binary for the machine's platform:
# libxml2 and what it needs (ICU, zlib, liblzma, the C and C++ runtimes)
# linked statically, so that the binary runs on a machine without
# libxml2 or Go. Needs the static archives Debian ships with libxml2-dev
# (libxml2.a, libicu*.a, libz.a, liblzma.a) and g++.
#
#   scripts/release.sh [OUT]      (default: dist/rsconform-<os>-<arch>)
#
# The version comes from the VCS (git describe) and is stamped with
# -X main.version, the commit with -X main.commit (rsconform version).
set -euo pipefail
cd "$(dirname "$0")/.."
goos=$(go env GOOS)
goarch=$(go env GOARCH)
out=${1:-dist/rsconform-$goos-$goarch}
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)

# go build runs $PKG_CONFIG without arguments of ours: a wrapper asks
# pkg-config for the static link line (libxml2's private dependencies).
wrapper=$(mktemp -d)
trap 'rm -rf "$wrapper"' EXIT
cat >"$wrapper/pkg-config" <<'WRAP'
#!/bin/sh
exec pkg-config --static "$@"
WRAP
chmod +x "$wrapper/pkg-config"

mkdir -p "$(dirname "$out")"
# ICU is C++: its runtime is linked statically too. osusergo and netgo
# keep glibc's NSS (which cannot be linked statically) out of the binary.
CGO_ENABLED=1 PKG_CONFIG="$wrapper/pkg-config" \
  go build -trimpath -tags 'osusergo netgo' \
    -ldflags "-s -w -X main.version=$version -X main.commit=$commit -linkmode external -extldflags '-static -lstdc++'" \
    -o "$out" ./cmd/rsconform
echo "$out"
