public import NotifyBus
public import TraceStore

/// What a scan found, read and could not read.
public struct ScanReport: Sendable {
    public var findings: [ScanFinding] = []
    /// What the scan could not resolve or did not model.
    public var notes: [ScanNote] = []
    /// Files it could not read or parse.
    public var warnings: [ScanWarning] = []
    /// Swift files read (parsed or not) and their lines.
    public var files = 0
    public var lines = 0
    /// Classes with observer code, and those run through the journeys.
    public var types = 0
    public var modelled = 0
    public var selectorSemantics: SelectorSemantics
    public var deploymentTarget: DeploymentTarget?
    /// `--keep-traces`.
    public var traces: String?

    public init(selectorSemantics: SelectorSemantics, deploymentTarget: DeploymentTarget?) {
        self.selectorSemantics = selectorSemantics
        self.deploymentTarget = deploymentTarget
    }

    /// Findings at or above `severity`.
    public func findings(atLeast severity: LeakSeverity) -> [ScanFinding] {
        findings.filter { $0.severity >= severity }
    }

    /// The scan's exit code: 3 when it did not read everything it was given (a file skipped or read in
    /// part, or no Swift file at all): then its findings, or their absence, cover only what it read, as
    /// `tracectl leaks` says of a cut-short session. Else 1 with findings at or above `severity`, 0 without.
    public func exitCode(minimumSeverity severity: LeakSeverity) -> Int32 {
        if !warnings.isEmpty || files == 0 { return 3 }
        return findings(atLeast: severity).isEmpty ? 0 : 1
    }

    // MARK: Text

    /// One line per finding, note and warning, then a summary.
    public func text(minimumSeverity: LeakSeverity = .note) -> String {
        var lines: [String] = []
        for warning in warnings { lines.append("\(warning.path): warning: \(warning.text)") }
        for finding in findings(atLeast: minimumSeverity) {
            lines.append("\(finding.location): \(finding.severity.rawValue): [\(finding.rule.rawValue)] \(finding.text)")
        }
        for note in notes { lines.append("\(note.location): note: \(note.text)") }
        let shown = findings(atLeast: minimumSeverity)
        let counts = LeakSeverity.allCases.reversed().map { severity in
            "\(shown.filter { $0.severity == severity }.count) \(severity.rawValue)\(severity == .note ? "s" : "s")"
        }
        let target = deploymentTarget.map { "iOS \($0.version) from \($0.source)" } ?? "not found, modern assumed"
        lines.append("scanned \(files) Swift file(s), \(self.lines) lines; \(types) class(es) with observer code, "
                     + "\(modelled) run through the journeys; \(shown.count) finding(s) (\(counts.joined(separator: ", "))), "
                     + "\(notes.count) note(s), \(warnings.count) warning(s); deployment target: \(target) "
                     + "(selector observers: \(selectorSemantics.rawValue))")
        if let traces { lines.append("traces kept in \(traces)") }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: JSON

    /// `{"findings": [...], "notes": [...], "warnings": [...], "summary": {...}}`.
    public func json(minimumSeverity: LeakSeverity = .note) -> ScanJSON {
        let findingValues: [ScanJSON] = findings(atLeast: minimumSeverity).map { finding in
            .object([
                ("rule", .string(finding.rule.rawValue)), ("severity", .string(finding.severity.rawValue)),
                ("file", .string(finding.location.file)), ("line", .int(finding.location.line)),
                ("type", .string(finding.type)), ("alsoIn", .array(finding.alsoIn.map(ScanJSON.string))),
                ("notification", finding.notification.map(ScanJSON.string) ?? .null),
                ("observerKind", finding.observerKind.map(ScanJSON.string) ?? .null),
                ("capture", finding.capture.map(ScanJSON.string) ?? .null),
                ("via", .array(finding.via.map(ScanJSON.string))),
                ("conditions", .array(finding.conditions.map(ScanJSON.string))),
                ("related", finding.related.map { .string($0.description) } ?? .null),
                ("journeys", .array(finding.journeys.map(ScanJSON.string))),
                ("lowered", finding.lowered.map(ScanJSON.string) ?? .null),
                ("fingerprint", .string(finding.fingerprint)),
                ("message", .string(finding.text)),
            ])
        }
        let noteValues: [ScanJSON] = notes.map { note in
            .object([("file", .string(note.location.file)), ("line", .int(note.location.line)),
                     ("type", note.type.map(ScanJSON.string) ?? .null), ("message", .string(note.text))])
        }
        let warningValues: [ScanJSON] = warnings.map { .object([("file", .string($0.path)), ("message", .string($0.text))]) }
        return .object([
            ("findings", .array(findingValues)), ("notes", .array(noteValues)), ("warnings", .array(warningValues)),
            ("summary", .object([
                ("files", .int(files)), ("lines", .int(lines)), ("types", .int(types)), ("modelled", .int(modelled)),
                ("findings", .int(findingValues.count)),
                ("deploymentTarget", deploymentTarget.map { .string($0.version) } ?? .null),
                ("selectorSemantics", .string(selectorSemantics.rawValue)),
            ])),
        ])
    }
}

/// A small JSON value with ordered keys, written without Foundation's reordering.
public indirect enum ScanJSON: Sendable, Hashable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([ScanJSON])
    case object([(String, ScanJSON)])

    public static func == (lhs: ScanJSON, rhs: ScanJSON) -> Bool { lhs.rendered() == rhs.rendered() }
    public func hash(into hasher: inout Hasher) { hasher.combine(rendered()) }

    /// The value as JSON text; `pretty` indents by two spaces.
    public func rendered(pretty: Bool = false, indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .string(let text): return Self.quote(text)
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            if items.isEmpty { return "[]" }
            if !pretty { return "[" + items.map { $0.rendered() }.joined(separator: ",") + "]" }
            return "[\n" + items.map { inner + $0.rendered(pretty: true, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            if !pretty { return "{" + fields.map { Self.quote($0.0) + ":" + $0.1.rendered() }.joined(separator: ",") + "}" }
            return "{\n" + fields.map { inner + Self.quote($0.0) + ": " + $0.1.rendered(pretty: true, indent: inner) }
                .joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(scalar.value, radix: 16).leftPadded(4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
