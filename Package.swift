// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "NotifyBus",
    // Synchronization's Atomic and Mutex (the bus, the recorder) set these minimums: README, "Apple platforms".
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "NotifyBus", targets: ["NotifyBus"]),
        .library(name: "TraceStore", targets: ["TraceStore"]),
        .library(name: "AppModel", targets: ["AppModel"]),
        .library(name: "ScenarioTrace", targets: ["ScenarioTrace"]),
        // The scanner as a library, for the fuzz target and the benchmark (tracectl does not link it).
        .library(name: "ObserverScan", targets: ["ObserverScan"]),
        .executable(name: "tracectl", targets: ["tracectl"]),
        // `tracectl scan`'s companion: swift-syntax stays out of tracectl (docs/SCAN.md).
        .executable(name: "tracectl-scan", targets: ["tracectl-scan"]),
        .library(name: "TraceFleet", targets: ["TraceFleet"]),
        .executable(name: "tracectl-fleet", targets: ["tracectl-fleet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Tests only: the property tests in Tests/PropertyTests.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // The scanner only (ObserverScan, tracectl-scan): never a dependency of tracectl.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // The fleet's PostgreSQL store only (FleetPostgres, tracectl-fleet): never linked by tracectl.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "NotifyBus"),
        .target(name: "TraceStore", dependencies: ["NotifyBus", "CSQLite"]),
        // The headless UIKit lifecycle and the scenario format: for tests and `tracectl record`,
        // never linked by an app that only wants the bus.
        .target(name: "AppModel", dependencies: ["NotifyBus"]),
        // Scenarios recorded into traces and replayed from them: AppModel meets TraceStore.
        .target(name: "ScenarioTrace", dependencies: ["AppModel", "TraceStore", "NotifyBus"]),
        .executableTarget(
            name: "tracectl",
            dependencies: [
                "NotifyBus", "TraceStore", "AppModel", "ScenarioTrace", "TraceFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // An app written against NotificationCenter with real-world observer mistakes and their fixes,
        // recorded by its one typealias line; `swift run RecordExistingApp` records them (docs/RECORDING.md).
        .target(name: "ExistingApp", dependencies: ["NotifyBus"], path: "Examples/ExistingApp"),
        .executableTarget(name: "RecordExistingApp", dependencies: ["ExistingApp", "NotifyBus", "TraceStore"],
                          path: "Examples/RecordExistingApp"),
        .testTarget(name: "NotifyBusTests", dependencies: ["NotifyBus", "TestSupport"]),
        .testTarget(name: "AppModelTests", dependencies: ["AppModel", "NotifyBus", "TestSupport"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TraceStoreTests", dependencies: ["TraceStore", "NotifyBus", "AppModel", "ScenarioTrace", "TestSupport", "trace-crash-child", "RecordExistingApp", "ExistingApp"]),
        // The process the crash-safety tests kill; not a product.
        .executableTarget(name: "trace-crash-child", dependencies: ["TraceStore", "NotifyBus"], path: "Tests/CrashChild"),
        // Random operation sequences against a reference model, scenario → trace → fold round trips.
        .testTarget(name: "PropertyTests", dependencies: [
            "NotifyBus", "TraceStore", "AppModel", "ScenarioTrace", "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        // Swift sources → observer facts → scenario screens and objects → journeys → traces → the rules.
        .target(name: "ObserverScan", dependencies: [
            "AppModel", "TraceStore", "NotifyBus", "ScenarioTrace",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftParser", package: "swift-syntax"),
        ]),
        .executableTarget(name: "tracectl-scan", dependencies: [
            "ObserverScan", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "ObserverScanTests", dependencies: ["ObserverScan", "TraceStore", "NotifyBus", "TestSupport"]),
        // Many traces: session summaries and the fleet report (light: tracectl links it).
        .target(name: "TraceFleet", dependencies: ["TraceStore", "NotifyBus"]),
        // The fleet's PostgreSQL store: postgres-nio stays inside it and its companion executable.
        .target(name: "FleetPostgres", dependencies: ["TraceFleet", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .executableTarget(name: "tracectl-fleet", dependencies: [
            "TraceFleet", "FleetPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "TraceFleetTests", dependencies: [
            "TraceFleet", "FleetPostgres", "TraceStore", "NotifyBus", "ScenarioTrace", "TestSupport", "tracectl", "tracectl-fleet",
        ]),
        .testTarget(name: "tracectlTests", dependencies: ["TraceStore", "NotifyBus", "ScenarioTrace", "TestSupport", "tracectl"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    // Not for the example app, which shows the adoption as an app has it: with this feature each
    // file calling the recording center also needs `import NotifyBus` (docs/RECORDING.md).
    if target.name != "ExistingApp" { settings.append(.enableUpcomingFeature("MemberImportVisibility")) }
    target.swiftSettings = settings
}
