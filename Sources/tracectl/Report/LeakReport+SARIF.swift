import ArgumentParser
import Foundation
import TraceStore

/// SARIF 2.1.0, the format code-review tools (GitHub code scanning, VS Code's SARIF viewer) read.
extension LeakReport {
    static let sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

    /// The report as a SARIF log: one run, every rule described, one result per finding at its call site.
    ///
    /// Swift call sites (`#fileID:#line`) become a file and a line relative to `%SRCROOT%`; scenario call
    /// sites become the scenario file as `tracectl record` was given it, the line that declares the observer
    /// (found in the scenario text the session recorded) and the observer's JSON path as a logical location.
    /// `run.originalUriBaseIds` says what `%SRCROOT%` is, and that `#fileID` names a module, not a folder.
    var sarif: JSON { sarif(end: nil) }

    /// The SARIF log with how the session ended: a crashed or cut-short session makes the run's
    /// invocation unsuccessful, with a notification saying where the record stops.
    func sarif(end: SessionEnd?) -> JSON {
        let rules = LeakRule.allCases
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1, $0) })
        let groupOf = Dictionary(groups.flatMap { group in group.findings.map { ($0, group.id) } },
                                 uniquingKeysWith: { first, _ in first })
        let lines = scenarioLines
        let results: [JSON] = groups.flatMap(\.findings).map { finding in
            var fields: [(String, JSON)] = [
                ("ruleId", .string(finding.rule.rawValue)),
                ("ruleIndex", .int(Int64(index[finding.rule] ?? 0))),
                ("level", .string(finding.severity.rawValue)),
                ("message", .object([("text", .string(sarifMessage(finding)))])),
                ("locations", .array(sarifLocations(finding.callSite, lines: lines))),
                ("partialFingerprints", .object([("notifybusFingerprint/v1", .string(finding.fingerprint))])),
            ]
            if !baseline.isEmpty {
                fields.append(("baselineState", .string(baseline.contains(finding.fingerprint) ? "unchanged" : "new")))
            }
            var properties: [(String, JSON)] = [("group", .from(groupOf[finding])), ("seq", .from(finding.seq))]
            if let owner = finding.owner { properties.append(("owner", .string(owner))) }
            if let ownerType = finding.ownerType { properties.append(("ownerType", .string(ownerType))) }
            if let message = finding.message { properties.append(("notification", .string(message))) }
            fields.append(("properties", .object(properties)))
            return .object(fields)
        }
        let driver: JSON = .object([
            ("name", .string("tracectl")),
            ("version", .string(TraceCtl.configuration.version)),
            ("rules", .array(rules.map { rule in
                .object([
                    ("id", .string(rule.rawValue)),
                    ("name", .string(rule.sarifName)),
                    ("shortDescription", .object([("text", .string(rule.title))])),
                    ("fullDescription", .object([("text", .string(rule.help))])),
                    ("help", .object([("text", .string(rule.help))])),
                    ("defaultConfiguration", .object([("level", .string(rule.severity.rawValue))])),
                    ("properties", .object([("tags", .array([.string("notifications"), .string("leak")]))])),
                ])
            })),
        ])
        return .object([
            ("$schema", .string(Self.sarifSchema)),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", driver)])),
                ("originalUriBaseIds", .object([(Self.sourceRoot, .object([
                    ("description", .object([("text", .string(Self.sourceRootDescription))])),
                ]))])),
                ("results", .array(results)),
                ("invocations", .array([invocation(end: end)])),
                ("properties", .object([
                    ("trace", .string(trace)), ("session", .int(session.id)), ("scenario", .string(session.name)),
                    ("recording", .string((end?.state ?? (session.endedCleanly ? .ended : session.crashedAt != nil ? .crashed : .unfinished)).rawValue)),
                    ("lastSeq", .from(end?.lastEvent?.seq)),
                ])),
            ])])),
        ])
    }

    /// The run's invocation: successful only when the session ended, so that a viewer does not take
    /// the findings of a crashed or cut-short session for a complete analysis.
    private func invocation(end: SessionEnd?) -> JSON {
        let cutShort = end?.isCutShort ?? !session.endedCleanly
        var fields: [(String, JSON)] = [("executionSuccessful", .bool(!cutShort))]
        if cutShort {
            let text = "session \(session.id) '\(session.name)' "
                + (end?.summary ?? "did not end: its recorder was killed, crashed or is still recording")
                + "; the results cover only what was recorded"
            fields.append(("toolExecutionNotifications", .array([.object([
                ("level", .string("error")),
                ("message", .object([("text", .string(text))])),
                ("descriptor", .object([("id", .string("session-cut-short"))])),
            ])])))
        }
        return .object(fields)
    }

    /// The base of every location's relative URI.
    static let sourceRoot = "%SRCROOT%"

    /// What ``sourceRoot`` stands for, written into the log: scenario paths resolve from it, Swift
    /// call sites only where a module's folder has the module's name.
    static let sourceRootDescription = """
        The folder tracectl record ran in (the repository root when run there, as README's examples are): \
        a scenario given as a relative path is recorded as given, one given as an absolute path by its file name alone. \
        Swift call sites are #fileID, Module/File.swift, which names the module and not its folder: \
        they resolve only where the module's sources are in a folder of its name at the root \
        (SwiftPM's Sources/Module/File.swift does not: prefix Sources/ or the target's path).
        """

    /// A file name as a relative URI reference: spaces and other reserved characters percent-encoded.
    static func uri(_ file: String) -> String {
        file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file
    }

    /// The lines of the scenario the session recorded, so a scenario call site gets a line too.
    private var scenarioLines: JSONLineIndex? { session.scenario.flatMap(JSONLineIndex.init) }

    private func sarifMessage(_ finding: LeakFinding) -> String {
        let owner = finding.owner.map { " of \($0)" + (finding.ownerType.map { " (\($0))" } ?? "") } ?? ""
        return "\(finding.rule.title): \(finding.message ?? "every message") observer\(owner); \(describe(finding))."
    }

    private func sarifLocations(_ callSite: String, lines: JSONLineIndex?) -> [JSON] {
        switch CallSiteLocation(callSite) {
        case .source(let file, let line):
            return [.object([("physicalLocation", .object([
                ("artifactLocation", .object([("uri", .string(Self.uri(file))), ("uriBaseId", .string(Self.sourceRoot))])),
                ("region", .object([("startLine", .int(Int64(line)))])),
            ]))])]
        case .scenario(let file, let path):
            var physical: [(String, JSON)] = [
                ("artifactLocation", .object([("uri", .string(Self.uri(file))), ("uriBaseId", .string(Self.sourceRoot))])),
            ]
            if let line = lines?.line(of: path) {
                physical.append(("region", .object([("startLine", .int(Int64(line)))])))
            }
            return [.object([
                ("physicalLocation", .object(physical)),
                ("logicalLocations", .array([.object([
                    ("fullyQualifiedName", .string(path)), ("kind", .string("element")),
                ])])),
            ])]
        case .unknown:
            return []
        }
    }
}

extension LeakRule {
    /// The rule's id in UpperCamelCase, SARIF's `name`: `ObserverOutlivesOwner`.
    var sarifName: String {
        rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
