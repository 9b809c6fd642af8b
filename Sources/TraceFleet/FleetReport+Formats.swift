import Foundation
import TraceStore

extension FleetReport {
    /// The report as JSON: totals, builds, rows, incomplete sessions and warnings; keys sorted, so that
    /// two reports of the same sessions are byte for byte equal.
    public func json(source: String) -> String {
        struct Document: Encodable {
            var source: String
            var sinceBuild: String?
            var baseline: Bool
            var totals: Totals
            var builds: [BuildCount]
            var rows: [Row]
            var incompleteSessions: [IncompleteSession]
            var warnings: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = Document(source: source, sinceBuild: usesBaseline ? nil : sinceBuild, baseline: usesBaseline,
                                totals: totals, builds: builds, rows: rows, incompleteSessions: incomplete, warnings: warnings)
        // Encoding plain strings and numbers cannot fail.
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }

    /// The one-line totals that head the text and HTML reports.
    public var headline: String {
        var parts = ["\(totals.traces) trace\(totals.traces == 1 ? "" : "s")",
                     "\(totals.sessions) session\(totals.sessions == 1 ? "" : "s") (\(totals.ended) ended, \(totals.crashed) crashed, \(totals.unfinished) unfinished)"]
        if let first = builds.first, let last = builds.last {
            parts.append(builds.count == 1 ? "build \(first.build)" : "\(builds.count) builds, \(first.build) … \(last.build)")
        }
        if totals.unreadable > 0 { parts.append("\(totals.unreadable) file\(totals.unreadable == 1 ? "" : "s") not read") }
        return parts.joined(separator: ", ")
    }

    /// What new and regressed are relative to.
    public var comparison: String {
        if usesBaseline { return "new: outside the baseline" }
        if let sinceBuild { return "new: first seen after build \(sinceBuild)" }
        // New and regressed are counted in builds: without any, every fingerprint is known.
        if builds.isEmpty { return "new: none can be told, no session names its build (record --meta build=N)" }
        return "new: every fingerprint (no earlier build)"
    }

    /// The report as text, one block per fingerprint; `color` adds ANSI colours to the statuses.
    public func text(color: Bool = false) -> String {
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var lines = ["fleet report: \(headline); \(comparison)"]
        let counts = Dictionary(grouping: rows, by: \.status).mapValues(\.count)
        lines.append("\(rows.count) fingerprint\(rows.count == 1 ? "" : "s"): \(counts[.new] ?? 0) new, "
                     + "\(counts[.regressed] ?? 0) regressed, \(counts[.known] ?? 0) known")
        for row in rows {
            let status = switch row.status {
            case .new: paint("NEW", "1;31")
            case .regressed: paint("REGRESSED", "1;35")
            case .known: "known"
            }
            lines.append("")
            lines.append("\(status) \(row.severity.rawValue) \(row.rule)  \(row.message ?? "every message")  "
                         + "owner \(row.ownerType ?? "-")  [\(row.fingerprint)]")
            lines.append("    at \(row.callSite)")
            var seen = "    \(row.sessions) session\(row.sessions == 1 ? "" : "s") in \(row.traces) trace\(row.traces == 1 ? "" : "s")"
            if row.incompleteSessions > 0 { seen += " (\(row.incompleteSessions) not ended cleanly)" }
            seen += ", \(row.findings) finding\(row.findings == 1 ? "" : "s"), \(row.deliveries) deliver\(row.deliveries == 1 ? "y" : "ies")"
            lines.append(seen)
            lines.append("    builds \(row.builds.isEmpty ? "-" : row.builds.joined(separator: ", ")); first \(row.firstSeen.time) "
                         + "(build \(row.firstSeen.build ?? "-")), last \(row.lastSeen.time) (build \(row.lastSeen.build ?? "-"))")
            lines.append("    e.g. \(row.example.trace) session \(row.example.session), seq "
                         + row.example.evidence.map(String.init).joined(separator: ", "))
        }
        if !incomplete.isEmpty {
            lines.append("")
            lines.append("\(incomplete.count) session\(incomplete.count == 1 ? "" : "s") did not end cleanly (findings cover what was recorded):")
            for session in incomplete {
                lines.append("    \(session.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(session.trace) session \(session.session) "
                             + "'\(session.name)' build \(session.build ?? "-")")
            }
        }
        if !warnings.isEmpty {
            lines.append("")
            lines.append("\(warnings.count) file\(warnings.count == 1 ? "" : "s") not read:")
            for warning in warnings { lines.append("    \(warning)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
