import Foundation
import NotifyBus
import Synchronization
import Testing

@Suite struct BusConcurrencyTests {
    /// Runs `body(thread)` on `count` real threads at once and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        group.wait()
    }

    @Test func eightThreadsPostingLoseNoDeliveryAndDeliverNothingTwice() {
        let bus = Bus()
        let threads = 8, postsPerThread = 2_000, stableObservers = 4
        // One counter per (observer, post): each must end at exactly 1.
        let counts = (0..<stableObservers).map { _ in Tally(count: threads * postsPerThread) }
        let tokens = (0..<stableObservers).map { o in
            bus.observe(Ping.self) { ping in counts[o].hit(ping.n) }
        }
        let churn = Atomic<Int>(0)
        Self.onThreads(threads) { thread in
            for i in 0..<postsPerThread {
                bus.post(Ping(n: thread * postsPerThread + i))
                // Add and remove other observers concurrently with the posts.
                let transient = bus.observe(Ping.self) { _ in churn.add(1, ordering: .relaxed) }
                if i % 3 == 0 { bus.post(Pong(n: i)) }
                bus.remove(transient)
            }
        }
        for o in 0..<stableObservers {
            let wrong = counts[o].values.enumerated().filter { $0.element != 1 }
            #expect(wrong.isEmpty, "observer \(o): \(wrong.count) posts not delivered exactly once")
        }
        #expect(bus.observerCount == stableObservers)
        _ = tokens
    }

    @Test func recordedSequenceIsGaplessUnderContention() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let owner = Owner()
        let token = bus.observe(Ping.self, owner: owner) { _ in }
        Self.onThreads(8) { thread in
            for i in 0..<500 {
                bus.post(Ping(n: i))
                let t = bus.observe(Pong.self, owner: owner) { _ in }
                bus.remove(t)
                _ = thread
            }
        }
        let events = sink.events
        #expect(events.map(\.seq) == (1...UInt64(events.count)).map { $0 })
        let posts = events.filter { if case .posted = $0.kind { true } else { false } }
        let deliveries = events.filter { if case .delivered = $0.kind { true } else { false } }
        #expect(posts.count == 8 * 500)
        #expect(deliveries.count == 8 * 500)
        _ = token
    }

    @Test func tokensReleasedOnManyThreadsRemoveEveryObserver() {
        let bus = Bus()
        Self.onThreads(8) { _ in
            for _ in 0..<1_000 {
                let token = bus.observe(Ping.self) { _ in }
                bus.post(Ping(n: 0))
                _ = token
            }
        }
        #expect(bus.observerCount == 0)
    }
}

/// Per-post delivery counts of one observer.
final class Tally: Sendable {
    private let counts: Locked<[Int]>
    init(count: Int) { counts = Locked([Int](repeating: 0, count: count)) }
    func hit(_ index: Int) { counts.withLock { $0[index] += 1 } }
    var values: [Int] { counts.withLock { $0 } }
}
