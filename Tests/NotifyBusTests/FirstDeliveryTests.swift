import Foundation
import NotifyBus
import Synchronization
import Testing

/// Keeps the events, and holds one object until it records the first delivery, which it
/// records under the session's lock: then it lets go of it.
private final class DroppingSink: TraceSink {
    let recordingSession = RecordingSession()
    private let state = Locked<(events: [TraceEvent], held: (any AnyObject & Sendable)?)>(([], nil))

    func dropOnFirstDelivery(_ object: any AnyObject & Sendable) { state.withLock { $0.held = object } }

    func record(_ event: TraceEvent) {
        state.withLock { state in
            state.events.append(event)
            // Not the last reference: the post loaded the owner before recording its delivery.
            if case .delivered = event.kind { state.held = nil }
        }
    }

    var events: [TraceEvent] { state.withLock { $0.events } }
}

/// An owner whose deinit calls the bus: run under the bus's lock, it would wait on that lock for ever.
private final class BusyOwner: TraceLabeled, Sendable {
    let traceLabel = "busy"
    let bus: Bus
    let log: Log<String>
    init(bus: Bus, log: Log<String>) { self.bus = bus; self.log = log }
    deinit {
        log.append("owner freed, \(bus.observerCount) observers")
        bus.post(Pong(n: 0))
    }
}

/// An object freed but whose memory stays allocated while this is.
private struct Freed {
    unowned let object: Owner
}

/// A recorded post admits its first observer in the critical section that records the post
/// (`Bus.admitFirst`): these check that what it records, and what it calls, is what admitting
/// that observer at its turn records and calls.
@Suite struct FirstDeliveryTests {
    /// The events from the first `posted` on, without the adds before it.
    private func fromFirstPost(_ sink: MemoryTraceSink) -> [String] {
        let events = sink.events.map(describe)
        guard let first = events.firstIndex(where: { $0.hasPrefix("post ") }) else { return [] }
        return Array(events[first...])
    }

    @Test func aFirstObserverWhoseOwnerIsGoneIsSkippedAndRemovedAndTheNextOneDelivered() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        var owner: Owner? = Owner("gone")
        let first = bus.observe(Ping.self, owner: owner) { _ in log.append("first") }
        let second = bus.observe(Ping.self) { _ in log.append("second") }
        owner = nil
        bus.post(Ping(n: 1))
        bus.post(Ping(n: 2))
        #expect(log.all == ["second", "second"])
        #expect(bus.observerCount == 1)
        #expect(fromFirstPost(sink) == [
            "post 1 Ping parent:- app", "released 1", "skip 1->1", "remove 1 Ping ownerGone", "deliver 1->2",
            "post 2 Ping parent:- app", "deliver 2->2",
        ])
        _ = (first, second)
    }

    @Test func aFirstUnownedBlockWhoseOwnerIsGoneTrapsAndIsNotCalled() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        var owner: Helper? = Helper("gone")
        let first = bus.addObserver(forName: Ping.self, owner: owner!, capture: .unowned) { _ in log.append("first") }
        let second = bus.observe(Ping.self) { _ in log.append("second") }
        owner = nil
        bus.post(Ping(n: 1))
        #expect(log.all == ["second"])
        #expect(fromFirstPost(sink) == [
            "post 1 Ping parent:- app", "released 1", "trap 1->1 unownedCapture", "deliver 1->2",
        ])
        _ = (first, second)
    }

    /// The first delivery is recorded straight after its post, in one critical section, and carries
    /// the post's clock reading; every other event reads the clock again, so times never go back.
    @Test func theFirstDeliveryCarriesThePostsTimeAndEveryOtherEventItsOwnReading() {
        let readings = Atomic<UInt64>(0)
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink, clock: TraceClock { readings.add(1, ordering: .relaxed).newValue })
        var owner: Owner? = Owner("gone")
        let alive = Owner("alive")
        let first = bus.observe(Ping.self, owner: alive) { _ in }
        let second = bus.observe(Ping.self) { _ in }
        bus.post(Ping(n: 1))
        let gone = bus.observe(Pong.self, owner: owner) { _ in }
        let next = bus.observe(Pong.self) { _ in }
        owner = nil
        bus.post(Pong(n: 1))
        let events = sink.events
        func time(_ prefix: String) -> UInt64? {
            events.first { describe($0) == prefix }?.time
        }
        let ping = try! #require(time("post 1 Ping parent:- app"))
        #expect(time("deliver 1->1") == ping)
        #expect(try! #require(time("deliver 1->2")) > ping)
        // The first Pong observer's owner is gone: its release is recorded between the post and
        // its skip, so nothing after the post shares the post's reading.
        let pong = try! #require(time("post 2 Pong parent:- app"))
        #expect(events.filter { $0.seq > events.first { describe($0) == "post 2 Pong parent:- app" }!.seq }
            .allSatisfy { $0.time > pong })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        _ = (first, second, gone, next)
    }

    @Test func aFirstObserverThatDoesNotHearTheSenderIsLeftOutAndTheNextOneDelivered() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        let heard = Owner("heard"), other = Owner("other")
        let first = bus.observe(Ping.self, sender: heard) { log.append("first \($0.n)") }
        let second = bus.observe(Ping.self) { log.append("second \($0.n)") }
        bus.post(Ping(n: 1), sender: other)
        bus.post(Ping(n: 2), sender: heard)
        #expect(log.all == ["second 1", "first 2", "second 2"])
        #expect(fromFirstPost(sink).filter { !$0.hasPrefix("owner ") } == [
            "post 1 Ping parent:- app", "deliver 1->2",
            "post 2 Ping parent:- app", "deliver 2->1", "deliver 2->2",
        ])
        _ = (first, second)
    }

    @Test func theFirstObserverIsTheEarliestOfTheTypedOnesAndTheWildcards() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        let wildcard = bus.observeAll { _ in log.append("wildcard") }
        let typed = bus.observe(Ping.self) { _ in log.append("typed") }
        let later = bus.observeAll { _ in log.append("later wildcard") }
        bus.post(Ping(n: 1))
        bus.remove(wildcard)
        bus.post(Ping(n: 2))
        #expect(log.all == ["wildcard", "typed", "later wildcard", "typed", "later wildcard"])
        #expect(fromFirstPost(sink).filter { !$0.hasPrefix("remove") } == [
            "post 1 Ping parent:- app", "deliver 1->1", "deliver 1->2", "deliver 1->3",
            "post 2 Ping parent:- app", "deliver 2->2", "deliver 2->3",
        ])
        _ = (typed, later)
    }

    @Test func aFirstHandlerThatRemovesTheNextObserverKeepsItFromBeingRecordedOrCalled() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        let victim = TokenSlot()
        let first = bus.observe(Ping.self) { _ in
            log.append("first")
            if let token = victim.token { bus.remove(token) }
        }
        victim.set(bus.observe(Ping.self) { _ in log.append("victim") })
        bus.post(Ping(n: 1))
        #expect(log.all == ["first"])
        #expect(fromFirstPost(sink) == ["post 1 Ping parent:- app", "deliver 1->1", "remove 2 Ping explicit"])
        _ = first
    }

    @Test func theFirstObserversOwnerIsReleasedAfterItsHandlerOutsideTheLockAndBeforeTheNextObserver() throws {
        // The sink lets go of the owner's last reference but the one the post loaded, while it
        // records the delivery, under the lock: that one's release then runs the owner's deinit,
        // which calls the bus. Under the bus's lock it would wait for ever; on a thread of its
        // own the test fails instead of hanging.
        let sink = DroppingSink()
        let bus = Bus(sink: sink)
        let log = Log<String>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let first: ObservationToken
            weak let weakOwner: BusyOwner?
            do {
                let owner = BusyOwner(bus: bus, log: log)
                sink.dropOnFirstDelivery(owner)
                weakOwner = owner
                first = bus.observe(Ping.self, owner: owner) { _ in
                    log.append("first, owner \(weakOwner == nil ? "gone" : "alive")")
                }
            }
            let second = bus.observe(Ping.self) { _ in log.append("second, owner \(weakOwner == nil ? "gone" : "alive")") }
            bus.post(Ping(n: 1))
            withExtendedLifetime((first, second)) {}
            done.signal()
        }
        thread.start()
        try #require(done.wait(timeout: .now() + 10) == .success, "the owner was released under the bus's lock")
        #expect(log.all == ["first, owner alive", "owner freed, 2 observers", "second, owner gone"])
        // The deinit's post runs inside the delivery of the first: it is that delivery's reaction.
        #expect(sink.events.map(describe).filter { $0.hasPrefix("post") || $0.hasPrefix("deliver") } == [
            "post 1 Ping parent:- app", "deliver 1->1", "post 2 Pong parent:1 reaction", "deliver 1->2",
        ])
    }

    @Test func aRecordedDeliveryIsExactlyAHandlerCallWhileAnotherThreadAddsAndRemovesTheFirstObserver() {
        // The observer that comes and goes is the first, and only, one of each post: admitted with the
        // post. Every delivery recorded must be a call of its handler and every call a delivery recorded,
        // and none may be recorded after its observer's removal. One thread posts until the other has
        // seen its observers called often enough (or gave up), so that the two overlap however loaded
        // the machine.
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let calls = Log<(post: Int, observer: Int)>()
        let callCount = Atomic<Int>(0)
        let ids = Locked<[Int: UInt64]>([:])
        let finished = Atomic<Bool>(false)
        BusConcurrencyTests.onThreads(2) { thread in
            if thread == 0 {
                var n = 0
                while !finished.load(ordering: .relaxed) {
                    bus.post(Ping(n: n))
                    n += 1
                }
            } else {
                var k = 0
                while callCount.load(ordering: .relaxed) < 500 && k < 1_000_000 {
                    let observer = k
                    let token = bus.observe(Ping.self) {
                        calls.append((post: $0.n, observer: observer))
                        callCount.add(1, ordering: .relaxed)
                    }
                    ids.withLock { $0[observer] = token.observerID }
                    bus.remove(token)
                    k += 1
                }
                finished.store(true, ordering: .relaxed)
            }
        }
        let observerIDs = ids.withLock { $0 }
        var called: [String] = calls.all.map { "\($0.post)->\(observerIDs[$0.observer]!)" }
        var postNumber: [UInt64: Int] = [:]
        var recorded: [String] = []
        var removed: Set<UInt64> = []
        var late = 0
        for event in sink.events {
            switch event.kind {
            case .posted(let post, let message, _, _, _): postNumber[post] = (message as! Ping).n
            case .delivered(let post, let observer):
                recorded.append("\(postNumber[post]!)->\(observer)")
                if removed.contains(observer) { late += 1 }
            case .observerRemoved(let observer?, _, _, _, _): removed.insert(observer)
            default: break
            }
        }
        called.sort()
        recorded.sort()
        #expect(called == recorded)
        #expect(recorded.count >= 500, "the threads hardly overlapped")
        #expect(late == 0)
        #expect(sink.events.map(\.seq) == Array(1...UInt64(sink.events.count)))
    }

    @Test func aPostThatSweepsOwnersRecordsTheReleasesBeforeItsFirstDelivery() {
        // Posts with a new sender each register it as an owner; past the registry's threshold a
        // post sweeps the released ones, and its first delivery comes after those releases.
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let token = bus.observe(Ping.self) { _ in }
        // Each sender is freed after its post, its memory kept (an unowned reference) so that no
        // later sender reuses its address: the registry keeps a record for each until a sweep.
        var freed: [Freed] = []
        for n in 0..<200 {
            let sender = Owner("sender \(n)")
            freed.append(Freed(object: sender))
            bus.post(Ping(n: n), sender: sender)
        }
        let events = sink.events.map(describe)
        var swept = 0
        for (index, event) in events.enumerated() where event.hasPrefix("post ") {
            let id = event.split(separator: " ")[1]
            guard let delivery = events[index...].firstIndex(of: "deliver \(id)->1") else {
                Issue.record("post \(id) has no delivery"); continue
            }
            let between = events[(index + 1)..<delivery]
            #expect(between.allSatisfy { $0.hasPrefix("released ") }, "\(Array(between))")
            if !between.isEmpty { swept += 1 }
        }
        #expect(swept > 0, "no post swept: the test does not reach the registry's threshold")
        _ = (token, freed)
    }
}
