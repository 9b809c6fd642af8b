import Foundation
import NotifyBus
import Synchronization
import Testing
@testable import TraceStore

/// The recorder's ring between posters and the writer, driven directly: every event
/// arrives once, in each poster's order, across many wrap-arounds of a tiny ring.
@Suite struct EventQueueTests {
    /// An event whose `seq` says which poster sent it and its number there.
    private static func event(poster: Int, number: Int) -> TraceEvent {
        TraceEvent(seq: UInt64(poster * 1_000_000 + number), time: 0,
                   kind: .bridgeRejected(name: "poster \(poster)", reason: "number \(number)"))
    }

    /// Drains `queue` on a writer thread until it closes; returns what it took, in order.
    private static func startWriter(_ queue: EventQueue) -> (taken: Locked<[TraceEvent]>, done: DispatchSemaphore) {
        let taken = Locked<[TraceEvent]>([]), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var batch: [TraceEvent] = []
            while queue.takeBatch(into: &batch) {
                taken.withLock { $0.append(contentsOf: batch) }
                queue.committed(batch.count)
            }
            queue.writerFinished()
            done.signal()
        }
        return (taken, done)
    }

    @Test(arguments: [1, 3, 64])
    func concurrentPostersLoseNothingAndKeepTheirOrder(capacity: Int) throws {
        let queue = EventQueue(capacity: capacity)
        let (taken, done) = Self.startWriter(queue)
        let posters = 4, perPoster = 5_000
        let group = DispatchGroup()
        for poster in 0..<posters {
            group.enter()
            Thread.detachNewThread {
                for number in 0..<perPoster { queue.append(Self.event(poster: poster, number: number)) }
                group.leave()
            }
        }
        group.wait()
        try queue.flush()
        #expect(queue.counts == (enqueued: UInt64(posters * perPoster), committed: UInt64(posters * perPoster)))
        queue.close()
        done.wait()
        let events = taken.withLock { $0 }
        #expect(events.count == posters * perPoster)
        var next = Array(repeating: 0, count: posters)
        for event in events {
            let poster = Int(event.seq / 1_000_000), number = Int(event.seq % 1_000_000)
            #expect(number == next[poster], "poster \(poster): \(number) after \(next[poster] - 1)")
            next[poster] = number + 1
            guard case .bridgeRejected(let name, let reason) = event.kind else {
                Issue.record("kind changed in the ring: \(event.kind)")
                continue
            }
            #expect(name == "poster \(poster)" && reason == "number \(number)")
        }
        #expect(next == Array(repeating: perPoster, count: posters))
    }

    @Test func closeDrainsWhatWasAppendedAndRefusesTheRest() {
        let queue = EventQueue(capacity: 16)
        let (taken, done) = Self.startWriter(queue)
        for number in 0..<10 { queue.append(Self.event(poster: 0, number: number)) }
        #expect(queue.lastSeq == 9)
        queue.close()
        done.wait()
        queue.append(Self.event(poster: 0, number: 10))
        #expect(taken.withLock { $0.map(\.seq) } == Array(0..<10).map(UInt64.init))
        #expect(queue.counts.enqueued == 10)
        #expect(queue.lastSeq == 9)
    }

    @Test func aStoppedWriterReleasesAPosterWaitingForSpace() {
        let queue = EventQueue(capacity: 2)
        // No writer takes anything: the third append waits until the writer fails.
        queue.append(Self.event(poster: 0, number: 0))
        queue.append(Self.event(poster: 0, number: 1))
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.append(Self.event(poster: 0, number: 2))
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 0.2) == .timedOut)
        queue.fail(TraceStoreError(.notATrace, "disk gone"))
        // Bounded, so that a poster left waiting fails the test instead of hanging it.
        #expect(returned.wait(timeout: .now() + 30) == .success)
        #expect(throws: TraceStoreError.self) { try queue.flush() }
        #expect(queue.counts.enqueued == 2)
    }

    /// `close()` while a poster waits for space and the writer is slow: the writer drains, the
    /// poster returns (its event written or refused, never half), and `close()` returns.
    @Test func closeReleasesAPosterWaitingForSpaceWhileTheWriterRuns() {
        let queue = EventQueue(capacity: 2)
        let gate = DispatchSemaphore(value: 0)
        let taken = Locked<[UInt64]>([]), writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            gate.wait()   // slow: takes nothing until the test opens the gate
            var batch: [TraceEvent] = []
            while queue.takeBatch(into: &batch) {
                taken.withLock { $0.append(contentsOf: batch.map(\.seq)) }
                queue.committed(batch.count)
            }
            queue.writerFinished()
            writerDone.signal()
        }
        queue.append(Self.event(poster: 0, number: 0))
        queue.append(Self.event(poster: 0, number: 1))
        let posterReturned = DispatchSemaphore(value: 0), closeReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.append(Self.event(poster: 0, number: 2))   // the ring is full: waits for space
            posterReturned.signal()
        }
        #expect(posterReturned.wait(timeout: .now() + 0.2) == .timedOut)
        Thread.detachNewThread {
            queue.close()
            closeReturned.signal()
        }
        #expect(closeReturned.wait(timeout: .now() + 0.2) == .timedOut)
        gate.signal()
        // Bounded, so that a deadlock fails the test instead of hanging it.
        #expect(posterReturned.wait(timeout: .now() + 30) == .success)
        #expect(closeReturned.wait(timeout: .now() + 30) == .success)
        #expect(writerDone.wait(timeout: .now() + 30) == .success)
        let seqs = taken.withLock { $0 }
        #expect(seqs == [0, 1] || seqs == [0, 1, 2], "\(seqs)")
        #expect(queue.counts.enqueued == UInt64(seqs.count))
        #expect(queue.counts.committed == UInt64(seqs.count))
    }

    /// A batch written in part: `flush` reports the first error, and the events written count as
    /// committed; a batch rewritten whole one event at a time reports nothing.
    @Test func lostEventsAreReportedByFlushAndWrittenOnesCount() throws {
        let queue = EventQueue(capacity: 8)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var batch: [TraceEvent] = []
            while queue.takeBatch(into: &batch) {
                // The first two events are written (however they are batched), one of the later ones is lost.
                if batch.allSatisfy({ $0.seq < 2 }) {
                    queue.lost(TraceStoreError(.invalidArgument, "could not encode"), written: batch.count, of: batch.count)
                } else {
                    queue.lost(TraceStoreError(.invalidArgument, "could not encode"), written: batch.count - 1, of: batch.count)
                }
            }
            queue.writerFinished()
            done.signal()
        }
        queue.append(Self.event(poster: 0, number: 0))
        queue.append(Self.event(poster: 0, number: 1))
        try queue.flush()   // every event written one at a time after all: no error
        #expect(queue.counts.committed == 2)
        queue.append(Self.event(poster: 0, number: 2))
        queue.append(Self.event(poster: 0, number: 3))
        #expect(throws: TraceStoreError.self) { try queue.flush() }
        #expect(queue.counts.enqueued == 4)
        queue.close()
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}
