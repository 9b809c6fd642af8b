import NotifyBus
import Testing

@Suite struct BusRemovalTests {
    @Test func removingTwiceIsHarmlessAndRecordedAsUnbalanced() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<Int>()
        let token = bus.observe(Ping.self) { log.append($0.n) }
        bus.remove(token)
        bus.remove(token)
        bus.post(Ping(n: 1))
        #expect(log.all.isEmpty)
        #expect(bus.observerCount == 0)
        let removals = sink.events.map(describe).filter { $0.hasPrefix("remove") }
        #expect(removals == ["remove 1 Ping explicit", "remove 1 Ping explicit"])
    }

    @Test func tokenFromAnotherBusIsIgnored() {
        let a = Bus(), b = Bus()
        let log = Log<Int>()
        let tokenA = a.observe(Ping.self) { log.append($0.n) }
        let tokenB = b.observe(Ping.self) { log.append($0.n * 100) }
        b.remove(tokenA)
        a.post(Ping(n: 1)); b.post(Ping(n: 2))
        #expect(log.all == [1, 200])
        _ = tokenB
    }

    @Test func releasingTheLastTokenCopyRemovesTheObserver() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<Int>()
        var copy: ObservationToken?
        do {
            let token = bus.observe(Ping.self) { log.append($0.n) }
            copy = token
        }
        bus.post(Ping(n: 1))
        #expect(log.all == [1], "a copy still holds the observer")
        copy = nil
        #expect(copy == nil)
        bus.post(Ping(n: 2))
        #expect(log.all == [1])
        #expect(bus.observerCount == 0)
        #expect(sink.events.map(describe).contains("remove 1 Ping tokenReleased"))
    }

    @Test func explicitRemovalThenReleaseRecordsOneRemoval() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        do {
            let token = bus.observe(Ping.self) { _ in }
            bus.remove(token)
        }
        #expect(sink.events.map(describe).filter { $0.hasPrefix("remove") } == ["remove 1 Ping explicit"])
    }

    @Test func removeAllRemovesEveryObserverOfTheOwner() {
        let bus = Bus()
        let owner = Owner(), other = Owner()
        let log = Log<String>()
        let tokens = [
            bus.observe(Ping.self, owner: owner) { _ in log.append("owner ping") },
            bus.observe(Pong.self, owner: owner) { _ in log.append("owner pong") },
            bus.observeAll(owner: owner) { _ in log.append("owner all") },
            bus.observe(Ping.self, owner: other) { _ in log.append("other ping") },
        ]
        bus.removeAll(owner: owner)
        bus.post(Ping(n: 1)); bus.post(Pong(n: 1))
        #expect(log.all == ["other ping"])
        #expect(bus.observerCount == 1)
        _ = tokens
    }

    @Test func removalByMessageAndOwnerLikeFoundation() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let owner = Owner()
        let log = Log<String>()
        let tokens = [
            bus.observe(Ping.self, owner: owner) { _ in log.append("ping") },
            bus.observe(Pong.self, owner: owner) { _ in log.append("pong") },
        ]
        bus.remove(Ping.self, owner: owner)
        bus.remove(Ping.self, owner: owner)
        bus.post(Ping(n: 1)); bus.post(Pong(n: 1))
        #expect(log.all == ["pong"])
        let removals = sink.events.map(describe).filter { $0.hasPrefix("remove") }
        #expect(removals == ["remove 1 Ping explicit", "remove - Ping explicit"])
        _ = tokens
    }

    @Test func deliveryToAGoneOwnerIsSkippedRecordedAndRemoved() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<Int>()
        var owner: Owner? = Owner("screen")
        let token = bus.observe(Ping.self, owner: owner) { log.append($0.n) }
        bus.post(Ping(n: 1))
        owner = nil
        bus.post(Ping(n: 2))
        bus.post(Ping(n: 3))
        #expect(log.all == [1])
        #expect(bus.observerCount == 0)
        #expect(sink.events.map(describe) == [
            "owner 1 screen", "add 1 Ping owner:1",
            "post 1 Ping parent:- app", "deliver 1->1",
            "post 2 Ping parent:- app", "released 1", "skip 2->1", "remove 1 Ping ownerGone",
            "post 3 Ping parent:- app",
        ])
        _ = token
        _ = owner
    }
}
