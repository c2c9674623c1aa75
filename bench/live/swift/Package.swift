// swift-tools-version:6.0
// The Swift supervisor of `make bench-live`, on the binding's `HepProcess`. bench/live/run.sh
// builds it in release and runs it through scripts/swift-run.sh.
import PackageDescription

let package = Package(
    name: "HepLive",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../../bindings-swift"),
    ],
    targets: [
        .executableTarget(
            name: "hep-live-swift",
            dependencies: [.product(name: "Hep", package: "bindings-swift")],
            path: "Sources/hep-live-swift"
        ),
    ]
)
