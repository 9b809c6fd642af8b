import NotifyBus
import Testing

/// An object that registers in its initializer and cleans up in its `deinit`, in one of
/// the ways real code does (`NOTIFICATIONCENTER.md`): Foundation's `removeObserver(self)`,
/// the bus's `removeAll(owner: self)`, a removal by owner and name, or by its block's token.
private final class Screen: TraceLabeled, @unchecked Sendable {
    // @unchecked: `observation` and `token` are set in init and read in deinit, on one thread.
    enum Cleanup { case removeObserverSelf, removeAllOwner, removeByName, removeBlockByToken, nothing }
    enum Kind { case selector, block, token }

    let traceLabel = "screen"
    let bus: Bus
    let cleanup: Cleanup
    let heard: Log<Int>
    var observation: BlockObservation?
    var token: ObservationToken?

    init(bus: Bus, kind: Kind, cleanup: Cleanup, heard: Log<Int>) {
        self.bus = bus
        self.cleanup = cleanup
        self.heard = heard
        switch kind {
        case .selector:
            bus.addObserver(self, selector: "ping:", name: Ping.self, action: Screen.ping)
        case .block:
            observation = bus.addObserver(forName: Ping.self, owner: self, capture: .weak) { [heard] in heard.append($0.n) }
        case .token:
            token = bus.observe(Ping.self, owner: self) { [heard] in heard.append($0.n) }
        }
    }

    func ping(_ message: Ping) { heard.append(message.n) }

    deinit {
        switch cleanup {
        case .removeObserverSelf: bus.removeObserver(self)
        case .removeAllOwner: bus.removeAll(owner: self)
        case .removeByName: bus.remove(Ping.self, owner: self)
        case .removeBlockByToken: if let observation { bus.removeObserver(observation) }
        case .nothing: break
        }
    }
}

@Suite struct DeinitRemovalTests {
    /// Runs a screen's life: made, posted to, released (running its deinit), posted to again.
    private func life(_ kind: Screen.Kind, _ cleanup: Screen.Cleanup, semantics: SelectorSemantics = .modern)
        -> (events: [String], heard: [Int], remaining: Int) {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink, selectorSemantics: semantics)
        let heard = Log<Int>()
        var screen: Screen? = Screen(bus: bus, kind: kind, cleanup: cleanup, heard: heard)
        bus.post(Ping(n: 1))
        screen = nil
        _ = screen
        bus.post(Ping(n: 2))
        return (sink.events.map(describe), heard.all, bus.observerCount)
    }

    @Test func removeObserverSelfInDeinitRemovesTheSelectorObserver() {
        let (events, heard, remaining) = life(.selector, .removeObserverSelf)
        #expect(heard == [1])
        #expect(remaining == 0)
        #expect(events.contains("remove 1 Ping ownerSelectors"), "\(events)")
        #expect(events.filter { $0.hasPrefix("owner ") }.count == 1, "no second owner: \(events)")
    }

    @Test func legacySemanticsWithRemoveObserverSelfInDeinitNeitherMakesAPhantomOwnerNorTraps() {
        let (events, heard, remaining) = life(.selector, .removeObserverSelf, semantics: .legacy)
        #expect(heard == [1])
        #expect(remaining == 0)
        #expect(!events.contains { $0.hasPrefix("trap") }, "\(events)")
        #expect(events.filter { $0.hasPrefix("owner ") } == ["owner 1 screen"], "\(events)")
        #expect(events.contains("remove 1 Ping ownerSelectors"), "\(events)")
    }

    @Test(arguments: [Screen.Kind.selector, .block, .token])
    fileprivate func removeAllOwnerInDeinitRemovesEveryKind(_ kind: Screen.Kind) {
        let (events, heard, remaining) = life(kind, .removeAllOwner)
        #expect(heard == [1])
        #expect(remaining == 0)
        #expect(events.contains("remove 1 Ping ownerRemoved"), "\(events)")
    }

    @Test(arguments: [Screen.Kind.selector, .block, .token])
    fileprivate func removalByOwnerAndNameInDeinitRemovesEveryKind(_ kind: Screen.Kind) {
        let (events, heard, remaining) = life(kind, .removeByName)
        #expect(heard == [1])
        #expect(remaining == 0)
        #expect(events.contains("remove 1 Ping explicit"), "\(events)")
        #expect(events.filter { $0.hasPrefix("owner ") }.count == 1, "\(events)")
    }

    @Test func removeObserverSelfInDeinitLeavesABlockRegisteredAsFoundationDoes() {
        let (events, heard, remaining) = life(.block, .removeObserverSelf)
        // The weak block keeps running after its owner is gone: removeObserver(self) does not reach it.
        #expect(heard == [1, 2])
        #expect(remaining == 1)
        #expect(events.contains("remove - ? ownerSelectors"), "the miss is recorded against the owner: \(events)")
        #expect(events.filter { $0.hasPrefix("owner ") }.count == 1, "\(events)")
    }

    @Test func aBlockRemovedByItsTokenInDeinitIsGone() {
        let (events, heard, remaining) = life(.block, .removeBlockByToken)
        #expect(heard == [1])
        #expect(remaining == 0)
        #expect(events.contains("remove 1 Ping explicit"), "\(events)")
    }

    @Test func removeObserverSelfInDeinitLeavesATokenObserverToItsToken() {
        let (events, heard, remaining) = life(.token, .removeObserverSelf)
        #expect(heard == [1])
        #expect(remaining == 0)
        // The token stored in the screen is released right after its deinit: that removes it.
        #expect(events.contains("remove 1 Ping tokenReleased"), "\(events)")
        #expect(!events.contains("remove 1 Ping ownerSelectors"), "\(events)")
    }

    @Test func removeAllInDeinitWorksOnABusThatDoesNotRecord() {
        let bus = Bus()
        let heard = Log<Int>()
        var screen: Screen? = Screen(bus: bus, kind: .selector, cleanup: .removeAllOwner, heard: heard)
        screen = nil
        _ = screen
        #expect(bus.observerCount == 0)
        bus.post(Ping(n: 1))
        #expect(heard.all.isEmpty)
    }
}
