// swift-tools-version:6.0
// The Swift package of hep: `import Hep`, hep-core (HEP v1, in Rust) through uniffi with an
// idiomatic Swift layer. This is the manifest consumers get by URL:
//
//   .package(url: "https://github.com/hep-protocol/hep", from: "0.1.0")
//   .product(name: "Hep", package: "hep")
//
// The Rust library is the target `HepFFI`. On Apple platforms it is the XCFramework of the
// release (a binary target, pinned below when a release is cut). Elsewhere, and on Apple
// platforms while none is pinned, it is the static library found through pkg-config
// (hep-swift.pc), installed by `scripts/install-swift-lib.sh --prefix DIR`; see
// docs/swift.md, "Install". The sources live in bindings-swift/, whose own Package.swift is
// the manifest this repository's tests and examples build with.
import PackageDescription

/// The XCFramework of the release: its URL and `swift package compute-checksum`, written by
/// scripts/release/swift-pin-xcframework; nil where no release has pinned one.
let xcframework: (url: String, checksum: String)? = nil

let systemLibrary: Target = .systemLibrary(
    name: "HepFFI",
    path: "bindings-swift/Sources/HepFFI",
    pkgConfig: "hep-swift"
)

let ffi: Target
#if canImport(Darwin)
if let xcframework {
    ffi = .binaryTarget(name: "HepFFI", url: xcframework.url, checksum: xcframework.checksum)
} else {
    ffi = systemLibrary
}
#else
ffi = systemLibrary
#endif

let package = Package(
    name: "Hep",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Hep", targets: ["Hep"]),
    ],
    targets: [
        ffi,
        .target(name: "Hep", dependencies: ["HepFFI"], path: "bindings-swift/Sources/Hep"),
    ]
)
