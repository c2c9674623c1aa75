#!/usr/bin/env bash
# Runs `swift ARGS...` for the Swift binding:
#
#   scripts/swift-run.sh build --package-path bindings-swift
#
# With a `swift` on PATH it is simply that. Otherwise Swift runs in the Debian trixie root
# that scripts/swift-toolchain.sh provisions (and caches), under chroot, with this repo
# bind-mounted at the same path, so paths and the current directory mean the same inside
# and out (the current directory must be inside the repo or a HEP_SWIFT_MOUNTS entry).
#
# Mounts (/proc, /dev, the repo) are made in private mount and PID namespaces (unshare), so
# the host never sees them, and they and every process Swift started end with the command,
# however it ends. Where unshare is not available they are made in the host's namespace
# and a trap unmounts them on exit, interrupt or termination (not on SIGKILL).
#
# Environment:
#   HEP_SWIFT_MOUNTS     more host directories to mount at the same path, colon-separated
#   HEP_SWIFT_USE_ROOT   1: use the root even when `swift` is on PATH
#   HEP_SWIFT_NO_UNSHARE 1: mount in the host's namespace, with the trap (for testing it)
# Variables named HEP_* or SWIFT_*, CI, NO_COLOR and PKG_CONFIG_PATH (where SwiftPM looks
# for hep-swift.pc; its directories must be inside a mount) are passed to Swift; others are
# not.
set -euo pipefail

say() { printf 'swift-run: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# ---------------------------------------------------------------------------------------
# Inside: make the mounts, then run swift under chroot.
#   __enter ROOT CWD N MOUNT... M VAR=VALUE... ARG...
# ---------------------------------------------------------------------------------------

MOUNTED=()
CHILD=

unmount_all() {
    local i target
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        target=${MOUNTED[i]}
        umount -R "$target" 2>/dev/null || umount -R -l "$target" 2>/dev/null ||
            say "warning: could not unmount $target"
    done
    MOUNTED=()
}

# mount_at TARGET MOUNT-ARGS...: mounts and remembers TARGET for unmount_all.
mount_at() {
    local target=$1
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    MOUNTED+=("$target")
    # An rbind of a shared mount stays a peer of the host's: make it a slave so that
    # unmounting it can never unmount the host's own submounts (/dev/pts, /dev/shm).
    mount --make-rslave "$target"
}

enter() {
    local root=$1 cwd=$2 n=$3
    shift 3
    local mounts=("${@:1:n}")
    shift "$n"
    local m=$1
    shift
    local envs=("${@:1:m}")
    shift "$m"

    # Unmount whatever happens, from the first mount on (in a namespace of our own the
    # kernel would drop the mounts anyway).
    trap unmount_all EXIT
    trap 'on_signal INT 130' INT
    trap 'on_signal TERM 143' TERM
    trap 'on_signal HUP 129' HUP
    if [ "$$" = 1 ]; then
        # Init of a new PID namespace: give it its own /proc (for ps in stop_session).
        mount -t proc proc /proc
    fi
    mount_at "$root/proc" -t proc proc
    mount_at "$root/dev" --rbind /dev
    local dir
    for dir in "${mounts[@]}"; do
        mount_at "$root$dir" --rbind "$dir"
    done

    # Swift runs as a child so that the traps run at once on a signal (bash defers traps
    # while a foreground child runs). In namespace mode this shell is the PID namespace's
    # init: when it exits, the kernel kills whatever is left in it (SwiftPM starts the
    # compilers in process groups of their own and may leave them running when stopped).
    # The host namespace has no such guarantee: Swift gets a session of its own (setsid),
    # and whatever is left in that session when it ends is stopped (stop_session).
    setsid chroot "$root" /usr/bin/env -i -C "$cwd" "${envs[@]}" swift "$@" <&0 &
    CHILD=$!
    local rc=0
    wait "$CHILD" || rc=$?
    # wait returns early when a trapped signal arrives; on_signal exits then.
    stop_session "$CHILD"
    CHILD=
    exit "$rc"
}

on_signal() {
    if [ -n "$CHILD" ]; then
        kill -"$1" "$CHILD" 2>/dev/null || true
        wait "$CHILD" 2>/dev/null || true
        stop_session "$CHILD"
        CHILD=
    fi
    exit "$2"
}

# Stops what is left of the session $1 (Swift's): SIGTERM, then SIGKILL after 2 s.
stop_session() {
    local sid=$1 pids i
    for ((i = 0; i <= 20; i++)); do
        mapfile -t pids < <(ps -e -o pid= -o sid= | awk -v sid="$sid" '$2 == sid { print $1 }')
        [ "${#pids[@]}" -gt 0 ] || return 0
        case $i in
        0) kill -TERM "${pids[@]}" 2>/dev/null || true ;;
        20) kill -KILL "${pids[@]}" 2>/dev/null || true ;;
        esac
        sleep 0.1
    done
}

if [ "${1:-}" = __enter ]; then
    shift
    enter "$@"
fi

# ---------------------------------------------------------------------------------------
# Outside: find Swift, or provision the root and enter it.
# ---------------------------------------------------------------------------------------

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

if [ "${HEP_SWIFT_USE_ROOT:-0}" != 1 ] && command -v swift >/dev/null 2>&1; then
    exec swift "$@"
fi

root=$("$here/swift-toolchain.sh" --root)
[ -L "$root/usr/bin/swift" ] || [ -x "$root/usr/bin/swift" ] || die "no swift in $root; remove it and retry"

mounts=("$repo")
IFS=: read -r -a extra <<<"${HEP_SWIFT_MOUNTS:-}"
for dir in "${extra[@]}"; do
    [ -n "$dir" ] || continue
    [ -d "$dir" ] || die "HEP_SWIFT_MOUNTS: no such directory: $dir"
    dir=$(cd "$dir" && pwd -P)
    case "$dir" in
    / | /proc* | /dev* | /sys* | /usr | /usr/* | /etc | /etc/*) die "HEP_SWIFT_MOUNTS: refusing to mount $dir" ;;
    esac
    mounts+=("$dir")
done

cwd=$(pwd -P)
inside=0
for dir in "${mounts[@]}"; do
    case "$cwd/" in "$dir"/*) inside=1 ;; esac
done
[ "$inside" = 1 ] || die "run from inside $repo (or add the current directory to HEP_SWIFT_MOUNTS)"

envs=(HOME=/root LANG=C.UTF-8 "TERM=${TERM:-dumb}"
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
while IFS= read -r name; do
    case "$name" in
    HEP_* | SWIFT_* | CI | NO_COLOR | PKG_CONFIG_PATH) envs+=("$name=${!name}") ;;
    esac
done < <(compgen -e)

[ "$(id -u)" = 0 ] || die "running Swift in $root needs root (mount, chroot)"
args=(__enter "$root" "$cwd" "${#mounts[@]}" "${mounts[@]}" "${#envs[@]}" "${envs[@]}" "$@")
if [ "${HEP_SWIFT_NO_UNSHARE:-0}" != 1 ] && unshare --mount --pid --fork true 2>/dev/null; then
    # Private mount and PID namespaces: the mounts and every process Swift starts end with
    # it. --kill-child: if unshare itself is stopped (even by SIGKILL), the shell inside
    # gets SIGTERM and stops Swift.
    exec unshare --mount --propagation private --pid --fork --kill-child=TERM -- \
        bash "$here/swift-run.sh" "${args[@]}"
fi
exec bash "$here/swift-run.sh" "${args[@]}"
