#!/usr/bin/env bash
# Builds and tests the Swift binding, from a fresh clone (the entry point of `make test`):
#   0. a Swift toolchain: the host's `swift`, or a Debian trixie root with Swift that
#      scripts/swift-toolchain.sh provisions once and caches (a few minutes the first time)
#   1. the Rust library (hep-swift, release: libhep_swift.so or .dylib, and .a)
#   2. uniffi-bindgen (light `bindgen` profile, cached under ~/.cache/hep-swift, keyed on
#      the Cargo.lock entries it is built from and the Rust version)
#   3. the Swift sources and C header, generated from the library into a temporary
#      directory and compared with the committed ones (Sources/Hep/Generated/Hep.swift,
#      Sources/HepFFI/HepFFI.h): a difference fails, naming the command that updates them
#   4. the `hep` binary (debug), the child process of the supervisor tests and the example
#   5. swift build and swift test of bindings-swift/, through scripts/swift-run.sh
#   6. examples/swift/, a separate package using `Hep` by path: built, run against
#      `hep simulate` and against examples/hostile/emit.sh (terminal escapes in every
#      field), its output checked; then the snippets of docs/swift.md checked
#
#   bindings-swift/test.sh            all of it
#   bindings-swift/test.sh --generate steps 1-3 only, writing the generated sources (commit
#                                     them: the package is used from git as it is)
#
# Environment: CARGO (default cargo), HEP_SWIFT_CACHE (default ~/.cache/hep-swift),
# CARGO_NICE (default 10: the niceness of the cargo builds), HEP_SWIFT_VERBOSE=1 (show
# every test case, not only failures and suites), and the variables of
# scripts/swift-run.sh and scripts/swift-toolchain.sh.
set -euo pipefail

pkg=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$pkg/.." && pwd -P)
cd "$repo"

CARGO=${CARGO:-cargo}
cache=${HEP_SWIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hep-swift}
cargo_nice=(nice -n "${CARGO_NICE:-10}")
generate_only=0
case "${1:-}" in
--generate) generate_only=1 ;;
"") ;;
*) echo "usage: $0 [--generate]" >&2; exit 2 ;;
esac

say() { printf 'bindings-swift: %s\n' "$*" >&2; }
step_start=0
step() { step_start=$(date +%s); say "$*"; }
done_step() { say "  done in $(($(date +%s) - step_start)) s"; }

start_all=$(date +%s)
if [ "$generate_only" = 0 ]; then
    step "Swift toolchain"
    "$repo/scripts/swift-toolchain.sh"
    done_step
fi

target_dir=$("$CARGO" metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
lib_dir="$target_dir/release"
case "$(uname -s)" in
Darwin) dylib="$lib_dir/libhep_swift.dylib" ;;
*) dylib="$lib_dir/libhep_swift.so" ;;
esac

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# --- 1. the Rust library -----------------------------------------------------------------
step "building the Rust library (release)"
# The command of scripts/install-swift-lib.sh, so that neither rebuilds after the other.
"${cargo_nice[@]}" "$CARGO" rustc --quiet --release -p hep-swift --lib -- --print native-static-libs \
    >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
done_step

# --- 2. uniffi-bindgen, cached -----------------------------------------------------------
# The key: the Cargo.lock entries of uniffi and everything it depends on (the bindgen's
# whole build), the bin's source and features, and the compiler.
bindgen_key=$(
    {
        python3 - "$repo/Cargo.lock" <<'EOF' || cat "$repo/Cargo.lock"
import sys, tomllib
packages = tomllib.load(open(sys.argv[1], "rb"))["package"]
by_name = {}
for p in packages:
    by_name.setdefault(p["name"], []).append(p)
def find(dep):  # "name" or "name version" or "name version (source)"
    name, *rest = dep.split(" ")
    found = by_name.get(name, [])
    return [p for p in found if not rest or p["version"] == rest[0]]
seen, todo = {}, find("uniffi")
while todo:
    p = todo.pop()
    key = (p["name"], p["version"])
    if key in seen:
        continue
    seen[key] = p.get("checksum", "")
    for dep in p.get("dependencies", []):
        todo.extend(find(dep))
for (name, version), checksum in sorted(seen.items()):
    print(name, version, checksum)
EOF
        "${RUSTC:-rustc}" -vV
        cat "$pkg/Cargo.toml" "$pkg/src/bin/uniffi-bindgen.rs"
    } | sha256sum | cut -c1-16
)
bindgen="$cache/uniffi-bindgen-$bindgen_key"
if [ -x "$bindgen" ]; then
    say "uniffi-bindgen: cached ($bindgen)"
else
    step "building uniffi-bindgen (light profile; slow the first time, then cached)"
    "${cargo_nice[@]}" "$CARGO" build --quiet -p hep-swift --features cli --bin uniffi-bindgen \
        --profile bindgen --config 'profile.bindgen.inherits="dev"' --config 'profile.bindgen.debug=false'
    mkdir -p "$cache"
    cp "$target_dir/bindgen/uniffi-bindgen" "$bindgen.tmp.$$"
    mv -f "$bindgen.tmp.$$" "$bindgen"
    # Older builds of it are of no further use.
    find "$cache" -maxdepth 1 -name 'uniffi-bindgen-*' ! -name "uniffi-bindgen-$bindgen_key" -delete
    done_step
fi

# --- 3. the generated sources ------------------------------------------------------------
mkdir "$out/gen"
(cd "$pkg" && "$bindgen" generate --no-format --library "$dylib" \
    --language swift --out-dir "$out/gen" >/dev/null)
# Each generated file, as committed: a first line saying how it is made, then uniffi's text.
generated=("Hep.swift:Sources/Hep/Generated/Hep.swift" "HepFFI.h:Sources/HepFFI/HepFFI.h")
for pair in "${generated[@]}"; do
    { printf '// Generated by bindings-swift/test.sh --generate (uniffi-bindgen) from hep-swift: do not edit.\n'
      cat "$out/gen/${pair%%:*}"; } >"$out/${pair%%:*}"
done
if [ "$generate_only" = 1 ]; then
    step "writing the generated Swift sources"
    for pair in "${generated[@]}"; do
        # Written only when changed, so that SwiftPM does not rebuild for nothing.
        mkdir -p "$(dirname "$pkg/${pair#*:}")"
        cmp -s "$out/${pair%%:*}" "$pkg/${pair#*:}" || cp "$out/${pair%%:*}" "$pkg/${pair#*:}"
    done
    done_step
    exit 0
fi
step "checking the committed generated sources against the library"
stale=0
for pair in "${generated[@]}"; do
    if ! diff -u "$pkg/${pair#*:}" "$out/${pair%%:*}" >"$out/diff" 2>&1; then
        head -n 40 "$out/diff" >&2
        say "error: bindings-swift/${pair#*:} is stale (or missing)"
        stale=1
    fi
done
[ "$stale" = 0 ] || { say "run bindings-swift/test.sh --generate and commit the result"; exit 1; }
done_step
# --- 4. the hep binary ------------------------------------------------------------------
step "building hep (debug): the child of the supervisor tests and the example"
"${cargo_nice[@]}" "$CARGO" build --quiet -p hep-cli
export HEP_BIN="$target_dir/debug/hep"
done_step

# --- 5. swift build, swift test ----------------------------------------------------------
export HEP_RUST_LIB_DIR="$lib_dir"
case "$target_dir/" in
"$repo"/*) ;;
*) export HEP_SWIFT_MOUNTS="$target_dir${HEP_SWIFT_MOUNTS:+:$HEP_SWIFT_MOUNTS}" ;;
esac
swift=("$repo/scripts/swift-run.sh")
# Swift 6 language mode (strict concurrency) is the packages'; warnings fail the build.
# Without manifest caching, SwiftPM also sees source files added to a path dependency
# (examples/swift on bindings-swift) since the last build; a no-op build stays instant.
flags=(-Xswiftc -warnings-as-errors --disable-build-manifest-caching)

# The test log names every case as it passes (hundreds of lines); show the failures, the
# suites and the totals, unless HEP_SWIFT_VERBOSE=1.
quiet() {
    awk -v all="${HEP_SWIFT_VERBOSE:-0}" 'all == 1 || /^✔ Test run / || !/^(◇ |✔ Test |\[[0-9]+\/[0-9]+\] )/ { print; fflush() }'
}

step "swift build (bindings-swift)"
"${swift[@]}" build --package-path "$pkg" "${flags[@]}" 2>&1 | quiet
done_step

step "swift test (bindings-swift)"
"${swift[@]}" test --package-path "$pkg" "${flags[@]}" 2>&1 | quiet
done_step

# --- 6. the consumer package -------------------------------------------------------------
example="$repo/examples/swift"
step "swift build (examples/swift, a package depending on bindings-swift by path)"
"${swift[@]}" build --package-path "$example" "${flags[@]}" 2>&1 | quiet
done_step

step "running examples/swift: hep-supervise (hep simulate --scenario tools)"
"${swift[@]}" run --package-path "$example" "${flags[@]}" --skip-build hep-supervise >"$out/example.txt"
sed 's/^/    /' "$out/example.txt"
for want in '^● HEP v1 ' '^  ⚙ bash\(' '^verdict     ok ' '^answer      [^(]' '^tools       [1-9][0-9]* \([0-9]+ ok\)$' '^exit code   0$'; do
    grep -Eq "$want" "$out/example.txt" || { say "error: the example's output has no line matching /$want/"; exit 1; }
done
done_step

step "running examples/swift: hep-supervise against a hostile stream (examples/hostile/emit.sh)"
"${swift[@]}" run --package-path "$example" "${flags[@]}" --skip-build hep-supervise -- \
    /bin/sh "$repo/examples/hostile/emit.sh" >"$out/hostile.txt" 2>"$out/hostile.err"
python3 "$repo/examples/hostile/check.py" "$out/hostile.txt" "$out/hostile.err" ||
    { say "error: the example passed terminal-driving text through, or lost some (above)"; exit 1; }
done_step

step "checking the snippets of docs/swift.md against the tested code"
python3 "$repo/scripts/check_docs.py" swift
done_step

say "all Swift checks passed in $(($(date +%s) - start_all)) s"
