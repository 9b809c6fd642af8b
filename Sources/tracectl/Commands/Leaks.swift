import ArgumentParser
import Foundation
import NotifyBus
import TraceStore

/// A `--rule` value.
struct RuleArgument: ExpressibleByArgument {
    let rule: LeakRule
    init?(argument: String) {
        guard let rule = LeakRule(rawValue: argument) else { return nil }
        self.rule = rule
    }
    static var allValueStrings: [String] { LeakRule.allCases.map(\.rawValue) }
}

/// A `--min-severity` value.
struct SeverityArgument: ExpressibleByArgument {
    let severity: LeakSeverity
    init?(argument: String) {
        guard let severity = LeakSeverity(rawValue: argument) else { return nil }
        self.severity = severity
    }
    init(_ severity: LeakSeverity) { self.severity = severity }
    static var allValueStrings: [String] { LeakSeverity.allCases.map(\.rawValue) }
    /// What `--help` shows as the default: the severity's name, as it is typed.
    var defaultValueDescription: String { severity.rawValue }
}

/// `leaks --format text|json|sarif`.
enum LeakFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif
}

/// Each severity and its rules, from the rules themselves: "error for a, b; warning for c; note for d".
private let rulesBySeverity = LeakSeverity.allCases.reversed().map { severity in
    "\(severity.rawValue) for " + LeakRule.allCases.filter { $0.severity == severity }.map(\.rawValue).joined(separator: ", ")
}.joined(separator: "; ")

extension Exit {
    /// 3: the session crashed or was cut short; the report covers only what was recorded
    /// (`leaks`, `verify` on such a session).
    static let cutShort = ExitCode(3)
}

extension SessionEnd {
    /// The `recording` object of JSON reports.
    var json: JSON {
        .object([
            ("ended", .bool(!isCutShort)),
            ("state", .string(state.rawValue)),
            ("crashedAt", .from(crashedAt)),
            ("lastSeq", .from(lastEvent?.seq)),
            ("lastEvent", .from(lastEvent.map(\.briefDescription))),
            ("recoveredFromJournal", .int(Int64(recoveredEvents))),
            ("summary", .string(summary)),
        ])
    }
}

extension LeakReport {
    /// The JSON report with how the session ended (`recording`) and, in `summary`, whether the report is complete.
    func json(end: SessionEnd) -> JSON {
        guard case .object(var fields) = json else { return json }
        if let index = fields.firstIndex(where: { $0.0 == "summary" }), case .object(var summary) = fields[index].1 {
            summary.append(("complete", .bool(!end.isCutShort)))
            fields[index].1 = .object(summary)
        }
        fields.append(("recording", end.json))
        return .object(fields)
    }
}

extension TraceCtl {
    struct Leaks: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List observers that outlive their screen, with the line that added them.",
            discussion: """
                Findings are grouped by cause: one group per owner type and call site (the line that added the \
                observer, or for a removal rule the line that removed), so one bug is one entry with its rules \
                and observers beneath. Severity per rule: \(rulesBySeverity). Each finding keeps its fingerprint \
                (rule, message, owner type, call site), which is what a baseline lists.

                --format sarif writes SARIF 2.1.0 for code review (GitHub code scanning and other SARIF viewers).

                A session that did not end (its recorder crashed, was killed or is still recording) is reported as \
                such, with where its record stops (in text, JSON's "recording" and SARIF's invocation), and exits 3.

                Exit codes: 0 when no finding at or above --min-severity is outside the baseline, 1 when any is \
                (with --write-baseline, 0 once the baseline is written, whatever was found); 3 when the session \
                crashed or was cut short, whatever was found (the report covers only what was recorded); \
                65 for a file that is not a trace; 66 for a missing file; 69 for a session the trace does not \
                hold; 73 for a baseline that cannot be written (the full table: tracectl --help).

                EXAMPLES:
                  tracectl leaks login.trace
                  tracectl leaks login.trace --min-severity warning   # leave notes out
                  tracectl leaks login.trace --rule observer-outlives-owner --format json
                  tracectl leaks login.trace --format sarif > leaks.sarif
                  tracectl leaks login.trace --write-baseline leaks-baseline.json
                  tracectl leaks login.trace --baseline leaks-baseline.json  # new ones fail
                """
        )

        @Argument(help: "The trace file.", completion: .file(extensions: ["trace", "sqlite"]))
        var trace: String

        @Option(help: "The session to read (default: the newest).")
        var session: Int64?

        @Option(help: "Output format: text, json or sarif.")
        var format: LeakFormat = .text

        @Option(help: "Leave out findings below this severity: note, warning or error.")
        var minSeverity = SeverityArgument(.note)

        @Option(help: "A JSON list of fingerprints to accept; only findings outside it fail.",
                completion: .file(extensions: ["json"]))
        var baseline: String?

        @Option(help: """
            Write the fingerprints of the findings at or above --min-severity to this file, as a baseline, \
            and exit 0 whatever was found.
            """)
        var writeBaseline: String?

        @Option(name: .customLong("rule"), help: "Only this rule (repeatable).")
        var rules: [RuleArgument] = []

        @Option(help: OffscreenMessagesArgument.help)
        var offscreenMessages: OffscreenMessagesArgument?

        @OptionGroup var sourceRoot: SourceRootOptions

        func run() throws {
            if let writeBaseline { try checkOutputPath(writeBaseline, inputs: [trace]) }
            let root = try sourceRoot.root(trace: trace)
            let reader = try openTrace(trace)
            let accepted = try loadBaseline()
            let (session, findings, end) = try reportingErrors {
                let session = try reader.session(self.session)
                let selected = rules.isEmpty ? Set(LeakRule.allCases) : Set(rules.map(\.rule))
                return (session, try LeakAnalyzer.analyze(reader, session: session.id, rules: selected,
                                                          offscreenMessages: offscreenMessages?.messages ?? LeakAnalyzer.defaultOffscreenMessages),
                        try reader.end(of: session))
            }
            let report = LeakReport(trace: trace, session: session, findings: findings, baseline: accepted,
                                    minSeverity: minSeverity.severity)
            if let writeBaseline {
                let fingerprints = Array(Set(report.findings.map(\.fingerprint))).sorted()
                // The baseline read by --baseline may be the one written: it was read whole above.
                try writeOutputFile(writeBaseline, what: "the baseline", inputs: [trace]) { out in
                    JSON.array(fingerprints.map(JSON.string)).render(to: out)
                    out.endLine()
                }
            }
            let out = Output()
            switch format {
            case .json: report.json(end: end).render(to: out); out.endLine()
            case .sarif: report.sarif(under: root, end: end).render(to: out); out.endLine()
            case .text:
                let style = Style.current
                let cutShort = "session \(session.id) '\(session.name)' " + end.summary
                    + ": the report covers only what was recorded, not the session's end"
                if end.isCutShort { out.line(style.yellow(cutShort)); out.line() }
                report.printText(to: out, style: style)
                if end.isCutShort { out.line(style.bold("report incomplete: \(end.state == .crashed ? "crashed" : "cut short") session, exit 3")) }
            }
            out.flush()
            // A crashed or cut-short session is never reported as clean, findings or none.
            if end.isCutShort { throw Exit.cutShort }
            if writeBaseline == nil && report.newCount > 0 { throw Exit.findings }
        }

        private func loadBaseline() throws -> Set<String> {
            guard let baseline else { return [] }
            let data = try readInput(baseline)
            guard let list = try? JSONSerialization.jsonObject(with: data) as? [String] else {
                diagnose("\(baseline): not a baseline (expected a JSON list of fingerprint strings)")
                throw Exit.invalidInput
            }
            return Set(list)
        }
    }
}
