import Synchronization

/// A typed notification center with strict, recordable semantics.
///
/// `Bus` keeps the add/remove-observer model of Foundation's
/// `NotificationCenter` and tightens what it leaves loose:
///
/// - Delivery is synchronous on the posting thread, in registration order.
/// - The observers of a post are snapshotted under a lock and called with the
///   lock released. An observer removed during a post is not called later in
///   that post; one added during a post is not called in it. Handlers may post;
///   such posts are recorded with their parent.
/// - Owners are held weakly. What a post does once an observer's owner is gone
///   depends on the observer's ``ObserverKind``: a token or (modern) selector
///   observer is skipped and removed, a `weak` block still runs, an `unowned`
///   block or a legacy selector observer traps; all of it is recorded.
/// - With a ``TraceSink`` every add, remove, post, delivery and skip is
///   recorded in order; without one, recording costs a branch. Every bus given
///   one sink records through the sink's ``RecordingSession``: one numbered log,
///   one set of owners, one name per message type.
///
/// ```swift
/// let bus = Bus()
/// let token = bus.observe(KeyboardWillShow.self, owner: screen) { note in
///     print("keyboard to", note.endFrame)
/// }
/// bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: 508, width: 390, height: 336),
///                           curve: .easeInOut, duration: 0.25))
/// bus.remove(token)
/// ```
public final class Bus: Sendable {
    /// The observers, behind the bus's lock: its session's mutex, so that what a bus does
    /// under both (`withSession(_:)`) takes one lock, not two.
    let state: Locked<ObserverTable>
    /// The authority over ids, owners, message names and `seq`: the sink's session, or a
    /// private one for a bus that does not record.
    public let session: RecordingSession
    /// Where events go; `nil` when the bus does not record.
    let output: TraceOutput?
    /// The deliveries waiting for the main actor, in the order they were queued.
    let mainActorQueue = MainActorQueue()
    /// What a post does with a selector observer whose target was deallocated.
    public let selectorSemantics: SelectorSemantics
    /// Its identity for its tokens, and a weak way back to it; tokens reach it through
    /// their observer's list.
    let handle: BusHandle

    /// A bus that records nothing.
    public init(selectorSemantics: SelectorSemantics = .modern) {
        session = RecordingSession()
        output = nil
        self.selectorSemantics = selectorSemantics
        let handle = BusHandle()
        self.handle = handle
        state = Locked(ObserverTable(handle: handle), sharingLockOf: session.state)
        handle.bus = self
    }

    /// A bus that records every event into `sink`, numbered by the sink's session
    /// together with the events of every other bus and center recording into it.
    ///
    /// - Parameters:
    ///   - sink: Receives the events, in sequence order.
    ///   - clock: Stamps the events; monotonic time since the bus was made by default.
    ///   - selectorSemantics: What a post does with a selector observer whose target is gone;
    ///     give the recorder's session the same value, so that the trace says which was in force.
    public init(sink: any TraceSink, clock: TraceClock = .monotonic(), selectorSemantics: SelectorSemantics = .modern) {
        session = sink.recordingSession
        output = TraceOutput(sink: sink, clock: clock)
        self.selectorSemantics = selectorSemantics
        let handle = BusHandle()
        self.handle = handle
        state = Locked(ObserverTable(handle: handle), sharingLockOf: session.state)
        handle.bus = self
    }

    deinit {
        // Observers point at their lists and the lists at the observers: break the
        // cycles, and release the observers (and the owners strong blocks hold) unlocked.
        let lists = state.withLock { $0.allLists }
        var released: [Observer?] = []
        for list in lists {
            released.append(contentsOf: list.items)
            list.items = []
        }
        _ = released
    }

    /// Whether this bus records its events.
    public var isRecording: Bool { output != nil }

    /// The number of registered observers.
    public var observerCount: Int { state.withLock { $0.count } }

    /// Runs `body` with the bus's observers and its session's state, under their one mutex.
    ///
    /// The bus's lock is its session's (every bus recording into one sink shares it): code that
    /// holds one must not take the other, and a sink, called under it, must not call a bus.
    @inline(__always)
    func withSession<Result>(_ body: (inout ObserverTable, inout SessionState) -> Result) -> Result {
        // The session's state unretained: the bus holds its session (a `let`), which holds it (a `let`).
        Unmanaged.passUnretained(session.state)._withUnsafeGuaranteedRef { state.withLock(sharedWith: $0, body) }
    }
}

/// An object that names itself in traces, such as a screen called "Login".
///
/// The bus reads these properties once, when it first sees the object, while
/// holding its lock: they must be cheap and must not call into the bus.
public protocol TraceLabeled: AnyObject {
    /// The label recorded when the object is first seen by a bus.
    var traceLabel: String { get }
    /// The type recorded with the label; leak fingerprints group by it.
    /// Defaults to the object's Swift type.
    var traceTypeName: String { get }
}

extension TraceLabeled {
    public var traceTypeName: String { String(describing: type(of: self)) }
}

/// A strong reference to an arbitrary object, to carry it into a lock.
struct ObjectRef: @unchecked Sendable {
    // @unchecked: the bus only compares the object's identity, loads weak
    // references to it and reads its type and label; it never mutates it.
    let object: AnyObject
}

/// A weak reference to an arbitrary object.
struct WeakObject: @unchecked Sendable {
    // @unchecked: as for `ObjectRef`; loading a weak reference is atomic.
    weak var object: AnyObject?
}
