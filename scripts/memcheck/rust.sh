#!/usr/bin/env bash
# Runs the Rust test suites of the workspace under valgrind memcheck (`make memcheck`).
#
#   scripts/memcheck/rust.sh                 every crate's unit and integration tests
#   scripts/memcheck/rust.sh -p hep-core --test conformance
#                                            any `cargo test` selection instead
#
# Every test binary runs under memcheck (Cargo's target runner): an invalid read or write,
# a use of uninitialised memory, a bad free or a definite leak fails it (exit code 99).
# Children the tests spawn (the `hep` binary of hep-cli's tests, harness scripts) run
# natively. Doc tests run natively too (Cargo applies no runner to them), so they are left
# out here; `make test` runs them. So are the two exhaustive chunking tests of hep-core
# (tests/chunking.rs: every cut of every conformance stream, hours under valgrind, for
# safe Rust code); `make test` runs them, and the chunking property tests run here.
#
# Environment: CARGO (default cargo), PROPTEST_CASES (default 16: property tests run 16
# cases each instead of 256, for time), VALGRIND_FLAGS (added to the valgrind command).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cd "$repo"

command -v valgrind >/dev/null 2>&1 || {
    echo "memcheck: valgrind is missing; install it (apt-get install valgrind)" >&2
    exit 1
}

runner=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
    --errors-for-leak-kinds=definite --suppressions="$here/rust.supp")
# shellcheck disable=SC2206 # VALGRIND_FLAGS is a list of words on purpose
runner+=(${VALGRIND_FLAGS:-})
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="${runner[*]}"
export PROPTEST_CASES=${PROPTEST_CASES:-16}
# The Python binding's unit tests embed CPython: its own allocator reads memory valgrind
# believes uninitialised; with the C allocator it is clean.
export PYTHONMALLOC=malloc

selection=("$@")
[ "${#selection[@]}" -gt 0 ] || selection=(--workspace --lib --bins --tests)
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
nice -n "${CARGO_NICE:-10}" "${CARGO:-cargo}" test "${selection[@]}" -- \
    --skip every_conformance_stream_and_line_gives_the_same_outcome_however_split \
    --skip a_realistic_stream_gives_the_same_outcome_however_split 2>&1 | tee "$log" || status=$?
passed=$(awk '/^test result:/ { n += $4 } END { print n + 0 }' "$log")
binaries=$(grep -c '^test result:' "$log" || true)
echo "memcheck (rust): $passed tests passed in $binaries test binaries under valgrind, $(($(date +%s) - start)) s (PROPTEST_CASES=$PROPTEST_CASES); exit status $status"
exit "$status"
