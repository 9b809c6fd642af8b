import Foundation
public import TraceStore

/// SARIF 2.1.0, for code scanning: the leak rules' ids, each result at the scanned line.
extension ScanReport {
    /// The scan's own rule for what it could not resolve or did not model (level `note`).
    public static let limitRule = "scan-limit"
    /// The scan's own rule for a file it could not read or parse (level `warning`).
    public static let unreadableRule = "scan-unreadable-file"

    /// The report as a SARIF log. Relative paths resolve from `%SRCROOT%`, the `--source-root`.
    public func sarif(minimumSeverity: LeakSeverity = .note, version: String) -> ScanJSON {
        var rules: [ScanJSON] = LeakRule.allCases.map { rule in
            Self.rule(id: rule.rawValue, name: rule.sarifName, title: rule.title, help: rule.help, level: rule.severity.rawValue)
        }
        rules.append(Self.rule(id: Self.limitRule, name: "ScanLimit", title: "Not modelled by the scan",
                               help: "The scan could not resolve this (a helper outside the scanned code, a computed name, "
                                   + "an Objective-C file) or does not model it; it makes no guess. Check it by hand, or record "
                                   + "the app (tracectl record) to see it run.",
                               level: "note"))
        rules.append(Self.rule(id: Self.unreadableRule, name: "ScanUnreadableFile", title: "File not scanned",
                               help: "The file could not be read, is not UTF-8, is too large, or does not parse with swift-syntax: "
                                   + "its observers are not in the report.",
                               level: "warning"))
        let index = Dictionary(uniqueKeysWithValues: LeakRule.allCases.enumerated().map { ($1.rawValue, $0) })
        var results: [ScanJSON] = findings(atLeast: minimumSeverity).map { finding in
            var properties: [(String, ScanJSON)] = [("type", .string(finding.type))]
            if let notification = finding.notification { properties.append(("notification", .string(notification))) }
            properties.append(("journeys", .array(finding.journeys.map(ScanJSON.string))))
            return .object([
                ("ruleId", .string(finding.rule.rawValue)), ("ruleIndex", .int(index[finding.rule.rawValue] ?? 0)),
                ("level", .string(finding.severity.rawValue)),
                ("message", .object([("text", .string(finding.text))])),
                ("locations", .array([Self.location(finding.location)])),
                ("partialFingerprints", .object([("notifybusFingerprint/v1", .string(finding.fingerprint))])),
                ("properties", .object(properties)),
            ])
        }
        for note in notes {
            results.append(.object([
                ("ruleId", .string(Self.limitRule)), ("ruleIndex", .int(LeakRule.allCases.count)), ("level", .string("note")),
                ("message", .object([("text", .string(note.text))])),
                ("locations", .array([Self.location(note.location)])),
            ]))
        }
        for warning in warnings {
            results.append(.object([
                ("ruleId", .string(Self.unreadableRule)), ("ruleIndex", .int(LeakRule.allCases.count + 1)),
                ("level", .string("warning")),
                ("message", .object([("text", .string("\(warning.path): \(warning.text)"))])),
                ("locations", .array([Self.location(SourceLocation(file: warning.path, line: 0))])),
            ]))
        }
        let driver: ScanJSON = .object([
            ("name", .string("tracectl-scan")), ("version", .string(version)),
            ("informationUri", .string("https://github.com/notifybus/notifybus/blob/main/docs/SCAN.md")),
            ("rules", .array(rules)),
        ])
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", driver)])),
                ("originalUriBaseIds", .object([("%SRCROOT%", .object([
                    ("description", .object([("text", .string("The --source-root the scan ran with (default: the folder it ran in).")) ])),
                ]))])),
                ("results", .array(results)),
            ])])),
        ])
    }

    private static func rule(id: String, name: String, title: String, help: String, level: String) -> ScanJSON {
        .object([
            ("id", .string(id)), ("name", .string(name)),
            ("shortDescription", .object([("text", .string(title))])),
            ("fullDescription", .object([("text", .string(help))])),
            ("help", .object([("text", .string(help))])),
            ("defaultConfiguration", .object([("level", .string(level))])),
            ("properties", .object([("tags", .array([.string("notifications"), .string("leak")]))])),
        ])
    }

    private static func location(_ location: SourceLocation) -> ScanJSON {
        var artifact: [(String, ScanJSON)]
        if location.file.hasPrefix("/") {
            artifact = [("uri", .string(URL(fileURLWithPath: location.file).absoluteString))]
        } else {
            let uri = location.file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? location.file
            artifact = [("uri", .string(uri)), ("uriBaseId", .string("%SRCROOT%"))]
        }
        var physical: [(String, ScanJSON)] = [("artifactLocation", .object(artifact))]
        if location.line > 0 { physical.append(("region", .object([("startLine", .int(location.line))]))) }
        return .object([("physicalLocation", .object(physical))])
    }
}

extension LeakRule {
    /// The rule's id in UpperCamelCase, SARIF's `name`.
    var sarifName: String {
        rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
