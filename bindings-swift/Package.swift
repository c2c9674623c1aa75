// swift-tools-version:6.0
// `import Hep`: hep-core (Rust) through uniffi, with an idiomatic Swift layer.
//
// Build the Rust library and generate the Swift sources first: `./test.sh` does both (then
// builds and tests). The library is looked up in HEP_RUST_LIB_DIR, by default the
// workspace's target/release, and found at run time through an rpath.
import PackageDescription

let rustLibDir = Context.environment["HEP_RUST_LIB_DIR"] ?? "\(Context.packageDirectory)/../target/release"

let package = Package(
    name: "Hep",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Hep", targets: ["Hep"]),
    ],
    targets: [
        // The generated C header and module map of the Rust library.
        .systemLibrary(name: "HepFFI", path: "Sources/HepFFI"),
        // The generated Swift (Generated/) and the idiomatic API on top of it.
        .target(
            name: "Hep",
            dependencies: ["HepFFI"],
            path: "Sources/Hep",
            linkerSettings: [
                .unsafeFlags(["-L\(rustLibDir)", "-Xlinker", "-rpath", "-Xlinker", rustLibDir]),
            ]
        ),
        // A program that starts a harness and exits while it runs: the tests check that its
        // exit cancels the child.
        .executableTarget(name: "hep-exit-check", dependencies: ["Hep"], path: "Tests/ExitCheck"),
        .testTarget(name: "HepTests", dependencies: ["Hep", "hep-exit-check"], path: "Tests/HepTests"),
    ]
)
