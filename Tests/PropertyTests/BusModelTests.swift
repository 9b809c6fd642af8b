import NotifyBus
import PropertyBased
import TestSupport
import Testing

/// Runs steps on a real bus, holding tokens, observations and owners as a program would.
final class BusHarness {
    let sink: MemoryTraceSink
    /// The buses, all recording into `sink`.
    let buses: [Bus]
    var bus: Bus { buses[0] }
    let log: DeliveryLog
    private var owners: [ModelOwner?]
    /// Tokens and observations, with the index of the bus that made them.
    private var tokens: [(ObservationToken, Int)] = []
    private var blocks: [(BlockObservation, Int)] = []

    /// A harness with `buses` buses of its own, recording into one sink.
    convenience init(semantics: SelectorSemantics, buses: Int = 1) {
        let sink = MemoryTraceSink()
        let made = (0..<buses).map { _ in Bus(sink: sink, clock: TraceClock { 0 }, selectorSemantics: semantics) }
        self.init(buses: made, sink: sink, log: DeliveryLog())
    }

    /// A harness on a shared bus, with owners of its own labelled after `prefix`.
    convenience init(bus: Bus, sink: MemoryTraceSink, log: DeliveryLog, prefix: String = "") {
        self.init(buses: [bus], sink: sink, log: log, prefix: prefix)
    }

    init(buses: [Bus], sink: MemoryTraceSink, log: DeliveryLog, prefix: String = "") {
        self.buses = buses
        self.sink = sink
        self.log = log
        owners = (0..<ownerCount).map { ModelOwner(prefix, $0) }
    }

    /// Whether `op` applies now: its owner is held, there is a token to remove.
    func canApply(_ op: BusOp) -> Bool {
        switch op {
        case .observe(let owner?, _), .block(let owner, _, _), .selector(let owner, _), .removeSelectors(let owner, _),
             .removeAll(let owner), .removeMessage(let owner, _), .post(_, let owner?), .releaseOwner(let owner, _):
            owners[owner] != nil
        case .removeToken, .releaseToken: !tokens.isEmpty
        case .removeBlock: !blocks.isEmpty
        case .observe, .post, .sweep: true
        }
    }

    var deliveries: [Delivery] { log.all }
    var events: [ModelEvent] { sink.events.map { ModelEvent($0.kind) } }

    /// A handler that logs which step's observer got which step's post.
    private func handler<M>(step: Int, _ post: @escaping @Sendable (M) -> Int) -> @Sendable (M) -> Void {
        { [log] message in log.append(Delivery(observer: step, post: post(message))) }
    }

    private static func step(of message: any BusMessage) -> Int {
        switch message {
        case let ping as Ping: ping.n
        case let pong as Pong: pong.n
        default: -1
        }
    }

    func apply(_ op: BusOp, step: Int, bus index: Int = 0) {
        let file = "step", line = step
        let bus = buses[index]
        switch op {
        case .observe(let owner, let message):
            let owner = owner.map { owners[$0]! }
            switch message {
            case .ping?: tokens.append((bus.observe(Ping.self, owner: owner, file: file, line: line, handler(step: step) { $0.n }), index))
            case .pong?: tokens.append((bus.observe(Pong.self, owner: owner, file: file, line: line, handler(step: step) { $0.n }), index))
            case nil: tokens.append((bus.observeAll(owner: owner, file: file, line: line, handler(step: step, Self.step(of:))), index))
            }
        case .block(let owner, let message, let capture):
            let owner = owners[owner]!
            switch message {
            case .ping: blocks.append((bus.addObserver(forName: Ping.self, owner: owner, capture: capture, file: file, line: line,
                                                       using: handler(step: step) { $0.n }), index))
            case .pong: blocks.append((bus.addObserver(forName: Pong.self, owner: owner, capture: capture, file: file, line: line,
                                                       using: handler(step: step) { $0.n }), index))
            }
        case .selector(let owner, let message):
            let owner = owners[owner]!
            let ping: @Sendable (Ping) -> Void = handler(step: step) { $0.n }
            let pong: @Sendable (Pong) -> Void = handler(step: step) { $0.n }
            switch message {
            case .ping: bus.addObserver(owner, selector: "handle\(Ping.name):", name: Ping.self, file: file, line: line) { _ in ping }
            case .pong: bus.addObserver(owner, selector: "handle\(Pong.name):", name: Pong.self, file: file, line: line) { _ in pong }
            }
        case .removeToken(let position):
            let (token, made) = tokens[position % tokens.count]
            buses[made].remove(token, file: file, line: line)
        case .releaseToken(let position): tokens.remove(at: position % tokens.count)
        case .removeBlock(let position):
            let (observation, made) = blocks[position % blocks.count]
            buses[made].removeObserver(observation, file: file, line: line)
        case .removeSelectors(let owner, nil): bus.removeObserver(owners[owner]!, file: file, line: line)
        case .removeSelectors(let owner, .ping?): bus.removeObserver(owners[owner]!, name: Ping.self, file: file, line: line)
        case .removeSelectors(let owner, .pong?): bus.removeObserver(owners[owner]!, name: Pong.self, file: file, line: line)
        case .removeAll(let owner): bus.removeAll(owner: owners[owner]!, file: file, line: line)
        case .removeMessage(let owner, .ping): bus.remove(Ping.self, owner: owners[owner]!, file: file, line: line)
        case .removeMessage(let owner, .pong): bus.remove(Pong.self, owner: owners[owner]!, file: file, line: line)
        case .post(let message, let sender):
            let sender = sender.map { owners[$0]! }
            switch message {
            case .ping: bus.post(Ping(n: step), sender: sender)
            case .pong: bus.post(Pong(n: step), sender: sender)
            }
        case .releaseOwner(let owner, let cleanup):
            let buses = self.buses
            owners[owner]!.onDeinit.set { object in
                for bus in buses {
                    switch cleanup {
                    case .nothing: break
                    case .removeObserverSelf: bus.removeObserver(object, file: "deinit", line: owner)
                    case .removeAll: bus.removeAll(owner: object, file: "deinit", line: owner)
                    case .removePing: bus.remove(Ping.self, owner: object, file: "deinit", line: owner)
                    }
                }
            }
            owners[owner] = nil
        case .sweep: bus.sweepReleasedOwners()
        }
    }
}

/// Steps as generated numbers: shrinking removes steps and lowers numbers.
let stepCodes = Gen.int(in: 0...1_000_000).array(of: 1...60)

/// Compares a run's trace with the model's, saying where they first differ.
func differences(_ actual: [ModelEvent], _ expected: [ModelEvent], applied: [String]) -> Comment {
    let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    return """
        events differ at \(first): bus \(actual.dropFirst(first).first.map(String.init(describing:)) ?? "none"), \
        model \(expected.dropFirst(first).first.map(String.init(describing:)) ?? "none")
        steps:
        \(applied.joined(separator: "\n"))
        """
}

@Suite struct BusModelTests {
    /// Any single-threaded sequence of adds, removals, posts, token and owner releases
    /// and sweeps delivers to the same observers and records the same events, in the
    /// same order, as the model.
    @Test(arguments: SelectorSemantics.allCases)
    func aSequenceDeliversAndRecordsWhatTheModelSays(semantics: SelectorSemantics) async {
        await propertyCheck(count: iterations(default: 150), input: stepCodes) { codes in
            let ops = codes.map(BusOp.init(code:))
            var model = BusModel(semantics: semantics)
            let harness = BusHarness(semantics: semantics)
            var applied: [String] = []
            for (step, op) in ops.enumerated() where model.apply(op, step: step) {
                harness.apply(op, step: step)
                applied.append("\(step): \(op)")
            }
            let actual = harness.events
            #expect(actual == model.events, differences(actual, model.events, applied: applied))
            #expect(harness.deliveries == model.deliveries)
            #expect(harness.bus.observerCount == model.activeCount)
            #expect(harness.sink.events.map(\.seq) == (0..<actual.count).map { UInt64($0 + 1) })
        }
    }

    /// Several buses recording into one sink, each step on one of them: one sequence, one set
    /// of ids and owners, and each bus delivering and removing its own observers as the model says
    /// (owners' deinits clean up on every bus).
    @Test(arguments: [2, 3])
    func busesSharingASinkDeliverAndRecordWhatTheModelSays(buses: Int) async {
        let input = Gen.int(in: 0...1_000_000).array(of: 1...60)
        await propertyCheck(count: iterations(default: 100), input: input) { codes in
            var model = BusModel(semantics: .legacy, buses: buses)
            let harness = BusHarness(semantics: .legacy, buses: buses)
            var applied: [String] = []
            for (step, code) in codes.enumerated() {
                let op = BusOp(code: code), bus = (code / 7) % buses
                guard model.apply(op, step: step, bus: bus) else { continue }
                harness.apply(op, step: step, bus: bus)
                applied.append("\(step) on bus \(bus): \(op)")
            }
            let actual = harness.events
            #expect(actual == model.events, differences(actual, model.events, applied: applied))
            #expect(harness.deliveries == model.deliveries)
            #expect(harness.buses.map(\.observerCount).reduce(0, +) == model.activeCount)
            #expect(harness.sink.events.map(\.seq) == (0..<actual.count).map { UInt64($0 + 1) })
        }
    }

    /// The model is not vacuous: generated sequences reach every kind of event it predicts.
    /// Checked on sequences drawn from a fixed seed, so the answer is the same on every run
    /// (a random draw once missed the rarest rule in CI). The generator reaches every rule well before the cap.
    @Test func generatedSequencesReachEveryRule() {
        var seen: Set<String> = []
        var random = Xoshiro(seed: (0x6E6F_7469_6679, 0x6275_73, 0x7275_6C65, 0x7365_6564))
        var sequences = 0
        while !Self.everyRule.isSubset(of: seen), sequences < 20_000 {
            sequences += 1
            let codes = (0..<Int.random(in: 1...60, using: &random)).map { _ in Int.random(in: 0...1_000_000, using: &random) }
            var model = BusModel(semantics: .modern)
            for (step, op) in codes.map(BusOp.init(code:)).enumerated() { _ = model.apply(op, step: step) }
            for event in model.events {
                switch event {
                case .released(_, let retainedBy?): seen.insert("released kept by \(retainedBy > 0)")
                case .released: seen.insert("released")
                case .trapped(_, _, let reason): seen.insert("trapped \(reason)")
                case .skipped: seen.insert("skipped")
                case .removed(nil, _, _, let reason, _): seen.insert("unbalanced \(reason)")
                case .removed(_, _, _, let reason, _): seen.insert("removed \(reason)")
                case .delivered: seen.insert("delivered")
                default: break
                }
                if case .removed(_, _, _, _, let callSite?) = event, callSite.file == "deinit" { seen.insert("removed in deinit") }
            }
        }
        #expect(Self.everyRule.subtracting(seen).isEmpty,
                "never generated in \(sequences) sequences: \(Self.everyRule.subtracting(seen).sorted())")
    }

    static let everyRule: Set<String> = [
        "removed in deinit",
        "released kept by true", "released", "trapped unownedCapture", "skipped", "delivered",
        "removed explicit", "removed tokenReleased", "removed ownerRemoved", "removed ownerSelectors", "removed ownerGone",
        "unbalanced explicit", "unbalanced ownerSelectors",
    ]
}
