#!/usr/bin/env bash
# The Go bench (`make bench-go`): hep.Stream.Feed in 64 KiB chunks against bufio.Scanner
# with encoding/json, goccy/go-json and bytedance/sonic into a typed struct plus a check,
# on hep-bench's seeded corpora.
#
#   bench/go/run.sh [--reps N] [--corpus NAME] [--only SUBSTR] [--cpuprofile FILE]
#
# 1. libhep.a (release, scripts/go-lib.sh), which bindings-go links, and hep-bench, 2. the corpora, dumped by
# `hep-bench --dump-corpus` into a temporary directory (HEP_BENCH_SCALE, default 1),
# 3. go vet, then the bench, built and run with `go run`. Arguments go to the bench.
# Environment: CARGO (default cargo), GO (default go), CARGO_NICE (default 10: the
# niceness of the builds).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
GO=${GO:-go}
nice_run=(nice -n "${CARGO_NICE:-10}")

"${nice_run[@]}" "$CARGO" build --release --quiet -p hep-bench
lib=$(scripts/go-lib.sh) # libhep.a where bindings-go links it
# Go's build cache does not see a changed C library: its hash goes into CGO_CFLAGS.
lib_hash=$(sha256sum "$lib" | cut -c1-16)
export CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -DHEP_LIBHEP_SHA256_16=0x$lib_hash"

corpus=$(mktemp -d "${TMPDIR:-/tmp}/hep-bench-go.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
target/release/hep-bench --dump-corpus "$corpus" --scale "${HEP_BENCH_SCALE:-1}"

cd bench/go
"${nice_run[@]}" "$GO" vet ./...
"${nice_run[@]}" "$GO" build -o "$corpus/hep-bench-go" .
"$corpus/hep-bench-go" --corpus-dir "$corpus" "$@"
