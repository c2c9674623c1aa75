// swift-tools-version:6.0
// The Swift reader of `make bounds` (scripts/bounds/bounds.py): `HepStream` fed stdin in
// 64 KiB chunks. It depends on ../../../bindings-swift by path, as an application would;
// bounds.py builds the Rust library, generates the Swift sources and builds this in release.
import PackageDescription

let package = Package(
    name: "HepBounds",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../../bindings-swift"),
    ],
    targets: [
        .executableTarget(
            name: "hep-bounds-swift",
            dependencies: [.product(name: "Hep", package: "bindings-swift")],
            path: "Sources/hep-bounds-swift"
        ),
    ]
)
