#!/usr/bin/env bash
# release-check workflow: the release automation checked where it can be, here.
#
#   1. actionlint (installed with `go install` from the Go module proxy, pinned) on every
#      workflow in .github/workflows/; with shellcheck installed, on their scripts and on
#      the release scripts too
#   2. scripts/release/set-version: --check passes on this tree; on a copy of it, a bump
#      to another version rewrites every place (--check passes there with the new one, and
#      CHANGELOG.md gets its section), and a place put back to the old version makes
#      --check fail naming it
#   3. scripts/release/notes gives the CHANGELOG section of the workspace version (the
#      GitHub release's notes)
#
# actionlint goes to target/release-check/bin (kept: a second run takes seconds); the copy
# of the tree to target/release-check/workflow/ (remade each run). Nothing listens on a port.
# Run from anywhere: scripts/release-check/workflow.sh. Environment: GO (default go).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
GO=${GO:-go}
ACTIONLINT_VERSION=v1.7.12
started=$(date +%s)

check=workflow
# shellcheck source=scripts/release-check/lib.sh
source "$repo/scripts/release-check/lib.sh"

# --- 1. actionlint --------------------------------------------------------------------------
bin="$repo/target/release-check/bin"
actionlint="$bin/actionlint"
if ! [[ -x "$actionlint" && "$("$actionlint" -version | head -n 1)" == "${ACTIONLINT_VERSION#v}" ]]; then
    mkdir -p "$bin"
    GOBIN="$bin" nice -n 10 "$GO" install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
workflows=(.github/workflows/*.yml)
[[ -f "${workflows[0]}" ]] || die "no workflow in .github/workflows/"
shellcheck=$(command -v shellcheck || true)
"$actionlint" -shellcheck="$shellcheck" "${workflows[@]}" || die "actionlint found problems (above)"
if [[ -n "$shellcheck" ]]; then
    "$shellcheck" scripts/release/notes scripts/release-check/crates.sh scripts/release-check/workflow.sh ||
        die "shellcheck found problems (above)"
fi
say "actionlint $ACTIONLINT_VERSION: ${workflows[*]} clean${shellcheck:+ (with shellcheck, and the release scripts too)}"

# --- 2. set-version ---------------------------------------------------------------------------
scripts/release/set-version --check >/dev/null
version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')
copy="$repo/target/release-check/workflow/tree"
rm -rf "$copy"
mkdir -p "$copy"
git ls-files --cached --others --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$copy"
bump=98.76.54-rc.3
scripts/release/set-version --root "$copy" "$bump" >/dev/null
scripts/release/set-version --root "$copy" --check >/dev/null || die "set-version $bump left places behind"
grep -q "^## \[$bump\] - " "$copy/CHANGELOG.md" || die "set-version $bump gave CHANGELOG.md no section"
python3 - "$copy/bindings-node/npm" "$version" <<'PY'
import json, pathlib, sys
path = sorted(pathlib.Path(sys.argv[1]).glob("*/package.json"))[0]
doc = json.loads(path.read_text())
doc["version"] = sys.argv[2]
path.write_text(json.dumps(doc, indent=2) + "\n")
PY
if report=$(scripts/release/set-version --root "$copy" --check 2>&1); then
    die "set-version --check passed with a platform package left at $version"
fi
grep -q "bindings-node/npm/.*/package.json: version is $version, not $bump" <<<"$report" ||
    die "set-version --check failed without naming the package left behind: $report"
say "set-version: $version on this tree; a bump to $bump rewrites every place, one left behind fails"

# --- 3. release notes -------------------------------------------------------------------------
scripts/release/notes "$version" >/dev/null
say "notes: CHANGELOG.md has the $version section"

say "done in $(($(date +%s) - started)) s"
echo "release-check workflow: ok"
