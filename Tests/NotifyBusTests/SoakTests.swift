import Foundation
@testable import NotifyBus
import Testing

/// Long concurrency runs, off by default: `NOTIFYBUS_SOAK=1 swift test --filter Soak`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["NOTIFYBUS_SOAK"] != nil, "set NOTIFYBUS_SOAK=1 to run"))
struct BusSoakTests {
    @Test func millionsOfPostsWithChurnLoseNothing() {
        let bus = Bus(sink: MemoryCountingSink())
        let threads = 8, posts = 250_000
        let delivered = Tally(count: threads)
        let token = bus.observe(Ping.self) { ping in delivered.hit(ping.n) }
        BusConcurrencyTests.onThreads(threads) { thread in
            for i in 0..<posts {
                bus.post(Ping(n: thread))
                if i % 7 == 0 {
                    let transient = bus.observe(Pong.self, owner: Owner()) { _ in }
                    bus.post(Pong(n: i))
                    bus.remove(transient)
                }
            }
        }
        #expect(delivered.values == Array(repeating: posts, count: threads))
        _ = token
    }
}

/// Counts events without keeping them, so a soak run's memory stays flat.
final class MemoryCountingSink: TraceSink {
    private let last = Locked<UInt64>(0)
    let recordingSession = RecordingSession()

    func record(_ event: TraceEvent) {
        last.withLock { last in
            precondition(event.seq == last + 1, "sequence jumped from \(last) to \(event.seq)")
            last = event.seq
        }
    }
}
