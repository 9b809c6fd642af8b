/// How a recorded session ended, and where its record stops: what a report on a session that
/// crashed or was cut short says about itself, so that it is never taken for a clean one.
public struct SessionEnd: Sendable, Hashable {
    /// How the recording ended.
    public enum State: String, Sendable, Hashable {
        /// The recorder closed the session: the record is complete.
        case ended
        /// The recorder was killed or crashed, and `tracectl finish` marked the session crashed.
        case crashed
        /// The session never ended and is not marked: its recorder was killed, crashed or is still
        /// recording (`tracectl finish` tells which, and marks it).
        case unfinished
    }

    public var state: State
    /// When `tracectl finish` marked the session crashed.
    public var crashedAt: String?
    /// The last event recorded, the point the report covers up to; `nil` in an empty session.
    public var lastEvent: RecordedEvent?
    /// Events read from the dead recorder's journal rather than the file (``TraceReader/recoveredEvents``).
    public var recoveredEvents: Int

    /// Whether the record may lack the session's end: the report covers only what was recorded.
    public var isCutShort: Bool { state != .ended }

    /// One line: how the session ended and where its record stops.
    public var summary: String {
        let last = lastEvent.map { "the record stops at seq \($0.seq), \($0.briefDescription)" } ?? "the record holds no event"
        let recovered = recoveredEvents == 0 ? "" : " (\(recoveredEvents) of its last events read from the recorder's journal)"
        switch state {
        case .ended:
            return "ended cleanly"
        case .crashed:
            return "crashed: its recorder died before closing it (marked by tracectl finish at \(crashedAt ?? "?")); "
                + last + recovered
        case .unfinished:
            return "cut short: never closed, its recorder was killed, crashed or is still recording; " + last + recovered
                + " (tracectl finish marks it crashed)"
        }
    }
}

extension TraceReader {
    /// How `session` ended, and its last event.
    public func end(of session: SessionSummary) throws -> SessionEnd {
        let state: SessionEnd.State = session.endedCleanly ? .ended : session.crashedAt != nil ? .crashed : .unfinished
        var last: RecordedEvent?
        if let seq = try db.scalar("SELECT max(seq) FROM events WHERE session = ?1", .integer(session.id)), seq >= 0 {
            last = try events(session: session.id, filter: EventFilter(since: UInt64(seq), limit: 1)).first
        }
        return SessionEnd(state: state, crashedAt: session.crashedAt, lastEvent: last,
                          recoveredEvents: recoveredEvents[session.id] ?? 0)
    }
}

extension RecordedEvent {
    /// The event in a few words: `delivered post 40 (keyboardWillShow) to observer 1`.
    public var briefDescription: String {
        let message = self.message.map { " (\($0))" } ?? ""
        switch kind {
        case .delivered, .skipped, .enqueued, .trapped:
            let verb = kind == .trapped ? "trapped delivering" : "\(kind)"
            return "\(verb) post \(post.map(String.init) ?? "?") to observer \(observer.map(String.init) ?? "?")"
        case .posted:
            return "posted post \(post.map(String.init) ?? "?")\(message)"
        case .observerAdded, .observerRemoved:
            return "\(kind) observer \(observer.map(String.init) ?? "-")\(message)"
        case .lifecycle:
            return "lifecycle \(detail ?? "?") of owner \(owner.map(String.init) ?? "?")"
        default:
            return "\(kind)"
        }
    }
}
