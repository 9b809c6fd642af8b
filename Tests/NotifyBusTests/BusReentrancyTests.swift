import NotifyBus
import Testing

/// A slot a handler can fill after the observer is registered.
final class TokenSlot: Sendable {
    private let slot = Locked<ObservationToken?>(nil)
    func set(_ token: ObservationToken) { slot.withLock { $0 = token } }
    var token: ObservationToken? { slot.withLock { $0 } }
    /// Drops the token, which removes its observer when it was the last copy.
    func clear() { slot.withLock { $0 = nil } }
}

/// Logs its own deinit: captured by a handler, it tells when the observer was freed.
final class Canary: Sendable {
    let log: Log<String>
    init(log: Log<String>) { self.log = log }
    deinit { log.append("canary freed") }
    func touch() {}
}

@Suite struct BusReentrancyTests {
    @Test func removedDuringPostByAnotherHandlerIsNotCalledLater() {
        let bus = Bus()
        let log = Log<String>()
        let victim = TokenSlot()
        let first = bus.observe(Ping.self) { _ in
            log.append("first")
            if let token = victim.token { bus.remove(token) }
        }
        victim.set(bus.observe(Ping.self) { _ in log.append("victim") })
        bus.post(Ping(n: 1))
        bus.post(Ping(n: 2))
        #expect(log.all == ["first", "first"])
        _ = first
    }

    @Test func anObserverWhoseLastTokenGoesDuringAPostLivesUntilThePostEnds() {
        // A post calls its observers without retaining each one: the post's snapshot
        // must keep them alive. Freed early, the canary would die before "third".
        let bus = Bus()
        let log = Log<String>()
        let victim = TokenSlot()
        let first = bus.observe(Ping.self) { _ in
            log.append("first")
            victim.clear()
        }
        do {
            let canary = Canary(log: log)
            victim.set(bus.observe(Ping.self) { _ in canary.touch(); log.append("victim") })
        }
        let third = bus.observe(Ping.self) { _ in log.append("third") }
        bus.post(Ping(n: 1))
        log.append("posted")
        #expect(log.all == ["first", "third", "canary freed", "posted"])
        #expect(bus.observerCount == 2)
        _ = (first, third)
    }

    @Test func observerRemovingItselfRunsOnce() {
        let bus = Bus()
        let log = Log<Int>()
        let slot = TokenSlot()
        slot.set(bus.observe(Ping.self) { ping in
            log.append(ping.n)
            if let token = slot.token { bus.remove(token) }
        })
        bus.post(Ping(n: 1)); bus.post(Ping(n: 2))
        #expect(log.all == [1])
    }

    @Test func addedDuringPostIsNotCalledInIt() {
        let bus = Bus()
        let log = Log<String>()
        let added = TokenSlot()
        let adder = bus.observe(Ping.self) { ping in
            log.append("adder \(ping.n)")
            if added.token == nil {
                added.set(bus.observe(Ping.self) { ping in log.append("added \(ping.n)") })
            }
        }
        bus.post(Ping(n: 1))
        bus.post(Ping(n: 2))
        #expect(log.all == ["adder 1", "adder 2", "added 2"])
        _ = adder
    }

    @Test func postingFromAHandlerIsRecordedWithItsParent() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        let relay = bus.observe(Ping.self) { ping in
            log.append("ping \(ping.n)")
            bus.post(Pong(n: ping.n))
        }
        let listener = bus.observe(Pong.self) { pong in log.append("pong \(pong.n)") }
        bus.post(Ping(n: 1))
        #expect(log.all == ["ping 1", "pong 1"])
        let posts = sink.events.map(describe).filter { $0.hasPrefix("post") || $0.hasPrefix("deliver") }
        #expect(posts == [
            "post 1 Ping parent:- app", "deliver 1->1",
            "post 2 Pong parent:1 reaction", "deliver 2->2",
        ])
        _ = (relay, listener)
    }

    @Test func handlersRunWithTheLockReleased() {
        // A handler that observes, removes and posts would deadlock if the lock were held.
        let bus = Bus()
        let log = Log<Int>()
        let token = bus.observe(Ping.self) { ping in
            let inner = bus.observe(Pong.self) { log.append($0.n) }
            bus.post(Pong(n: ping.n * 10))
            bus.remove(inner)
            _ = bus.observerCount
        }
        bus.post(Ping(n: 4))
        #expect(log.all == [40])
        _ = token
    }
}
