import Foundation
import NotifyBus

/// SF-0011's typed message, the counterpart of ``Tick`` for `NotificationCenter.MainActorMessage`.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
struct TickMessage: NotificationCenter.MainActorMessage {
    typealias Subject = AnyObject
    var n: Int
}

/// `@MainActor` observers against SF-0011's `MainActorMessage` and the legacy block API, on this
/// toolchain's Foundation (swift-corelibs-foundation, which ships SF-0011).
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
@MainActor
enum MainActorBenchmarks {
    /// One `@MainActor` observer, posted to on the main actor: delivered synchronously by all three.
    static func post(_ report: Report, iterations: Int) {
        let bus = Bus()
        let center = NotificationCenter(), legacy = NotificationCenter()
        let name = Notification.Name("Tick")
        let sink = Sink()
        let token = bus.observe(Tick.self) { @MainActor _ in sink.count &+= 1 }
        let typed = center.addObserver(for: TickMessage.self) { _ in sink.count &+= 1 }
        let block = legacy.addObserver(forName: name, object: nil, queue: nil) { _ in sink.count &+= 1 }
        let message = Tick(n: 1), typedMessage = TickMessage(n: 1)
        let (busTime, sfTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n { bus.post(message) }
        }, { n in
            for _ in 0..<n { center.post(typedMessage) }
        })
        let (busTime2, legacyTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n { bus.post(message) }
        }, { n in
            for _ in 0..<n { legacy.post(name: name, object: nil) }
        })
        report.add("post to one @MainActor observer, on the main actor", subject: ns(busTime) + " per post",
                   baseline: "SF-0011 MainActorMessage " + ns(sfTime), ratio: times(sfTime / busTime) + " faster")
        report.add("post to one @MainActor observer, on the main actor", subject: ns(busTime2) + " per post",
                   baseline: "legacy block API " + ns(legacyTime), ratio: times(legacyTime / busTime2) + " faster")
        withExtendedLifetime((token, typed, block)) {}
        precondition(sink.count > 0)
    }

    /// Adding and removing a `@MainActor` observer among 50 others, against SF-0011's typed token
    /// and the legacy block API.
    static func addRemove(_ report: Report, iterations: Int) {
        let bus = Bus()
        let center = NotificationCenter(), legacy = NotificationCenter()
        let name = Notification.Name("Tick")
        let keep = (0..<50).map { _ in bus.observe(Tick.self) { @MainActor _ in } }
        let keepTyped = (0..<50).map { _ in center.addObserver(for: TickMessage.self) { _ in } }
        let keepLegacy = (0..<50).map { _ in legacy.addObserver(forName: name, object: nil, queue: nil) { _ in } }
        let (busTime, sfTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n {
                let token = bus.observe(Tick.self) { @MainActor _ in }
                bus.remove(token)
            }
        }, { n in
            for _ in 0..<n {
                let token = center.addObserver(for: TickMessage.self) { _ in }
                center.removeObserver(token)
            }
        })
        let (busTime2, legacyTime) = sideBySide(iterations: iterations, { n in
            for _ in 0..<n {
                let token = bus.observe(Tick.self) { @MainActor _ in }
                bus.remove(token)
            }
        }, { n in
            for _ in 0..<n {
                let token = legacy.addObserver(forName: name, object: nil, queue: nil) { _ in }
                legacy.removeObserver(token)
            }
        })
        report.add("add + remove a @MainActor observer (50 others)", subject: ns(busTime),
                   baseline: "SF-0011 addObserver(of:for:) + removeObserver " + ns(sfTime),
                   ratio: times(sfTime / busTime) + " faster")
        report.add("add + remove a @MainActor observer (50 others)", subject: ns(busTime2),
                   baseline: "legacy block API " + ns(legacyTime), ratio: times(legacyTime / busTime2) + " faster",
                   target: "≥ 5×", met: legacyTime / busTime2 >= 5)
        withExtendedLifetime((keep, keepTyped, keepLegacy)) {}
    }
}
