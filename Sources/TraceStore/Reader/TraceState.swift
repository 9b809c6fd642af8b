public import NotifyBus

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
        /// Token, block or selector; version-1 traces have tokens only.
        public var kind: ObserverKind = .token
        /// For a block: how it holds its owner.
        public var capture: BlockCapture?
        /// The selector or handler name, when one was recorded.
        public var handler: String?
    }

    /// An object the bus has seen: a screen, a plugin, a helper, a sender.
    public struct Owner: Sendable, Hashable {
        public var id: UInt64
        public var type: String
        public var label: String
        /// The object it lives in (a helper's screen, a child screen's container), if attached.
        public var host: UInt64?
        /// Whether the owner has ever had a lifecycle step (screens and containers do).
        public var hasLifecycle = false
        /// In the screen hierarchy (on a stack, presented, a tab, the root).
        public var inHierarchy = false
        /// Between `viewWillAppear` and `viewDidDisappear`.
        public var visible = false
        /// Its `deinit` ran, or the bus found it deallocated.
        public var released = false
        /// When the program let go of it while a `strong` block observer kept it alive.
        public var retainedOnlyByObserverAt: UInt64?
        /// When it left the hierarchy for good or was released; `nil` while it is in use.
        public var goneAt: UInt64?

        public init(id: UInt64, type: String, label: String) {
            self.id = id
            self.type = type
            self.label = label
        }
    }

    /// UIKit's application states.
    public enum ApplicationState: String, Sendable, Codable {
        case notRunning, active, inactive, background
    }

    public private(set) var observers: [UInt64: Observer] = [:]
    /// The registered observers' ids by owner: what the leak rules ask on every add and owner
    /// release, which a filter over all observers answered in time proportional to them.
    private var observersByOwner: [UInt64: Set<UInt64>] = [:]
    /// Registered observers by (owner, message, sender), and the messages each (owner, handler)
    /// observes: the duplicate-registration rule asks both on every add, which a look at each of
    /// the owner's observers would make quadratic in a screen that piles them up.
    private var registrations: [Registration: Int] = [:]
    private var handled: [HandlerKey: [String?: Int]] = [:]
    private struct Registration: Hashable { let owner: UInt64, message: String?, sender: UInt64? }
    private struct HandlerKey: Hashable { let owner: UInt64, handler: String }
    /// Of ``registrations``, the selector observers that name their method, and those by method:
    /// whether an add is a second selector for a name (no duplicate) is then two lookups.
    private var selectorRegistrations: [Registration: Int] = [:]
    private var selectorsByMethod: [SelectorKey: Int] = [:]
    private struct SelectorKey: Hashable { let registration: Registration, handler: String }
    public private(set) var owners: [UInt64: Owner] = [:]
    public private(set) var applicationState: ApplicationState = .notRunning
    /// The last event applied.
    public private(set) var seq: UInt64 = 0
    /// How many times an owner has gone (out of the hierarchy or released) so far: a fold that
    /// caches answers depending on owners being alive compares it to know when to forget them.
    package private(set) var ownersGone = 0

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

    /// Where an owner lives: its label, then each host's, `KeyboardFrameObserver in AztecEditor`.
    public func location(of owner: UInt64?) -> String? {
        guard let owner else { return nil }
        var parts = [label(of: owner) ?? "#\(owner)"]
        var seen: Set<UInt64> = [owner]
        var next = owners[owner]?.host
        while let host = next, seen.insert(host).inserted {
            parts.append(label(of: host) ?? "#\(host)")
            next = owners[host]?.host
        }
        return parts.joined(separator: " in ")
    }

    /// The screen an owner's visibility follows: itself when it has a lifecycle,
    /// else the nearest host that has one.
    public func screen(of owner: UInt64) -> Owner? {
        var seen: Set<UInt64> = []
        var next: UInt64? = owner
        while let id = next, seen.insert(id).inserted, let candidate = owners[id] {
            if candidate.hasLifecycle { return candidate }
            next = candidate.host
        }
        return nil
    }

    /// The kinds ``apply(_:)`` only takes the `seq` of: a reader building a state may leave them out.
    package static let kindsThatOnlyAdvance: [EventKind] = [
        .sessionStarted, .sessionEnded, .delivered, .enqueued, .trapped, .actionRouted, .bridgeRejected,
    ]
    /// The messages whose posts change the application state; other posts only advance `seq`.
    package static let applicationStateMessages = [
        WillResignActive.name, WillEnterForeground.name, DidEnterBackground.name, DidBecomeActive.name,
    ]

    /// Moves the state to `seq` when the events between changed nothing but the position.
    package mutating func advance(to seq: UInt64) { self.seq = max(self.seq, seq) }

    /// Folds one event into the state.
    public mutating func apply(_ event: RecordedEvent) {
        seq = event.seq
        switch event.kind {
        case .ownerRegistered:
            guard let id = event.owner else { return }
            owners[id] = Owner(id: id, type: event.detail ?? "?", label: event.note ?? event.detail ?? "?")
        case .ownerAttached:
            guard let id = event.owner else { return }
            owners[id]?.host = event.host
        case .ownerReleased:
            guard let id = event.owner, var owner = owners[id] else { return }
            if event.retainedBy != nil {
                owner.retainedOnlyByObserverAt = owner.retainedOnlyByObserverAt ?? event.seq
            } else {
                release(&owner, at: event.seq)
            }
            owners[id] = owner
        case .observerAdded:
            guard let id = event.observer else { return }
            forget(observer: id)
            observers[id] = Observer(id: id, message: event.message, owner: event.owner, sender: event.sender,
                                     callSite: event.callSite ?? "?", addedAt: event.seq,
                                     kind: event.observerKind ?? .token, capture: event.capture, handler: event.handler)
            if let owner = event.owner {
                observersByOwner[owner, default: []].insert(id)
                registrations[Registration(owner: owner, message: event.message, sender: event.sender), default: 0] += 1
                if let handler = event.handler { handled[HandlerKey(owner: owner, handler: handler), default: [:]][event.message, default: 0] += 1 }
                if event.observerKind == .selector, let handler = event.handler {
                    let registration = Registration(owner: owner, message: event.message, sender: event.sender)
                    selectorRegistrations[registration, default: 0] += 1
                    selectorsByMethod[SelectorKey(registration: registration, handler: handler), default: 0] += 1
                }
            }
        case .observerRemoved:
            if let id = event.observer { forget(observer: id) }
        case .skipped:
            // A skip means the bus found the owner deallocated, lifecycle or not
            // (version-1 traces record no release event).
            if let id = event.observer.flatMap({ observers[$0]?.owner }), var owner = owners[id], !owner.released {
                release(&owner, at: event.seq)
                owners[id] = owner
            }
        case .posted:
            switch event.message {
            case WillResignActive.name, WillEnterForeground.name: applicationState = .inactive
            case DidEnterBackground.name: applicationState = .background
            case DidBecomeActive.name: applicationState = .active
            default: break
            }
        case .lifecycle:
            guard let phase = event.phase else { return }
            if phase == .launch { applicationState = .inactive }
            guard let id = event.owner, var owner = owners[id] else { return }
            owner.hasLifecycle = true
            switch phase {
            case .setRoot, .push, .present, .selectTab, .addChild:
                owner.inHierarchy = true
                owner.goneAt = nil
            case .viewWillAppear:
                owner.visible = true
            case .viewDidDisappear:
                owner.visible = false
            case .removedFromHierarchy:
                owner.inHierarchy = false
                owner.visible = false
                if owner.goneAt == nil { ownersGone += 1 }
                owner.goneAt = owner.goneAt ?? event.seq
            case .deinit:
                release(&owner, at: event.seq)
            default:
                break
            }
            owners[id] = owner
        case .sessionStarted, .sessionEnded, .delivered, .enqueued, .trapped, .actionRouted, .bridgeRejected:
            break
        }
    }

    /// The registered observers of `owner`, in id order.
    package func observers(ownedBy owner: UInt64) -> [Observer] {
        (observersByOwner[owner] ?? []).sorted().compactMap { observers[$0] }
    }

    /// Whether `owner` has an observer registered for `message` from `sender`.
    package func isRegistered(owner: UInt64, message: String?, sender: UInt64?) -> Bool {
        registrations[Registration(owner: owner, message: message, sender: sender)] != nil
    }

    /// Whether every observer `owner` has registered for `message` from `sender` is a selector observer
    /// naming a method other than `handler` (true when there is none).
    package func onlyOtherSelectors(owner: UInt64, message: String?, sender: UInt64?, handler: String) -> Bool {
        let registration = Registration(owner: owner, message: message, sender: sender)
        return selectorRegistrations[registration] ?? 0 == registrations[registration] ?? 0
            && selectorsByMethod[SelectorKey(registration: registration, handler: handler)] == nil
    }

    /// The messages `owner`'s observers with the handler named `handler` observe.
    package func messages(handledBy handler: String, ownedBy owner: UInt64) -> Dictionary<String?, Int>.Keys {
        (handled[HandlerKey(owner: owner, handler: handler)] ?? [:]).keys
    }

    private mutating func forget(observer id: UInt64) {
        guard let removed = observers.removeValue(forKey: id), let owner = removed.owner else { return }
        observersByOwner[owner]?.remove(id)
        if observersByOwner[owner]?.isEmpty == true { observersByOwner[owner] = nil }
        let registration = Registration(owner: owner, message: removed.message, sender: removed.sender)
        registrations[registration] = registrations[registration].flatMap { $0 > 1 ? $0 - 1 : nil }
        if removed.kind == .selector, let handler = removed.handler {
            selectorRegistrations[registration] = selectorRegistrations[registration].flatMap { $0 > 1 ? $0 - 1 : nil }
            let key = SelectorKey(registration: registration, handler: handler)
            selectorsByMethod[key] = selectorsByMethod[key].flatMap { $0 > 1 ? $0 - 1 : nil }
        }
        if let handler = removed.handler {
            let key = HandlerKey(owner: owner, handler: handler)
            var messages = handled.removeValue(forKey: key) ?? [:]
            messages[removed.message] = messages[removed.message].flatMap { $0 > 1 ? $0 - 1 : nil }
            if !messages.isEmpty { handled[key] = messages }
        }
    }

    private mutating func release(_ owner: inout Owner, at seq: UInt64) {
        if owner.goneAt == nil { ownersGone += 1 }
        owner.released = true
        owner.inHierarchy = false
        owner.visible = false
        owner.goneAt = owner.goneAt ?? seq
    }
}
