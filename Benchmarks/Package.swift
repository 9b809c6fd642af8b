// swift-tools-version: 6.0
// The benchmarks: a release-mode executable, kept out of the main package so
// that `swift test` never builds it. Run: swift run -c release notifybus-bench
import PackageDescription

let package = Package(
    name: "NotifyBusBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NotifyBus", path: ".."),
        // scan-bench only: the scanner against swift-syntax's parser alone.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "notifybus-bench",
            dependencies: [
                .product(name: "NotifyBus", package: "NotifyBus"),
                .product(name: "TraceStore", package: "NotifyBus"),
                .product(name: "AppModel", package: "NotifyBus"),
                "CSQLiteBench",
            ]
        ),
        // `swift run -c release --package-path Benchmarks scan-bench PATH`: tracectl scan against parsing alone.
        .executableTarget(
            name: "scan-bench",
            dependencies: [
                .product(name: "ObserverScan", package: "NotifyBus"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
