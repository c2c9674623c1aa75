#!/usr/bin/env bash
# The Swift bench (`make bench-swift`): HepStream.feed in 64 KiB chunks against Foundation's
# JSONDecoder decoding a Codable frame enum line by line, on hep-bench's seeded corpora.
#
#   bench/swift/run.sh [--reps N] [--corpus NAME]
#
# 1. the Rust library (release) and the generated Swift sources (bindings-swift/test.sh
#    --generate), 2. the corpora, dumped by `hep-bench --dump-corpus` into a temporary
#    directory (HEP_BENCH_SCALE, default 1), 3. the bench, built in release and run through
#    scripts/swift-run.sh (the host's swift, or the provisioned Debian root).
# Arguments go to the bench. Environment: CARGO, CARGO_NICE (as bindings-swift/test.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}

bindings-swift/test.sh --generate

corpus=$(mktemp -d "${TMPDIR:-/tmp}/hep-bench-swift.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
nice -n "${CARGO_NICE:-10}" "$CARGO" run --release --quiet -p hep-bench -- --dump-corpus "$corpus" --scale "${HEP_BENCH_SCALE:-1}"

target_dir=$("$CARGO" metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export HEP_RUST_LIB_DIR="$target_dir/release"
mounts=$corpus
case "$target_dir/" in
"$repo"/*) ;;
*) mounts="$mounts:$target_dir" ;;
esac
export HEP_SWIFT_MOUNTS="$mounts${HEP_SWIFT_MOUNTS:+:$HEP_SWIFT_MOUNTS}"

scripts/swift-run.sh build -c release --disable-build-manifest-caching --package-path bench/swift
scripts/swift-run.sh run -c release --skip-build --package-path bench/swift hep-bench-swift --corpus-dir "$corpus" "$@"
