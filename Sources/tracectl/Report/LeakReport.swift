import ArgumentParser
import NotifyBus
import TraceStore

/// `leaks --offscreen-messages`: the message set of `delivery-while-offscreen`, read by
/// ``TraceStore/LeakAnalyzer/offscreenMessages(_:)``; a list it refuses is a usage error (64).
struct OffscreenMessagesArgument: ExpressibleByArgument {
    let messages: Set<String>
    init?(argument: String) {
        guard let messages = try? LeakAnalyzer.offscreenMessages(argument) else { return nil }
        self.messages = messages
    }

    static let help = ArgumentHelp(
        "The messages whose delivery to a covered screen is delivery-while-offscreen: names and groups "
            + "(keyboard, orientation, activity, default) replace the default set; +NAME and -NAME change it "
            + "(-activity narrows it, +UIContentSizeCategoryDidChangeNotification widens it).",
        valueName: "list")
}

/// The leak report, as text for people, JSON for scripts and SARIF for code review.
struct LeakReport {
    let trace: String
    let session: SessionSummary
    /// The findings at or above ``minSeverity``.
    let findings: [LeakFinding]
    let baseline: Set<String>
    var minSeverity: LeakSeverity = .note
    /// Findings below ``minSeverity``, left out.
    var hidden = 0

    /// How many findings of a group the text lists before it only counts.
    static let listedPerGroup = 10

    init(trace: String, session: SessionSummary, findings: [LeakFinding], baseline: Set<String>,
         minSeverity: LeakSeverity = .note) {
        self.trace = trace
        self.session = session
        self.findings = findings.filter { $0.severity >= minSeverity }
        self.baseline = baseline
        self.minSeverity = minSeverity
        hidden = findings.count - self.findings.count
        groups = FindingGroup.groups(of: self.findings)
    }

    /// One group per bug: owner type and call site.
    let groups: [FindingGroup]

    var newCount: Int { findings.filter { !baseline.contains($0.fingerprint) }.count }

    /// The command that draws this session's timeline.
    var timelineCommand: String { "tracectl timeline \(trace)\(sessionArgument) -o timeline.html" }

    private var sessionArgument: String { session.id == 1 ? "" : " --session \(session.id)" }

    /// The selector semantics the rules judged the session by: what it recorded, modern when it
    /// recorded none (version-1 traces), as ``LeakAnalyzer/analyze(_:session:rules:)`` assumes.
    var selectorSemantics: SelectorSemantics { session.selectorSemantics ?? .modern }

    /// Said in the text only when it is not the default: a legacy session's selector findings are crashes.
    private var semanticsText: String {
        selectorSemantics == .legacy ? " [legacy selector semantics: before iOS 9, a post to a deallocated target crashes]" : ""
    }

    var summaryLine: String {
        let hiddenText = hidden == 0 ? "" : " (\(hidden) below \(minSeverity.rawValue) not shown)"
        if findings.isEmpty { return "no leaks in session \(session.id) ('\(session.name)')" + hiddenText + semanticsText }
        var severities: [String] = []
        for severity in LeakSeverity.allCases.reversed() {
            let n = groups.filter { $0.severity == severity }.count
            if n > 0 { severities.append(counted(n, severity.rawValue)) }
        }
        var rules: [String] = []
        for rule in LeakRule.allCases {
            let n = findings.filter { $0.rule == rule }.count
            if n > 0 { rules.append("\(n) \(rule.rawValue)") }
        }
        var line = "\(counted(groups.count, "bug")) (\(severities.joined(separator: ", "))), "
            + "\(counted(findings.count, "finding")): \(rules.joined(separator: ", "))"
        if !baseline.isEmpty { line += " (\(newCount) new, \(findings.count - newCount) baselined)" }
        return line + hiddenText + semanticsText
    }

    func printText(to out: Output, style: Style) {
        for group in groups {
            let known = group.findings.allSatisfy { baseline.contains($0.fingerprint) }
            let site = group.callSite == "-" ? "(unknown call site)" : group.callSite
            out.line(paint(group.severity, style) + "  " + style.bold(site) + "  " + (group.ownerType ?? "no owner type")
                     + (known ? style.dim("  [baselined]") : ""))
            let ruleWidth = group.rules.map(\.rawValue.count).max() ?? 0
            for finding in group.findings.prefix(Self.listedPerGroup) {
                // Where the owner lives when it is attached to a host, as JSON's ownerLocation: "KeyboardHelper in Editor".
                let owner = (finding.ownerLocation ?? finding.owner).map { "owner \($0)" } ?? "no owner"
                out.line("  " + paint(finding.severity, style) + "  " + finding.rule.rawValue.padded(ruleWidth)
                         + "  \(finding.message ?? "every message")  \(owner)  " + style.dim("[\(finding.fingerprint)]"))
                out.line("           " + describe(finding))
            }
            if group.findings.count > Self.listedPerGroup {
                out.line(style.dim("  … and \(group.findings.count - Self.listedPerGroup) more (--format json lists all)"))
            }
            out.line()
        }
        out.line(newCount > 0 ? style.bold(summaryLine) : summaryLine)
        if !findings.isEmpty { out.line("See when each observer lived beside its screen: \(timelineCommand)") }
    }

    /// The severity, padded to the width of the longest, in its colour.
    private func paint(_ severity: LeakSeverity, _ style: Style) -> String {
        let text = severity.rawValue.padded(7)
        switch severity {
        case .error: return style.red(text)
        case .warning: return style.yellow(text)
        case .note: return style.cyan(text)
        }
    }

    private func counted(_ n: Int, _ noun: String) -> String {
        n == 1 ? "1 \(noun)" : "\(n) \(noun)s"
    }

    func describe(_ finding: LeakFinding) -> String {
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
        var bySeverity: [(String, JSON)] = []
        for severity in LeakSeverity.allCases.reversed() {
            bySeverity.append((severity.rawValue, .int(Int64(findings.filter { $0.severity == severity }.count))))
        }
        let groupOf = Dictionary(groups.flatMap { group in group.findings.map { ($0, group.id) } },
                                 uniquingKeysWith: { first, _ in first })
        return .object([
            ("leaks", .array(findings.map { finding in
                .object([
                    ("rule", .string(finding.rule.rawValue)),
                    ("severity", .string(finding.severity.rawValue)),
                    ("fingerprint", .string(finding.fingerprint)),
                    ("group", .from(groupOf[finding])),
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
            ("groups", .array(groups.map { group in
                .object([
                    ("id", .string(group.id)),
                    ("severity", .string(group.severity.rawValue)),
                    ("ownerType", .from(group.ownerType)),
                    ("callsite", .string(group.callSite)),
                    ("rules", .array(group.rules.map { .string($0.rawValue) })),
                    ("fingerprints", .array(group.findings.map { .string($0.fingerprint) })),
                    ("findings", .int(Int64(group.findings.count))),
                    ("firstSeq", .from(group.firstSeq)),
                ])
            })),
            ("summary", .object([
                ("trace", .string(trace)),
                ("session", .int(session.id)),
                ("scenario", .string(session.name)),
                ("selectorSemantics", .string(selectorSemantics.rawValue)),
                ("bugs", .int(Int64(groups.count))),
                ("total", .int(Int64(findings.count))),
                ("new", .int(Int64(newCount))),
                ("baselined", .int(Int64(findings.count - newCount))),
                ("groups", .int(Int64(groups.count))),
                ("minSeverity", .string(minSeverity.rawValue)),
                ("hidden", .int(Int64(hidden))),
                ("bySeverity", .object(bySeverity)),
                ("byRule", .object(byRule)),
                ("timeline", .string(timelineCommand)),
            ])),
        ])
    }
}
