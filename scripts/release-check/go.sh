#!/usr/bin/env bash
# release-check go: the Go module as `go get` users get it.
#
#   1. libhep.a for this platform (scripts/go-lib.sh), stripped of debug info as the release
#      job strips it, in bindings-go/lib/<GOOS>_<GOARCH>/ of a copy of the module: the files
#      a commit of the tree holds (git ls-files, untracked ones not ignored included) plus the
#      library, as the release commits them on the tag bindings-go/vX.Y.Z
#   2. that copy zipped as the Go module proxy serves a module (every path under
#      github.com/hep-protocol/hep/bindings-go@vX.Y.Z/), with its .info, .mod and list, in a
#      file:// GOPROXY; the zip must hold hep.h and the library, and no nested module
#   3. a fresh consumer module outside the repository: `go get
#      github.com/hep-protocol/hep/bindings-go@vX.Y.Z` through that proxy alone (a fresh module
#      cache and build cache, no checksum database, GOTOOLCHAIN=local), `go vet`, `go build`
#      with no cgo variable set, and the program supervising `hep simulate` to verdict ok
#
# Everything lives in target/release-check/go/ (remade each run). X.Y.Z is the workspace
# version. Nothing listens on a port; no network (the consumer has no other dependency).
# Run from anywhere: scripts/release-check/go.sh. Environment: CARGO (default cargo), GO
# (default go).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
GO=${GO:-go}
started=$(date +%s)
module_path=github.com/hep-protocol/hep/bindings-go

check=go
# shellcheck source=scripts/release-check/lib.sh
source "$repo/scripts/release-check/lib.sh"

read -r target_dir version < <(target_and_version hep-cli)
work="$target_dir/release-check/go"
log="$target_dir/release-check/go.log"
[[ -d "$work" ]] && chmod -R u+w "$work" # the module cache is read-only
rm -rf "$work"
mkdir -p "$work"

# --- 1. the module's files, with the library --------------------------------------------------
lib=$(scripts/go-lib.sh)
platform=$(basename "$(dirname "$lib")")
logged nice -n 10 "$CARGO" build --quiet -p hep-cli
hep="$target_dir/debug/hep"
tree="$work/tree"
mkdir -p "$tree"
(cd bindings-go && git ls-files --cached --others --exclude-standard -z . | xargs -0 cp --parents -t "$tree")
mkdir -p "$tree/lib/$platform"
cp "$lib" "$tree/lib/$platform/libhep.a"
strip -S "$tree/lib/$platform/libhep.a"

# --- 2. the module zip in a file:// proxy -----------------------------------------------------
proxy="$work/proxy"
python3 - "$tree" "$proxy/$module_path/@v" "$module_path" "v$version" "$platform" <<'PY'
import json, os, sys, zipfile
tree, out, path, version, platform = sys.argv[1:]
os.makedirs(out, exist_ok=True)
names = sorted(os.path.relpath(os.path.join(d, f), tree) for d, _, fs in os.walk(tree) for f in fs)
nested = [n for n in names if n.endswith("/go.mod")]
if nested or "go.mod" not in names:
    sys.exit(f"the module's go.mod is missing or it holds nested modules: {nested}")
for need in ("hep.h", f"lib/{platform}/libhep.a"):
    if need not in names:
        sys.exit(f"the module lacks {need}")
with zipfile.ZipFile(os.path.join(out, version + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for name in names:
        z.write(os.path.join(tree, name), f"{path}@{version}/{name}")
with open(os.path.join(tree, "go.mod")) as src, open(os.path.join(out, version + ".mod"), "w") as dst:
    dst.write(src.read())
with open(os.path.join(out, version + ".info"), "w") as f:
    json.dump({"Version": version, "Time": "2026-01-01T00:00:00Z"}, f)
with open(os.path.join(out, "list"), "w") as f:
    f.write(version + "\n")
PY
size=$(du -h "$proxy/$module_path/@v/v$version.zip" | cut -f1)
say "the module zip $module_path@v$version: $(unzip -Z1 "$proxy/$module_path/@v/v$version.zip" | wc -l) files, $size, with lib/$platform/libhep.a"

# --- 3. a consumer: go get, build, supervise --------------------------------------------------
consumer="$work/consumer"
mkdir -p "$consumer"
cat >"$consumer/go.mod" <<GOMOD
module example.com/consumer

go 1.23
GOMOD
cat >"$consumer/main.go" <<'GO'
// Command consumer supervises its command line with the released hep module and exits 0
// only on verdict ok.
package main

import (
	"context"
	"fmt"
	"os"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func main() {
	run, err := hep.Command(os.Args[1], os.Args[2:]...).Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	frames := 0
	for _, err := range run.Frames() {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		frames++
	}
	result, err := run.Wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("%d frames, verdict: %s\n", frames, result.Verdict)
	if result.Verdict != hep.VerdictOK {
		os.Exit(1)
	}
}
GO
export GOPROXY="file://$proxy" GOSUMDB=off GOFLAGS=-mod=mod GOMODCACHE="$work/modcache" GOTOOLCHAIN=local
export GOCACHE="$work/gocache" # a clean build: the cache does not see a changed libhep.a
export GOWORK=off CGO_ENABLED=1
unset CGO_CFLAGS CGO_LDFLAGS
cd "$consumer"
logged "$GO" get "$module_path@v$version"
grep -Eq "^require $module_path v$version( // indirect)?\$" go.mod || die "go get did not require $module_path v$version: $(cat go.mod)"
logged "$GO" vet ./...
logged nice -n 10 "$GO" build -o consumer .
out=$(./consumer "$hep" simulate --speed 0) || die "the consumer's run: $out"
[[ "$out" == *"verdict: ok" ]] || die "the consumer printed: $out"
say "a fresh module: go get $module_path@v$version (file:// proxy), go build, supervising hep simulate: $out"
say "done in $(($(date +%s) - started)) s"
echo "release-check go: ok"
