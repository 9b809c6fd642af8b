// swift-tools-version: 6.0
// The benchmarks: a release-mode executable, kept out of the main package so
// that `swift test` never builds it. Run: swift run -c release notifybus-bench
import PackageDescription

let package = Package(
    name: "NotifyBusBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NotifyBus", path: ".."),
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
    ],
    swiftLanguageModes: [.v6]
)
