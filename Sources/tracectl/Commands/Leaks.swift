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

extension TraceCtl {
    struct Leaks: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List observers that outlive their screen, with the line that added them.",
            discussion: """
                Rules: observer-outlives-owner, delivery-after-owner-gone, delivery-while-offscreen,
                duplicate-registration, unbalanced-removal. Findings are grouped by fingerprint (rule, message,
                owner type, call site), so the same bug seen in many traces is one group.

                Exit codes: 0 when no finding is outside the baseline, 1 when any is; 65 for a file that is not
                a trace; 66 for a missing file.

                EXAMPLES:
                  tracectl leaks login.trace
                  tracectl leaks login.trace --rule observer-outlives-owner --format json
                  tracectl leaks login.trace --write-baseline leaks-baseline.json
                  tracectl leaks login.trace --baseline leaks-baseline.json   # CI gate: only new leaks fail
                """
        )

        @OptionGroup var options: TraceOptions

        @Option(help: "A JSON list of fingerprints to accept; only findings outside it fail.",
                completion: .file(extensions: ["json"]))
        var baseline: String?

        @Option(help: "Write the fingerprints of every finding to this file, as a baseline.")
        var writeBaseline: String?

        @Option(name: .customLong("rule"), help: "Only this rule (repeatable).")
        var rules: [RuleArgument] = []

        func run() throws {
            let reader = try openTrace(options.trace)
            let accepted = try loadBaseline()
            let (session, findings) = try reportingErrors {
                let session = try reader.session(options.session)
                let selected = rules.isEmpty ? Set(LeakRule.allCases) : Set(rules.map(\.rule))
                return (session, try LeakAnalyzer.analyze(reader, session: session.id, rules: selected))
            }
            if let writeBaseline {
                let fingerprints = Array(Set(findings.map(\.fingerprint))).sorted()
                let text = JSON.array(fingerprints.map(JSON.string)).rendered + "\n"
                do {
                    try text.write(toFile: writeBaseline, atomically: true, encoding: .utf8)
                } catch {
                    diagnose("\(writeBaseline): cannot write the baseline (\(error.localizedDescription))")
                    throw ExitCode.failure
                }
            }
            let report = LeakReport(trace: options.trace, session: session, findings: findings, baseline: accepted)
            let out = Output()
            switch options.format {
            case .json: out.line(report.json.rendered)
            case .text: report.printText(to: out, style: .current)
            }
            out.flush()
            if writeBaseline == nil && report.newCount > 0 { throw Exit.findings }
        }

        private func loadBaseline() throws -> Set<String> {
            guard let baseline else { return [] }
            guard let data = FileManager.default.contents(atPath: baseline) else {
                diagnose("\(baseline): no such file")
                throw Exit.missingInput
            }
            guard let list = try? JSONSerialization.jsonObject(with: data) as? [String] else {
                diagnose("\(baseline): not a baseline (expected a JSON list of fingerprint strings)")
                throw Exit.invalidInput
            }
            return Set(list)
        }
    }
}

/// The leak report, as text for people and JSON for CI.
struct LeakReport {
    let trace: String
    let session: SessionSummary
    let findings: [LeakFinding]
    let baseline: Set<String>

    var newCount: Int { findings.filter { !baseline.contains($0.fingerprint) }.count }

    /// Findings grouped by fingerprint: the rules in their order of gravity, then by first appearance.
    var groups: [[LeakFinding]] {
        var order: [String] = []
        var byPrint: [String: [LeakFinding]] = [:]
        for finding in findings {
            if byPrint[finding.fingerprint] == nil { order.append(finding.fingerprint) }
            byPrint[finding.fingerprint, default: []].append(finding)
        }
        let gravity = Dictionary(uniqueKeysWithValues: LeakRule.allCases.enumerated().map { ($1, $0) })
        return order.enumerated().sorted { a, b in
            (gravity[byPrint[a.element]![0].rule]!, a.offset) < (gravity[byPrint[b.element]![0].rule]!, b.offset)
        }.map { byPrint[$0.element]! }
    }

    var summaryLine: String {
        if findings.isEmpty { return "no leaks in session \(session.id) ('\(session.name)')" }
        var counts: [String] = []
        for rule in LeakRule.allCases {
            let n = findings.filter { $0.rule == rule }.count
            if n > 0 { counts.append("\(n) \(rule.rawValue)") }
        }
        let groupsText = groups.count == 1 ? "1 group" : "\(groups.count) groups"
        let findingsText = findings.count == 1 ? "1 finding" : "\(findings.count) findings"
        var line = "\(findingsText) in \(groupsText): \(counts.joined(separator: ", "))"
        if !baseline.isEmpty { line += " (\(newCount) new, \(findings.count - newCount) baselined)" }
        return line
    }

    func printText(to out: Output, style: Style) {
        for group in groups {
            let first = group[0]
            let known = baseline.contains(first.fingerprint)
            let site = first.callSite == "-" ? "(unknown call site)" : first.callSite
            out.line(style.bold(site) + (known ? style.dim("  [baselined]") : ""))
            let rule = first.rule == .deliveryWhileOffscreen || first.rule == .duplicateRegistration
                || first.rule == .unbalancedRemoval ? style.yellow(first.rule.rawValue) : style.red(first.rule.rawValue)
            let owner = first.owner.map { "owner \($0)" + (first.ownerType.map { " (\($0))" } ?? "") } ?? "no owner"
            let times = group.count > 1 ? "  ×\(group.count)" : ""
            out.line("  \(rule)  \(first.message ?? "every message")  \(owner)  \(style.dim("[\(first.fingerprint)]"))\(times)")
            for finding in group { out.line("    " + describe(finding)) }
            out.line()
        }
        out.line(newCount > 0 ? style.bold(summaryLine) : summaryLine)
    }

    private func describe(_ finding: LeakFinding) -> String {
        let added = finding.addedAt.map { "added at seq \($0)" }
        switch finding.rule {
        case .observerOutlivesOwner:
            let fate = finding.ownerReleased == true ? "released" : "still alive (retained)"
            let gone = finding.ownerGoneAt.map { "owner gone at seq \($0), \(fate)" } ?? "owner \(fate)"
            return [added, gone, "still registered at seq \(finding.seq)"].compactMap { $0 }.joined(separator: "; ")
        case .deliveryAfterOwnerGone, .deliveryWhileOffscreen:
            let what = finding.rule == .deliveryAfterOwnerGone ? "after the owner was gone" + (finding.ownerGoneAt.map { " (seq \($0))" } ?? "")
                                                               : "while the owner was off screen"
            let listed = finding.deliveriesAfter.map { "\($0.outcome) seq \($0.seq)" }.joined(separator: ", ")
            let more = finding.deliveryCount > finding.deliveriesAfter.count ? ", …" : ""
            let count = finding.deliveryCount == 1 ? "1 delivery" : "\(finding.deliveryCount) deliveries"
            return [added, "\(count) \(what): \(listed)\(more)"].compactMap { $0 }.joined(separator: "; ")
        case .duplicateRegistration:
            return "registered again at seq \(finding.seq) while an identical observer was live: its handler runs twice"
        case .blockRetainsOwner:
            return [added, "a block capturing its owner strongly keeps it alive after it was let go"
                + (finding.ownerGoneAt.map { " (seq \($0))" } ?? "") + "; remove the block or capture [weak self]"]
                .compactMap { $0 }.joined(separator: "; ")
        case .unownedCaptureAfterRelease:
            let count = finding.deliveryCount == 1 ? "1 post" : "\(finding.deliveryCount) posts"
            return [added, "\(count) after the owner was gone would trap: the block captures it unowned"]
                .compactMap { $0 }.joined(separator: "; ")
        case .removalMissesObserver:
            if let observer = finding.observer {
                return "removal at seq \(finding.seq) left \(finding.observerKind?.rawValue ?? "block") observer \(observer) registered: only its token removes it"
            }
            return "removal at seq \(finding.seq) asked for \(finding.message ?? "a name") the owner never observed"
        case .tokenReleasedUnheard:
            return [added, "its token was released before any post reached it; the message was posted at seq \(finding.seq) and it was gone: keep the token"]
                .compactMap { $0 }.joined(separator: "; ")
        case .unbalancedRemoval:
            if let observer = finding.observer, finding.addedAt != nil {
                return "observer \(observer) removed again at seq \(finding.seq): it was no longer registered"
            }
            return "removal at seq \(finding.seq) found nothing registered"
        }
    }

    var json: JSON {
        var byRule: [(String, JSON)] = []
        for rule in LeakRule.allCases {
            byRule.append((rule.rawValue, .int(Int64(findings.filter { $0.rule == rule }.count))))
        }
        return .object([
            ("leaks", .array(findings.map { finding in
                .object([
                    ("rule", .string(finding.rule.rawValue)),
                    ("fingerprint", .string(finding.fingerprint)),
                    ("message", .from(finding.message)),
                    ("owner", .from(finding.owner)),
                    ("ownerType", .from(finding.ownerType)),
                    ("ownerLocation", .from(finding.ownerLocation)),
                    ("observerKind", .from(finding.observerKind?.rawValue)),
                    ("capture", .from(finding.capture?.rawValue)),
                    ("callsite", .string(finding.callSite)),
                    ("addedAt", .from(finding.addedAt)),
                    ("ownerGoneAt", .from(finding.ownerGoneAt)),
                    ("ownerReleased", .from(finding.ownerReleased)),
                    ("observer", .from(finding.observer)),
                    ("seq", .from(finding.seq)),
                    ("deliveriesAfter", .array(finding.deliveriesAfter.map { delivery in
                        let fields: [(String, JSON)] = [
                            ("seq", .from(delivery.seq)), ("post", .from(delivery.post)),
                            ("message", .from(delivery.message)), ("outcome", .string(delivery.outcome.rawValue)),
                        ]
                        return JSON.object(fields)
                    })),
                    ("deliveryCount", .int(Int64(finding.deliveryCount))),
                    ("baselined", .bool(baseline.contains(finding.fingerprint))),
                ])
            })),
            ("summary", .object([
                ("trace", .string(trace)),
                ("session", .int(session.id)),
                ("scenario", .string(session.name)),
                ("total", .int(Int64(findings.count))),
                ("new", .int(Int64(newCount))),
                ("baselined", .int(Int64(findings.count - newCount))),
                ("groups", .int(Int64(groups.count))),
                ("byRule", .object(byRule)),
            ])),
        ])
    }
}
