/// Receives the events of every bus and center that records into it, in `seq` order.
///
/// The contract:
/// - ``recordingSession`` is the sink's one ``RecordingSession``, made with the sink and
///   returned every time: every bus given this sink numbers its events through it, so
///   the sink receives one sequence, `seq` 1, 2, 3, … without gap or repeat, however
///   many buses and threads record.
/// - ``record(_:)`` is called once per event, in `seq` order, never concurrently with
///   itself (the session's lock is held), on the thread that caused the event. It must
///   not block for long and must not call back into a bus or the session. A sink that
///   forwards to a `TraceRecorder` (a tee) must therefore not share the recorder's session:
///   the recorder's `record(_:)` takes that session's lock, which is already held, and the
///   mutex is not reentrant.
public protocol TraceSink: Sendable {
    /// The session that numbers this sink's events; the same object on every call.
    var recordingSession: RecordingSession { get }
    /// Records one event.
    func record(_ event: TraceEvent)
}

/// A sink that takes the session's events field by field, under the session's lock, without a
/// ``TraceEvent`` in between for the frequent kinds: the recorder, whose posting-thread cost is
/// a measured bar (BENCHMARKS.md).
///
/// A bus calls it where it would call ``TraceSink/record(_:)``, in `seq` order under the lock of
/// ``TraceSink/recordingSession`` (`held` proves it), so the sink may guard its own posting-side
/// state with that lock; its ``TraceSink/record(_:)``, for callers outside a bus, takes the lock
/// with ``RecordingSession/withLockHeld(_:)``.
package protocol DirectTraceSink: TraceSink, AnyObject {
    /// Records a delivery, a skip or an enqueue of `post` to `observer`.
    func recordDelivery(_ kind: DeliveryEventKind, seq: UInt64, time: UInt64, post: UInt64, observer: UInt64,
                        held: borrowing HeldSessionLock)
    /// Records a post.
    func recordPost(seq: UInt64, time: UInt64, post: UInt64, message: consuming any BusMessage, sender: UInt64?,
                    parent: UInt64?, origin: PostOrigin, held: borrowing HeldSessionLock)
    /// Records any other event.
    func record(_ event: consuming TraceEvent, held: borrowing HeldSessionLock)
}

/// The events that name only a post and an observer.
package enum DeliveryEventKind: Sendable {
    case delivered, skipped, enqueued
}

/// A sink that keeps events in memory, for tests and small sessions.
public final class MemoryTraceSink: TraceSink {
    private let storage = Locked<[TraceEvent]>([])
    public let recordingSession = RecordingSession()

    /// An empty sink.
    public init() {}

    /// Keeps `event`, after those recorded before it; any thread may call it.
    public func record(_ event: TraceEvent) {
        storage.withLock { $0.append(event) }
    }

    /// The events recorded so far, in order.
    public var events: [TraceEvent] { storage.withLock { $0 } }
}
