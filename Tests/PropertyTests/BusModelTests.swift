import NotifyBus
import PropertyBased
import TestSupport
import Testing

/// Runs steps on a real bus, holding tokens, observations and owners as a program would.
final class BusHarness {
    let sink: MemoryTraceSink
    let bus: Bus
    let log: DeliveryLog
    private var owners: [ModelOwner?]
    private var tokens: [ObservationToken] = []
    private var blocks: [BlockObservation] = []

    /// A harness with a bus of its own.
    convenience init(semantics: SelectorSemantics) {
        let sink = MemoryTraceSink()
        self.init(bus: Bus(sink: sink, clock: TraceClock { 0 }, selectorSemantics: semantics), sink: sink, log: DeliveryLog())
    }

    /// A harness on a shared bus, with owners of its own labelled after `prefix`.
    init(bus: Bus, sink: MemoryTraceSink, log: DeliveryLog, prefix: String = "") {
        self.bus = bus
        self.sink = sink
        self.log = log
        owners = (0..<ownerCount).map { ModelOwner(prefix, $0) }
    }

    /// Whether `op` applies now: its owner is held, there is a token to remove.
    func canApply(_ op: BusOp) -> Bool {
        switch op {
        case .observe(let owner?, _), .block(let owner, _, _), .selector(let owner, _), .removeSelectors(let owner, _),
             .removeAll(let owner), .removeMessage(let owner, _), .post(_, let owner?), .releaseOwner(let owner):
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

    func apply(_ op: BusOp, step: Int) {
        let file = "step", line = step
        switch op {
        case .observe(let owner, let message):
            let owner = owner.map { owners[$0]! }
            switch message {
            case .ping?: tokens.append(bus.observe(Ping.self, owner: owner, file: file, line: line, handler(step: step) { $0.n }))
            case .pong?: tokens.append(bus.observe(Pong.self, owner: owner, file: file, line: line, handler(step: step) { $0.n }))
            case nil: tokens.append(bus.observeAll(owner: owner, file: file, line: line, handler(step: step, Self.step(of:))))
            }
        case .block(let owner, let message, let capture):
            let owner = owners[owner]!
            switch message {
            case .ping: blocks.append(bus.addObserver(forName: Ping.self, owner: owner, capture: capture, file: file, line: line,
                                                      using: handler(step: step) { $0.n }))
            case .pong: blocks.append(bus.addObserver(forName: Pong.self, owner: owner, capture: capture, file: file, line: line,
                                                      using: handler(step: step) { $0.n }))
            }
        case .selector(let owner, let message):
            let owner = owners[owner]!
            let ping: @Sendable (Ping) -> Void = handler(step: step) { $0.n }
            let pong: @Sendable (Pong) -> Void = handler(step: step) { $0.n }
            switch message {
            case .ping: bus.addObserver(owner, selector: "handle\(Ping.name):", name: Ping.self, file: file, line: line) { _ in ping }
            case .pong: bus.addObserver(owner, selector: "handle\(Pong.name):", name: Pong.self, file: file, line: line) { _ in pong }
            }
        case .removeToken(let index): bus.remove(tokens[index % tokens.count], file: file, line: line)
        case .releaseToken(let index): tokens.remove(at: index % tokens.count)
        case .removeBlock(let index): bus.removeObserver(blocks[index % blocks.count], file: file, line: line)
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
        case .releaseOwner(let owner): owners[owner] = nil
        case .sweep: bus.sweepReleasedOwners()
        }
    }
}

/// Steps as generated numbers: shrinking removes steps and lowers numbers.
let stepCodes = Gen.int(in: 0...1_000_000).array(of: 1...60)

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
            let firstDifference = zip(actual, model.events).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(actual.count, model.events.count)
            #expect(actual == model.events, """
                events differ at \(firstDifference): bus \(actual.dropFirst(firstDifference).first.map(String.init(describing:)) ?? "none"), \
                model \(model.events.dropFirst(firstDifference).first.map(String.init(describing:)) ?? "none")
                steps:
                \(applied.joined(separator: "\n"))
                """)
            #expect(harness.deliveries == model.deliveries)
            #expect(harness.bus.observerCount == model.activeCount)
            #expect(harness.sink.events.map(\.seq) == (0..<actual.count).map { UInt64($0 + 1) })
        }
    }

    /// The model is not vacuous: generated sequences reach every kind of event it predicts.
    @Test func generatedSequencesReachEveryRule() async {
        var seen: Set<String> = []
        await propertyCheck(count: iterations(default: 150), input: stepCodes) { codes in
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
            }
        }
        let expected: Set<String> = [
            "released kept by true", "released", "trapped unownedCapture", "skipped", "delivered",
            "removed explicit", "removed tokenReleased", "removed ownerRemoved", "removed ownerSelectors", "removed ownerGone",
            "unbalanced explicit", "unbalanced ownerSelectors",
        ]
        #expect(expected.subtracting(seen).isEmpty, "never generated: \(expected.subtracting(seen).sorted())")
    }
}
