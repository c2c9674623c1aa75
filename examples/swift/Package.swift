// swift-tools-version:6.0
// A Swift user of the `Hep` package: a supervisor that runs a HEP emitter and mirrors it.
// It depends on ../../bindings-swift by path, as an application would; build the Rust
// library and generate its Swift sources first (bindings-swift/test.sh does all of it).
import PackageDescription

let package = Package(
    name: "HepExample",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../bindings-swift"),
    ],
    targets: [
        .executableTarget(
            name: "hep-supervise",
            dependencies: [.product(name: "Hep", package: "bindings-swift")],
            path: "Sources/hep-supervise"
        ),
    ]
)
