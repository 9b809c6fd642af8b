import NotifyBus
import Testing

@Suite struct BusRecordingTests {
    @MainActor @Test func everyChangeReachesTheSinkWithIncreasingSequenceNumbers() {
        let sink = MemoryTraceSink()
        let clock = ManualClock()
        let bus = Bus(sink: sink, clock: clock.traceClock)
        let owner = Owner("Login")
        let token = bus.observe(KeyboardWillShow.self, owner: owner, line: 42) { _ in }
        clock.advance(bySeconds: 1.5)
        bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: .zero, curve: .keyboard, duration: 0.25))
        bus.remove(token)
        let events = sink.events
        #expect(events.map(\.seq) == Array(1...Int(events.count)).map(UInt64.init))
        #expect(events.map(describe) == [
            "owner 1 Login", "add 1 keyboardWillShow owner:1",
            "post 1 keyboardWillShow parent:- app", "deliver 1->1",
            "remove 1 keyboardWillShow explicit",
        ])
        #expect(events[0].time == 0)
        #expect(events[2].time == 1_500_000_000)
        if case .observerAdded(_, _, _, _, let callSite, _, _, _) = events[1].kind {
            #expect(callSite.line == 42)
            #expect(callSite.file.hasSuffix("BusRecordingTests.swift"))
        } else {
            Issue.record("second event is not observerAdded")
        }
    }

    @Test func postedEventsCarryTheTypedMessage() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        bus.post(OrientationDidChange(device: .landscapeLeft, interface: .landscapeRight))
        guard case .posted(_, let message, _, _, _) = sink.events.first?.kind else {
            Issue.record("no post recorded"); return
        }
        #expect(message as? OrientationDidChange == OrientationDidChange(device: .landscapeLeft, interface: .landscapeRight))
    }

    @Test func senderIsRegisteredAsAnOwnerOnce() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let sender = Owner("Keyboard")
        bus.post(Ping(n: 1), sender: sender)
        bus.post(Ping(n: 2), sender: sender)
        #expect(sink.events.map(describe) == [
            "owner 1 Keyboard", "post 1 Ping parent:- app", "post 2 Ping parent:- app",
        ])
    }

    @Test func busWithoutSinkRecordsNothingAndStillDelivers() {
        let bus = Bus()
        #expect(!bus.isRecording)
        let log = Log<Int>()
        let owner = Owner()
        let live = bus.observe(Ping.self, owner: owner) { log.append($0.n * 10) }
        let token = bus.observe(Ping.self, owner: Owner()) { log.append($0.n) }
        bus.post(Ping(n: 1))
        // The live owner's observer runs; the second owner was a temporary:
        // gone, so skipped and removed even without recording.
        #expect(log.all == [10])
        #expect(bus.observerCount == 1)
        _ = (token, live, owner)
    }
}
