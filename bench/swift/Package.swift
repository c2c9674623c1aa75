// swift-tools-version:6.0
// The Swift bench: `HepStream.feed` (hep-core through uniffi) against Foundation's
// JSONDecoder decoding a Codable frame enum line by line, on the seeded corpus of hep-bench.
// Run it with bench/swift/run.sh (`make bench-swift`), which builds it in release.
import PackageDescription

let package = Package(
    name: "HepBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../bindings-swift"),
    ],
    targets: [
        .executableTarget(
            name: "hep-bench-swift",
            dependencies: [.product(name: "Hep", package: "bindings-swift")],
            path: "Sources/hep-bench-swift"
        ),
    ]
)
