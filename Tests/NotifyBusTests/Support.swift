import NotifyBus
@_exported import TestSupport
struct Ping: BusMessage, Equatable { var n: Int }
struct Pong: BusMessage, Equatable { var n: Int }

final class Owner: TraceLabeled, Sendable {
    let traceLabel: String
    init(_ label: String = "owner") { traceLabel = label }
}


/// A message name without this module's prefix: `Ping` for `NotifyBusTests.Ping`.
func short(_ name: String?) -> String? {
    guard let name else { return nil }
    return name.hasPrefix("NotifyBusTests.") ? String(name.dropFirst("NotifyBusTests.".count)) : name
}

/// A short, readable form of an event, for exact-order assertions. Message names are
/// shown without this module's prefix.
func describe(_ event: TraceEvent) -> String {
    switch event.kind {
    case .ownerRegistered(let owner, _, let label): "owner \(owner) \(label)"
    case .observerAdded(let observer, let message, let owner, _, _, _, _, _):
        "add \(observer) \(short(message) ?? "*") owner:\(owner.map(String.init) ?? "-")"
    case .observerRemoved(let observer, let message, _, let reason, _):
        "remove \(observer.map(String.init) ?? "-") \(short(message) ?? "?") \(reason.rawValue)"
    case .posted(let post, let message, _, let parent, let origin):
        "post \(post) \(short(message.messageName)!) parent:\(parent.map(String.init) ?? "-") \(origin.rawValue)"
    case .delivered(let post, let observer): "deliver \(post)->\(observer)"
    case .skipped(let post, let observer): "skip \(post)->\(observer)"
    case .lifecycle(let owner, let phase, let detail): "lifecycle \(owner) \(phase.rawValue)\(detail.map { " " + $0 } ?? "")"
    case .actionRouted(let action, _, let tried, let handler):
        "action \(action) tried:\(tried) handler:\(handler.map(String.init) ?? "-")"
    case .bridgeRejected(let name, let reason): "rejected \(name): \(reason)"
    case .ownerAttached(let owner, let host): "attach \(owner) to \(host)"
    case .ownerReleased(let owner, let retainedBy): "released \(owner)\(retainedBy.map { " kept by \($0)" } ?? "")"
    case .trapped(let post, let observer, let reason): "trap \(post)->\(observer) \(reason.rawValue)"
    case .enqueued(let post, let observer): "enqueue \(post)->\(observer)"
    }
}
