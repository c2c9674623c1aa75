#!/usr/bin/env bash
# Builds the Rust library of the Swift package (hep-swift, release) and installs it where
# SwiftPM finds it through pkg-config: the route of the `Hep` package on Linux (and on macOS
# before a release's XCFramework; see docs/swift.md, "Install").
#
#   scripts/install-swift-lib.sh --prefix DIR
#
# installs DIR/lib/libhep_swift.a (the static library: nothing to find at run time) and
# DIR/lib/pkgconfig/hep-swift.pc (its -L, -l and the system libraries Rust's standard
# library needs, from `cargo rustc --print native-static-libs`). Then build with
# PKG_CONFIG_PATH=DIR/lib/pkgconfig. Only the .a is installed: SwiftPM drops an rpath given by
# pkg-config ("prohibited flag"), so a shared library beside it would be linked but not
# found at run time.
#
# Environment: CARGO (default cargo), CARGO_NICE (default 10: the niceness of the build).
set -euo pipefail

say() { printf 'install-swift-lib: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { die "usage: $0 --prefix DIR"; }

prefix=
while [ $# -gt 0 ]; do
    case "$1" in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    *) usage ;;
    esac
done
[ -n "$prefix" ] || usage
mkdir -p "$prefix/lib/pkgconfig"
prefix=$(cd "$prefix" && pwd -P)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}

# The build prints the native libraries (cargo replays the note when nothing is rebuilt).
# bindings-swift/test.sh builds the library with this same command, so neither rebuilds it.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! nice -n "${CARGO_NICE:-10}" "$CARGO" rustc --quiet --release -p hep-swift --lib \
    -- --print native-static-libs >"$log" 2>&1; then
    cat "$log" >&2
    die "building hep-swift failed"
fi
native=$(sed -n 's/^note: native-static-libs: //p' "$log" | tail -n 1)
[ -n "$native" ] || { cat "$log" >&2; die "the build printed no native-static-libs"; }

meta=$("$CARGO" metadata --no-deps --format-version 1)
read -r target_dir version < <(python3 -c '
import json, sys
meta = json.load(sys.stdin)
version = next(p["version"] for p in meta["packages"] if p["name"] == "hep-swift")
print(meta["target_directory"], version)' <<<"$meta")

lib="$target_dir/release/libhep_swift.a"
[ -f "$lib" ] || die "no $lib after the build"
# Copied only when changed, so that SwiftPM does not relink for nothing.
cmp -s "$lib" "$prefix/lib/libhep_swift.a" || cp "$lib" "$prefix/lib/libhep_swift.a"

pc="$prefix/lib/pkgconfig/hep-swift.pc"
cat >"$pc.tmp" <<EOF
prefix=$prefix
libdir=\${prefix}/lib

Name: hep-swift
Description: hep-core (HEP v1) for Swift: the Rust library of the HepFFI module
Version: $version
Cflags:
Libs: -L\${libdir} -lhep_swift $native
EOF
if cmp -s "$pc.tmp" "$pc"; then rm -f "$pc.tmp"; else mv -f "$pc.tmp" "$pc"; fi
say "installed $prefix/lib/libhep_swift.a and $pc (hep-swift $version)"
