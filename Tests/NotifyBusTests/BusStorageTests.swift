import Foundation
import Synchronization
import Testing
@testable import NotifyBus

/// The bus's own storage, which the add/remove speed work changed: the table of lists
/// by type, the lists' removal of their last observer, and tokens' identity.
@Suite struct BusStorageTests {
    /// Distinct message types, built by nesting.
    struct Nest<Inner: BusMessage>: BusMessage { var n: Int }

    @Test func slotTableFindsEveryKeyAcrossGrowthAndNoOtherKey() {
        var table = SlotTable()
        let handle = BusHandle()
        // Class instances give distinct identifiers, as type metadata does; they stay alive.
        let keys = (0..<1_000).map { _ in ObserverList(name: "key", handle: handle) }
        for (index, key) in keys.enumerated() {
            #expect(table[ObjectIdentifier(key)] == nil)
            table.insert(ObserverList(name: "list \(index)", handle: handle), for: ObjectIdentifier(key))
        }
        #expect(table.count == 1_000)
        for (index, key) in keys.enumerated() {
            #expect(table[ObjectIdentifier(key)]?.name == "list \(index)")
        }
        let stranger = ObserverList(name: "stranger", handle: handle)
        #expect(table[ObjectIdentifier(stranger)] == nil)
        #expect(Set(table.lists.map(\.name)) == Set((0..<1_000).map { "list \($0)" }))
    }

    @Test func postsReachEachOfManyTypesOnlyItsOwnObservers() {
        let bus = Bus()
        let counts = Mutex([String: Int]())
        var tokens: [ObservationToken] = []
        func register<M: BusMessage>(_ type: M.Type, depth: Int) {
            tokens.append(bus.observe(type) { _ in counts.withLock { $0[M.name, default: 0] += 1 } })
            if depth > 1 { register(Nest<M>.self, depth: depth - 1) }
        }
        register(Ping.self, depth: 40)
        bus.post(Ping(n: 1))
        bus.post(Nest<Nest<Ping>>(n: 1))
        bus.post(Nest<Nest<Ping>>(n: 2))
        #expect(counts.withLock { $0 } == [Ping.name: 1, Nest<Nest<Ping>>.name: 2])
        withExtendedLifetime(tokens) {}
    }

    @Test func removingTheLastObserversKeepsTheOrderOfTheRest() {
        let bus = Bus()
        let calls = Mutex([String]())
        func observer(_ name: String) -> ObservationToken {
            bus.observe(Ping.self) { _ in calls.withLock { $0.append(name) } }
        }
        let a = observer("a"), b = observer("b"), c = observer("c")
        bus.remove(b)          // a hole in the middle
        bus.remove(c)          // the last one: goes, with the hole before it
        let d = observer("d")
        bus.post(Ping(n: 0))
        #expect(calls.withLock { $0 } == ["a", "d"])
        #expect(bus.observerCount == 2)
        bus.remove(d)
        bus.remove(a)
        #expect(bus.observerCount == 0)
        let e = observer("e")
        calls.withLock { $0 = [] }
        bus.post(Ping(n: 1))
        #expect(calls.withLock { $0 } == ["e"])
        withExtendedLifetime((a, b, c, d, e)) {}
    }

    @Test func aTokenOfAReleasedBusIsIgnoredByANewOne() {
        var old: Bus? = Bus()
        let token = old!.observe(Ping.self) { _ in }
        let oldAddress = ObjectIdentifier(old!)
        old = nil
        // A new bus at the released bus's address is the case a comparison by address gets
        // wrong: make buses until the allocator gives that address back (glibc's does at once;
        // a sanitizer's quarantine may never, and then any address shows the token is not its own).
        var candidates: [Bus] = []
        var bus = Bus()
        while ObjectIdentifier(bus) != oldAddress && candidates.count < 1_000 {
            candidates.append(bus)
            bus = Bus()
        }
        let calls = Mutex(0)
        let mine = bus.observe(Ping.self) { _ in calls.withLock { $0 += 1 } }
        bus.remove(token)
        bus.post(Ping(n: 0))
        #expect(calls.withLock { $0 } == 1)
        #expect(bus.observerCount == 1)
        withExtendedLifetime((token, mine, candidates)) {}
    }
}
