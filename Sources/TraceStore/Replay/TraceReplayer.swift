import Foundation
public import NotifyBus

/// Turns recorded traces into regression tests.
///
/// A replay feeds a session's stimuli — what the outside world did — to the
/// current code on a fresh bus, records what the code does in response, and
/// compares the two runs with ids renumbered canonically, so that equal
/// behaviour compares equal.
///
/// ```swift
/// let report = try TraceReplayer.replay(trace: "golden.trace") { bus in
///     MyAppModel(bus: bus)          // kept alive for the whole replay
/// }
/// if !report.isEqual { print(report.diffText) }
/// ```
public enum TraceReplayer {
    /// Replays the stimulus posts of a session into a system built on a fresh bus.
    ///
    /// Each recorded post of origin `stimulus` is decoded with `registry` and
    /// posted at its recorded time (the bus's clock is a ``ManualClock`` moved
    /// to each stimulus's timestamp). Lifecycle steps are not compared: they
    /// come from the lifecycle model, which `replayScenario(trace:session:scenario:output:)`
    /// (in ScenarioTrace) replays.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - session: The session to replay (default: the newest).
    ///   - registry: Decodes the recorded payloads; register your own message types.
    ///   - output: Where to keep the replay's own trace (default: a temporary file, removed).
    ///   - build: Builds the system under test on the replay's bus; its result is kept alive until the end.
    /// - Returns: The comparison. A stimulus whose type is not registered stops the replay and is reported.
    public static func replay(trace: String, session: Int64? = nil, registry: MessageRegistry = MessageRegistry(),
                              output: String? = nil, _ build: (Bus) throws -> Any) throws -> ReplayReport {
        let reader = try TraceReader(path: trace)
        let recorded = try reader.session(session)
        return try capture(trace: trace, output: output, name: recorded.name + " (replay)", scenario: recorded.scenario,
                           expected: reader, session: recorded.id, ignoringLifecycle: true) { bus, clock in
            let system = try build(bus)
            var failure: String?
            // Repeated payloads (the same keyboard frame again) are decoded once.
            var decoded: [DecodedKey: any BusMessage] = [:]
            try reader.forEachEvent(session: recorded.id, filter: EventFilter(kinds: [.posted])) { event in
                guard event.origin == .stimulus, event.parent == nil,
                      let name = event.message, let json = event.payload else { return true }
                do {
                    let key = DecodedKey(name: name, json: json)
                    let message: any BusMessage
                    if let known = decoded[key] {
                        message = known
                    } else {
                        message = try registry.decode(name: name, json: json)
                        if decoded.count >= 4_096 { decoded.removeAll(keepingCapacity: true) }
                        decoded[key] = message
                    }
                    clock.advance(toNanoseconds: event.time)
                    post(message, on: bus)
                    return true
                } catch {
                    failure = "seq \(event.seq): \(error)"
                    return false
                }
            }
            return (failure, system)
        }
    }

    /// Compares the sessions of two recorded traces (the newest of each by default).
    public static func diff(_ expected: String, _ actual: String, sessions: (Int64?, Int64?) = (nil, nil)) throws -> ReplayReport {
        let left = try TraceReader(path: expected), right = try TraceReader(path: actual)
        var leftEvents = try TraceRows(left, session: try left.session(sessions.0).id)
        var rightEvents = try TraceRows(right, session: try right.session(sessions.1).id)
        return try ReplayReport.compareStreams(expected: &leftEvents, actual: &rightEvents)
    }

    /// Runs `body` on a fresh recorded bus and compares what it recorded with `expected`.
    ///
    /// `body` returns why the replay stopped early, if it did, and the system under
    /// test, which is kept alive until the session is closed: releasing it earlier
    /// would record its observers' token releases, which the recording never saw.
    ///
    /// Both sides are read as streams, in step: memory does not grow with the trace.
    package static func capture(trace: String, output: String?, name: String, scenario: String?, expected: TraceReader, session: Int64,
                                ignoringLifecycle: Bool = false, selectorSemantics: SelectorSemantics = .modern, _ body: (Bus, ManualClock) throws -> (failure: String?, system: Any)) throws -> ReplayReport {
        // The output is replaced: it must not be the recording the replay compares against.
        if let output, TraceFiles.isSameFile(output, trace) {
            throw TraceStoreError(.invalidArgument, "\(output) is the trace being replayed; give another --output")
        }
        // A link is followed; a directory, device or pipe is refused (a trace needs a regular file).
        let path = if let output { try TraceFiles.traceOutput(output, inputs: [trace]) } else {
            FileManager.default.temporaryDirectory.appendingPathComponent("notifybus-replay-\(UUID().uuidString).trace").path
        }
        TraceFiles.remove(at: path)
        defer { if output == nil { TraceFiles.remove(at: path) } }
        // A temporary trace is read once, in order, and removed: its indexes would be a sort for nothing.
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: name, app: "replay", scenario: scenario,
                                                                             selectorSemantics: selectorSemantics),
                                         buildsIndexes: output != nil)
        let clock = ManualClock()
        let outcome: (failure: String?, system: Any)
        let bus = Bus(sink: recorder, clock: clock.traceClock, selectorSemantics: selectorSemantics)
        do {
            outcome = try body(bus, clock)
        } catch {
            try? recorder.close()
            throw error
        }
        bus.sweepReleasedOwners()
        try withExtendedLifetime(outcome.system) { () throws(TraceStoreError) in try recorder.close() }
        let failure = outcome.failure
        let reader = try TraceReader(path: path)
        var left = try TraceRows(expected, session: session)
        var right = try TraceRows(reader, session: recorder.sessionID)
        return try ReplayReport.compareStreams(expected: &left, actual: &right,
                                               ignoringLifecycle: ignoringLifecycle, replayError: failure)
    }

    /// A recorded stimulus's name and payload: the key of the replay's decoded messages.
    private struct DecodedKey: Hashable {
        let name: String
        let json: String
    }

    private static func post<M: BusMessage>(_ message: M, on bus: Bus) {
        bus.post(message, sender: nil, origin: .stimulus)
    }
}

/// Assertions for tests, in Swift Testing or XCTest: each throws a failure that
/// carries the leak report or the diff.
///
/// ```swift
/// @Test func loginDoesNotLeak() throws {
///     try TraceAssert.noLeaks("Fixtures/login.trace")
///     try TraceAssert.replays("Fixtures/login.trace") { bus in LoginModel(bus: bus) }
/// }
/// ```
public enum TraceAssert {
    /// A failed assertion; its description is the report.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        package init(description: String) { self.description = description }
    }

    /// Fails when the trace's session has findings outside `baseline`.
    public static func noLeaks(_ trace: String, session: Int64? = nil, baseline: Set<String> = []) throws {
        let reader = try TraceReader(path: trace)
        let findings = try LeakAnalyzer.analyze(reader, session: try reader.session(session).id)
            .filter { !baseline.contains($0.fingerprint) }
        guard findings.isEmpty else {
            throw Failure(description: "\(findings.count) leak finding(s) in \(trace):\n" + findings.map { finding in
                "  \(finding.rule.rawValue) \(finding.message ?? "*") owner \(finding.owner ?? "-") at \(finding.callSite) [\(finding.fingerprint)]"
            }.joined(separator: "\n"))
        }
    }

    /// Fails when replaying the trace's stimuli into the system `build` makes behaves differently.
    public static func replays(_ trace: String, session: Int64? = nil, registry: MessageRegistry = MessageRegistry(),
                               _ build: (Bus) throws -> Any) throws {
        let report = try TraceReplayer.replay(trace: trace, session: session, registry: registry, build)
        guard report.isEqual else { throw Failure(description: "replay of \(trace) diverges:\n" + report.diffText) }
    }
}
