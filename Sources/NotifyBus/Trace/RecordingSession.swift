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
/// Locking: a bus's observers are behind the session's mutex (one lock for both, and for
/// every bus of the session); the session calls the sink under it (so the sink sees events
/// one at a time, in `seq` order) and never calls a bus.
public final class RecordingSession: Sendable {
    let state = Locked(SessionState())

    /// A session that has numbered nothing yet.
    public init() {}

    /// The `seq` of the last event numbered, 0 before the first.
    public var lastSeq: UInt64 { state.withLock { $0.seq } }

    /// The number of distinct owners the session has registered.
    public var ownerCount: Int { state.withLock { $0.owners.records.count } }

    /// Runs `body` holding the session's lock, the one under which every event is handed to its
    /// sink: a ``DirectTraceSink`` that guards its own state with it takes it this way for the
    /// events that do not come from a bus. Must not be called from inside a bus's recording.
    package func withLockHeld<Result>(_ body: (borrowing HeldSessionLock) -> Result) -> Result {
        state.withLock { _ in
            let held = HeldSessionLock()
            return body(held)
        }
    }
}

/// Proof, lent to a ``DirectTraceSink`` for one call, that the caller holds the lock of the
/// sink's ``RecordingSession``: only the session makes one, under its lock, and a callee that
/// borrows it can neither keep nor copy it.
package struct HeldSessionLock: ~Copyable {
    fileprivate init() {}
}

/// Where a recording bus sends its events: the sink, and the bus's clock.
///
/// What `emit` reads per event is stored flat, not optional or inside the clock: a call through
/// an optional existential, or a copy of the clock's closure, retains and releases it every time.
final class TraceOutput: Sendable {
    let sink: any TraceSink
    /// Whether ``direct`` is the sink, taking events field by field (the recorder).
    let isDirect: Bool
    /// The sink again when ``isDirect``; otherwise a placeholder never called.
    let direct: any DirectTraceSink
    let clock: TraceClock
    /// The monotonic clock's origin, read inline; `nil` for another clock.
    let monotonicOrigin: UInt64?

    init(sink: any TraceSink, clock: TraceClock) {
        self.sink = sink
        if let direct = sink as? any DirectTraceSink {
            self.direct = direct
            isDirect = true
        } else {
            direct = NoDirectSink.shared
            isDirect = false
        }
        self.clock = clock
        monotonicOrigin = clock.monotonicOrigin
    }

    /// The clock's reading.
    @inline(__always)
    func now() -> UInt64 {
        if let origin = monotonicOrigin { return TraceClock.monotonicNanoseconds() &- origin }
        return clock.now()
    }
}

/// ``TraceOutput/direct`` of a sink that takes whole events.
private final class NoDirectSink: DirectTraceSink {
    /// One for every bus: it is never called, and its session is never used.
    static let shared = NoDirectSink()
    let recordingSession = RecordingSession()
    func record(_ event: TraceEvent) {}
    func recordDelivery(_ kind: DeliveryEventKind, seq: UInt64, time: UInt64, post: UInt64, observer: UInt64,
                        held: borrowing HeldSessionLock) {}
    func recordPost(seq: UInt64, time: UInt64, post: UInt64, message: consuming any BusMessage, sender: UInt64?,
                    parent: UInt64?, origin: PostOrigin, held: borrowing HeldSessionLock) {}
    func record(_ event: consuming TraceEvent, held: borrowing HeldSessionLock) {}
}

/// What a ``RecordingSession`` guards.
struct SessionState {
    /// The `seq` of the last event.
    private(set) var seq: UInt64 = 0
    var nextObserverID: UInt64 = 1
    var postCounter: UInt64 = 0
    var owners = OwnerRegistry()
    var messages = MessageNameRegistry()

    /// Numbers `kind` and hands it to the sink; nothing without an output.
    ///
    /// Called under the session's lock. A ``DirectTraceSink`` gets the fields of the most frequent
    /// events (posts, deliveries, skips, enqueues) as they are: `kind` is built inline here, so
    /// the switch below folds to one case at each call site and no ``TraceEvent`` is made, copied
    /// or destroyed for them.
    @inline(__always)
    mutating func emit(_ kind: @autoclosure () -> TraceEvent.Kind, to output: TraceOutput?) {
        // Not retained: the caller holds `output` (its bus's, a `let`) through the call, and
        // retaining it here was an atomic increment and decrement per event.
        guard let output = output.map(Unmanaged.passUnretained) else { return }
        output._withUnsafeGuaranteedRef { emit(kind(), to: $0) }
    }

    /// ``emit(_:to:)`` with the time of the event: `time`, a reading taken for the event just before
    /// this one in the same critical section (see ``Bus`` posting's first delivery), or a new one.
    @inline(__always)
    mutating func emit(_ kind: @autoclosure () -> TraceEvent.Kind, to output: TraceOutput?, at time: UInt64?) {
        guard let output = output.map(Unmanaged.passUnretained) else { return }
        output._withUnsafeGuaranteedRef { emit(kind(), to: $0, at: time) }
    }

    @inline(__always)
    private mutating func emit(_ kind: @autoclosure () -> TraceEvent.Kind, to output: TraceOutput, at reading: UInt64? = nil) {
        seq += 1
        let seq = self.seq, time = reading ?? output.now()
        guard output.isDirect else {
            output.sink.record(TraceEvent(seq: seq, time: time, kind: kind()))
            return
        }
        let held = HeldSessionLock()
        switch kind() {
        case .delivered(let post, let observer):
            output.direct.recordDelivery(.delivered, seq: seq, time: time, post: post, observer: observer, held: held)
        case .skipped(let post, let observer):
            output.direct.recordDelivery(.skipped, seq: seq, time: time, post: post, observer: observer, held: held)
        case .enqueued(let post, let observer):
            output.direct.recordDelivery(.enqueued, seq: seq, time: time, post: post, observer: observer, held: held)
        case .posted(let post, let message, let sender, let parent, let origin):
            output.direct.recordPost(seq: seq, time: time, post: post, message: message, sender: sender, parent: parent,
                                     origin: origin, held: held)
        case let other:
            output.direct.record(TraceEvent(seq: seq, time: time, kind: other), held: held)
        }
    }

    /// ``emit(_:to:)`` for a bus's post of `message`: boxed once, straight into the direct sink's call,
    /// where the general path built a ``TraceEvent/Kind`` around it and copied it out again.
    /// - Returns: The event's time, for an event that follows it in the same critical section.
    @inline(__always) @discardableResult
    mutating func emitPost<M: BusMessage>(_ post: UInt64, message: M, sender: UInt64?, parent: UInt64?,
                                          origin: PostOrigin, to output: TraceOutput?) -> UInt64? {
        // Not retained, as in `emit(_:to:)`.
        guard let output = output.map(Unmanaged.passUnretained) else { return nil }
        return output._withUnsafeGuaranteedRef { output in
            seq += 1
            let seq = self.seq, time = output.now()
            guard output.isDirect else {
                output.sink.record(TraceEvent(seq: seq, time: time, kind: .posted(post: post, message: message, sender: sender,
                                                                                  parent: parent, origin: origin)))
                return time
            }
            output.direct.recordPost(seq: seq, time: time, post: post, message: message, sender: sender, parent: parent,
                                     origin: origin, held: HeldSessionLock())
            return time
        }
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
