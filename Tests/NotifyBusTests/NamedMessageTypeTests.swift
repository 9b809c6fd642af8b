import Foundation
import Synchronization
import Testing
import NotifyBus

/// `observe(NamedMessage.self) { … }` registered an observer of the type name "NamedMessage", which
/// no named post reaches. Concrete calls now get a compiler warning naming `observe(named:)` (each
/// spelling: token, `@MainActor`, `async`, `messages(of:)`, block, selector; checked by compiling
/// a file against the module, see the commit); code generic over `BusMessage` stops at the add.
@Suite struct NamedMessageTypeTests {
    final class Target: Sendable {
        let heard = Mutex<[String]>([])
        func note(_ message: NamedMessage) { heard.withLock { $0.append(message.name) } }
    }

    /// The named spellings, which are the right ones, hear their names and only those.
    @Test func theNamedSpellingsHearTheirNames() {
        let bus = Bus()
        let owner = Owner()
        let target = Target()
        let heard = Mutex<[String]>([])
        let token = bus.observe(named: "Interrupted", owner: owner) { note in heard.withLock { $0.append("token \(note.name)") } }
        let block = bus.addObserver(forName: "Interrupted", owner: owner, capture: .weak) { note in
            heard.withLock { $0.append("block \(note.name)") }
        }
        bus.addObserver(target, selector: "note:", name: "Interrupted", action: Target.note)
        bus.post(NamedMessage(name: "Interrupted", payload: ["type": "began"]))
        bus.post(NamedMessage(name: "Other"))
        #expect(heard.withLock { $0 } == ["token Interrupted", "block Interrupted"])
        #expect(target.heard.withLock { $0 } == ["Interrupted"])
        bus.removeObserver(block)
        withExtendedLifetime(token) {}
    }

    /// Observing a message type generically still works for every type but `NamedMessage`.
    @Test func aGenericObserverOfATypedMessageHearsIt() {
        let bus = Bus()
        let heard = Mutex(0)
        let token = observeGenerically(Ping.self, on: bus) { heard.withLock { $0 += 1 } }
        bus.post(Ping(n: 1))
        #expect(heard.withLock { $0 } == 1)
        withExtendedLifetime(token) {}
    }

    /// Generic code cannot be warned at compile time: the add stops the process, saying why.
    @Test func aGenericObserverOfNamedMessageStopsTheProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let bus = Bus()
            _ = observeGenerically(NamedMessage.self, on: bus) {}
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("a NamedMessage is observed by its name: observe(named:)"), "\(said)")
    }
}

/// An observer of `type`, added by code that knows only that it is a `BusMessage`.
private func observeGenerically<M: BusMessage>(_ type: M.Type, on bus: Bus, _ heard: @escaping @Sendable () -> Void) -> ObservationToken {
    bus.observe(type) { _ in heard() }
}
