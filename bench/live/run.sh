#!/usr/bin/env bash
# The live bench (`make bench-live`): latency from a child's write to each language's
# supervisor code, and one supervisor process driving many runs at once (bench/README.md,
# "Live latency and many runs").
#
#   bench/live/run.sh [--only LANG[,LANG...]] [--frames N] [--reps N] [--runs R] [--speed S]
#
# Builds what the languages asked for need, niced: hep, hep-live-child and hep-live-rust
# (release); the Python extension (`maturin develop --release` in the venv of `make
# python-env`); the Node addon (`make node-env`, release); the Go supervisor (libhep.a
# in release, bench/live/go); the Swift supervisor (bench/live/swift in release, through
# scripts/swift-run.sh). Then bench/live/live.py runs the benches and prints the tables.
# LANG is one of cli, rust, python-sync, python-async, node, go, swift (default: all).
# Environment: CARGO (default cargo), GO (default go), CARGO_NICE (default 10).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
GO=${GO:-go}
nice_run=(nice -n "${CARGO_NICE:-10}")

only=cli,rust,python-sync,python-async,node,go,swift
args=("$@")
for ((i = 0; i < $#; i++)); do
    if [ "${args[i]}" = --only ] && ((i + 1 < $#)); then only=${args[i + 1]}; fi
done
wants() { [[ ",$only," == *",$1"* ]]; }

"${nice_run[@]}" "$CARGO" build --release --quiet -p hep-cli -p hep-bench --bin hep --bin hep-live-child --bin hep-live-rust
export HEP_LIVE_HEP=$repo/target/release/hep HEP_LIVE_CHILD=$repo/target/release/hep-live-child
export HEP_LIVE_RUST=$repo/target/release/hep-live-rust

if wants python; then
    "${nice_run[@]}" make --no-print-directory python-env
    (cd bindings-python && "${nice_run[@]}" ../.venv/bin/maturin develop --release --quiet)
    export HEP_LIVE_PYTHON=$repo/.venv/bin/python
fi
if wants node; then
    "${nice_run[@]}" make --no-print-directory node-env CARGO="$CARGO"
fi
if wants go; then
    lib=$(CARGO=$CARGO GO=$GO scripts/go-lib.sh) # libhep.a where bindings-go links it
    # Go's build cache does not see a changed C library: its hash goes into CGO_CFLAGS.
    lib_hash=$(sha256sum "$lib" | cut -c1-16)
    export CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -DHEP_LIBHEP_SHA256_16=0x$lib_hash"
    (cd bench/live/go && "${nice_run[@]}" "$GO" vet ./... && "${nice_run[@]}" "$GO" build -o "$repo/target/release/hep-live-go" .)
    export HEP_LIVE_GO=$repo/target/release/hep-live-go
fi
if wants swift; then
    CARGO=$CARGO bindings-swift/test.sh --generate
    export HEP_RUST_LIB_DIR=$repo/target/release
    "${nice_run[@]}" scripts/swift-run.sh build -c release --disable-build-manifest-caching --package-path bench/live/swift
    export HEP_LIVE_SWIFT="$repo/scripts/swift-run.sh run -c release --skip-build --package-path $repo/bench/live/swift hep-live-swift"
fi

python3 bench/live/live.py "$@"
