/// The one authority over what a trace says: every bus and center that records into
/// one ``TraceSink`` shares its sink's session.
///
/// The session numbers the events of all of them in one sequence (`seq` 1, 2, 3, …
/// with no gap and no repeat, whatever the number of buses and threads) and hands
/// out the ids that appear in the trace: observers, posts and owners. It owns the
/// owner registry, so that an object seen by two buses is one owner, whose identity
/// holds while it runs its `deinit` and is never confused with a new object at the
/// same address, and the message registry, so that one name means one type.
///
/// A sink makes its session once and returns it from ``TraceSink/recordingSession``:
///
/// ```swift
/// let recorder = try TraceRecorder(path: "app.trace", session: SessionInfo(name: "app"))
/// let ui = Bus(sink: recorder), model = Bus(sink: recorder)   // one log, numbered once
/// ```
///
/// Locking: a bus takes its own lock, then the session's; the session calls the sink
/// under its lock (so the sink sees events one at a time, in `seq` order) and never
/// calls a bus.
public final class RecordingSession: Sendable {
    let state = Locked(SessionState())

    /// A session that has numbered nothing yet.
    public init() {}

    /// The `seq` of the last event numbered, 0 before the first.
    public var lastSeq: UInt64 { state.withLock { $0.seq } }

    /// The number of distinct owners the session has registered.
    public var ownerCount: Int { state.withLock { $0.owners.records.count } }
}

/// Where a recording bus sends its events: the sink, and the bus's clock.
final class TraceOutput: Sendable {
    let sink: any TraceSink
    let clock: TraceClock

    init(sink: any TraceSink, clock: TraceClock) {
        self.sink = sink
        self.clock = clock
    }
}

/// What a ``RecordingSession`` guards.
struct SessionState {
    /// The `seq` of the last event.
    private(set) var seq: UInt64 = 0
    var nextObserverID: UInt64 = 1
    var postCounter: UInt64 = 0
    var owners = OwnerRegistry()
    var messages = MessageRegistry()

    /// Numbers `kind` and hands it to the sink; nothing without an output.
    @inline(__always)
    mutating func emit(_ kind: @autoclosure () -> TraceEvent.Kind, to output: TraceOutput?) {
        guard let output else { return }
        seq += 1
        output.sink.record(TraceEvent(seq: seq, time: output.clock.now(), kind: kind()))
    }

    mutating func takeObserverID() -> UInt64 {
        defer { nextObserverID += 1 }
        return nextObserverID
    }

    mutating func takePostID() -> UInt64 {
        postCounter += 1
        return postCounter
    }

    /// The owner id of `object`, which the caller holds; on first sight it is registered
    /// and recorded, after the release of a released owner at its address.
    mutating func registerOwner(_ object: AnyObject, output: TraceOutput?) -> UInt64 {
        let registration = owners.register(object)
        guard registration.isNew else { return registration.id }
        if let replaced = registration.replaced {
            emit(.ownerReleased(owner: replaced, retainedBy: nil), to: output)
        }
        if output != nil {
            let labeled = object as? any TraceLabeled
            let typeName = labeled?.traceTypeName ?? String(describing: type(of: object))
            let label = labeled?.traceLabel ?? typeName
            emit(.ownerRegistered(owner: registration.id, typeName: typeName, label: label), to: output)
        }
        return registration.id
    }

    /// Records that `owner` was released, unless that is recorded already.
    mutating func reportReleased(_ owner: UInt64, retainedBy: UInt64? = nil, output: TraceOutput?) {
        if owners.markReleased(owner) {
            emit(.ownerReleased(owner: owner, retainedBy: retainedBy), to: output)
        }
    }

    /// Records every owner found released; `alive` receives the live ones, for the
    /// caller to release after unlocking.
    mutating func sweepOwners(output: TraceOutput?, alive: inout [AnyObject]) {
        for owner in owners.sweep(alive: &alive) {
            emit(.ownerReleased(owner: owner, retainedBy: nil), to: output)
        }
    }
}
