import AppModel
import Foundation
import NotifyBus
import ScenarioTrace
import TraceStore

/// Records one class's journeys into a trace (one session per journey) and runs the leak rules
/// on each session, mapping every finding back to the source line it is about.
enum JourneyRunner {
    struct Outcome: Sendable {
        var findings: [ScanFinding] = []
        var notes: [ScanNote] = []
        var modelled = false
        /// The scanner's own scenario was refused or a trace failed: a bug to report, never hidden.
        var failure: String?
    }

    static func run(_ model: ObserverModel.TypeModel, constants: [String: String?], folder: String,
                    semantics: SelectorSemantics) -> Outcome {
        let builder = ScenarioBuilder(model: model, constants: constants)
        var outcome = Outcome()
        outcome.notes = model.notes + builder.notes
        // A singleton (`static let shared`) lives as long as the process: its observers are meant to.
        guard !builder.isEmpty, !model.isSingleton else { return outcome }
        outcome.modelled = true
        // The subject's name may repeat across modules: the qualified name's hash keeps files apart.
        let path = folder + "/" + builder.subject + "-" + stableHash(model.name + "@" + model.location.file) + ".trace"
        TraceFiles.remove(at: path)
        var journeys: [Int64: (name: String, scenario: [String: Any])] = [:]
        for journey in builder.journeys {
            let json = builder.scenario(journey)
            do {
                journeys[try record(json, into: path, semantics: semantics)] = (journey.name, json)
            } catch {
                outcome.failure = "scan of \(model.name) (\(model.location)): journey '\(journey.name)' failed: \(error)"
                return outcome
            }
        }
        do {
            let reader = try TraceReader(path: path)
            var merged: [ScanFinding.Key: ScanFinding] = [:]
            var order: [ScanFinding.Key] = []
            for session in try reader.sessions() {
                let name = journeys[session.id]?.name ?? "?"
                var findings = try LeakAnalyzer.analyze(reader, session: session.id)
                if let scenario = journeys[session.id]?.scenario, findings.contains(where: { $0.rule == .blockRetainsOwner }) {
                    findings = try withoutCycleConsequences(findings, scenario: scenario, beside: path, semantics: semantics)
                }
                for finding in findings {
                    guard var found = ScanFinding(finding, builder: builder, journey: name) else { continue }
                    if let existing = merged[found.key] {
                        found = existing
                        if !found.journeys.contains(name) { found.journeys.append(name) }
                        merged[found.key] = found
                    } else {
                        merged[found.key] = found
                        order.append(found.key)
                    }
                }
            }
            outcome.findings = order.compactMap { merged[$0] }
        } catch {
            outcome.failure = "scan of \(model.name): cannot read its trace \(path): \(error)"
        }
        return outcome
    }

    /// Records one journey's scenario as a new session of the trace at `path`; returns the session's id.
    private static func record(_ json: [String: Any], into path: String, semantics: SelectorSemantics) throws -> Int64 {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        let scenario = try Scenario.parse(data)
        let recorder = try TraceRecorder(path: path, session: SessionInfo(
            name: scenario.name, app: "tracectl scan", scenario: String(decoding: data, as: UTF8.self),
            selectorSemantics: semantics))
        try ScenarioRecording.run(scenario, file: ScenarioBuilder.file, closing: recorder, semantics: semantics)
        return recorder.sessionID
    }

    /// A block capturing its owner strongly keeps the owner alive, and then every other observer of
    /// that owner outlives its screen and hears posts after it: true, but only because of the block.
    /// Fixing the block fixes them, and a class's correct selector observers reported as errors
    /// beside it cost more trust than they tell (Pocket Casts' tab bar controller, docs/SCAN.md).
    /// The journey runs again with every strong capture made weak; a finding on another observer
    /// that the second run does not show is the cycle's consequence, and is left out.
    private static func withoutCycleConsequences(_ findings: [LeakFinding], scenario: [String: Any], beside path: String,
                                                 semantics: SelectorSemantics) throws -> [LeakFinding] {
        let weakened = path + "-weakened.trace"
        TraceFiles.remove(at: weakened)
        defer { TraceFiles.remove(at: weakened) }
        let session = try record(weakCaptures(scenario) as! [String: Any], into: weakened, semantics: semantics)
        let reader = try TraceReader(path: weakened)
        struct Key: Hashable { var rule: LeakRule; var callSite: String; var message: String? }
        let seen = Set(try LeakAnalyzer.analyze(reader, session: session).map { Key(rule: $0.rule, callSite: $0.callSite, message: $0.message) })
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
