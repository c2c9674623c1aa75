#!/usr/bin/env bash
# release-check swift: the Swift package used the way a consumer uses it, by git URL and
# version, with its library installed by the documented command (docs/swift.md, "Install"):
#
#   1. a bare git repository made from this checkout's HEAD (committed files only, as a
#      consumer clones them), tagged v<version> as a release is tagged; then, as the release
#      workflow does, a commit on it pinning an XCFramework in Package.swift
#      (scripts/release/swift-pin-xcframework; a stand-in zip: Linux never fetches it),
#      tagged <version>, the tag SwiftPM must prefer
#   2. the Rust library and hep-swift.pc installed by scripts/install-swift-lib.sh
#   3. a new consumer package depending on it by `.package(url: "file://…/hep.git",
#      from: "<version>")`: swift build, its program supervising `hep simulate`, swift test
#      (lines parsed, a supervised `hep simulate` judged ok)
#
# Everything lives in target/release-check/swift/ (remade each run); nothing listens on a
# port. Run from anywhere: scripts/release-check/swift.sh. Swift comes from
# scripts/swift-run.sh (the host's, or the cached Debian trixie root).
# Environment: CARGO (default cargo), CARGO_NICE (default 10).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
CARGO=${CARGO:-cargo}
started=$(date +%s)

check=swift
# shellcheck source=scripts/release-check/lib.sh
source "$repo/scripts/release-check/lib.sh"

"$repo/scripts/swift-toolchain.sh"

read -r target_dir version < <(target_and_version hep-swift)
work="$target_dir/release-check/swift"
case "$work/" in
"$repo"/*) ;;
*) export HEP_SWIFT_MOUNTS="$target_dir${HEP_SWIFT_MOUNTS:+:$HEP_SWIFT_MOUNTS}" ;;
esac
rm -rf "$work/hep.git" "$work/release-tree" "$work/consumer"
mkdir -p "$work"

# --- 1. the repository, as a consumer's URL points at it -----------------------------------
git -C "$repo" diff --quiet HEAD -- Package.swift bindings-swift/Sources ||
    say "warning: Package.swift or bindings-swift/Sources has uncommitted changes; the check uses HEAD ($(git -C "$repo" rev-parse --short HEAD))"
git init --quiet --bare --initial-branch=main "$work/hep.git"
# A shallow checkout (CI's) can push its history only into a repository that allows it.
git -C "$work/hep.git" config receive.shallowUpdate true
git -C "$repo" push --quiet --no-tags "$work/hep.git" HEAD:refs/heads/main
git -C "$work/hep.git" tag "v$version" main
rm -rf "$work/release-tree"
git clone --quiet "$work/hep.git" "$work/release-tree"
(cd "$work/release-tree/bindings-swift/Sources" && python3 -m zipfile -c "$work/HepFFI.xcframework.zip" HepFFI)
"$repo/scripts/release/swift-pin-xcframework" \
    "https://github.com/hep-protocol/hep/releases/download/v$version/HepFFI.xcframework.zip" \
    "$work/HepFFI.xcframework.zip" "$work/release-tree/Package.swift" >/dev/null
git -C "$work/release-tree" -c user.name=release-check -c user.email=release-check@localhost \
    commit --quiet -m "Swift $version: the XCFramework pinned" -- Package.swift
git -C "$work/release-tree" tag "$version"
git -C "$work/release-tree" push --quiet origin "refs/tags/$version"
release=$(git -C "$work/hep.git" rev-parse "$version^{commit}")
say "file://$work/hep.git: main $(git -C "$work/hep.git" rev-parse --short main) tagged v$version, the pinned manifest ${release:0:7} tagged $version"

# --- 2. the library, installed as documented -----------------------------------------------
prefix="$work/prefix"
"$repo/scripts/install-swift-lib.sh" --prefix "$prefix"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
nice -n "${CARGO_NICE:-10}" "$CARGO" build --quiet -p hep-cli
export HEP_BIN="$target_dir/debug/hep"

# --- 3. the consumer -----------------------------------------------------------------------
consumer="$work/consumer"
mkdir -p "$consumer/Sources/hep-consumer" "$consumer/Tests/ConsumerTests"
cat >"$consumer/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HepConsumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "file://$work/hep.git", from: "$version"),
    ],
    targets: [
        .executableTarget(name: "hep-consumer", dependencies: [.product(name: "Hep", package: "hep")]),
        .testTarget(name: "ConsumerTests", dependencies: [.product(name: "Hep", package: "hep")]),
    ]
)
EOF
cat >"$consumer/Sources/hep-consumer/main.swift" <<'EOF'
// Supervises `$HEP_BIN simulate` and prints its verdict and frame count.
import Foundation
import Hep

let hep = ProcessInfo.processInfo.environment["HEP_BIN"] ?? "hep"
let process = try HepProcess(executable: hep, arguments: ["simulate", "--speed", "0"])
var frames = 0
for try await _ in process.frames {
    frames += 1
}
let result = await process.result
print("verdict \(result.verdict.name), \(frames) frames, exit code \(result.exitCode.map(String.init) ?? "unknown")")
exit(result.verdict == .ok ? 0 : 1)
EOF
cat >"$consumer/Tests/ConsumerTests/ConsumerTests.swift" <<'EOF'
import Foundation
import Hep
import Testing

@Test func parsesLines() throws {
    let stream = HepStream()
    let frames = try stream.feed("""
        {"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}
        {"type":"agent_start","turn_id":1}
        {"type":"message_start","turn_id":1,"role":"assistant"}

        """)
    #expect(frames.map(\.type) == ["hep_header", "agent_start", "message_start"])
    #expect(throws: HepError.self) { try parseLine(#"{"type":"agent_start","turn_id":"one"}"#) }
}

@Test func supervisesHepSimulate() async throws {
    let hep = try #require(ProcessInfo.processInfo.environment["HEP_BIN"])
    let process = try HepProcess(executable: hep, arguments: ["simulate", "--speed", "0"])
    var types: [String] = []
    for try await frame in process.frames {
        types.append(frame.type)
    }
    let result = await process.result
    #expect(types.first == "hep_header")
    #expect(result.verdict == .ok)
    #expect(result.exitCode == 0)
    #expect(result.conforms)
}
EOF

swift=("$repo/scripts/swift-run.sh")
flags=(--package-path "$consumer" --disable-dependency-cache)
step=$(date +%s)
say "swift build (the consumer, resolving hep from $version up)"
(cd "$consumer" && "${swift[@]}" build "${flags[@]}" --build-tests 2>&1 | awk '!/^\[[0-9]+\/[0-9]+\] /')
[ -x "$consumer/.build/debug/hep-consumer" ] || die "swift build made no hep-consumer"
resolved=$(python3 -c '
import json, sys
pins = json.load(open(sys.argv[1]))["pins"]
print(" ".join(p["identity"] + "@" + p["state"].get("version", "?") + ":" + p["state"]["revision"][:12] for p in pins))' "$consumer/Package.resolved")
want="hep@$version:${release:0:12}"
[ "$resolved" = "$want" ] || die "the consumer resolved $resolved, not $want"
say "  built in $(($(date +%s) - step)) s; resolved $resolved"

say "swift run hep-consumer (supervises hep simulate)"
output=$(cd "$consumer" && "${swift[@]}" run "${flags[@]}" --skip-build hep-consumer)
printf '    %s\n' "$output" >&2
case "$output" in
"verdict ok, "*", exit code 0") ;;
*) die "hep-consumer said: $output" ;;
esac

say "swift test (the consumer's tests)"
(cd "$consumer" && "${swift[@]}" test "${flags[@]}" --skip-build >"$work/test.log" 2>&1) ||
    { cat "$work/test.log" >&2; die "swift test failed"; }
grep -E '^✔ Test run ' "$work/test.log" | sed 's/^/    /' >&2
grep -Eq '^✔ Test run with 2 tests passed' "$work/test.log" ||
    { cat "$work/test.log" >&2; die "swift test did not run the consumer's 2 tests"; }

say "done in $(($(date +%s) - started)) s"
echo "release-check swift: ok"
