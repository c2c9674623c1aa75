#!/usr/bin/env bash
# Makes a Swift toolchain available for the Swift binding (bindings-swift/).
#
#   scripts/swift-toolchain.sh           provision if needed; says which Swift will be used
#   scripts/swift-toolchain.sh --root    print the provisioned root's path (provisions it first)
#
# When `swift` is on PATH there is nothing to do. Otherwise a Debian trixie root with
# Debian's `swiftlang` (Swift 6) is made once with debootstrap and cached; trixie's glibc is
# newer than this host's, so Swift runs there under chroot (scripts/swift-run.sh does that).
# Making it takes a few minutes and about 1.5 GB; later runs find it ready at once.
#
# Environment:
#   HEP_SWIFT_ROOT      where the root lives (default: ${XDG_CACHE_HOME:-~/.cache}/hep-swift-root)
#   HEP_DEBIAN_MIRROR   Debian mirror (default: the host's own, from /etc/apt/sources.list*)
#   HEP_SWIFT_USE_ROOT  1: use the root even when `swift` is on PATH
#
# Safe to run concurrently (one provisions under a lock, the others wait for it) and
# idempotent (an interrupted run leaves only a staging directory, redone next time). Every
# mount it makes lives in a private mount namespace, so none outlives the script.
set -euo pipefail

SUITE=trixie
PACKAGES=(swiftlang libc6-dev libstdc++-14-dev)
# Bump when the recipe changes: a root with another stamp is remade.
STAMP="hep-swift-root 1: $SUITE ${PACKAGES[*]}"
# Packages added to the recipe since: installed into a ready root in place (apt-get), so
# that no root is remade for them. git: SwiftPM fetches dependencies given by URL with it.
ADDED=(git)

ROOT=${HEP_SWIFT_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/hep-swift-root}

say() { printf 'swift-toolchain: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Seconds since the epoch, for step timings.
now() { date +%s; }

# The first Debian (not security, not third-party) mirror of the host's apt sources.
host_mirror() {
    local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    local f uri
    for f in "${files[@]}"; do
        [ -r "$f" ] || continue
        # one-line style: deb [opts] URI suite ...; deb822 style: URIs: URI ...
        uri=$(sed -n -E \
            -e 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([a-z]+:\/\/[^[:space:]]+)[[:space:]].*/\2/p' \
            -e 's/^[[:space:]]*URIs:[[:space:]]*([a-z]+:\/\/[^[:space:]]+).*/\1/p' "$f" |
            grep -E '/debian/?$' | head -n 1 || true)
        if [ -n "$uri" ]; then
            printf '%s\n' "$uri"
            return 0
        fi
    done
    return 1
}

# Shows the lines of stdin matching the regex $1 on stderr, indented (progress of a long step).
show() {
    grep --line-buffered -E "$1" | sed -u 's/^/    /' >&2 || true
}

# Fails when anything is mounted at or below $1 (nothing should be: every mount is
# made in a private namespace). Guards the `rm -rf` of a staging directory.
assert_unmounted() {
    local dir
    dir=$(realpath -m "$1")
    if awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
        die "something is mounted under $dir; unmount it (umount -R $dir) and retry"
    fi
}

ensure_debootstrap() {
    command -v debootstrap >/dev/null 2>&1 && return 0
    [ "$(id -u)" = 0 ] || die "debootstrap is missing; install it (apt-get install debootstrap) or install Swift 6"
    command -v apt-get >/dev/null 2>&1 || die "no swift and no apt-get: install Swift 6 (https://swift.org/install) and retry"
    say "installing debootstrap (apt-get)"
    local log
    log=$(mktemp)
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "installing debootstrap failed"
    fi
    rm -f "$log"
}

# Runs "$@" inside the staging root, with /proc and /dev mounted in a private mount
# namespace (gone when the command ends, whatever happens).
in_staging() {
    local stage=$1
    shift
    # shellcheck disable=SC2016 # the script is for the inner sh, which gets its arguments
    unshare --mount --propagation private -- /bin/sh -euc '
        stage=$1; shift
        mount -t proc proc "$stage/proc"
        mount --rbind /dev "$stage/dev"
        exec chroot "$stage" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            DEBIAN_FRONTEND=noninteractive "$@"
    ' sh "$stage" "$@"
}

provision() {
    [ "$(id -u)" = 0 ] || die "making the Swift root needs root (debootstrap, chroot); install Swift 6 instead"
    command -v unshare >/dev/null 2>&1 || die "unshare (util-linux) is missing"
    ensure_debootstrap
    local mirror=${HEP_DEBIAN_MIRROR:-}
    [ -n "$mirror" ] || mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list*; set HEP_DEBIAN_MIRROR"

    local stage="$ROOT.partial" log="$ROOT.log" t0 t1
    assert_unmounted "$stage"
    rm -rf --one-file-system "$stage"
    mkdir -p "$stage"
    : >"$log"

    say "making a Debian $SUITE root for Swift in $ROOT (once; a few minutes; log: $log)"
    say "step 1/2: debootstrap --variant=minbase $SUITE from $mirror"
    t0=$(now)
    # debootstrap mounts /proc and /sys in the target itself: keep those mounts private too.
    if ! unshare --mount --propagation private -- \
        debootstrap --variant=minbase "$SUITE" "$stage" "$mirror" 2>&1 |
        tee -a "$log" | show '^(I: (Retrieving Release|Validating Packages|Resolving|Found|Installing core|Unpacking the base|Configuring the base|Base system installed)|W:|E:)'; then
        tail -n 20 "$log" >&2
        die "debootstrap failed (full log: $log)"
    fi
    t1=$(now)
    say "step 1/2 done in $((t1 - t0)) s"

    say "step 2/2: apt-get install ${PACKAGES[*]} ${ADDED[*]}"
    t0=$(now)
    cp /etc/resolv.conf "$stage/etc/resolv.conf" 2>/dev/null || true
    if ! { in_staging "$stage" apt-get -q update &&
        in_staging "$stage" apt-get -q -o Dpkg::Use-Pty=0 install -y --no-install-recommends "${PACKAGES[@]}" "${ADDED[@]}" &&
        in_staging "$stage" apt-get clean; } 2>&1 | tee -a "$log" |
        show '^(Get:.* (libswiftlang|swiftlang) |Setting up swiftlang|E:|W:)|newly installed'; then
        tail -n 20 "$log" >&2
        die "installing Swift in the root failed (full log: $log)"
    fi
    in_staging "$stage" swift --version >>"$log" 2>&1 || die "swift does not run in the new root (log: $log)"
    t1=$(now)
    say "step 2/2 done in $((t1 - t0)) s"

    printf '%s\n' "$STAMP" >"$stage/.hep-swift-root"
    assert_unmounted "$ROOT"
    rm -rf --one-file-system "$ROOT"
    mv "$stage" "$ROOT"
    say "ready: $(head -n 1 "$ROOT/.hep-swift-root") in $ROOT"
}

ready() { [ -f "$ROOT/.hep-swift-root" ] && [ "$(cat "$ROOT/.hep-swift-root")" = "$STAMP" ] && added; }

# The ADDED packages the ready root lacks (none printed: it has them all).
missing_added() {
    local p
    for p in "${ADDED[@]}"; do
        [ -f "$ROOT/var/lib/dpkg/info/$p.list" ] || compgen -G "$ROOT/var/lib/dpkg/info/$p:*.list" >/dev/null ||
            printf '%s\n' "$p"
    done
}
added() { [ -z "$(missing_added)" ]; }

# Installs the ADDED packages a root made before they were in the recipe lacks.
add_packages() {
    local missing log
    mapfile -t missing < <(missing_added)
    [ "${#missing[@]}" -gt 0 ] || return 0
    [ "$(id -u)" = 0 ] || die "adding ${missing[*]} to the Swift root needs root (chroot)"
    log="$ROOT.log"
    say "adding ${missing[*]} to the Swift root $ROOT (once; log: $log)"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    if ! { in_staging "$ROOT" apt-get -q update &&
        in_staging "$ROOT" apt-get -q -o Dpkg::Use-Pty=0 install -y --no-install-recommends "${missing[@]}" &&
        in_staging "$ROOT" apt-get clean; } >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        die "adding ${missing[*]} to the Swift root failed (full log: $log)"
    fi
}

main() {
    local print_root=0
    case "${1:-}" in
    --root) print_root=1 ;;
    "") ;;
    -h | --help)
        sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
        return 0
        ;;
    *) die "unknown argument: $1 (see --help)" ;;
    esac

    if [ "${HEP_SWIFT_USE_ROOT:-0}" != 1 ] && [ "$print_root" = 0 ] && command -v swift >/dev/null 2>&1; then
        say "using the host's swift: $(command -v swift)"
        return 0
    fi
    if ! ready; then
        mkdir -p "$(dirname "$ROOT")"
        exec 9>"$ROOT.lock"
        if ! flock -n 9; then
            say "waiting for another run that is making the Swift root ($ROOT.lock)"
            flock 9
        fi
        if [ -f "$ROOT/.hep-swift-root" ] && [ "$(cat "$ROOT/.hep-swift-root")" = "$STAMP" ]; then
            add_packages
        else
            provision
        fi
        exec 9>&-
    fi
    if [ "$print_root" = 1 ]; then
        printf '%s\n' "$ROOT"
    else
        say "using Swift from the Debian $SUITE root $ROOT"
    fi
}

main "$@"
