import Dispatch
import NotifyBus
import Testing

/// Many buses recording into one sink: one log, numbered once, nothing dropped.
@Suite struct SharedSessionTests {
    private func seqs(_ sink: MemoryTraceSink) -> [UInt64] { sink.events.map(\.seq) }

    @Test func twoBusesIntoOneSinkNumberOneSequence() {
        let sink = MemoryTraceSink()
        let ui = Bus(sink: sink), model = Bus(sink: sink)
        let owner = Owner("screen")
        let a = ui.observe(Ping.self, owner: owner) { _ in }
        let b = model.observe(Pong.self, owner: owner) { _ in }
        ui.post(Ping(n: 1))
        model.post(Pong(n: 2))
        let events = sink.events
        #expect(events.map(\.seq) == Array(1...UInt64(events.count)))
        // One owner, two observers, two posts: ids never repeat across the buses.
        #expect(events.map(describe).filter { $0.hasPrefix("owner") } == ["owner 1 screen"])
        #expect(a.observerID != b.observerID)
        let posts = events.compactMap { event -> UInt64? in
            if case .posted(let post, _, _, _, _) = event.kind { return post }
            return nil
        }
        #expect(posts == [1, 2])
    }

    @Test(arguments: [2, 8])
    func busesRecordingConcurrentlyLoseNothing(buses count: Int) {
        let sink = MemoryTraceSink()
        let buses = (0..<count).map { _ in Bus(sink: sink) }
        let tokens = buses.map { bus in bus.observe(Ping.self) { _ in } }
        let posts = 200
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let bus = buses[index]
            for n in 0..<posts {
                bus.post(Ping(n: n))
                if n % 50 == 0 {
                    let extra = bus.observe(Pong.self) { _ in }
                    bus.remove(extra)
                }
            }
        }
        let events = sink.events
        #expect(events.map(\.seq) == Array(1...UInt64(events.count)), "one sequence, no gap, no repeat")
        // Per bus: 1 add, `posts` posts and deliveries, 4 add + remove pairs.
        #expect(events.count == count * (1 + 2 * posts + 2 * (posts / 50)))
        let postIDs = events.compactMap { event -> UInt64? in
            if case .posted(let post, _, _, _, _) = event.kind { return post }
            return nil
        }
        #expect(Set(postIDs).count == postIDs.count)
        withExtendedLifetime(tokens) {}
    }

    @Test func aPostOnOneBusInsideAnotherBusesDeliveryIsItsReaction() {
        let sink = MemoryTraceSink()
        let ui = Bus(sink: sink), model = Bus(sink: sink)
        let relay = ui.observe(Ping.self) { model.post(Pong(n: $0.n)) }
        ui.post(Ping(n: 1))
        let parents = sink.events.compactMap { event -> (UInt64, UInt64?)? in
            if case .posted(let post, _, _, let parent, _) = event.kind { return (post, parent) }
            return nil
        }
        #expect(parents.map(\.0) == [1, 2])
        #expect(parents.map(\.1) == [nil, 1])
        withExtendedLifetime(relay) {}
    }
}
