public import Foundation
public import AppModel
public import NotifyBus
public import TraceStore

/// Records a scenario file into a trace.
///
/// The trace is written to a temporary file beside the destination and moved
/// into place only when the whole scenario ran and the session closed, so a
/// failed run never leaves a file that looks like a complete trace.
public enum ScenarioRecording {
    /// What a recording produced.
    public struct Summary: Sendable {
        public var path: String
        public var sessionID: Int64
        public var scenarioName: String
        public var events: UInt64
    }

    /// The app name stored with sessions recorded from scenarios.
    public static let appName = "NotifyBus lifecycle model"

    /// Runs `scenario` through the lifecycle model on a bus recording into `recorder`, and closes the
    /// recorder (also when a step fails, then rethrowing): the one way a scenario becomes a session,
    /// shared by ``record(scenario:file:to:input:startedAt:metadata:)`` and `tracectl scan`'s journeys.
    public static func run(_ scenario: Scenario, file: String, closing recorder: TraceRecorder,
                           semantics: SelectorSemantics) throws {
        try run(scenario, file: file, sink: recorder, semantics: semantics) { () throws(TraceStoreError) in try recorder.close() }
    }

    /// Runs `scenario` as ``run(_:file:closing:semantics:)`` does, recording in memory, and returns
    /// the session's events: those a recorder would have written before closing, not the model's
    /// teardown after it (`tracectl scan`'s journeys when their traces are not kept).
    public static func events(of scenario: Scenario, file: String, semantics: SelectorSemantics) throws -> [TraceEvent] {
        let sink = MemoryTraceSink()
        var events: [TraceEvent] = []
        try run(scenario, file: file, sink: sink, semantics: semantics) { events = sink.events }
        return events
    }

    private static func run(_ scenario: Scenario, file: String, sink: some TraceSink, semantics: SelectorSemantics,
                            closing: () throws -> Void) throws {
        let clock = ManualClock()
        let bus = Bus(sink: sink, clock: clock.traceClock, selectorSemantics: semantics)
        let runner = ScenarioRunner(scenario: scenario, file: file, bus: bus, clock: clock)
        do {
            try runner.run()
        } catch {
            try? closing()
            throw error
        }
        // Record what the app released even when nothing was posted afterwards; close while
        // the app model is alive, as a replay does, so neither records its teardown.
        bus.sweepReleasedOwners()
        try withExtendedLifetime(runner) { try closing() }
    }

    /// Parses `data` as a scenario, runs it through the lifecycle model and
    /// records the session into `path`, replacing any file there.
    ///
    /// - Parameters:
    ///   - data: The scenario file's contents, also stored in the session for replay.
    ///   - file: The scenario's file name, used in observer call sites.
    ///   - path: The trace to write. A symbolic link is followed and the file it names replaced.
    ///   - input: The scenario file's path, which `path` must not name.
    ///   - startedAt: The session's wall-clock start.
    /// - Throws: ``NotifyBusError`` for an invalid scenario or a step that cannot
    ///   apply (with its path), ``TraceStoreError`` for a file that cannot be written:
    ///   `.invalidArgument` when `path` is `input`, `.cannotCreate` when it is a directory or
    ///   not a regular file.
    @discardableResult
    public static func record(scenario data: Data, file: String, to path: String, input: String? = nil,
                              startedAt: Date = Date(), metadata: SessionMetadata = SessionMetadata()) throws -> Summary {
        let scenario = try Scenario.parse(data)
        let target = try TraceFiles.traceOutput(path, inputs: input.map { [$0] } ?? [])
        let temporary = TraceFiles.partialPath(of: target)
        TraceFiles.removeAbandonedPartials(of: target)
        TraceFiles.remove(at: temporary)
        var finished = false
        defer { if !finished { TraceFiles.remove(at: temporary) } }

        let recorder = try TraceRecorder(path: temporary, session: SessionInfo(
            name: scenario.name, app: appName, scenario: String(decoding: data, as: UTF8.self), startedAt: startedAt,
            selectorSemantics: scenario.selectorSemantics, metadata: metadata))
        try run(scenario, file: file, closing: recorder, semantics: scenario.selectorSemantics)
        // A -wal left at the destination by a killed run would be read as part of the new file.
        TraceFiles.removeSideFiles(of: target)
        guard rename(temporary, target) == 0 else {
            throw TraceStoreError(.cannotCreate, "cannot move the trace into place at \(path): \(String(cString: strerror(errno)))")
        }
        finished = true
        return Summary(path: path, sessionID: recorder.sessionID, scenarioName: scenario.name,
                       events: recorder.counts.recorded + 2)
    }
}
