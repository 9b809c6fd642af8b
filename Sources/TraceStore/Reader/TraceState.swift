import NotifyBus

/// The state of a session at one point of its log: a fold over the events before it.
///
/// Nothing else is authoritative: ``apply(_:)`` is the only way state changes,
/// so reading a trace up to `seq` and applying each event gives the state at `seq`.
public struct TraceState: Sendable {
    /// An observer registered at this point.
    public struct Observer: Sendable, Hashable {
        public var id: UInt64
        /// `nil` for an observation of every message.
        public var message: String?
        public var owner: UInt64?
        public var sender: UInt64?
        public var callSite: String
        public var addedAt: UInt64
    }

    /// An object the bus has seen: a screen, a plugin, a sender.
    public struct Owner: Sendable, Hashable {
        public var id: UInt64
        public var type: String
        public var label: String
        /// Whether the owner has ever had a lifecycle step (screens and containers do).
        public var hasLifecycle = false
        /// In the screen hierarchy (on a stack, presented, a tab, the root).
        public var inHierarchy = false
        /// Between `viewWillAppear` and `viewDidDisappear`.
        public var visible = false
        /// Its `deinit` ran.
        public var released = false
        /// When it left the hierarchy for good or was released; `nil` while it is in use.
        public var goneAt: UInt64?
    }

    /// UIKit's application states.
    public enum ApplicationState: String, Sendable, Codable {
        case notRunning, active, inactive, background
    }

    public private(set) var observers: [UInt64: Observer] = [:]
    public private(set) var owners: [UInt64: Owner] = [:]
    public private(set) var applicationState: ApplicationState = .notRunning
    /// The last event applied.
    public private(set) var seq: UInt64 = 0

    public init() {}

    /// The registered observers in registration order.
    public var liveObservers: [Observer] { observers.values.sorted { $0.id < $1.id } }

    /// The owners in the hierarchy, visible ones first, in registration order.
    public var hierarchy: [Owner] {
        owners.values.filter(\.inHierarchy).sorted { ($0.visible ? 0 : 1, $0.id) < ($1.visible ? 0 : 1, $1.id) }
    }

    /// The label of an owner, or its id when it was never registered.
    public func label(of owner: UInt64?) -> String? {
        guard let owner else { return nil }
        return owners[owner]?.label ?? "#\(owner)"
    }

    /// Folds one event into the state.
    public mutating func apply(_ event: RecordedEvent) {
        seq = event.seq
        switch event.kind {
        case .ownerRegistered:
            guard let id = event.owner else { return }
            owners[id] = Owner(id: id, type: event.detail ?? "?", label: event.note ?? event.detail ?? "?")
        case .observerAdded:
            guard let id = event.observer else { return }
            observers[id] = Observer(id: id, message: event.message, owner: event.owner, sender: event.sender,
                                     callSite: event.callSite ?? "?", addedAt: event.seq)
        case .observerRemoved:
            if let id = event.observer { observers[id] = nil }
        case .posted:
            switch event.message {
            case WillResignActive.name, WillEnterForeground.name: applicationState = .inactive
            case DidEnterBackground.name: applicationState = .background
            case DidBecomeActive.name: applicationState = .active
            default: break
            }
        case .lifecycle:
            guard let id = event.owner, var owner = owners[id] else {
                if event.detail == "launch" { applicationState = .inactive }
                return
            }
            owner.hasLifecycle = true
            switch event.detail {
            case "setRoot", "push", "present", "selectTab":
                owner.inHierarchy = true
                owner.goneAt = nil
            case "viewWillAppear":
                owner.visible = true
            case "viewDidDisappear":
                owner.visible = false
            case "removedFromHierarchy":
                owner.inHierarchy = false
                owner.visible = false
                owner.goneAt = owner.goneAt ?? event.seq
            case "deinit":
                owner.released = true
                owner.inHierarchy = false
                owner.visible = false
                owner.goneAt = owner.goneAt ?? event.seq
            default:
                break
            }
            owners[id] = owner
        case .sessionStarted, .sessionEnded, .delivered, .skipped, .actionRouted, .bridgeRejected:
            break
        }
    }
}
