import Foundation
import NotifyBus
import Synchronization
import TraceStore

struct Tick: BusMessage { var n: Int }

/// Distinct message types, built by nesting, for the 100-type benchmark.
struct Wrap<Inner: BusMessage>: BusMessage { var n: Int }

enum BusBenchmarks {
    /// One workload, for profiling: `add-remove` or `post`.
    static func profile(_ workload: String) {
        precondition(["add-remove", "post", "record"].contains(workload), "workloads: add-remove, post, record")
        if workload == "record" {
            let recorder = try! TraceRecorder(path: StoreBenchmarks.temporaryPath("profile"), session: SessionInfo(name: "profile"))
            let bus = Bus(sink: recorder)
            let token = bus.observe(Tick.self) { _ in }
            // NOTIFYBUS_BENCH_POSTS: more posts for a sampling profiler (perf record), fewer for callgrind.
            let posts = ProcessInfo.processInfo.environment["NOTIFYBUS_BENCH_POSTS"].flatMap(Int.init) ?? 100_000
            // In bursts of 16 000, each flushed, as `StoreBenchmarks.postingCost` times them: no backpressure.
            var i = 0
            while i < posts {
                for _ in 0..<min(16_000, posts - i) { bus.post(Tick(n: i & 1023)); i += 1 }
                try! recorder.flush()
            }
            try! recorder.close()
            withExtendedLifetime(token) {}
            return
        }
        let bus = Bus()
        let sink = Sink()
        let keep = (0..<50).map { _ in bus.observe(Tick.self) { _ in sink.count &+= 1 } }
        for i in 0..<100_000 {
            if workload == "add-remove" {
                let token = bus.observe(Tick.self) { _ in }
                bus.remove(token)
            } else {
                bus.post(Tick(n: i))
            }
        }
        withExtendedLifetime(keep) {}
    }

    static func fanOut(_ report: Report, observers: Int, iterations: Int) {
        let bus = Bus()
        let center = NotificationCenter()
        let name = Notification.Name("Tick")
        let sink = Sink()
        var tokens: [ObservationToken] = []
        var ncTokens: [any NSObjectProtocol] = []
        for _ in 0..<observers {
            tokens.append(bus.observe(Tick.self) { _ in sink.count &+= 1 })
            ncTokens.append(center.addObserver(forName: name, object: nil, queue: nil) { _ in sink.count &+= 1 })
        }
        let message = Tick(n: 1)
        let (busTime, ncTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n { bus.post(message) }
        }, { n in
            for _ in 0..<n { center.post(name: name, object: nil) }
        })
        let ratio = ncTime / busTime
        // Issue 22's bars: fan-out 1 at least 8× Foundation, fan-out 100 at least 7×.
        let target: Double? = observers == 1 ? 8 : (observers == 100 ? 7 : nil)
        let perDelivery = observers > 1 ? " (\(ns(busTime / Double(observers))) vs \(ns(ncTime / Double(observers))) per delivery)" : ""
        report.add("post, fan-out \(observers)", subject: ns(busTime) + " per post", baseline: "NotificationCenter " + ns(ncTime) + perDelivery,
                   ratio: times(ratio) + " faster", target: target.map { "≥ \(Int($0))×" } ?? "", met: target.map { ratio >= $0 })
        withExtendedLifetime((tokens, ncTokens)) {}
        for token in ncTokens { center.removeObserver(token) }
        precondition(sink.count > 0)
    }

    static func addRemove(_ report: Report, iterations: Int) {
        let bus = Bus()
        let center = NotificationCenter()
        let name = Notification.Name("Tick")
        // A realistic population: the pair is added and removed among others.
        let keep = (0..<50).map { _ in bus.observe(Tick.self) { _ in } }
        let keepNC = (0..<50).map { _ in center.addObserver(forName: name, object: nil, queue: nil) { _ in } }
        let (busTime, ncTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n {
                let token = bus.observe(Tick.self) { _ in }
                bus.remove(token)
            }
        }, { n in
            for _ in 0..<n {
                let token = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
                center.removeObserver(token)
            }
        })
        let ratio = ncTime / busTime
        report.add("add + remove pair (50 others registered)", subject: ns(busTime), baseline: "NotificationCenter " + ns(ncTime),
                   ratio: times(ratio) + " faster", target: "≥ 3× (on the way to 5×)", met: ratio >= 3)
        withExtendedLifetime((keep, keepNC)) {}
    }

    /// 1 000 observers over 100 message types; one type is posted.
    static func manyTypes(_ report: Report, iterations: Int) {
        let bus = Bus()
        let center = NotificationCenter()
        let sink = Sink()
        var tokens: [ObservationToken] = []
        func register<M: BusMessage>(_ type: M.Type, depth: Int) {
            for _ in 0..<10 { tokens.append(bus.observe(type) { _ in sink.count &+= 1 }) }
            if depth > 1 { register(Wrap<M>.self, depth: depth - 1) }
        }
        register(Tick.self, depth: 100)
        var ncTokens: [any NSObjectProtocol] = []
        for type in 0..<100 {
            for _ in 0..<10 {
                ncTokens.append(center.addObserver(forName: Notification.Name("T\(type)"), object: nil, queue: nil) { _ in sink.count &+= 1 })
            }
        }
        let name = Notification.Name("T0")
        let message = Tick(n: 0)
        let (busTime, ncTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n { bus.post(message) }
        }, { n in
            for _ in 0..<n { center.post(name: name, object: nil) }
        })
        // The same post with only the posted type's 10 observers registered: the cost of the other 990.
        let lone = Bus()
        let loneTokens = (0..<10).map { _ in lone.observe(Tick.self) { _ in sink.count &+= 1 } }
        let (manyTime, aloneTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n { bus.post(message) }
        }, { n in
            for _ in 0..<n { lone.post(message) }
        })
        report.add("post to 10 of 1 000 observers over 100 types", subject: ns(busTime), baseline: "NotificationCenter " + ns(ncTime),
                   ratio: times(ncTime / busTime) + " faster")
        report.add("same post, 990 other observers vs none", subject: ns(manyTime), baseline: ns(aloneTime) + " with the 10 alone",
                   ratio: times(manyTime / aloneTime) + " the cost", target: "other types cost nothing (≈ 1×)", met: manyTime / aloneTime < 1.2)
        withExtendedLifetime((tokens, ncTokens, loneTokens)) {}
        precondition(sink.count > 0)
    }

    /// Two threads post while a third adds and removes.
    static func contention(_ report: Report, seconds duration: Double) {
        let bus = Bus()
        let center = NotificationCenter()
        let name = Notification.Name("Tick")
        let delivered = Atomic<Int>(0)
        let busTokens = (0..<10).map { _ in bus.observe(Tick.self) { _ in delivered.add(1, ordering: .relaxed) } }
        let ncTokens = (0..<10).map { _ in center.addObserver(forName: name, object: nil, queue: nil) { _ in delivered.add(1, ordering: .relaxed) } }

        func run(post: @escaping @Sendable () -> Void, churn: @escaping @Sendable () -> Void) -> Double {
            let stop = Atomic<Bool>(false)
            let posts = Atomic<Int>(0)
            let group = DispatchGroup()
            for index in 0..<3 {
                group.enter()
                Thread.detachNewThread {
                    var local = 0
                    while !stop.load(ordering: .relaxed) {
                        if index < 2 { post(); local += 1 } else { churn() }
                    }
                    posts.add(local, ordering: .relaxed)
                    group.leave()
                }
            }
            Thread.sleep(forTimeInterval: duration)
            stop.store(true, ordering: .relaxed)
            group.wait()
            return Double(posts.load(ordering: .relaxed)) / duration
        }
        var busRates: [Double] = [], ncRates: [Double] = []
        for _ in 0..<3 {
            busRates.append(run(post: { bus.post(Tick(n: 0)) }, churn: {
                let token = bus.observe(Tick.self) { _ in }
                bus.remove(token)
            }))
            ncRates.append(run(post: { center.post(name: name, object: nil) }, churn: {
                let token = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
                center.removeObserver(token)
            }))
        }
        let busRate = median(busRates), ncRate = median(ncRates)
        report.add("contention: 2 threads posting (fan-out 10), 1 adding/removing", subject: rate(busRate) + " posts",
                   baseline: "NotificationCenter " + rate(ncRate), ratio: times(busRate / ncRate) + " the throughput")
        withExtendedLifetime((busTokens, ncTokens)) {}
    }
}
