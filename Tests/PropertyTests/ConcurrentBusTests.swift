import Foundation
import NotifyBus
import PropertyBased
import TestSupport
import Testing

/// Steps per thread are numbered from `thread * stride`, so that call sites and posts
/// name their thread.
private let stride = 10_000

/// What a trace says about one observer.
private struct TracedObserver {
    var id: UInt64
    /// `nil` for an observer of every message.
    var message: String?
    var addedAt: UInt64
    var removedAt: UInt64?
    /// The step that added it: its handler logs this.
    var step: Int
}

@Suite struct ConcurrentBusTests {
    /// Threads adding, removing, posting and releasing owners and tokens at once on one
    /// bus: the trace is one order in which every delivery falls between its observer's
    /// addition and removal, every post reaches each observer registered throughout it
    /// exactly once, and each handler call is one recorded delivery.
    @Test func concurrentSequencesKeepTheDeliveryInvariants() async {
        let threads = stepCodes.array(of: 2...4)
        await propertyCheck(count: iterations(default: 40), input: threads) { programs in
            let sink = MemoryTraceSink()
            let bus = Bus(sink: sink, clock: TraceClock { 0 })
            let log = DeliveryLog()
            // Observers that every post must reach: added before the threads start,
            // removed after they finish.
            let stable = [
                bus.observe(Ping.self, file: "stable", line: -1) { log.append(Delivery(observer: -1, post: $0.n)) },
                bus.observe(Pong.self, file: "stable", line: -2) { log.append(Delivery(observer: -2, post: $0.n)) },
                bus.observeAll(file: "stable", line: -3) { message in
                    log.append(Delivery(observer: -3, post: (message as? Ping)?.n ?? (message as? Pong)?.n ?? 0))
                },
            ]
            run(programs, on: bus, sink: sink, log: log)
            let end = sink.events.last?.seq ?? 0
            for token in stable { bus.remove(token) }
            check(sink.events, stableBefore: end + 1, deliveries: log.all)
        }
    }

    /// The same with one bus per thread, all recording into one sink: one sequence with no
    /// gap, ids unique across the buses, and each post reaching the observers of its own bus
    /// (registered throughout it exactly once) and no other bus's.
    @Test func threadsOnBusesSharingASinkKeepTheDeliveryInvariants() async {
        let threads = stepCodes.array(of: 2...4)
        await propertyCheck(count: iterations(default: 30), input: threads) { programs in
            let sink = MemoryTraceSink()
            let buses = programs.indices.map { _ in Bus(sink: sink, clock: TraceClock { 0 }) }
            let log = DeliveryLog()
            // Each bus's own stable observers, at lines -(10 × bus + 1…3).
            let stable = buses.enumerated().flatMap { index, bus in
                let base = -10 * index
                return [
                    bus.observe(Ping.self, file: "stable", line: base - 1) { log.append(Delivery(observer: base - 1, post: $0.n)) },
                    bus.observeAll(file: "stable", line: base - 3) { message in
                        log.append(Delivery(observer: base - 3, post: (message as? Ping)?.n ?? (message as? Pong)?.n ?? 0))
                    },
                ]
            }
            run(programs, on: buses, sink: sink, log: log)
            let end = sink.events.last?.seq ?? 0
            for (index, bus) in buses.enumerated() {
                bus.remove(stable[2 * index])
                bus.remove(stable[2 * index + 1])
            }
            check(sink.events, stableBefore: end + 1, deliveries: log.all) { step in
                step < 0 ? -step / 10 : step / stride - 1
            }
        }
    }

    /// Runs each program on its own thread, all released at once.
    private func run(_ programs: [[Int]], on bus: Bus, sink: MemoryTraceSink, log: DeliveryLog) {
        run(programs, on: Array(repeating: bus, count: programs.count), sink: sink, log: log)
    }

    /// Runs each program on its own thread and its own bus (`buses[thread]`), all released at once.
    private func run(_ programs: [[Int]], on buses: [Bus], sink: MemoryTraceSink, log: DeliveryLog) {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for (thread, codes) in programs.enumerated() {
            group.enter()
            let thread = Thread {
                let harness = BusHarness(bus: buses[thread], sink: sink, log: log, prefix: "t\(thread)")
                start.wait()
                for (index, op) in codes.map(BusOp.init(code:)).enumerated() where harness.canApply(op) {
                    harness.apply(op, step: (thread + 1) * stride + index)
                }
                group.leave()
            }
            thread.start()
        }
        for _ in programs { start.signal() }
        group.wait()
    }

    /// - Parameter bus: The bus of an observer's or a post's step, when there are several:
    ///   a post must reach its own bus's observers only.
    private func check(_ events: [TraceEvent], stableBefore end: UInt64, deliveries: [Delivery],
                       bus: ((Int) -> Int)? = nil) {
        let sameBus = { (observer: Int, post: Int) in bus.map { $0(observer) == $0(post) } ?? true }
        #expect(events.map(\.seq) == (0..<events.count).map { UInt64($0 + 1) }, "one total order, no gaps")
        var observers: [UInt64: TracedObserver] = [:]
        var posts: [UInt64: (message: String, step: Int, at: UInt64)] = [:]
        var outcomes: [UInt64: [UInt64: Int]] = [:]  // post → observer → outcomes
        var recorded: [Delivery] = []
        for event in events {
            switch event.kind {
            case .observerAdded(let id, let message, _, _, let callSite, _, _, _):
                observers[id] = TracedObserver(id: id, message: message, addedAt: event.seq, step: callSite.line)
            case .observerRemoved(let id?, _, _, _, _):
                if observers[id]?.removedAt == nil { observers[id]?.removedAt = event.seq }
            case .posted(let post, let message, _, _, _):
                let step = (message as? Ping)?.n ?? (message as? Pong)?.n ?? -1
                posts[post] = (message.messageName, step, event.seq)
            case .delivered(let post, let id), .skipped(let post, let id), .trapped(let post, let id, _):
                outcomes[post, default: [:]][id, default: 0] += 1
                guard let observer = observers[id], let posted = posts[post] else {
                    Issue.record("seq \(event.seq): an outcome for an unknown observer \(id) or post \(post)")
                    continue
                }
                #expect(observer.addedAt < posted.at, "seq \(event.seq): observer \(id) added after post \(post)")
                #expect(observer.removedAt == nil, "seq \(event.seq): post \(post) reached observer \(id) after its removal")
                #expect(observer.message == nil || observer.message == posted.message,
                        "seq \(event.seq): a \(posted.message) reached an observer of \(observer.message ?? "*")")
                #expect(sameBus(observer.step, posted.step), "seq \(event.seq): post \(post) reached another bus's observer \(id)")
                if case .delivered = event.kind { recorded.append(Delivery(observer: observer.step, post: posted.step)) }
            default:
                break
            }
        }
        for (post, posted) in posts {
            for observer in observers.values where observer.addedAt < posted.at
                && (observer.message == nil || observer.message == posted.message) && sameBus(observer.step, posted.step) {
                let count = outcomes[post]?[observer.id] ?? 0
                if observer.removedAt.map({ $0 >= end }) ?? true {
                    // Registered throughout the post: exactly once.
                    #expect(count == 1, "post \(post) reached observer \(observer.id) \(count) times")
                } else {
                    #expect(count <= 1, "post \(post) reached observer \(observer.id) \(count) times")
                }
            }
        }
        // Every handler call is a recorded delivery and every recorded delivery one call.
        let byKey = { (list: [Delivery]) in Dictionary(grouping: list, by: { $0 }).mapValues(\.count) }
        #expect(byKey(deliveries) == byKey(recorded))
    }
}
