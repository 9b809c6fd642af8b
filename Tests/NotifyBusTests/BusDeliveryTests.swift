import NotifyBus
import Testing

@Suite struct BusDeliveryTests {
    @Test func deliversInRegistrationOrder() {
        let bus = Bus()
        let log = Log<String>()
        let tokens = (0..<20).map { i in bus.observe(Ping.self) { _ in log.append("o\(i)") } }
        bus.post(Ping(n: 1))
        #expect(log.all == (0..<20).map { "o\($0)" })
        _ = tokens
    }

    @Test func deliversOnlyTheObservedType() {
        let bus = Bus()
        let pings = Log<Int>(), pongs = Log<Int>()
        let a = bus.observe(Ping.self) { pings.append($0.n) }
        let b = bus.observe(Pong.self) { pongs.append($0.n) }
        bus.post(Ping(n: 1)); bus.post(Pong(n: 2)); bus.post(Ping(n: 3))
        #expect(pings.all == [1, 3])
        #expect(pongs.all == [2])
        _ = (a, b)
    }

    @Test func deliversSynchronouslyOnThePostingThread() {
        let bus = Bus()
        let log = Log<Int>()
        let token = bus.observe(Ping.self) { log.append($0.n) }
        bus.post(Ping(n: 7))
        // No waiting: the handler has already run when post returns.
        #expect(log.all == [7])
        _ = token
    }

    @Test func senderFilterMatchesIdentityOnly() {
        let bus = Bus()
        let a = Owner("a"), b = Owner("b")
        let log = Log<Int>()
        let token = bus.observe(Ping.self, sender: a) { log.append($0.n) }
        bus.post(Ping(n: 1), sender: a)
        bus.post(Ping(n: 2), sender: b)
        bus.post(Ping(n: 3))
        #expect(log.all == [1])
        _ = token
    }

    @Test func observeAllSeesEveryMessageInRegistrationOrderAmongOthers() {
        let bus = Bus()
        let log = Log<String>()
        let t1 = bus.observe(Ping.self) { _ in log.append("typed-1") }
        let t2 = bus.observeAll { log.append("all:\(short(type(of: $0).name)!)") }
        let t3 = bus.observe(Ping.self) { _ in log.append("typed-3") }
        bus.post(Ping(n: 1))
        bus.post(Pong(n: 2))
        #expect(log.all == ["typed-1", "all:Ping", "typed-3", "all:Pong"])
        _ = (t1, t2, t3)
    }

    @Test func messageNamesDefaultToTheModuleQualifiedTypeName() {
        #expect(Ping.name == "NotifyBusTests.Ping")
        #expect(KeyboardWillShow.name == "keyboardWillShow")
    }

    @Test func asyncSequenceReceivesPostsUntilCancelled() async {
        let bus = Bus()
        let stream = bus.messages(of: Ping.self)
        #expect(bus.observerCount == 1)
        bus.post(Ping(n: 1)); bus.post(Pong(n: 0)); bus.post(Ping(n: 2))
        var received: [Int] = []
        for await ping in stream {
            received.append(ping.n)
            if received.count == 2 { break }
        }
        #expect(received == [1, 2])
    }

    @Test func asyncSequenceStopsObservingWhenReleased() {
        let bus = Bus()
        do {
            let stream = bus.messages(of: Ping.self)
            #expect(bus.observerCount == 1)
            _ = stream
        }
        #expect(bus.observerCount == 0)
    }
}
