/// Receives every event of a bus, in sequence order.
///
/// A sink is called on the thread that caused the event, in `seq` order, and
/// never concurrently with itself for one bus. It must not block for long and
/// must not call back into the bus: the bus may hold its lock while it records
/// an observer being added or removed.
public protocol TraceSink: Sendable {
    /// Records one event.
    func record(_ event: TraceEvent)
}

/// A sink that keeps events in memory, for tests and small sessions.
public final class MemoryTraceSink: TraceSink {
    private let storage = Locked<[TraceEvent]>([])

    /// An empty sink.
    public init() {}

    /// Keeps `event`, after those recorded before it; any thread may call it.
    public func record(_ event: TraceEvent) {
        storage.withLock { $0.append(event) }
    }

    /// The events recorded so far, in order.
    public var events: [TraceEvent] { storage.withLock { $0 } }
}
