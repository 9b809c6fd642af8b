public import Foundation
import SwiftParser
import SwiftSyntax
import Synchronization
import NotifyBus
import TraceStore

/// `tracectl scan`: finds observer bugs in an app's Swift sources without running it.
///
/// Swift files → observer facts per type (``FactCollector``) → each class's lifecycle moments
/// (``ObserverModel``) → the scenario format's screens and objects and fixed journeys
/// (``ScenarioBuilder``) → recorded traces → the leak rules (``JourneyRunner``), each finding
/// located at the line of the faulty registration or removal.
///
/// ```swift
/// let report = try ObserverScan.scan(ScanOptions(paths: ["App/"]))
/// ```
public enum ObserverScan {
    /// Files larger than this are not parsed (a warning says so).
    public static let maximumFileSize = 8 << 20
    /// The parser's nesting bound: deeper code is a parse error in that file, never a stack overflow.
    static let maximumNestingLevel = 256

    /// Scans the files under `options.paths`.
    ///
    /// - Throws: ``ScanError`` when a path is missing or `--keep-traces` cannot be created.
    public static func scan(_ options: ScanOptions) throws(ScanError) -> ScanReport {
        let files = try SourceFiles(paths: options.paths)
        let root = SourceFiles.absolute(options.sourceRoot ?? FileManager.default.currentDirectoryPath)
        let target = options.deploymentTarget.map { DeploymentTarget(version: $0, source: "--ios-deployment-target") }
            ?? DeploymentTarget.find(in: options.paths.map(SourceFiles.absolute).filter(isDirectory) + [root])
        let semantics = target?.selectorSemantics ?? .modern

        var parsed = parse(files.swift, sizes: files.sizes, root: root, outlines: options.readsOutlines,
                           treeBudget: options.outlineTreeBudget)
        var model = ObserverModel(files: parsed.compactMap(\.facts))
        // A file with no observer code was read in outline; one that declares part of a class the
        // journeys run (a superclass, an extension, a protocol it conforms to) is read again, whole.
        let wanted = model.declarationsRead()
        let again = parsed.indices.filter { index in
            guard let facts = parsed[index].facts, !facts.readsBodies else { return false }
            return facts.types.contains { wanted.contains($0.name) }
        }
        if !again.isEmpty {
            let reread = Parallel.map(again.count) { [parsed] position in
                let index = again[position]
                return parsed[index].outline.map(readWhole) ?? parsed[index]
            }
            for (position, index) in again.enumerated() { parsed[index] = reread[position] }
            model = ObserverModel(files: parsed.compactMap(\.facts))
        }
        var report = ScanReport(selectorSemantics: semantics, deploymentTarget: target)
        report.warnings = files.warnings.map { ScanWarning(path: display($0.path, root: root), text: $0.text) }
        for result in parsed {
            report.files += 1
            report.lines += result.lines
            if let warning = result.warning { report.warnings.append(warning) }
        }
        if !files.objectiveC.isEmpty {
            let sample = display(files.objectiveC[0], root: root)
            report.notes.append(ScanNote(location: SourceLocation(file: sample, line: 1), type: nil,
                                         text: "\(files.objectiveC.count) Objective-C file(s) not scanned (this one and others): "
                                             + "observers registered there are not modelled"))
        }
        if files.swift.isEmpty {
            report.notes.append(ScanNote(location: SourceLocation(file: options.paths.first.map { display(SourceFiles.absolute($0), root: root) } ?? ".", line: 0),
                                         type: nil, text: "no Swift files to scan"))
        }
        let types = model.models()
        // A body walked late, when a moment reached it, may have been too deep to read whole too.
        for result in parsed {
            guard let facts = result.facts, result.warning == nil else { continue }
            if facts.hasTruncatedLateWalk { report.warnings.append(ScanWarning(path: facts.path, text: readInPart)) }
            if facts.hasUnparsedLateWalk { report.warnings.append(ScanWarning(path: facts.path, text: unparsedBody)) }
        }
        report.notes += model.looseNotes
        report.types = types.count

        let traces = try TraceFolder(keep: options.keepTraces)
        let constants = model.nameConstants
        // The trees (kept for outlines and bodies walked late) are not needed past the models: they
        // are freed on a thread of their own, beside the journeys, not before them.
        let trees = (parsed, model)
        parsed.removeAll()
        model = ObserverModel(files: [])
        Thread { withExtendedLifetime(trees) {} }.start()
        let outcomes = JourneyRunner.run(types, constants: constants, folder: traces.path, semantics: semantics)
        for outcome in outcomes {
            report.findings += outcome.findings
            report.notes += outcome.notes
            if outcome.modelled { report.modelled += 1 }
            if let failure = outcome.failure { throw ScanError(.internal, failure) }
        }
        report.findings = merged(report.findings)
        // A base class's note comes once per subclass: once is enough.
        var seenNotes = Set<String>()
        report.notes = report.notes.sorted { ($0.location, $0.text) < ($1.location, $1.text) }
            .filter { note in
                let general = note.type.map { note.text.replacingOccurrences(of: $0, with: "*") } ?? note.text
                return seenNotes.insert("\(note.location) \(general)").inserted
            }
        report.warnings.sort { ($0.path, $0.text) < ($1.path, $1.text) }
        report.traces = options.keepTraces
        return report
    }

    /// One finding per rule, line and notification: a base class's line found again in each subclass
    /// is listed once, with the subclasses in ``ScanFinding/alsoIn``.
    static func merged(_ findings: [ScanFinding]) -> [ScanFinding] {
        var byKey: [ScanFinding.Key: ScanFinding] = [:]
        var order: [ScanFinding.Key] = []
        for finding in findings {
            guard var existing = byKey[finding.key] else {
                byKey[finding.key] = finding
                order.append(finding.key)
                continue
            }
            if finding.type != existing.type, !existing.alsoIn.contains(finding.type) { existing.alsoIn.append(finding.type) }
            for journey in finding.journeys where !existing.journeys.contains(journey) { existing.journeys.append(journey) }
            existing.severity = max(existing.severity, finding.severity)
            if existing.severity == finding.severity, finding.lowered == nil { existing.lowered = nil }
            byKey[finding.key] = existing
        }
        return order.compactMap { byKey[$0] }.sorted { ($0.location, $0.rule.rawValue) < ($1.location, $1.rule.rawValue) }
    }

    /// Scans one file's bytes as if it were the only file: for the fuzz target and tests of
    /// hostile input. Never traps; what cannot be read is a warning in the report.
    ///
    /// - Throws: ``ScanError`` `.internal` when the scanner's own scenario is refused (a bug).
    public static func scan(source: Data, path: String, deploymentTarget: String? = nil) throws(ScanError) -> ScanReport {
        try scan(source: source, path: path, deploymentTarget: deploymentTarget, walksBodiesWhenReached: false)
    }

    /// ``scan(source:path:deploymentTarget:)`` with the folder scan's late walks when
    /// `walksBodiesWhenReached` (``DeferredBody``): the fuzz target compares the two reports.
    @_spi(Fuzzing)
    public static func scan(source: Data, path: String, deploymentTarget: String? = nil,
                            walksBodiesWhenReached: Bool) throws(ScanError) -> ScanReport {
        let parsed = data(source, path: path, keepsTree: walksBodiesWhenReached)
        let target = deploymentTarget.map { DeploymentTarget(version: $0, source: "--ios-deployment-target") }
        let semantics = target?.selectorSemantics ?? .modern
        var report = ScanReport(selectorSemantics: semantics, deploymentTarget: target)
        report.files = 1
        report.lines = parsed.lines
        if let warning = parsed.warning { report.warnings.append(warning) }
        let model = ObserverModel(files: parsed.facts.map { [$0] } ?? [])
        let types = model.models()
        if let facts = parsed.facts, parsed.warning == nil, facts.hasTruncatedLateWalk {
            report.warnings.append(ScanWarning(path: facts.path, text: readInPart))
        }
        report.types = types.count
        report.notes = model.looseNotes
        let traces = try TraceFolder(keep: nil)
        for outcome in JourneyRunner.run(types, constants: model.nameConstants, folder: traces.path, semantics: semantics) {
            if let failure = outcome.failure { throw ScanError(.internal, failure) }
            report.findings += outcome.findings
            report.notes += outcome.notes
            if outcome.modelled { report.modelled += 1 }
        }
        report.findings = merged(report.findings)
        return report
    }

    private static func data(_ source: Data, path: String, keepsTree: Bool) -> Parsed {
        guard source.count <= maximumFileSize else {
            return Parsed(facts: nil, lines: 0, warning: ScanWarning(path: path, text: "larger than \(maximumFileSize >> 20) MiB: skipped"))
        }
        // One file alone: read whole whatever it holds; every body walked as it is read unless the tree is kept.
        return parse(source, path: path, wholly: true, keepsTree: keepsTree)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }

    /// `path` relative to `root` when under it, else as it is.
    static func display(_ path: String, root: String) -> String {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    struct Parsed: Sendable {
        var facts: FileFacts?
        var lines: Int
        var warning: ScanWarning?
        /// The tree of a file read in outline: it may be read again, whole.
        var outline: Outline?
    }

    struct Outline: Sendable {
        /// As the report shows it.
        var path: String
        /// Where it is read again from, when its tree was not kept.
        var file: String?
        var tree: SourceFileSyntax?
        /// The file's bytes, kept with the tree.
        var source: [UInt8]?
        var lines: SourceLines
        var lineCount: Int
    }

    /// The words without which a file cannot register or remove an observer: every registration
    /// the scan knows is a call of `addObserver`, `notifications(named:)` or `publisher(for:)`, and
    /// every removal through the center a call of `removeObserver`. A file with none of them, in code,
    /// comments or strings, is read in outline only: its method bodies are not walked (most of an
    /// app, and most of the fact walk's time), unless a class the journeys run needs them.
    static let observerWords: [[UInt8]] = ["addObserver", "removeObserver", "notifications", "publisher"].map { Array($0.utf8) }

    /// The most `[` in a row (white space between them allowed) a file may hold. swift-syntax 603's
    /// parser looks ahead for a type at each one, in time that doubles with every `[` more: 24 took
    /// 3 s, 30 minutes (found by `Scripts/fuzz.sh scan`). Swift code nests literals and types a few
    /// deep; 16 costs the parser a few milliseconds.
    static let maximumBracketRun = 16

    /// The file's line count and its longest run of `[` separated by white space only, in one pass.
    static func lineAndBracketCount(_ bytes: UnsafeRawBufferPointer) -> (lines: Int, brackets: Int) {
        var lines = 0, run = 0, longest = 0
        for byte in bytes {
            switch byte {
            case 0x5B:   // [
                run += 1
                longest = max(longest, run)
            case 0x0A:
                lines += 1
            case 0x20, 0x09, 0x0D:
                break
            default:
                run = 0
            }
        }
        return (lines, longest)
    }

    /// Reads and parses every file on both cores; a file that cannot be read or parsed is a warning.
    static func parse(_ paths: [String], sizes: [Int], root: String, outlines: Bool, treeBudget: Int) -> [Parsed] {
        let kept = Atomic<Int>(0)
        // The largest files first: the two cores then finish within a small file of each other.
        let order = paths.indices.sorted { (sizes[$0], $1) > (sizes[$1], $0) }
        return Parallel.map(paths.count, order: order) { index in
            let path = paths[index]
            let shown = display(path, root: root)
            guard let data = FileManager.default.contents(atPath: path) else {
                return Parsed(facts: nil, lines: 0, warning: ScanWarning(path: shown, text: "cannot be read: skipped"))
            }
            guard data.count <= maximumFileSize else {
                return Parsed(facts: nil, lines: 0,
                              warning: ScanWarning(path: shown, text: "larger than \(maximumFileSize >> 20) MiB: skipped"))
            }
            // Trees take about fifteen times their source: past the budget, a file's tree is not kept,
            // its bodies are all walked as it is read, and an outline wanted whole is parsed again.
            var parsed = parse(data, path: shown, wholly: !outlines,
                               keepsTree: outlines && kept.add(data.count, ordering: .relaxed).newValue <= treeBudget)
            parsed.outline?.file = path
            return parsed
        }
    }

    /// How much source (bytes) the trees are kept for, until the model is made (outlines that may be
    /// read whole, bodies walked only if reached): 16 MiB, about 400 000 lines and 250 MB of trees.
    /// (Pocket Casts is 7 MB, Home Assistant 9.)
    static let maximumOutlineSource = 16 << 20

    /// Parses one file's bytes and collects its facts: whole when `wholly` or when the file holds
    /// one of the ``observerWords``, else in outline.
    /// - Parameter keepsTree: Asked once the file is to be parsed as it is (not for an outline
    ///   without bodies, whose tree is never kept): whether its tree is kept.
    static func parse(_ data: Data, path: String, wholly: Bool = false, keepsTree: @autoclosure () -> Bool = true) -> Parsed {
        let (lines, brackets) = data.withUnsafeBytes { lineAndBracketCount($0) }
        guard String(validating: data, as: UTF8.self) != nil else {
            return Parsed(facts: nil, lines: lines, warning: ScanWarning(path: path, text: "not valid UTF-8: skipped"))
        }
        guard brackets <= maximumBracketRun else {
            return Parsed(facts: nil, lines: lines, warning: ScanWarning(
                path: path, text: "\(brackets) `[` in a row, more than the parser can take in reasonable time (\(maximumBracketRun)): skipped"))
        }
        let holdsWords = data.withUnsafeBytes { containsAny($0, of: observerWords) }
        let whole = wholly || holdsWords
        let lineTable = data.withUnsafeBytes { SourceLines($0) }
        if !whole, let read = readWithoutBodies(data, path: path, lines: lineTable, lineCount: lines, holdsWords: false) {
            return read
        }
        let tree = data.withUnsafeBytes { raw in
            Parser.parse(source: raw.bindMemory(to: UInt8.self), maximumNestingLevel: maximumNestingLevel)
        }
        if tree.hasError {
            let line = firstErrorLine(tree)
            return Parsed(facts: nil, lines: lines,
                          warning: ScanWarning(path: path, text: "does not parse (first error near line \(line)): skipped"))
        }
        let keepsTree = keepsTree()
        let outline = Outline(path: path, tree: keepsTree ? tree : nil, source: keepsTree ? Array(data) : nil,
                              lines: lineTable, lineCount: lines)
        return collect(outline, tree: tree, whole: whole, holdsWords: holdsWords)
    }

    /// A file with no observer word, read from its text with the bodies of its functions blanked
    /// (``BodyBlanker``): the same facts, for the parse of its declarations alone. Its bodies are
    /// parsed one by one from the text when a lifecycle moment reaches them (``DeferredBody``),
    /// and its tree is not kept. Nil when the blanked text does not parse, or its bodies are not
    /// exactly the ranges blanked: then the file is parsed as it is.
    static func readWithoutBodies(_ data: Data, path: String, lines: SourceLines, lineCount: Int, holdsWords: Bool) -> Parsed? {
        guard let (text, bodies) = data.withUnsafeBytes(BodyBlanker.blank) else { return nil }
        let tree = text.withUnsafeBufferPointer { Parser.parse(source: $0, maximumNestingLevel: maximumNestingLevel) }
        guard !tree.hasError else { return nil }
        var collector = FactCollector(path: path, lines: lines, readsBodies: true,
                                      blanked: BlankedText(source: Array(data), bodies: bodies), holdsObserverWords: holdsWords)
        collector.collect(tree)
        // Each range blanked must be exactly a function's body in the tree read.
        guard collector.foundEveryBlankedBody, bodies.count == collector.blanked?.bodies.count else { return nil }
        let warning = collector.truncated ? ScanWarning(path: path, text: ObserverScan.readInPart) : nil
        return Parsed(facts: collector.facts, lines: lineCount, warning: warning, outline: nil)
    }

    /// The facts of a parsed file, whole or in outline (then with its tree, to be read whole if
    /// needed). Read whole with its tree kept, bodies with no observer word wait (``DeferredBody``).
    private static func collect(_ outline: Outline, tree: SourceFileSyntax, whole: Bool, holdsWords: Bool) -> Parsed {
        let path = outline.path
        var collector = FactCollector(path: path, lines: outline.lines, readsBodies: whole,
                                      deferringWith: whole && outline.tree != nil ? outline.source : nil,
                                      holdsObserverWords: holdsWords)
        collector.collect(tree)
        let warning = collector.truncated
            ? ScanWarning(path: path, text: ObserverScan.readInPart) : nil
        return Parsed(facts: collector.facts, lines: outline.lineCount, warning: warning, outline: whole ? nil : outline)
    }

    static let readInPart = "nested deeper than the scan reads: read in part"
    static let unparsedBody = "a method body the journeys reach does not parse: read in part"

    /// A file read in outline, read again whole.
    static func readWhole(_ outline: Outline) -> Parsed {
        // An outline is of a file with no observer word.
        if let tree = outline.tree { return collect(outline, tree: tree, whole: true, holdsWords: false) }
        guard let file = outline.file, let data = FileManager.default.contents(atPath: file) else {
            return Parsed(facts: nil, lines: outline.lineCount,
                          warning: ScanWarning(path: outline.path, text: "cannot be read again: skipped"))
        }
        return parse(data, path: outline.path, wholly: true, keepsTree: true)
    }

    private static func firstErrorLine(_ tree: SourceFileSyntax) -> Int {
        let converter = SourceLocationConverter(fileName: "", tree: tree)
        var stack: [Syntax] = [Syntax(tree)]
        while let node = stack.popLast() {
            guard node.hasError else { continue }
            if node.as(TokenSyntax.self)?.presence == .missing || node.is(UnexpectedNodesSyntax.self) {
                return converter.location(for: node.position).line
            }
            stack.append(contentsOf: node.children(viewMode: .sourceAccurate).reversed())
        }
        return 1
    }
}

/// What to scan and how.
public struct ScanOptions: Sendable {
    /// Files and folders.
    public var paths: [String]
    /// Locations are relative to it (default: the current directory).
    public var sourceRoot: String?
    /// Where to keep the recorded traces (default: a temporary folder, removed).
    public var keepTraces: String?
    /// `--ios-deployment-target`; `nil`: read from a Package.swift or .xcodeproj, else modern.
    public var deploymentTarget: String?
    /// Whether files with no observer code are read in outline and bodies without an observer word
    /// walked only when reached (``ObserverScan/observerWords``). Off, every body of every file is
    /// walked as it is read: the same report, slower (tests hold the two together).
    package var readsOutlines = true
    /// How much source the outlines' trees are kept for (``ObserverScan/maximumOutlineSource``).
    package var outlineTreeBudget = ObserverScan.maximumOutlineSource

    public init(paths: [String], sourceRoot: String? = nil, keepTraces: String? = nil, deploymentTarget: String? = nil) {
        self.paths = paths
        self.sourceRoot = sourceRoot
        self.keepTraces = keepTraces
        self.deploymentTarget = deploymentTarget
    }
}

/// Where the journeys' traces are written: the `--keep-traces` folder, or nowhere (`path` nil): then
/// each journey is recorded in memory and the same analysis reads it there (`JourneyRunner`).
struct TraceFolder: Sendable {
    let path: String?

    init(keep: String?) throws(ScanError) {
        guard let keep else {
            path = nil
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        } catch {
            throw ScanError(.cannotCreate, "\(keep): cannot create the traces folder: \(error.localizedDescription)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: keep, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ScanError(.cannotCreate, "\(keep): not a folder")
        }
        path = keep
    }
}
