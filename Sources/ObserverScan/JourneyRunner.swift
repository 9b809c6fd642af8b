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

    /// Runs every class's journeys on both cores and returns each class's outcome, in order.
    ///
    /// With `folder` nil the journeys are recorded in memory and analysed there: the same events and
    /// the same fold as in a trace, without SQLite (`inMemoryJourneysFindWhatTheirTracesFind` holds the
    /// two together). Every class then plays one subject name, so classes that observe alike (the
    /// subclasses of one base controller) have the same scenarios: those are recorded once, and each
    /// class's findings are mapped back to its own source lines. With `folder`, each class's journeys
    /// are the sessions of one trace of its own, under its own name.
    static func run(_ models: [ObserverModel.TypeModel], constants: [String: String?], folder: String?,
                    semantics: SelectorSemantics) -> [Outcome] {
        let subject = folder == nil ? ScenarioBuilder.sharedSubject : nil
        // Each class's builder, made once; with what it would record. A singleton (`static let shared`)
        // lives as long as the process: its observers are meant to.
        let built: [Built] = Parallel.map(models.count) { index in
            let builder = ScenarioBuilder(model: models[index], constants: constants, subject: subject)
            guard !builder.isEmpty, !models[index].isSingleton else { return Built(builder, identity: nil) }
            return Built(builder, identity: subject == nil ? "\(index)" : builder.identity)
        }
        var jobs: [Int] = []
        var jobOfIdentity: [String: Int] = [:]
        var jobOf: [Int: Int] = [:]
        for (index, entry) in built.enumerated() {
            guard let identity = entry.identity else { continue }
            if let job = jobOfIdentity[identity] {
                jobOf[index] = job
            } else {
                jobOfIdentity[identity] = jobs.count
                jobOf[index] = jobs.count
                jobs.append(index)
            }
        }
        let recorded = Parallel.map(jobs.count) { [jobs] job in
            record(built[jobs[job]].builder, folder: folder, semantics: semantics)
        }
        return Parallel.map(models.count) { [jobOf] index in
            let builder = built[index].builder
            var outcome = Outcome()
            outcome.notes = models[index].notes + builder.notes
            guard let job = jobOf[index] else { return outcome }
            outcome.modelled = true
            switch recorded[job] {
            case .failure(let failure):
                outcome.failure = failure
            case .success(let journeys):
                outcome.findings = findings(journeys, builder: builder)
            }
            return outcome
        }
    }

    /// A class's builder and the identity of what it records (nil: nothing to record).
    struct Built: @unchecked Sendable {
        // @unchecked: the builder holds its scenario parts as `Any` (strings, numbers, arrays and
        // dictionaries of them: values); it is not changed after it is made, only read.
        let builder: ScenarioBuilder
        let identity: String?
        init(_ builder: ScenarioBuilder, identity: String?) {
            self.builder = builder
            self.identity = identity
        }
    }

    /// One journey's findings, as the leak rules gave them.
    struct Journeyed: Sendable {
        var journey: String
        var findings: [LeakFinding]
    }

    enum Recorded: Sendable {
        case success([Journeyed])
        /// The scanner's own scenario was refused or a trace failed.
        case failure(String)
    }

    /// Records every journey of `builder`.
    private static func record(_ builder: ScenarioBuilder, folder: String?, semantics: SelectorSemantics) -> Recorded {
        let model = builder.model
        // The subject's name may repeat across modules: the qualified name's hash keeps files apart.
        let path = folder.map { $0 + "/" + builder.subject + "-" + stableHash(model.name + "@" + model.location.file) + ".trace" }
        if let path { TraceFiles.remove(at: path) }
        var result: [Journeyed] = []
        for journey in builder.journeys {
            let json = builder.scenario(journey)
            do {
                var findings = try record(json, into: path, semantics: semantics)
                if findings.contains(where: { $0.rule == .blockRetainsOwner }) {
                    findings = try withoutCycleConsequences(findings, scenario: json, beside: path, semantics: semantics)
                }
                result.append(Journeyed(journey: journey.name, findings: findings))
            } catch {
                return .failure("scan of \(model.name) (\(model.location)): journey '\(journey.name)' failed: \(error)")
            }
        }
        return .success(result)
    }

    /// The journeys' findings as the class's own: located at its lines, one per key, journeys listed.
    private static func findings(_ journeys: [Journeyed], builder: ScenarioBuilder) -> [ScanFinding] {
        var merged: [ScanFinding.Key: ScanFinding] = [:]
        var order: [ScanFinding.Key] = []
        for journey in journeys {
            for finding in journey.findings {
                guard var found = ScanFinding(finding, builder: builder, journey: journey.journey) else { continue }
                if let existing = merged[found.key] {
                    found = existing
                    if !found.journeys.contains(journey.journey) { found.journeys.append(journey.journey) }
                    merged[found.key] = found
                } else {
                    merged[found.key] = found
                    order.append(found.key)
                }
            }
        }
        return order.compactMap { merged[$0] }
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

/// For tests: every pair of classes under `paths` whose builders' identities and whole scenarios
/// (every journey's, as text) disagree: one identity for two different scenarios would record one
/// class's journeys for another. Empty when the identity is exactly what the scenarios are made of.
package func scenarioIdentityDisagreements(paths: [String]) throws(ScanError) -> [String] {
    let files = try SourceFiles(paths: paths)
    let parsed = files.swift.compactMap { path in
        FileManager.default.contents(atPath: path).flatMap { ObserverScan.parse($0, path: path, wholly: true).facts }
    }
    let model = ObserverModel(files: parsed)
    let builders = model.models().map {
        ScenarioBuilder(model: $0, constants: model.nameConstants, subject: ScenarioBuilder.sharedSubject)
    }
    func scenarios(_ builder: ScenarioBuilder) -> String {
        var text = ""
        for journey in builder.journeys {
            text += journey.name
            ScenarioBuilder.append(builder.scenario(journey), to: &text)
        }
        return text
    }
    let texts = builders.map(scenarios)
    var disagreements: [String] = []
    for i in builders.indices {
        for j in builders.indices where j > i && (builders[i].identity == builders[j].identity) != (texts[i] == texts[j]) {
            disagreements.append("\(builders[i].model.name) and \(builders[j].model.name)")
        }
    }
    return disagreements
}
