#!/usr/bin/env bash
# Runs the Swift binding's tests (bindings-swift/Tests) under AddressSanitizer and
# LeakSanitizer (`make memcheck`).
#
#   scripts/memcheck/swift.sh              every test
#   scripts/memcheck/swift.sh FILTER...    only the tests matching the swift-testing filters
#
# Not valgrind: valgrind (3.24, Debian trixie's) dies with an internal SIGSEGV when the
# test bundle's main thread parks in libdispatch (`rt_sigsuspend` on a mask in read-only
# memory), before any test runs. So the bundle is built with `--sanitize=address` (its own
# build folder, .build/asan) and run directly, as `swift test` runs it (`--testing-library
# swift-testing`). ASan checks every access of the Swift code and every malloc/free of the
# process, the Rust library's included; LeakSanitizer reports what is never freed, the
# Rust library's objects and buffers included (it uses the C allocator). Any report fails
# the run, except the leaks swift.supp suppresses (the Swift runtime's, explained there).
#
# Environment: CARGO (default cargo), and those of scripts/swift-run.sh and
# scripts/swift-toolchain.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
pkg="$repo/bindings-swift"
cd "$repo"
CARGO=${CARGO:-cargo}
start=$(date +%s)
say() { printf 'memcheck (swift): %s\n' "$*" >&2; }

CARGO="$CARGO" "$pkg/test.sh" --generate
target_dir=$("$CARGO" metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
nice -n "${CARGO_NICE:-10}" "$CARGO" build --quiet -p hep-cli
export HEP_BIN="$target_dir/debug/hep" HEP_RUST_LIB_DIR="$target_dir/release"
case "$target_dir/" in
"$repo"/*) ;;
*) export HEP_SWIFT_MOUNTS="$target_dir${HEP_SWIFT_MOUNTS:+:$HEP_SWIFT_MOUNTS}" ;;
esac
build=(build --package-path "$pkg" --scratch-path "$pkg/.build/asan" --sanitize=address --build-tests
    -Xswiftc -warnings-as-errors --disable-build-manifest-caching)
say "swift build --build-tests --sanitize=address"
"$repo/scripts/swift-run.sh" "${build[@]}" 2>&1 | grep -v '^\[[0-9]*/[0-9]*\] ' || true
bundle=$("$repo/scripts/swift-run.sh" "${build[@]}" --show-bin-path)/HepPackageTests.xctest
[ -x "$bundle" ] || { say "error: no test bundle at $bundle"; exit 1; }

filters=()
for f in "$@"; do filters+=(--filter "$f"); done
sanitizers=(ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
    "LSAN_OPTIONS=suppressions=$here/swift.supp:print_suppressions=1")
run=("$bundle" --testing-library swift-testing "${filters[@]}")

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
if [ "${HEP_SWIFT_USE_ROOT:-0}" != 1 ] && command -v swift >/dev/null 2>&1; then
    env "${sanitizers[@]}" "${run[@]}" 2>&1 | tee "$log" || status=$?
else
    root=$("$repo/scripts/swift-toolchain.sh" --root)
    mounts=("$repo")
    IFS=: read -r -a extra <<<"${HEP_SWIFT_MOUNTS:-}"
    for dir in "${extra[@]}"; do [ -z "$dir" ] || mounts+=("$(cd "$dir" && pwd -P)"); done
    # The root's own /proc and /dev and the repo (and target dir) at the same paths, in a
    # private mount namespace: gone when the run ends, however it ends.
    # shellcheck disable=SC2016 # the script is for the inner sh, which gets its arguments
    unshare --mount --propagation private --fork -- /bin/sh -euc '
        root=$1 n=$2 cwd=$3; shift 3
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        while [ "$n" -gt 0 ]; do mkdir -p "$root$1"; mount --rbind "$1" "$root$1"; shift; n=$((n - 1)); done
        exec chroot "$root" /usr/bin/env -i -C "$cwd" HOME=/root LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HEP_BIN="$HEP_BIN" HEP_RUST_LIB_DIR="$HEP_RUST_LIB_DIR" "$@"
    ' sh "$root" "${#mounts[@]}" "$pkg" "${mounts[@]}" "${sanitizers[@]}" "${run[@]}" 2>&1 |
        tee "$log" || status=$?
fi
summary=$(grep -aE 'Test run with [0-9]+ tests' "$log" | tail -n 1 || true)
reports=$(grep -acE '^==[0-9]+==ERROR: (Address|Leak)Sanitizer' "$log" || true)
say "${summary:-no test summary}; $reports sanitizer report(s); $(($(date +%s) - start)) s; exit status $status"
exit "$status"
