import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ObserverScan
import TraceStore

/// `tracectl-scan`, which `tracectl scan` runs: swift-syntax lives here, not in tracectl.
@main
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl scan",
        abstract: "Find observer bugs in Swift sources without running the app (docs/SCAN.md).",
        discussion: """
            Reads the Swift files under each PATH, finds every NotificationCenter registration and removal per class \
            (its extensions, superclasses and protocol extensions included) and where each stands in the UIKit lifecycle, \
            runs each class through fixed journeys (push and pop, sheet, full screen, interactive pop cancelled then \
            completed, background, keyboard) in the lifecycle model, and applies the leak rules of `tracectl leaks`. \
            Each finding points at the line of the registration or removal to fix. What the scan cannot resolve is a note.

            Exit codes: 0 no finding at or above --min-severity, 1 findings, 64 usage, 66 a PATH missing, \
            70 internal error, 73 --keep-traces cannot be created, 74 the output cannot be written.
            """,
        version: "0.1.0"
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    @Argument(help: "Swift files and folders to scan.")
    var paths: [String]

    @Option(help: "Output format: text, json or sarif.")
    var format: Format = .text

    @Option(help: "Paths in the report are relative to this folder (default: the current folder).")
    var sourceRoot: String?

    @Option(help: "Keep the recorded journey traces in this folder (one trace per class, one session per journey).")
    var keepTraces: String?

    @Option(help: ArgumentHelp("The iOS deployment target (selector observers crash after release before iOS 9). "
                               + "Default: read from a Package.swift or .xcodeproj, else modern."))
    var iosDeploymentTarget: String?

    @Option(help: "Report only findings at or above: note, warning, error.")
    var minSeverity: String = "note"

    func validate() throws {
        if let target = iosDeploymentTarget, target.split(separator: ".").first.flatMap({ Int($0) }) == nil {
            throw ValidationError("--ios-deployment-target: expected a version such as 12.0, not '\(target)'")
        }
        if LeakSeverity(rawValue: minSeverity) == nil {
            throw ValidationError("--min-severity: expected note, warning or error, not '\(minSeverity)'")
        }
    }

    func run() throws {
        let report: ScanReport
        do {
            report = try ObserverScan.scan(ScanOptions(paths: paths, sourceRoot: sourceRoot, keepTraces: keepTraces,
                                                       deploymentTarget: iosDeploymentTarget))
        } catch {
            let code: Int32 = switch error.kind {
            case .missingInput: 66
            case .cannotCreate: 73
            case .usage: 64
            case .internal: 70
            }
            fail(error.message, code: code)
        }
        let severity = LeakSeverity(rawValue: minSeverity) ?? .note
        let output: String = switch format {
        case .text: report.text(minimumSeverity: severity)
        case .json: report.json(minimumSeverity: severity).rendered(pretty: true) + "\n"
        case .sarif: report.sarif(minimumSeverity: severity, version: Self.configuration.version).rendered(pretty: true) + "\n"
        }
        if format != .text {
            for warning in report.warnings { FileHandle.standardError.write(Data("tracectl: warning: \(warning.path): \(warning.text)\n".utf8)) }
        }
        let data = Data(output.utf8)
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            fail("cannot write the report: \(error.localizedDescription)", code: 74)
        }
        throw ExitCode(report.exitCode(minimumSeverity: severity))
    }

    private func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("tracectl: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
