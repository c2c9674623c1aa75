#!/usr/bin/env bash
# release-check crates: the Rust crates as crates.io users get them.
#
#   1. `cargo publish --dry-run` of hep-core, hep-process and hep-cli together (each packaged
#      and its package built alone, the local ones standing in for crates.io), and what each
#      package holds: its README and both license files, none of the repository's tests
#   2. `cargo install --path hep-cli` into a fresh root, then that `hep` run: --version is the
#      workspace version, `hep simulate | hep validate` conforms, `hep check` and `hep watch`
#      (the built-in simulator, found next to the installed binary) judge a run ok
#   3. the code for other platforms type-checked with clippy: hep-cli for Windows (watch and
#      check compiled out, reporting "not supported"), hep-cli and hep-process for macOS;
#      and hep-process refused on Windows with its own one-line error
#
# Everything lives in target/release-check/crates/ (the install root is remade each run; the
# build cache stays, so a second run takes seconds). No network but crates.io and rustup
# (the Windows and macOS standard libraries, added once). Nothing listens on a port.
# Run from anywhere: scripts/release-check/crates.sh. Environment: CARGO (default cargo).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
started=$(date +%s)
crates=(hep-core hep-process hep-cli)
windows=x86_64-pc-windows-gnu
macos=x86_64-apple-darwin

check=crates
# shellcheck source=scripts/release-check/lib.sh
source "$repo/scripts/release-check/lib.sh"

read -r target_dir version < <(target_and_version hep-cli)
work="$target_dir/release-check/crates"
log="$work/step.log"
mkdir -p "$work"

# --- 1. publish, dry run ------------------------------------------------------------------
packages=()
for crate in "${crates[@]}"; do packages+=(-p "$crate"); done
logged nice -n 10 "$CARGO" publish --dry-run --allow-dirty --locked "${packages[@]}"
for crate in "${crates[@]}"; do
    list=$("$CARGO" package --list --allow-dirty -p "$crate" 2>/dev/null)
    for file in README.md LICENSE-MIT LICENSE-APACHE Cargo.toml src/lib.rs src/main.rs; do
        case "$crate:$file" in hep-cli:src/lib.rs | hep-core:src/main.rs | hep-process:src/main.rs) continue ;; esac
        grep -qx "$file" <<<"$list" || die "the $crate package lacks $file"
    done
    if grep -q '^tests/' <<<"$list"; then die "the $crate package holds tests/ (they read the repository's root)"; fi
done
say "cargo publish --dry-run: ${crates[*]} $version packaged and built"

# --- 2. cargo install, and the installed hep run ----------------------------------------------
root="$work/root"
rm -rf "$root"
logged nice -n 10 "$CARGO" install --quiet --locked --path hep-cli --root "$root" --target-dir "$work/target"
hep="$root/bin/hep"
[[ -x "$hep" ]] || die "cargo install left no $hep"
[[ "$("$hep" --version)" == "hep $version (HEP v1)" ]] || die "hep --version says '$("$hep" --version)', not hep $version"
verdict() { python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"])'; }
got=$("$hep" simulate --speed 20 | "$hep" validate --format json | verdict)
[[ "$got" == ok ]] || die "hep simulate | hep validate: verdict $got"
got=$("$hep" check --format json -- "$hep" simulate --speed 20 | verdict)
[[ "$got" == ok ]] || die "hep check -- hep simulate: verdict $got"
got=$("$hep" watch --format json | verdict) # no command: the simulator beside the binary
[[ "$got" == ok ]] || die "hep watch (the built-in simulator): verdict $got"
say "cargo install --path hep-cli: $hep validates, checks and watches the simulator (ok)"

# --- 3. other platforms, type-checked ---------------------------------------------------------
installed=$(rustup target list --installed)
for target in "$windows" "$macos"; do
    grep -qx "$target" <<<"$installed" || logged rustup target add "$target"
done
logged nice -n 10 "$CARGO" clippy --quiet --locked -p hep-cli --target "$windows" --target-dir "$work/target" -- -D warnings
logged nice -n 10 "$CARGO" clippy --quiet --locked -p hep-cli -p hep-process --target "$macos" --target-dir "$work/target" -- -D warnings
if nice -n 10 "$CARGO" check --quiet --locked -p hep-process --target "$windows" --target-dir "$work/target" >"$log" 2>&1; then
    die "hep-process compiled for $windows: it should refuse with its Unix-only error"
fi
grep -q 'hep-process supports Unix only' "$log" || { tail -n 20 "$log" >&2; die "hep-process failed for $windows without its Unix-only error"; }
say "hep-cli type-checks for $windows (watch and check: not supported) and $macos; hep-process says Unix only"

say "done in $(($(date +%s) - started)) s"
echo "release-check crates: ok"
