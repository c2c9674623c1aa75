#!/usr/bin/env bash
# Builds and tests the Go package (bindings-go), the entry point of `make test-go`:
#   1. libhep.a (scripts/go-lib.sh: cargo build --release -p hep-c, copied to
#      bindings-go/lib/<GOOS>_<GOARCH>/, where the package links it), target/debug/hep
#      (cargo build -p hep-cli) for the example, and bindings-go/hep.h checked the same as
#      bindings-c/include/hep.h (the module's copy; scripts/c-test.sh --generate writes both)
#   2. go vet and staticcheck (pinned, installed into target/go-tools) on bindings-go and
#      examples/go
#   3. go test -race on bindings-go: every conformance vector, the examples (by their
#      output), docs/go.md's snippets
#   4. examples/go supervising `hep simulate` (an ok run and a failed one), its summary and
#      exit status checked
# and prints `go: ok` last.
#
# Go's build cache does not see a changed C library, so the library's hash goes into
# CGO_CFLAGS: a new libhep.a rebuilds the package.
#
# Environment: CARGO (default cargo), GO (default go), CARGO_NICE (default 10: the niceness
# of the builds).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
GO=${GO:-go}
nice_run=(nice -n "${CARGO_NICE:-10}")
STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2
say() { echo "go-test: $*"; }

say "building libhep.a and hep"
lib=$(scripts/go-lib.sh)
"${nice_run[@]}" "$CARGO" build --quiet -p hep-cli
if ! cmp -s bindings-c/include/hep.h bindings-go/hep.h; then
	echo "go-test: bindings-go/hep.h is not bindings-c/include/hep.h: run scripts/c-test.sh --generate" >&2
	exit 1
fi
lib_hash=$(sha256sum "$lib" | cut -c1-16)
export CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -DHEP_LIBHEP_SHA256_16=0x$lib_hash"

tools="$repo/target/go-tools"
if [[ "$("$tools/staticcheck" -version 2>/dev/null)" != *"(${STATICCHECK_VERSION#v})"* ]]; then
	say "installing staticcheck $STATICCHECK_VERSION into target/go-tools"
	GOBIN="$tools" "${nice_run[@]}" "$GO" install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi

for module in bindings-go examples/go; do
	say "$module: go vet, staticcheck"
	(cd "$module" && "${nice_run[@]}" "$GO" vet ./... && "${nice_run[@]}" "$tools/staticcheck" ./...)
done
unformatted=$(gofmt -l bindings-go examples/go)
if [[ -n "$unformatted" ]]; then
	echo "go-test: not gofmt-formatted: $unformatted" >&2
	exit 1
fi

say "bindings-go: go test -race"
(cd bindings-go && "${nice_run[@]}" "$GO" test -race -count=1 ./...)

say "examples/go supervising hep simulate"
hep="$repo/target/debug/hep"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
(cd examples/go && "${nice_run[@]}" "$GO" run . "$hep" simulate --speed 0 --scenario tools) >"$out"
for want in "session sim-0001 (harness" "3 turns, 7436+837 tokens" "verdict: ok"; do
	if ! grep -qF "$want" "$out"; then
		echo "go-test: the example's output lacks \`$want\`:" >&2
		cat "$out" >&2
		exit 1
	fi
done
if (cd examples/go && "$GO" run . "$hep" simulate --speed 0 --scenario error) >"$out" 2>&1; then
	echo "go-test: the example exits 0 on a failed run:" >&2
	cat "$out" >&2
	exit 1
fi
grep -qF "verdict: failed" "$out" || { cat "$out" >&2; exit 1; }
echo "go: ok"
