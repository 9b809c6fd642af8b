// swift-tools-version: 6.0
// libFuzzer targets for NotifyBus: built by Scripts/fuzz.sh with
// `swift build --sanitize=fuzzer --sanitize=address`, never by the main package.
import PackageDescription

// libFuzzer supplies `main`; each target defines `LLVMFuzzerTestOneInput` only.
let fuzzerFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "NotifyBusFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NotifyBus", path: "../.."),
    ],
    targets: [
        // Scenario.parse on arbitrary bytes, then the parsed scenario run through the lifecycle model.
        .executableTarget(
            name: "FuzzScenario",
            dependencies: [.product(name: "AppModel", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
        // SQLite's C API, for the trace target's row-level mutations of real traces.
        .systemLibrary(name: "FuzzSQLite", pkgConfig: "sqlite3"),
        // A mutated trace file (raw bytes, or rows of a real trace changed through SQL) through
        // TraceReader, the TraceState fold, LeakAnalyzer and the verifier.
        .executableTarget(
            name: "FuzzTraceReader",
            dependencies: ["FuzzSQLite", .product(name: "TraceStore", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
        // FoundationBridge on userInfo dictionaries decoded from the input, recorded into a trace file.
        .executableTarget(
            name: "FuzzBridge",
            dependencies: [.product(name: "TraceStore", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
        // Recorded payloads decoded by MessageRegistry (NotifyBus's own JSON reader, JSONDecoder
        // when it cannot answer) against JSONDecoder alone: the two must agree on every input.
        .executableTarget(
            name: "FuzzPayload",
            dependencies: [.product(name: "TraceStore", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
        // Arbitrary bytes as a Swift file through the scanner (swift-syntax, the model, the journeys' traces).
        .executableTarget(
            name: "FuzzScan",
            dependencies: [.product(name: "ObserverScan", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
    ],
    swiftLanguageModes: [.v6]
)
