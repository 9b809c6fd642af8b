import AppModel
import Foundation
import NotifyBus
import Testing

/// Expects `json` to be refused with one line starting with `expected` (the path, then the message).
func expectParseError(_ json: String, startingWith expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try Scenario.parse(Data(json.utf8))
        Issue.record("accepted: \(json)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.description.hasPrefix(expected), "got: \(error.description)", sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
    }
}

/// A recorded app: a bus with a memory sink and a manual clock, and a readable log.
final class Harness {
    let sink = MemoryTraceSink()
    let clock = ManualClock()
    let bus: Bus
    let app: AppModel
    private var mark = 0
    private var kept: [AnyObject] = []

    init() {
        bus = Bus(sink: sink, clock: clock.traceClock)
        app = AppModel(bus: bus, clock: clock)
    }

    /// Keeps `object` alive as long as the harness.
    func keep(_ object: AnyObject) { kept.append(object) }

    /// The events since the last call, as short lines: "Home viewWillAppear",
    /// "post keyboardWillShow", "deliver keyboardWillShow -> Login".
    func take(lifecycleOnly: Bool = false) -> [String] {
        let events = sink.events
        var labels: [UInt64: String] = [:]
        var messages: [UInt64: String] = [:]
        var observerOwner: [UInt64: UInt64] = [:]
        var lines: [String] = []
        for (index, event) in events.enumerated() {
            var line: String?
            switch event.kind {
            case .ownerRegistered(let owner, _, let label): labels[owner] = label
            case .observerAdded(let observer, let message, let owner, _, _, _, _, _):
                observerOwner[observer] = owner
                line = "add \(message ?? "*") \(owner.flatMap { labels[$0] } ?? "-")"
            case .observerRemoved(let observer, let message, let owner, let reason, _):
                let who = owner.flatMap { labels[$0] } ?? observer.flatMap { observerOwner[$0] }.flatMap { labels[$0] } ?? "-"
                line = "remove \(message ?? "?") \(who)\(observer == nil ? " (nothing registered)" : "")\(reason == .explicit ? "" : " \(reason.rawValue)")"
            case .posted(let post, let message, _, _, _):
                messages[post] = type(of: message).name
                line = "post \(type(of: message).name)"
            case .delivered(let post, let observer):
                line = "deliver \(messages[post] ?? "?") -> \(observerOwner[observer].flatMap { labels[$0] } ?? "?")"
            case .skipped(let post, let observer):
                line = "skip \(messages[post] ?? "?") -> #\(observerOwner[observer].map(String.init) ?? "?")"
            case .lifecycle(let owner, let phase, let detail):
                line = "\(labels[owner] ?? "?") \(phase.rawValue)\(detail.map { " " + $0 } ?? "")"
            case .actionRouted(let action, _, let tried, let handler):
                line = "action \(action) tried \(tried.map { labels[$0] ?? "?" }.joined(separator: ",")) -> \(handler.flatMap { labels[$0] } ?? "nobody")"
            case .bridgeRejected(let name, _):
                line = "rejected \(name)"
            case .ownerAttached(let owner, let host):
                line = "attach \(labels[owner] ?? "?") to \(labels[host] ?? "?")"
            case .ownerReleased(let owner, _):
                line = "released \(labels[owner] ?? "?")"
            case .enqueued(let post, let observer):
                line = "enqueue \(messages[post] ?? "?") -> \(observerOwner[observer].flatMap { labels[$0] } ?? "?")"
            case .trapped(let post, let observer, _):
                line = "trap \(messages[post] ?? "?") -> #\(observerOwner[observer].map(String.init) ?? "?")"
            }
            guard index >= mark, let line else { continue }
            if lifecycleOnly, case .lifecycle = event.kind {} else if lifecycleOnly { continue }
            lines.append(line)
        }
        mark = events.count
        return lines
    }
}
