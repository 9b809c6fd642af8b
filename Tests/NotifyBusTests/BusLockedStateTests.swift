import Foundation
import NotifyBus
import Synchronization
import Testing

/// The bus's state behind its lock is partly not checked for exclusivity at run time
/// (`@exclusivity(unchecked)` on `Locked.value`, `Bus.Slots.items` and `live`): the lock is what
/// makes each access exclusive, as it is for `Observer.slot` and `slots` and `OwnerRetainer.count`.
/// This test writes every one of those fields from several threads at once, so that an access
/// made without the lock races with a locked write and ThreadSanitizer reports it:
///
/// ```sh
/// swift test --sanitize=thread --scratch-path .build-tsan --filter BusLockedStateTests
/// ```
///
/// Without the sanitizer it checks the counts the lock keeps.
@Suite struct BusLockedStateTests {
    /// Four threads on one bus, each round: adds typed, named and wildcard observers and `strong`
    /// blocks of one shared owner, posts, then removes the typed ones front to back (holes, then a
    /// compaction that renumbers the other threads' observers' `slot`), the rest in turn.
    @Test func everyLockedFieldIsWrittenFromManyThreadsAtOnce() {
        let bus = Bus()
        let owner = Owner("shared")
        let stable = Atomic<Int>(0)
        let token = bus.observe(Ping.self) { _ in stable.add(1, ordering: .relaxed) }
        let threads = 4, rounds = 150, perRound = 24
        BusConcurrencyTests.onThreads(threads) { thread in
            for round in 0..<rounds {
                var tokens = (0..<perRound).map { _ in bus.observe(Ping.self) { _ in } }
                let named = bus.observe(named: "locked-state") { _ in }
                let all = bus.observeAll { _ in }
                let blocks = (0..<3).map { _ in bus.addObserver(forName: Ping.self, owner: owner, capture: .strong) { _ in } }
                bus.post(Ping(n: thread * rounds + round))
                bus.post(NamedMessage(name: "locked-state"))
                while !tokens.isEmpty { bus.remove(tokens.removeFirst()) }
                for block in blocks { bus.removeObserver(block) }
                bus.remove(named)
                bus.remove(all)
            }
        }
        #expect(stable.load(ordering: .relaxed) == threads * rounds)
        #expect(bus.observerCount == 1)
        _ = token
    }
}
