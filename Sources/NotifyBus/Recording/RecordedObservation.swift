public import Foundation

/// What ``RecordingNotificationCenter/addObserver(forName:object:queue:file:line:using:)``
/// returns: the app's handle on a block observer, and the block's owner in the trace, named
/// after the type that added it.
public final class RecordedObservation: NSObject, TraceLabeled, @unchecked Sendable {
    // @unchecked: `state` is locked; the other stored properties are set once in init.
    let name: Notification.Name?
    let message: String?
    nonisolated(unsafe) let object: Any?
    weak let bus: Bus?
    /// The type that added it, read from its call site.
    let addedBy: String
    private let state = Locked(State())

    private struct State {
        var observerID: UInt64 = 0
        var ownerID: UInt64 = 0
        /// Foundation's observer, until removed.
        var real: FoundationObserver?
        var tracker: PostTracker?
    }

    init(name: Notification.Name?, message: String?, object: Any?, bus: Bus, addedBy: String) {
        self.name = name
        self.message = message
        self.object = object
        self.bus = bus
        self.addedBy = addedBy
    }

    deinit {
        // Released while registered: the block can never be removed now.
        let (registered, ownerID) = state.withLock { ($0.real != nil, $0.ownerID) }
        if registered { bus?.recordReleased(ownerID: ownerID) }
    }

    /// "CheckoutScreen's block of keyboardWillShow".
    public var traceLabel: String { "\(addedBy)'s block of \(message ?? "every name")" }
    /// The type that added the observer.
    public var traceTypeName: String { addedBy }

    /// The observer's id in the trace.
    public var observerID: UInt64 { state.withLock { $0.observerID } }
    var ownerID: UInt64 { state.withLock { $0.ownerID } }
    var isRegistered: Bool { state.withLock { $0.real != nil } }

    func register(id: UInt64, ownerID: UInt64, real: any NSObjectProtocol, tracker: PostTracker) {
        let real = FoundationObserver(token: real)
        state.withLock {
            $0.observerID = id
            $0.ownerID = ownerID
            $0.real = real
            $0.tracker = tracker
        }
    }

    /// Removes the block from `center` (the first time) and records the removal; a second removal
    /// is recorded as Foundation would take it: harmless, unbalanced.
    func remove(from center: NotificationCenter, callSite: CallSite) {
        let (real, tracker, id, ownerID) = state.withLock { state in
            defer {
                state.real = nil
                state.tracker = nil
            }
            return (state.real, state.tracker, state.observerID, state.ownerID)
        }
        if let real { center.removeObserver(real.token) }
        tracker?.leave(id)
        bus?.record(.observerRemoved(observer: id, message: message, owner: ownerID, reason: .explicit,
                                     callSite: callSite))
    }

    /// The observations `object` holds in its stored properties, directly or in an
    /// optional, array, set or dictionary.
    static func held(by object: AnyObject) -> [RecordedObservation] {
        var found: [RecordedObservation] = []
        func visit(_ value: Any, depth: Int) {
            if let observation = value as? RecordedObservation { found.append(observation); return }
            guard depth > 0 else { return }
            let mirror = Mirror(reflecting: value)
            switch mirror.displayStyle {
            case .optional, .collection, .set, .dictionary, .tuple:
                for child in mirror.children { visit(child.value, depth: depth - 1) }
            default: break
            }
        }
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children { visit(child.value, depth: 3) }
            mirror = current.superclassMirror
        }
        return found
    }
}

/// A Foundation observer token.
struct FoundationObserver: @unchecked Sendable {
    // @unchecked: an opaque object only handed back to the center that made it,
    // which is thread safe.
    let token: any NSObjectProtocol
}
