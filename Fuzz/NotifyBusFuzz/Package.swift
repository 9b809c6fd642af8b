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
        // A mutated trace file through TraceReader, the TraceState fold, LeakAnalyzer and the verifier.
        .executableTarget(
            name: "FuzzTraceReader",
            dependencies: [.product(name: "TraceStore", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
        // FoundationBridge on userInfo dictionaries decoded from the input, recorded into a trace file.
        .executableTarget(
            name: "FuzzBridge",
            dependencies: [.product(name: "TraceStore", package: "NotifyBus"), .product(name: "NotifyBus", package: "NotifyBus")],
            swiftSettings: fuzzerFlags
        ),
    ],
    swiftLanguageModes: [.v6]
)
