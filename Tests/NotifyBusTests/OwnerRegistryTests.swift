@testable import NotifyBus
import Testing

private final class Thing {
    let probe: (Thing) -> Void
    init(probe: @escaping (Thing) -> Void = { _ in }) { self.probe = probe }
    deinit { probe(self) }
}

@Suite struct OwnerRegistryTests {
    @Test func oneObjectIsOneIdentity() {
        var registry = OwnerRegistry()
        let a = Thing(), b = Thing()
        let first = registry.register(a)
        #expect(first.isNew && first.id == 1 && first.replaced == nil)
        #expect(registry.register(a).id == 1)
        #expect(!registry.register(a).isNew)
        #expect(registry.register(b).id == 2)
        #expect(registry.id(of: a) == 1)
        #expect(registry.generation(of: a) == 0)
    }

    @Test func theIdentityHoldsWhileTheObjectRunsItsDeinit() {
        let registry = Locked(OwnerRegistry())
        let seen = Log<(UInt64?, OwnerRegistry.Registration)>()
        var thing: Thing? = Thing { dying in
            // Weak references to `dying` read nil here; the registry still knows it.
            let found = registry.withLock { ($0.id(of: dying), $0.register(dying)) }
            seen.append(found)
        }
        let id = registry.withLock { $0.register(thing!).id }
        thing = nil
        _ = thing
        let (found, registration) = seen.all[0]
        #expect(found == id)
        #expect(registration.id == id && !registration.isNew && registration.replaced == nil)
    }

    @Test func aNewObjectAtAReleasedOnesAddressIsANewIdentity() throws {
        var registry = OwnerRegistry()
        var old: Thing? = Thing()
        let address = ObjectIdentifier(old!)
        let oldID = registry.register(old!).id
        old = nil
        _ = old
        // The allocator reuses a freed block of the same size soon; keep everything alive
        // until one lands at the released object's address.
        var made: [Thing] = []
        var reused: Thing?
        for _ in 0..<10_000 {
            let candidate = Thing()
            if ObjectIdentifier(candidate) == address { reused = candidate; break }
            made.append(candidate)
        }
        let new = try #require(reused, "no object landed at the released address")
        #expect(registry.id(of: new) == nil, "not the old identity")
        let registration = registry.register(new)
        #expect(registration.isNew)
        #expect(registration.id != oldID)
        #expect(registration.replaced == oldID, "the old one is reported released first")
        #expect(registry.generation(of: new) == 1)
        withExtendedLifetime(made) {}
    }

    @Test func aSweepReportsEachReleaseOnceAndForgetsItLater() {
        var registry = OwnerRegistry()
        var thing: Thing? = Thing()
        let keep = Thing()
        let id = registry.register(thing!).id
        _ = registry.register(keep)
        thing = nil
        _ = thing
        var alive: [AnyObject] = []
        let released = registry.sweep(alive: &alive)
        #expect(released == [id])
        #expect(alive.count == 1)
        #expect(registry.isReleased(id))
        #expect(registry.records.count == 2, "kept one sweep longer, for a deinit under way")
        let none = registry.sweep(alive: &alive)
        #expect(none.isEmpty)
        #expect(registry.records.count == 1)
        let again = registry.markReleased(id)
        #expect(!again, "reported once")
    }

    @Test func aReleaseReportedByAPostIsNotReportedAgainBySweep() {
        var registry = OwnerRegistry()
        var thing: Thing? = Thing()
        let id = registry.register(thing!).id
        thing = nil
        _ = thing
        let first = registry.markReleased(id)
        #expect(first)
        var alive: [AnyObject] = []
        let swept = registry.sweep(alive: &alive)
        #expect(swept.isEmpty)
    }
}

@Suite struct RecordingSessionTests {
    @Test func theSessionNumbersEveryBusesEventsOnce() {
        let sink = MemoryTraceSink()
        let a = Bus(sink: sink), b = Bus(sink: sink)
        #expect(a.session === b.session)
        #expect(a.session === sink.recordingSession)
        a.post(Ping(n: 1))
        b.post(Ping(n: 2))
        a.post(Ping(n: 3))
        #expect(sink.recordingSession.lastSeq == 3)
        #expect(sink.events.map(\.seq) == [1, 2, 3])
    }

    @Test func anObjectSeenByTwoBusesIsOneOwner() {
        let sink = MemoryTraceSink()
        let a = Bus(sink: sink), b = Bus(sink: sink)
        let owner = Owner("shared")
        let tokens = [a.observe(Ping.self, owner: owner) { _ in }, b.observe(Ping.self, owner: owner) { _ in }]
        #expect(sink.recordingSession.ownerCount == 1)
        #expect(sink.events.map(describe).filter { $0.hasPrefix("owner") } == ["owner 1 shared"])
        withExtendedLifetime(tokens) {}
    }

    @Test func busesWithoutASinkHaveSessionsOfTheirOwn() {
        let a = Bus(), b = Bus()
        #expect(a.session !== b.session)
        #expect(a.session.lastSeq == 0)
    }
}
