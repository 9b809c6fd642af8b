public import NotifyBus

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
    /// For `observerAdded`: the selector or handler name, if one was recorded (schema 2).
    public var handler: String?

    /// For `actionRouted`: the owner ids of the responders tried, in order.
    public var triedResponders: [UInt64] {
        guard kind == .actionRouted, let payload else { return [] }
        return Self.responders(in: payload)
    }

    /// The owner ids in an `actionRouted` payload (`[3,5]`), in order.
    static func responders(in payload: String) -> [UInt64] {
        payload.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "," }).compactMap { UInt64($0) }
    }

    public init(session: Int64, seq: UInt64, time: UInt64, kind: EventKind, message: String? = nil,
                owner: UInt64? = nil, observer: UInt64? = nil, post: UInt64? = nil, parent: UInt64? = nil,
                sender: UInt64? = nil, detail: String? = nil, note: String? = nil, callSite: String? = nil,
                payload: String? = nil, handler: String? = nil) {
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
        self.handler = handler
    }
}

// The typed reading of the stored strings: code decides on these, never on `detail` text.
extension RecordedEvent {
    /// For `lifecycle`: the phase.
    public var phase: LifecyclePhase? { kind == .lifecycle ? detail.flatMap(LifecyclePhase.init(rawValue:)) : nil }
    /// For `observerRemoved`: why.
    public var removalReason: RemovalReason? {
        kind == .observerRemoved ? detail.flatMap(RemovalReason.init(rawValue:)) : nil
    }
    /// For `posted`: where the post came from.
    public var origin: PostOrigin? { kind == .posted ? detail.flatMap(PostOrigin.init(rawValue:)) : nil }
    /// For `observerAdded`: its kind; version-1 traces, which do not record it, had typed tokens only.
    public var observerKind: ObserverKind? {
        guard kind == .observerAdded else { return nil }
        return detail.flatMap(ObserverKind.init(rawValue:)) ?? .token
    }
    /// For a block's `observerAdded`: how it captures its owner.
    public var capture: BlockCapture? { kind == .observerAdded ? note.flatMap(BlockCapture.init(rawValue:)) : nil }
    /// For `trapped`: why a real app would have crashed.
    public var trapReason: TrapReason? { kind == .trapped ? detail.flatMap(TrapReason.init(rawValue:)) : nil }
    /// For `ownerAttached`: the host the owner lives in.
    public var host: UInt64? { kind == .ownerAttached ? parent : nil }
    /// For `ownerReleased`: the `strong` block observer that alone keeps the owner alive.
    public var retainedBy: UInt64? { kind == .ownerReleased ? observer : nil }
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
    /// Events in the session, including its start and end markers: the span of its
    /// `seq` numbers, read from the primary key without a scan (`tracectl verify`
    /// counts the rows and reports any gap).
    public var eventCount: Int
    /// Time of the last timed event, in nanoseconds since the session's origin.
    public var duration: UInt64

    /// What the session's bus did with selector observers whose target was gone;
    /// `nil` for version-1 traces, which did not record it.
    public var selectorSemantics: SelectorSemantics?

    /// When `tracectl finish` (``TraceFinisher``) finished the session after its recorder
    /// was killed: it never ended, and everything it committed is kept (schema 3).
    public var crashedAt: String?

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
