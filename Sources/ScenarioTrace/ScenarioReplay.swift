public import Foundation
import NotifyBus
public import TraceStore
import AppModel

extension TraceReplayer {
    /// Replays a session recorded from a scenario against the lifecycle model.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - session: The session (default: the newest).
    ///   - scenario: A scenario file's contents to run instead of the one stored in the
    ///     session: how a fix is shown. Its steps must be the recorded ones, or the
    ///     report says where the stimuli part.
    ///   - output: Where to keep the replay's own trace.
    /// - Throws: ``TraceStoreError`` when the session holds no scenario and none is given;
    ///   ``NotifyBusError`` when the given scenario is not valid. A step that no longer
    ///   applies does not throw: the replay stops there and the report says so.
    public static func replayScenario(trace: String, session: Int64? = nil, scenario: Data? = nil,
                                      output: String? = nil) throws -> ReplayReport {
        let reader = try TraceReader(path: trace)
        let recorded = try reader.session(session)
        guard let data = scenario ?? recorded.scenario.map({ Data($0.utf8) }) else {
            throw TraceStoreError(.misuse, "\(trace): session \(recorded.id) was not recorded from a scenario; "
                                  + "replay it from Swift with TraceReplayer.replay(trace:_:)")
        }
        let parsed = try Scenario.parse(data)
        // The scenario file's name, as the recording's call sites give it (`login.json: step 3`).
        var file = "scenario.json"
        try reader.forEachEvent(session: recorded.id, filter: EventFilter(kinds: [.observerAdded, .observerRemoved])) { event in
            guard let site = event.callSite, site.contains(".json: "), let range = site.range(of: ": ") else { return true }
            file = String(site[..<range.lowerBound])
            return false
        }
        return try capture(trace: trace, output: output, name: parsed.name + " (replay)", scenario: String(decoding: data, as: UTF8.self),
                           expected: reader, session: recorded.id,
                           selectorSemantics: parsed.selectorSemantics) { bus, clock in
            let runner = ScenarioRunner(scenario: parsed, file: file, bus: bus, clock: clock)
            do {
                try runner.run()
                return (nil, runner)
            } catch {
                return ("\(error)", runner)
            }
        }
    }
}

extension TraceAssert {
    /// Fails when replaying a scenario-recorded trace against the lifecycle model behaves differently.
    public static func replaysScenario(_ trace: String, session: Int64? = nil, scenario: Data? = nil) throws {
        let report = try TraceReplayer.replayScenario(trace: trace, session: session, scenario: scenario)
        guard report.isEqual else { throw Failure(description: "replay of \(trace) diverges:\n" + report.diffText) }
    }
}
