/// One event as read back from a trace, its interned strings resolved.
public struct RecordedEvent: Sendable, Hashable {
    public var session: Int64
    public var seq: UInt64
    /// Nanoseconds since the session's clock origin.
    public var time: UInt64
    public var kind: EventKind
    /// The message name (posts, observer changes) or notification name (bridge rejections).
    public var message: String?
    /// The owner: of the observer, of the lifecycle step, or the handler of an action.
    public var owner: UInt64?
    public var observer: UInt64?
    public var post: UInt64?
    /// The post during whose delivery this post was made.
    public var parent: UInt64?
    public var sender: UInt64?
    /// Removal reason, lifecycle phase, post origin, owner type or action name, by kind.
    public var detail: String?
    /// Owner label, lifecycle detail, session name or rejection reason, by kind.
    public var note: String?
    public var callSite: String?
    /// The message's JSON (posts) or the responders tried (actions).
    public var payload: String?

    /// For `actionRouted`: the owner ids of the responders tried, in order.
    public var triedResponders: [UInt64] {
        guard kind == .actionRouted, let payload else { return [] }
        return payload.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "," }).compactMap { UInt64($0) }
    }

    public init(session: Int64, seq: UInt64, time: UInt64, kind: EventKind, message: String? = nil,
                owner: UInt64? = nil, observer: UInt64? = nil, post: UInt64? = nil, parent: UInt64? = nil,
                sender: UInt64? = nil, detail: String? = nil, note: String? = nil, callSite: String? = nil,
                payload: String? = nil) {
        self.session = session
        self.seq = seq
        self.time = time
        self.kind = kind
        self.message = message
        self.owner = owner
        self.observer = observer
        self.post = post
        self.parent = parent
        self.sender = sender
        self.detail = detail
        self.note = note
        self.callSite = callSite
        self.payload = payload
    }
}

/// A session of a trace file.
public struct SessionSummary: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var app: String
    public var startedAt: String
    public var toolVersion: String
    /// The scenario JSON the session was recorded from, if any.
    public var scenario: String?
    /// When `close()` ran; `nil` if the recorder never closed (a crash, or still recording).
    public var endedAt: String?
    /// Events in the session, including its start and end markers.
    public var eventCount: Int
    /// Time of the last event, in nanoseconds since the session's origin.
    public var duration: UInt64

    /// Whether the recorder closed the session.
    public var endedCleanly: Bool { endedAt != nil }
}

/// Which events to read; every field narrows, `nil` means any. Bound as SQL parameters.
public struct EventFilter: Sendable {
    public var kinds: [EventKind]?
    public var message: String?
    /// An owner id, or a label (a screen name) matched against registered owners.
    public var owner: String?
    public var observer: UInt64?
    public var since: UInt64?
    public var until: UInt64?
    public var limit: Int?

    public init(kinds: [EventKind]? = nil, message: String? = nil, owner: String? = nil, observer: UInt64? = nil,
                since: UInt64? = nil, until: UInt64? = nil, limit: Int? = nil) {
        self.kinds = kinds
        self.message = message
        self.owner = owner
        self.observer = observer
        self.since = since
        self.until = until
        self.limit = limit
    }
}
