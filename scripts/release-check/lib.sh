# Shared by the release-check scripts (sourced, not run). The script sets `check` (its name
# in messages) before sourcing, and `log` (a file) before calling `logged`.

# Prints a progress line on stderr.
say() { printf 'release-check %s: %s\n' "$check" "$*" >&2; }

# Prints the error and stops the check.
die() {
    say "error: $*"
    exit 1
}

# Runs a command with its output in $log, shown only when it fails.
logged() {
    "$@" >"$log" 2>&1 || {
        tail -n 40 "$log" >&2
        die "failed: $* (log: $log)"
    }
}

# Prints cargo's target directory and the version of package $1, on one line.
target_and_version() {
    "${CARGO:-cargo}" metadata --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
print(meta["target_directory"], next(p["version"] for p in meta["packages"] if p["name"] == sys.argv[1]))' "$1"
}
