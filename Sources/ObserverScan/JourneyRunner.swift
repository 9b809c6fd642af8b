import AppModel
import Foundation
import NotifyBus
import ScenarioTrace
import TraceStore

/// Records one class's journeys (in memory, or as the sessions of one trace with `--keep-traces`)
/// and runs the leak rules on each, mapping every finding back to the source line it is about.
enum JourneyRunner {
    struct Outcome: Sendable {
        var findings: [ScanFinding] = []
        var notes: [ScanNote] = []
        var modelled = false
        /// The scanner's own scenario was refused or a trace failed: a bug to report, never hidden.
        var failure: String?
    }

    /// Runs `model`'s journeys, each a session of the trace `folder` keeps for the type (one file per
    /// type), or, with `folder` nil, recorded in memory and analysed there: the same events and the
    /// same fold, without SQLite (`inMemoryJourneysFindWhatTheirTracesFind` holds the two together).
    static func run(_ model: ObserverModel.TypeModel, constants: [String: String?], folder: String?,
                    semantics: SelectorSemantics) -> Outcome {
        let builder = ScenarioBuilder(model: model, constants: constants)
        var outcome = Outcome()
        outcome.notes = model.notes + builder.notes
        // A singleton (`static let shared`) lives as long as the process: its observers are meant to.
        guard !builder.isEmpty, !model.isSingleton else { return outcome }
        outcome.modelled = true
        // The subject's name may repeat across modules: the qualified name's hash keeps files apart.
        let path = folder.map { $0 + "/" + builder.subject + "-" + stableHash(model.name + "@" + model.location.file) + ".trace" }
        if let path { TraceFiles.remove(at: path) }
        var merged: [ScanFinding.Key: ScanFinding] = [:]
        var order: [ScanFinding.Key] = []
        for journey in builder.journeys {
            let json = builder.scenario(journey)
            var findings: [LeakFinding]
            do {
                findings = try record(json, into: path, semantics: semantics)
                if findings.contains(where: { $0.rule == .blockRetainsOwner }) {
                    findings = try withoutCycleConsequences(findings, scenario: json, beside: path, semantics: semantics)
                }
            } catch {
                outcome.failure = "scan of \(model.name) (\(model.location)): journey '\(journey.name)' failed: \(error)"
                return outcome
            }
            for finding in findings {
                guard var found = ScanFinding(finding, builder: builder, journey: journey.name) else { continue }
                if let existing = merged[found.key] {
                    found = existing
                    if !found.journeys.contains(journey.name) { found.journeys.append(journey.name) }
                    merged[found.key] = found
                } else {
                    merged[found.key] = found
                    order.append(found.key)
                }
            }
        }
        outcome.findings = order.compactMap { merged[$0] }
        return outcome
    }

    /// Records one journey's scenario, as a new session of the trace at `path` or in memory, and
    /// returns the session's findings.
    private static func record(_ json: [String: Any], into path: String?, semantics: SelectorSemantics) throws -> [LeakFinding] {
        guard let path else {
            // No file to store the scenario in: the objects straight to the parser, not through JSON text.
            let scenario = try Scenario.parse(object: json)
            let events = try ScenarioRecording.events(of: scenario, file: ScenarioBuilder.file, semantics: semantics)
            return LeakAnalyzer.analyze(recorded: RecordedEvent.session(events, name: scenario.name),
                                        configuration: LeakAnalyzer.Configuration(selectorSemantics: semantics))
        }
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        let scenario = try Scenario.parse(data)
        // A journey is a few hundred events recorded by this process for itself: no crash journal (a
        // scan that dies is run again, not recovered), and a queue sized for that, not for an app.
        let recorder = try TraceRecorder(path: path, session: SessionInfo(
            name: scenario.name, app: "tracectl scan", scenario: String(decoding: data, as: UTF8.self),
            selectorSemantics: semantics), bufferCapacity: 4_096, journaled: false)
        try ScenarioRecording.run(scenario, file: ScenarioBuilder.file, closing: recorder, semantics: semantics)
        do {
            return try LeakAnalyzer.analyze(TraceReader(path: path), session: recorder.sessionID)
        } catch {
            throw ScanError(.internal, "cannot read its trace \(path): \(error)")
        }
    }

    /// A block capturing its owner strongly keeps the owner alive, and then every other observer of
    /// that owner outlives its screen and hears posts after it: true, but only because of the block.
    /// Fixing the block fixes them, and a class's correct selector observers reported as errors
    /// beside it cost more trust than they tell (Pocket Casts' tab bar controller, docs/SCAN.md).
    /// The journey runs again with every strong capture made weak; a finding on another observer
    /// that the second run does not show is the cycle's consequence, and is left out.
    private static func withoutCycleConsequences(_ findings: [LeakFinding], scenario: [String: Any], beside path: String?,
                                                 semantics: SelectorSemantics) throws -> [LeakFinding] {
        let weakened = path.map { $0 + "-weakened.trace" }
        if let weakened { TraceFiles.remove(at: weakened) }
        defer { if let weakened { TraceFiles.remove(at: weakened) } }
        let again = try record(weakCaptures(scenario) as! [String: Any], into: weakened, semantics: semantics)
        struct Key: Hashable { var rule: LeakRule; var callSite: String; var message: String? }
        let seen = Set(again.map { Key(rule: $0.rule, callSite: $0.callSite, message: $0.message) })
        return findings.filter { finding in
            finding.rule == .blockRetainsOwner || (finding.observerKind == .block && finding.capture == .strong)
                || seen.contains(Key(rule: finding.rule, callSite: finding.callSite, message: finding.message))
        }
    }

    /// `value` with every `"capture": "strong"` made `"weak"`.
    private static func weakCaptures(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, field) in object {
                copy[key] = key == "capture" && (field as? String) == "strong" ? "weak" : weakCaptures(field)
            }
            return copy
        }
        if let array = value as? [Any] { return array.map(weakCaptures) }
        return value
    }
}

/// FNV-1a, 32 bits, hex: the same name on every run and machine.
func stableHash(_ text: String) -> String {
    var hash: UInt32 = 0x811c_9dc5
    for byte in text.utf8 {
        hash ^= UInt32(byte)
        hash = hash &* 0x0100_0193
    }
    return String(hash, radix: 16)
}
