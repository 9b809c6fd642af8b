/// The kind of a recorded event, as stored in the `kind` column and named in `event_kinds`.
public enum EventKind: Int, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case sessionStarted = 0
    case ownerRegistered = 1
    case observerAdded = 2
    case observerRemoved = 3
    case posted = 4
    case delivered = 5
    case skipped = 6
    case lifecycle = 7
    case actionRouted = 8
    case bridgeRejected = 9
    case sessionEnded = 10
    case ownerAttached = 11
    case ownerReleased = 12
    case trapped = 13
    /// A delivery queued for a `@MainActor` or `async` handler (schema 3).
    case enqueued = 14

    /// The name used in JSON output, SQL views and `--kind` filters.
    public var name: String {
        switch self {
        case .sessionStarted: "sessionStarted"
        case .ownerRegistered: "ownerRegistered"
        case .observerAdded: "observerAdded"
        case .observerRemoved: "observerRemoved"
        case .posted: "posted"
        case .delivered: "delivered"
        case .skipped: "skipped"
        case .lifecycle: "lifecycle"
        case .actionRouted: "actionRouted"
        case .bridgeRejected: "bridgeRejected"
        case .sessionEnded: "sessionEnded"
        case .ownerAttached: "ownerAttached"
        case .ownerReleased: "ownerReleased"
        case .trapped: "trapped"
        case .enqueued: "enqueued"
        }
    }

    /// The kind called `name`, if any.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    public var description: String { name }
}
