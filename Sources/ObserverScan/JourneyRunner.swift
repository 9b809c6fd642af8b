import AppModel
import Foundation
import NotifyBus
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
        guard !builder.isEmpty else { return outcome }
        outcome.modelled = true
        // The subject's name may repeat across modules: the qualified name's hash keeps files apart.
        let path = folder + "/" + builder.subject + "-" + stableHash(model.name + "@" + model.location.file) + ".trace"
        TraceFiles.remove(at: path)
        var journeys: [Int64: String] = [:]
        for journey in builder.journeys {
            let json = builder.scenario(journey)
            do {
                let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
                let scenario = try Scenario.parse(data)
                let recorder = try TraceRecorder(path: path, session: SessionInfo(
                    name: scenario.name, app: "tracectl scan", scenario: String(decoding: data, as: UTF8.self),
                    selectorSemantics: semantics))
                let clock = ManualClock()
                let bus = Bus(sink: recorder, clock: clock.traceClock, selectorSemantics: semantics)
                let runner = ScenarioRunner(scenario: scenario, file: ScenarioBuilder.file, bus: bus, clock: clock)
                do {
                    try runner.run()
                } catch {
                    try? recorder.close()
                    outcome.failure = "scan of \(model.name) (\(model.location)): journey '\(journey.name)' failed: \(error)"
                    return outcome
                }
                bus.sweepReleasedOwners()
                try withExtendedLifetime(runner) { () throws(TraceStoreError) in try recorder.close() }
                journeys[recorder.sessionID] = journey.name
            } catch {
                outcome.failure = "scan of \(model.name) (\(model.location)): \(error)"
                return outcome
            }
        }
        do {
            let reader = try TraceReader(path: path)
            var merged: [ScanFinding.Key: ScanFinding] = [:]
            var order: [ScanFinding.Key] = []
            for session in try reader.sessions() {
                for finding in try LeakAnalyzer.analyze(reader, session: session.id) {
                    guard var found = ScanFinding(finding, builder: builder, journey: journeys[session.id] ?? "?") else { continue }
                    if let existing = merged[found.key] {
                        found = existing
                        if !found.journeys.contains(journeys[session.id] ?? "?") { found.journeys.append(journeys[session.id] ?? "?") }
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
