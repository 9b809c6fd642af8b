import NotifyBus
import Testing

/// An object that observes: not a screen.
final class Helper: TraceLabeled, @unchecked Sendable {
    // @unchecked: `received` is written only by handlers that run on the posting test thread.
    let traceLabel: String
    var received: [Int] = []
    var token: ObservationToken?
    init(_ label: String) { traceLabel = label }
    func ping(_ message: Ping) { received.append(message.n) }
}

/// The facts of NOTIFICATIONCENTER.md, one test each, on plain objects.
@Suite struct SelectorObserverTests {
    @Test func targetIsHeldWeaklyAndModernSemanticsDropItSilently() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        var target: Helper? = Helper("helper")
        weak let weakTarget = target
        bus.addObserver(target!, selector: "ping:", name: Ping.self, action: Helper.ping)
        bus.post(Ping(n: 1))
        #expect(target?.received == [1])
        target = nil
        #expect(weakTarget == nil)
        bus.post(Ping(n: 2))
        #expect(bus.observerCount == 0)
        #expect(sink.events.map(describe).suffix(4) == [
            "post 2 Ping parent:- app", "released 1", "skip 2->1", "remove 1 Ping ownerGone",
        ])
    }

    @Test func legacySemanticsRecordATrapAndNeverCallTheAction() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink, selectorSemantics: .legacy)
        var target: Helper? = Helper("helper")
        bus.addObserver(target!, selector: "ping:", name: Ping.self, action: Helper.ping)
        target = nil
        bus.post(Ping(n: 1))
        bus.post(Ping(n: 2))
        // Nothing removes it: each post would message the deallocated instance.
        #expect(bus.observerCount == 1)
        #expect(sink.events.map(describe).filter { $0.hasPrefix("trap") } == [
            "trap 1->1 deallocatedTarget", "trap 2->1 deallocatedTarget",
        ])
    }

    @Test func addingTheSameSelectorTwiceRunsItTwicePerPost() {
        let bus = Bus()
        let target = Helper("helper")
        bus.addObserver(target, selector: "ping:", name: Ping.self, action: Helper.ping)
        bus.addObserver(target, selector: "ping:", name: Ping.self, action: Helper.ping)
        bus.post(Ping(n: 7))
        #expect(target.received == [7, 7])
    }

    @Test func removeObserverSelfRemovesEverySelectorObserverWhoeverAddedIt() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let target = Helper("helper")
        bus.addObserver(target, selector: "ping:", name: Ping.self, action: Helper.ping)
        addObserverAsAFrameworkWould(bus, target)
        bus.removeObserver(target)
        bus.post(Ping(n: 1))
        bus.post(NamedMessage(name: "memoryWarning"))
        #expect(target.received.isEmpty)
        #expect(bus.observerCount == 0)
        #expect(sink.events.map(describe).filter { $0.hasPrefix("remove") } == [
            "remove 1 Ping ownerSelectors", "remove 2 memoryWarning ownerSelectors",
        ])
    }

    private func addObserverAsAFrameworkWould(_ bus: Bus, _ target: Helper) {
        bus.addObserver(target, selector: "memoryWarning:", name: "memoryWarning") { helper in { _ in helper.received.append(-1) } }
    }

    @Test func removalByNameRemovesThatNameOnlyAndRecordsAMissWithTheNameAskedFor() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let target = Helper("helper")
        bus.addObserver(target, selector: "ping:", name: Ping.self, action: Helper.ping)
        bus.removeObserver(target, name: KeyboardWillHide.self)
        bus.post(Ping(n: 1))
        #expect(target.received == [1])
        bus.removeObserver(target, name: Ping.self)
        bus.post(Ping(n: 2))
        #expect(target.received == [1])
        #expect(sink.events.map(describe).filter { $0.hasPrefix("remove") } == [
            "remove - keyboardWillHide explicit", "remove 1 Ping explicit",
        ])
    }
}

@Suite struct BlockObserverTests {
    @Test func theBusKeepsTheBlockUntilItsObservationIsRemoved() {
        let bus = Bus()
        let owner = Helper("owner")
        let log = Log<Int>()
        var observation: BlockObservation? = bus.addObserver(forName: Ping.self, owner: owner, capture: .weak) {
            log.append($0.n)
        }
        let kept = observation!
        observation = nil
        bus.post(Ping(n: 1))
        #expect(log.all == [1])
        bus.removeObserver(kept)
        bus.post(Ping(n: 2))
        #expect(log.all == [1])
        #expect(bus.observerCount == 0)
    }

    @Test func removalsByOwnerAndByNameDoNotReachABlock() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let owner = Helper("owner")
        let log = Log<Int>()
        let observation = bus.addObserver(forName: Ping.self, owner: owner, capture: .weak) { log.append($0.n) }
        bus.removeObserver(owner)
        bus.removeObserver(owner, name: Ping.self)
        bus.post(Ping(n: 1))
        #expect(log.all == [1])
        #expect(sink.events.map(describe).filter { $0.hasPrefix("remove") } == [
            "remove - ? ownerSelectors", "remove - Ping explicit",
        ])
        bus.removeObserver(observation as AnyObject)
        bus.post(Ping(n: 2))
        #expect(log.all == [1])
    }

    @Test func aStrongCaptureKeepsTheOwnerAliveAndASweepSaysSo() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        var owner: Helper? = Helper("owner")
        weak let weakOwner = owner
        let observation = bus.addObserver(forName: Ping.self, owner: owner!, capture: .strong) { _ in }
        owner = nil
        #expect(weakOwner != nil)
        bus.sweepReleasedOwners()
        bus.sweepReleasedOwners()
        #expect(sink.events.map(describe).filter { $0.hasPrefix("released") } == ["released 1 kept by 1"])
        bus.removeObserver(observation)
        #expect(weakOwner == nil)
    }

    @Test func aWeakCaptureKeepsRunningAfterTheOwnerAndEveryRunIsRecorded() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        var owner: Helper? = Helper("owner")
        let log = Log<Int>()
        let observation = bus.addObserver(forName: Ping.self, owner: owner!, capture: .weak) { log.append($0.n) }
        owner = nil
        bus.post(Ping(n: 1))
        bus.post(Ping(n: 2))
        #expect(log.all == [1, 2])
        #expect(sink.events.map(describe).filter { $0.hasPrefix("deliver") || $0.hasPrefix("released") } == [
            "released 1", "deliver 1->1", "deliver 2->1",
        ])
        _ = observation
    }

    @Test func anUnownedCaptureTrapsAtTheFirstRunAfterTheOwner() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        var owner: Helper? = Helper("owner")
        let log = Log<Int>()
        let observation = bus.addObserver(forName: Ping.self, owner: owner!, capture: .unowned) { log.append($0.n) }
        bus.post(Ping(n: 1))
        owner = nil
        bus.post(Ping(n: 2))
        #expect(log.all == [1])
        #expect(sink.events.map(describe).filter { $0.hasPrefix("trap") } == ["trap 2->1 unownedCapture"])
        _ = observation
    }
}

@Suite struct TokenAndNamedMessageTests {
    @Test func aTokenDroppedAtOnceIsNeverCalledAndRemovingTwiceIsHarmless() {
        let bus = Bus()
        let log = Log<Int>()
        _ = bus.observe(Ping.self) { log.append($0.n) }
        bus.post(Ping(n: 1))
        #expect(log.all.isEmpty)
        let token = bus.observe(Ping.self) { log.append($0.n) }
        bus.remove(token)
        bus.remove(token)
        #expect(bus.observerCount == 0)
    }

    @Test func namedMessagesAreObservedPostedAndRecordedWithTheirPayload() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let owner = Helper("player")
        let log = Log<String>()
        let token = bus.observe(named: "AVAudioSessionInterruptionNotification", owner: owner) { note in
            log.append(note.payload["type"]?.description ?? "-")
        }
        bus.post(NamedMessage(name: "AVAudioSessionInterruptionNotification", payload: ["type": "began"]))
        bus.post(NamedMessage(name: "someOtherName", payload: ["type": "ended"]))
        bus.post(Ping(n: 1))
        #expect(log.all == [#""began""#])
        let posted = sink.events.compactMap { event -> String? in
            if case .posted(_, let message, _, _, _) = event.kind { message.messageName } else { nil }
        }
        #expect(posted == ["AVAudioSessionInterruptionNotification", "someOtherName", "NotifyBusTests.Ping"])
        _ = token
    }

    @Test func aJSONValueNeverHoldsANonFiniteNumber() {
        #expect(JSONValue(number: .nan) == nil)
        #expect(JSONValue(number: .infinity) == nil)
        #expect(JSONValue(number: 2.5) == .number(2.5))
        #expect(JSONValue.number(.nan).description == "null")
    }

    @Test func attachingRecordsWhereAnObjectLives() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let screen = Helper("AztecEditor"), helper = Helper("KeyboardFrameObserver")
        bus.attach(helper, to: screen)
        #expect(sink.events.map(describe) == [
            "owner 1 KeyboardFrameObserver", "owner 2 AztecEditor", "attach 1 to 2",
        ])
    }
}
