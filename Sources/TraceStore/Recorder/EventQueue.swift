import Foundation
import NotifyBus

/// The bounded hand-off between posting threads and the writer thread.
///
/// Posters append and wait only when the buffer is full (backpressure: an
/// event is never dropped); the writer takes everything pending at once.
final class EventQueue: @unchecked Sendable {
    // @unchecked: every mutable property is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var pending: [TraceEvent] = []
    private let capacity: Int
    private var enqueued: UInt64 = 0
    private var committed: UInt64 = 0
    /// Events the writer could not write, though it went on with the others.
    private var lost: UInt64 = 0
    /// Whether the writer stopped: nothing more is accepted.
    private var stopped = false
    private var flushRequested = false
    private var closing = false
    private var finished = false
    private(set) var failure: TraceStoreError?
    private(set) var lastSeq: UInt64 = 0

    /// The number of events the writer takes before it wakes up on its own.
    let batchTarget: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.batchTarget = max(1, capacity / 4)
        pending.reserveCapacity(self.capacity)
    }

    func append(_ event: TraceEvent) {
        condition.lock()
        defer { condition.unlock() }
        while pending.count >= capacity && !stopped && !closing {
            condition.wait()
        }
        // After the writer stopped, or close, there is nowhere to put the event; `flush` and `close` report it.
        guard !stopped, !closing else { return }
        pending.append(event)
        enqueued += 1
        lastSeq = event.seq
        if pending.count == 1 || pending.count == batchTarget { condition.broadcast() }
    }

    /// Waits for a batch; returns `nil` when closing and nothing is left.
    func takeBatch() -> [TraceEvent]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !closing { condition.wait() }
        if pending.count < batchTarget && !flushRequested && !closing {
            // Let a few more events arrive so that transactions stay large.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.005))
        }
        if pending.isEmpty { return closing ? nil : [] }
        var batch: [TraceEvent] = []
        batch.reserveCapacity(capacity)
        swap(&batch, &pending)
        condition.broadcast()
        return batch
    }

    func committed(_ count: Int) {
        condition.lock()
        committed += UInt64(count)
        if committed + lost >= enqueued { flushRequested = false }
        condition.broadcast()
        condition.unlock()
    }

    /// Part of a batch could not be written; the writer goes on. The first error is kept for `flush` and `close`.
    func lost(_ error: TraceStoreError, written: Int, of count: Int) {
        condition.lock()
        if failure == nil { failure = error }
        committed += UInt64(written)
        lost += UInt64(count - written)
        if committed + lost >= enqueued { flushRequested = false }
        condition.broadcast()
        condition.unlock()
    }

    /// The writer stopped: what is pending is dropped and nothing more is accepted.
    func fail(_ error: TraceStoreError) {
        condition.lock()
        if failure == nil { failure = error }
        stopped = true
        pending.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every event appended before the call is committed.
    func flush() throws(TraceStoreError) {
        condition.lock()
        defer { condition.unlock() }
        let target = enqueued
        flushRequested = true
        condition.broadcast()
        while committed + lost < target && !stopped && !finished { condition.wait() }
        if let failure { throw failure }
    }

    /// Stops accepting events and waits for the writer to drain and exit.
    func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    func writerFinished() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    var counts: (enqueued: UInt64, committed: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        return (enqueued, committed)
    }
}
