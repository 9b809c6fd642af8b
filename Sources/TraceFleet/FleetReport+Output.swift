import Foundation
public import TraceStore

/// `report --format`.
public enum FleetFormat: String, Sendable, CaseIterable {
    case text, json, html
}

/// The exit codes of `tracectl report` and `tracectl push` (README, "Exit codes"): both executables use these.
public enum FleetExit {
    public static let ok: Int32 = 0
    /// A fingerprint is new or regressed.
    public static let findings: Int32 = 1
    /// A session crashed or was cut short: the report covers only what it recorded.
    public static let incomplete: Int32 = 3
    public static let usage: Int32 = 64
    /// A file named could not be read as a trace (the rest was reported), or a bad baseline.
    public static let invalidInput: Int32 = 65
    public static let missingInput: Int32 = 66
    public static let internalError: Int32 = 70
    public static let cannotCreate: Int32 = 73
    /// The PostgreSQL server is down, unreachable, or refuses the connection or the login.
    public static let serverUnavailable: Int32 = 76

    /// The code for a library error.
    public static func code(for error: FleetError) -> Int32 {
        switch error.kind {
        case .missingInput: missingInput
        case .invalidInput: invalidInput
        case .serverUnavailable: serverUnavailable
        case .server: internalError
        case .cannotCreate: cannotCreate
        }
    }
}

extension FleetReport {
    /// The report in a format; `source` names what was read (paths, or the server without its password).
    public func rendered(_ format: FleetFormat, source: String) -> String {
        switch format {
        case .text: text(color: false)
        case .json: json(source: source) + "\n"
        case .html: html(title: "NotifyBus fleet report: \(source)")
        }
    }

    /// The exit code, most pressing first: 65 when a file was not read (its sessions are missing),
    /// 3 when a session did not end cleanly, 1 when a fingerprint is new or regressed, else 0. The
    /// report is printed in full whatever the code.
    public var exitCode: Int32 {
        if totals.unreadable > 0 { return FleetExit.invalidInput }
        if !incomplete.isEmpty { return FleetExit.incomplete }
        return attentionCount > 0 ? FleetExit.findings : FleetExit.ok
    }

    /// Reads a baseline: a JSON list of fingerprint strings (`tracectl leaks --write-baseline`).
    public static func loadBaseline(_ path: String) throws(FleetError) -> Set<String> {
        guard FileManager.default.fileExists(atPath: path) else { throw FleetError(.missingInput, "\(path): no such file") }
        guard let data = FileManager.default.contents(atPath: path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [String] else {
            throw FleetError(.invalidInput, "\(path): not a baseline (expected a JSON list of fingerprint strings)")
        }
        return Set(list)
    }
}

/// A `--min-severity` value, for the executables that parse one.
public struct FleetSeverity: Sendable, RawRepresentable {
    public var severity: LeakSeverity
    public init?(rawValue: String) {
        guard let severity = LeakSeverity(rawValue: rawValue) else { return nil }
        self.severity = severity
    }
    public var rawValue: String { severity.rawValue }
    public static let note = FleetSeverity(rawValue: "note")!
}
