public import Foundation
public import NotifyBus

/// What a recording session is: stored in the `sessions` table.
public struct SessionInfo: Sendable {
    /// The session's name, such as the scenario name.
    public var name: String
    /// The app or model under test.
    public var app: String
    /// The scenario file that produced the session, if any, so that it can be replayed.
    public var scenario: String?
    /// Wall-clock start, for humans; event times come from the bus's clock.
    public var startedAt: Date
    /// What the session's bus does with selector observers whose target is gone:
    /// give the bus the same value (``NotifyBus/Bus/init(sink:clock:selectorSemantics:)``).
    public var selectorSemantics: SelectorSemantics
    /// The session's UUID, build, OS, device, test and free facts: what a fleet report joins sessions by.
    public var metadata: SessionMetadata

    public init(name: String, app: String = "app", scenario: String? = nil, startedAt: Date = Date(),
                selectorSemantics: SelectorSemantics = .modern, metadata: SessionMetadata = SessionMetadata()) {
        self.metadata = metadata
        self.name = name
        self.app = app
        self.scenario = scenario
        self.startedAt = startedAt
        self.selectorSemantics = selectorSemantics
    }
}

extension Date {
    /// ISO 8601 with milliseconds, UTC.
    var traceTimestamp: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: self)
    }
}
