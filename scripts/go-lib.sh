#!/usr/bin/env bash
# Puts libhep.a where the Go package links it: builds it (cargo build --release -p hep-c,
# niced) and copies it from Cargo's target directory (CARGO_TARGET_DIR or target/, as
# `cargo metadata` says) to bindings-go/lib/<GOOS>_<GOARCH>/libhep.a, the directory
# bindings-go/cgo.go names for the platform (ignored by git here; a release commits the
# libraries of every platform on the Go module's tag, docs/release.md). Prints the copy's
# path. Used by scripts/go-test.sh, bench/go/run.sh and scripts/release-check/go.sh.
#
# Environment: CARGO (default cargo), GO (default go), CARGO_NICE (default 10: the niceness
# of the build).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
GO=${GO:-go}

nice -n "${CARGO_NICE:-10}" "$CARGO" build --release --quiet -p hep-c >&2
target=$("$CARGO" metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
platform="$("$GO" env GOOS)_$("$GO" env GOARCH)"
dest="bindings-go/lib/$platform/libhep.a"
mkdir -p "bindings-go/lib/$platform"
if ! cmp -s "$target/release/libhep.a" "$dest"; then
	cp "$target/release/libhep.a" "$dest.tmp"
	mv "$dest.tmp" "$dest"
fi
echo "$repo/$dest"
