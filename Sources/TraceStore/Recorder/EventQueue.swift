import Foundation
import NotifyBus
import Synchronization

/// The bounded hand-off between posting threads and the writer thread.
///
/// A ring of `capacity` slots, allocated once. Posters append and wait only when
/// the ring is full (backpressure: an event is never dropped while the writer
/// runs); the writer takes everything published at once.
///
/// The posting side costs a slot write and an atomic store, and no lock of its own:
/// posters are serialized by the recorder's session lock, which a bus holds anyway
/// while it records an event (every append borrows the proof, a ``HeldSessionLock``),
/// and the writer never takes that lock. The two
/// sides meet through two counters, `head` (events published) and `tail` (events
/// taken), so the writer is woken only when it asked to be: once when the ring goes
/// from empty to non-empty, once when it reaches `batchTarget` while the writer
/// gathers a batch; `condition` is taken on those wake-ups, on backpressure and on
/// `flush`/`close`, never per event otherwise.
final class EventQueue: @unchecked Sendable {
    // @unchecked: `producer` is read and written only by a poster holding the session's
    // lock (an append borrows a `HeldSessionLock`, which only the session makes, under it).
    // `slots` is written by such a poster and read by the writer, each slot only after
    // `head` (store: releasing, load: acquiring) says it is published and before `tail`
    // says it is free again; the remaining mutable properties are read and written only
    // with `condition` locked. `EventQueueTests` and `SharedSessionRecordingTests` post
    // from several threads at once and check that nothing is lost or reordered.

    /// The posting side's own state, guarded by the session's lock.
    private struct Producer {
        /// Events published: a copy of `head`, which only posters write.
        var published = 0
        /// The last value of `tail` read; the ring is full only if it looks full with a fresh one.
        var taken = 0
        /// The slot the next event goes into.
        var index = 0
        var lastSeq: UInt64 = 0
    }

    private let slots: UnsafeMutablePointer<TraceEvent>
    /// For each slot, the journal position after its event's record (with a journal).
    private let journalEnds: UnsafeMutablePointer<UInt64>
    private let capacity: Int
    /// Where each event is written before the writer sees it, on the posting thread.
    private let journal: EventJournal?
    /// The journal position after the last event of the batch the writer took, and that batch's
    /// size: once it is all written (or unwritable), the journal's `applied` mark moves there.
    /// Read and written by the writer thread only.
    private var batchJournalEnd: UInt64 = 0
    private var batchCount = 0
    /// Whose lock serializes posters: the recorder's session.
    let session: RecordingSession
    private let producer: UnsafeMutablePointer<Producer>
    /// Events published into the ring, ever.
    private let head = Atomic<Int>(0)
    /// Events the writer has moved out of the ring, ever. Written by the writer only.
    private let tail = Atomic<Int>(0)
    /// The value of `head` at which a poster wakes the writer; `Int.max` when it sleeps on its own.
    private let wakeAt = Atomic<Int>(Int.max)
    /// A poster waits for space and wants a broadcast when `tail` moves.
    private let spaceWanted = Atomic<Bool>(false)
    /// False once the writer stopped or `close` began: appends are refused.
    private let accepting = Atomic<Bool>(true)

    private let condition = NSCondition()
    private var committed: UInt64 = 0
    /// Events the writer could not write, though it went on with the others.
    private var lost: UInt64 = 0
    /// Whether the writer stopped: nothing more is accepted.
    private var stopped = false
    private var flushRequested = false
    private var closing = false
    private var finished = false
    private(set) var failure: TraceStoreError?

    /// The number of events the writer takes before it wakes up on its own.
    let batchTarget: Int

    /// A ring of `capacity` events, whose posters hold `session`'s lock, writing each event
    /// into `journal` first when there is one.
    init(capacity: Int, journal: EventJournal? = nil, session: RecordingSession = RecordingSession()) {
        self.capacity = max(1, capacity)
        self.batchTarget = max(1, self.capacity / 4)
        self.journal = journal
        self.session = session
        slots = .allocate(capacity: self.capacity)
        journalEnds = .allocate(capacity: journal == nil ? 1 : self.capacity)
        producer = .allocate(capacity: 1)
        producer.initialize(to: Producer())
    }

    deinit {
        // Events published but never taken: after a writer failure, or with no writer.
        var index = tail.load(ordering: .relaxed) % capacity
        for _ in tail.load(ordering: .relaxed)..<head.load(ordering: .relaxed) {
            (slots + index).deinitialize(count: 1)
            index = index + 1 == capacity ? 0 : index + 1
        }
        slots.deallocate()
        journalEnds.deallocate()
        producer.deinitialize(count: 1)
        producer.deallocate()
    }

    /// The `seq` of the last event appended.
    var lastSeq: UInt64 { session.withLockHeld { _ in producer.pointee.lastSeq } }

    /// ``journal``, not retained: the queue holds it (a `let`) for its life, so it outlives every
    /// append; retaining it for one was an atomic increment and decrement per event.
    @inline(__always)
    private var borrowedJournal: Unmanaged<EventJournal>? { journal.map(Unmanaged.passUnretained) }

    /// Appends `event`, taking the session's lock: for callers outside a bus.
    func append(_ event: TraceEvent) {
        session.withLockHeld { held in append(event, held: held) }
    }

    /// Appends `event`; the caller holds the session's lock.
    func append(_ event: consuming TraceEvent, held: borrowing HeldSessionLock) {
        guard let published = reserve() else { return }
        // Into the journal first: once `append` returns, the event outlives the process.
        if let journal {
            guard let end = journal.append(event, accepting: accepting) else { return }
            journalEnds[producer.pointee.index] = end
        }
        publish(event, published: published)
    }

    /// Appends a delivery, skip or enqueue; the caller holds the session's lock.
    @inline(__always)
    func appendDelivery(_ kind: DeliveryEventKind, seq: UInt64, time: UInt64, post: UInt64, observer: UInt64,
                        held: borrowing HeldSessionLock) {
        guard let published = reserve() else { return }
        if let journal = borrowedJournal {
            guard let end = journal._withUnsafeGuaranteedRef({
                $0.appendDelivery(kind, seq: seq, time: time, post: post, observer: observer, accepting: accepting)
            })
            else { return }
            journalEnds[producer.pointee.index] = end
        }
        // One event built per case: a `Kind` chosen first and then stored is copied through its outlined copy.
        switch kind {
        case .delivered:
            publish(TraceEvent(seq: seq, time: time, kind: .delivered(post: post, observer: observer)), published: published)
        case .skipped:
            publish(TraceEvent(seq: seq, time: time, kind: .skipped(post: post, observer: observer)), published: published)
        case .enqueued:
            publish(TraceEvent(seq: seq, time: time, kind: .enqueued(post: post, observer: observer)), published: published)
        }
    }

    /// Appends a post; the caller holds the session's lock.
    @inline(__always)
    func appendPost(seq: UInt64, time: UInt64, post: UInt64, message: consuming any BusMessage, sender: UInt64?,
                    parent: UInt64?, origin: PostOrigin, held: borrowing HeldSessionLock) {
        guard let published = reserve() else { return }
        if let journal = borrowedJournal {
            guard let end = journal._withUnsafeGuaranteedRef({
                $0.appendPost(seq: seq, time: time, post: post, message: message, sender: sender, parent: parent,
                              origin: origin, accepting: accepting)
            })
            else { return }
            journalEnds[producer.pointee.index] = end
        }
        publish(TraceEvent(seq: seq, time: time, kind: .posted(post: post, message: message, sender: sender,
                                                               parent: parent, origin: origin)),
                published: published)
    }

    /// The number of events published so far, once there is a free slot for one more; `nil`
    /// when the event has nowhere to go (the writer stopped, or close began: `flush` and
    /// `close` report it). Waits while the ring is full.
    @inline(__always)
    private func reserve() -> Int? {
        guard accepting.load(ordering: .relaxed) else { return nil }
        let published = producer.pointee.published
        if published &- producer.pointee.taken >= capacity {
            producer.pointee.taken = tail.load(ordering: .acquiring)
            if published &- producer.pointee.taken >= capacity {
                guard waitForSpace(published: published) else { return nil }
                producer.pointee.taken = tail.load(ordering: .acquiring)
            }
        }
        return published
    }

    /// Puts `event` into the slot ``reserve()`` found free and hands it to the writer.
    @inline(__always)
    private func publish(_ event: consuming TraceEvent, published: Int) {
        let index = producer.pointee.index
        producer.pointee.lastSeq = event.seq
        (slots + index).initialize(to: event)
        producer.pointee.index = index + 1 == capacity ? 0 : index + 1
        producer.pointee.published = published + 1
        // Sequentially consistent, with the load after it: the writer stores `wakeAt`
        // and then loads `head`, so either it sees this event or this poster sees its request.
        head.store(published + 1, ordering: .sequentiallyConsistent)
        let wake = wakeAt.load(ordering: .sequentiallyConsistent)
        if published + 1 >= wake { wakeWriter(expected: wake) }
    }

    private func wakeWriter(expected: Int) {
        // Only the poster that clears the request wakes the writer.
        guard wakeAt.compareExchange(expected: expected, desired: Int.max, ordering: .sequentiallyConsistent).exchanged
        else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the writer takes events; `false` if it stopped or the queue is closing.
    private func waitForSpace(published: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard accepting.load(ordering: .relaxed) else { return false }
            spaceWanted.store(true, ordering: .sequentiallyConsistent)
            if published &- tail.load(ordering: .sequentiallyConsistent) < capacity { return true }
            condition.wait()
        }
    }

    /// Waits for events and moves them into `batch` (emptied first); returns `false`
    /// once closing with nothing left, or once the writer stopped and closing began.
    /// Called by the writer thread only.
    func takeBatch(into batch: inout [TraceEvent]) -> Bool {
        batch.removeAll(keepingCapacity: true)
        let taken = tail.load(ordering: .relaxed)
        condition.lock()
        while true {
            if stopped {
                // Nothing more is written; what is left is dropped with the queue.
                while !closing { condition.wait() }
                condition.unlock()
                return false
            }
            if head.load(ordering: .sequentiallyConsistent) > taken { break }
            if closing {
                condition.unlock()
                return false
            }
            wakeAt.store(taken + 1, ordering: .sequentiallyConsistent)
            if head.load(ordering: .sequentiallyConsistent) > taken { break }
            condition.wait()
        }
        if !flushRequested && !closing && head.load(ordering: .sequentiallyConsistent) - taken < batchTarget {
            // Let a few more events arrive so that transactions stay large.
            wakeAt.store(taken + batchTarget, ordering: .sequentiallyConsistent)
            if head.load(ordering: .sequentiallyConsistent) - taken < batchTarget {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.005))
            }
        }
        wakeAt.store(Int.max, ordering: .sequentiallyConsistent)
        condition.unlock()

        let published = head.load(ordering: .acquiring)
        batch.reserveCapacity(published - taken)
        if journal != nil, published > taken {
            batchJournalEnd = journalEnds[(published - 1) % capacity]
            batchCount = published - taken
        }
        var index = taken % capacity
        for _ in taken..<published {
            batch.append((slots + index).move())
            index = index + 1 == capacity ? 0 : index + 1
        }
        tail.store(published, ordering: .sequentiallyConsistent)
        if spaceWanted.load(ordering: .sequentiallyConsistent),
           spaceWanted.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
        return true
    }

    /// The writer committed `count` events of its batch (all of them unless it then fails).
    func committed(_ count: Int) {
        if count == batchCount { journal?.markApplied(batchJournalEnd) }
        condition.lock()
        committed += UInt64(count)
        if committed + lost >= enqueued { flushRequested = false }
        condition.broadcast()
        condition.unlock()
    }

    /// Part of a batch could not be written; the writer goes on. The first error is kept for `flush` and `close`.
    func lost(_ error: TraceStoreError, written: Int, of count: Int) {
        // The others cannot be written by a recovery either: the journal need not keep them.
        journal?.markApplied(batchJournalEnd)
        condition.lock()
        // Every event written one at a time after all: nothing was lost, and there is nothing to report.
        if failure == nil && written < count { failure = error }
        committed += UInt64(written)
        lost += UInt64(count - written)
        if committed + lost >= enqueued { flushRequested = false }
        condition.broadcast()
        condition.unlock()
    }

    /// The writer stopped: what is pending is dropped and nothing more is accepted.
    func fail(_ error: TraceStoreError) {
        accepting.store(false, ordering: .relaxed)
        condition.lock()
        if failure == nil { failure = error }
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every event appended before the call is committed.
    func flush() throws(TraceStoreError) {
        let target = enqueued
        condition.lock()
        defer { condition.unlock() }
        flushRequested = true
        condition.broadcast()
        while committed + lost < target && !stopped && !finished { condition.wait() }
        if let failure { throw failure }
    }

    /// Stops accepting events and waits for the writer to drain and exit.
    func close() {
        accepting.store(false, ordering: .relaxed)
        // Waits out a poster that read `accepting` before the store: its event is
        // published before closing begins, and the writer drains it.
        session.withLockHeld { _ in }
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

    /// Events appended, ever.
    private var enqueued: UInt64 { UInt64(head.load(ordering: .acquiring)) }

    var counts: (enqueued: UInt64, committed: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        return (enqueued, committed)
    }
}
