public import Foundation

/// `NotificationCenter`, recorded: a drop-in for an existing app that records its notification
/// traffic into a ``Bus``'s trace while a real `NotificationCenter` keeps delivering.
///
/// Adopt it with one line per module, leaving the app's classes as they are (properties typed
/// `NotificationCenter`, `NotificationCenter.default`, parameters), and start recording once:
///
/// ```swift
/// typealias NotificationCenter = RecordingNotificationCenter    // the one line, per module
///
/// RecordingNotificationCenter.record(into: Bus(sink: recorder)) // at launch, before any observer
/// ```
///
/// It has `NotificationCenter`'s methods, with the same names, labels and results, and records
/// each call: the block API (`addObserver(forName:object:queue:using:)`, whose queue it honours
/// as Foundation does), selectors (`addObserver(_:selector:name:object:)`; on Linux the selector
/// is the target's method, `Screen.keyboardWillShow`), `removeObserver(_:)`,
/// `removeObserver(_:name:object:)`, `post(name:object:userInfo:)`, `post(_:)`,
/// `notifications(named:object:)`, SF-0011's `addObserver(of:for:using:)` and `post(_:subject:)`,
/// and Combine's `publisher(for:object:)` where Combine exists. ``center`` is the Foundation center
/// it wraps, for an API that demands a real one.
///
/// Its observers hear every post to the wrapped center, including posts that did not go through
/// it (UIKit's keyboard and activity notifications, posted to `NotificationCenter.default`):
/// such a post is recorded when its first observer here is called, and each delivery against it.
/// The `Notification` reaches the handler as posted: name, object and `userInfo` unchanged.
///
/// What the trace says, in the bus's terms (docs/RECORDING.md):
/// - A block observer's owner is the observation `addObserver` returned, named after the type
///   that added it (the call site's file, `CheckoutScreen.swift` → `CheckoutScreen`); released
///   while registered, the block can never be removed: `observer-outlives-owner`.
/// - A selector observer's owner is its target; `removeObserver(self)` and
///   `removeObserver(self, name:object:)` remove its selectors, and no block: a block observation
///   `self` holds in a stored property that such a removal misses is `removal-misses-observer`.
/// - SF-0011's typed observers are token observers, removed when their token is released.
/// - Keyboard, activity and orientation names are recorded as their catalog messages
///   (``KeyboardWillShow``…); any other name as a ``NamedMessage`` with the `userInfo` as JSON.
/// - ``recordScreen(_:_:leaving:)`` gives the trace its screens, from a base view controller.
public final class RecordingNotificationCenter: Sendable {
    /// The center an app's `NotificationCenter.default` becomes under the typealias: it wraps
    /// Foundation's default center and records into the bus given to ``record(into:)``.
    public static let `default` = RecordingNotificationCenter(wrapping: .default, bus: nil)

    /// The Foundation center that delivers: hand it to an API that needs a real `NotificationCenter`.
    public let center: Foundation.NotificationCenter
    /// The bus given at init; `nil` for the centers that follow ``record(into:)``.
    private let fixedBus: Bus?
    /// The tracker of the bus recording now, kept to avoid a look-up per call.
    private let cachedTracker = Locked<PostTracker?>(nil)
    /// The selector observers added here, by observer id.
    let selectors = Locked<[UInt64: SelectorObserver]>([:])
    /// The selector observers added while nothing recorded, to remove them all the same.
    let unrecordedSelectors = Locked<[SelectorObserver]>([])
    /// Objects this center gave an owner id (selector targets, screens): their id is found again
    /// in their `deinit`, where no weak reference to them can be made.
    let owners = Locked<[ObjectIdentifier: KnownOwner]>([:])
    /// The screens recorded by ``recordScreen(_:_:leaving:)``.
    let screens = Locked<[ObjectIdentifier: ScreenState]>([:])
    /// SF-0011's typed observers, for their posts' ids.
    let typed = TypedObservers()

    private static let processBus = Locked<Bus?>(nil)

    /// Starts recording ``default`` (and every center made with `init()`) into `bus`.
    ///
    /// Call it before the app adds its first observer: observers added before are not recorded
    /// (they still deliver). A second call records what follows into the new bus.
    public static func record(into bus: Bus) {
        processBus.withLock { $0 = bus }
    }

    /// Stops recording ``default`` and the centers made with `init()`; they keep delivering.
    public static func stopRecording() {
        processBus.withLock { $0 = nil }
    }

    /// The bus recording this center now, if any.
    public var bus: Bus? { fixedBus ?? Self.processBus.withLock { $0 } }

    /// A center recording into `bus` and delivering through `center`.
    /// - Parameters:
    ///   - bus: Records; make it with a sink (``Bus/init(sink:clock:selectorSemantics:)``).
    ///   - center: Delivers: Foundation's default center unless given, so that the app's observers
    ///     hear UIKit's posts. Give a private center (`NotificationCenter()`) to record in isolation.
    public init(bus: Bus, center: Foundation.NotificationCenter = .default) {
        self.fixedBus = bus
        self.center = center
    }

    /// A new center with a private Foundation center, like `NotificationCenter()`; it records into
    /// the bus given to ``record(into:)``.
    public convenience init() {
        self.init(wrapping: Foundation.NotificationCenter(), bus: nil)
    }

    private init(wrapping center: Foundation.NotificationCenter, bus: Bus?) {
        self.fixedBus = bus
        self.center = center
    }

    /// The recording bus and its tracker, or `nil` when nothing records.
    func session() -> (bus: Bus, tracker: PostTracker)? {
        guard let bus else { return nil }
        return cachedTracker.withLock { cached in
            if let tracker = cached, tracker.bus === bus { return (bus, tracker) }
            let tracker = PostTracker.shared(bus: bus, center: center)
            cached = tracker
            return (bus, tracker)
        }
    }

    // MARK: Block observers

    /// Adds a block observer: `NotificationCenter`'s `addObserver(forName:object:queue:using:)`.
    ///
    /// - Parameters:
    ///   - name: The name to observe; `nil` for every name.
    ///   - object: Only posts from this object, when given.
    ///   - queue: Where the block runs; `nil` for the posting thread. As in Foundation, the post
    ///     waits for the block.
    ///   - file: Recorded as the observer's call site; its file names the owner's type.
    ///   - line: Recorded as the observer's call site.
    ///   - block: Called with the notification as posted.
    /// - Returns: The observation, to pass to `removeObserver(_:)`; released first, the block
    ///   stays registered for good, as in Foundation, and the trace says so.
    public func addObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?,
        file: String = #fileID, line: Int = #line, using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        guard let (bus, tracker) = session() else {
            return center.addObserver(forName: name, object: object, queue: queue, using: block)
        }
        let message = name.map(Self.message(for:))
        let observation = RecordedObservation(name: name, message: message, object: object, bus: bus,
                                              addedBy: Self.typeName(ofFile: file))
        let id = bus.recordObserverAdded(message: message, owner: observation, sender: Self.object(object), kind: .block,
                                         callSite: CallSite(file: file, line: line))
        tracker.join(id, name: name, object: object)
        let queue = QueueRef(queue: queue)
        let real = center.addObserver(forName: name, object: object, queue: nil) { note in
            let post = tracker.post(of: note, for: id) { Self.recordForeignPost(note, bus: bus, tracker: tracker) }.post
            bus.record(.delivered(post: post, observer: id))
            Self.run(block, with: note, on: queue.queue, bus: bus, post: post)
        }
        observation.register(id: id, ownerID: bus.ownerID(of: observation), real: real, tracker: tracker)
        return observation
    }

    /// Runs an observer's block for `post`, on `queue` when one is given and is not the current
    /// one, waiting for it as Foundation does.
    static func run(_ block: @escaping @Sendable (Notification) -> Void, with note: Notification,
                    on queue: OperationQueue?, bus: Bus, post: UInt64) {
        guard let queue, OperationQueue.current !== queue else {
            CurrentPost.with(bus: bus, post: post) { block(note) }
            return
        }
        let sendable = SendableNotification(note: note)
        let operation = BlockOperation { CurrentPost.with(bus: bus, post: post) { block(sendable.note) } }
        queue.addOperations([operation], waitUntilFinished: true)
    }

    // MARK: Removing

    /// `NotificationCenter`'s `removeObserver(_:)`: given an observation, removes its block;
    /// given any other object, removes every selector observer of that object, and no block.
    /// A block observation the object holds in a stored property is recorded as missed.
    public func removeObserver(_ observer: Any, file: String = #fileID, line: Int = #line) {
        remove(observer, name: nil, object: nil, callSite: CallSite(file: file, line: line))
    }

    /// `NotificationCenter`'s `removeObserver(_:name:object:)`: given an observation, removes its
    /// block when the name (and object) match; given any other object, removes its selector
    /// observers of `name` (and `object`), and no block. What it misses is recorded.
    public func removeObserver(_ observer: Any, name: Notification.Name?, object: Any?,
                               file: String = #fileID, line: Int = #line) {
        remove(observer, name: name, object: object, callSite: CallSite(file: file, line: line))
    }

    private func remove(_ observer: Any, name: Notification.Name?, object: Any?, callSite: CallSite) {
        if let observation = observer as? RecordedObservation {
            let sameName = name == nil || name == observation.name
            let sameObject = object == nil || PostTracker.identity(object) == PostTracker.identity(observation.object)
            if sameName && sameObject {
                observation.remove(from: center, callSite: callSite)
            } else if let bus = observation.bus {
                // Foundation leaves it registered; the trace records what was asked for.
                bus.record(.observerRemoved(observer: nil, message: name.map(Self.message(for:)),
                                            owner: observation.ownerID, reason: .explicit, callSite: callSite))
            }
            return
        }
        if name == nil && object == nil { center.removeObserver(observer) } else {
            center.removeObserver(observer, name: name, object: object)
        }
        guard let target = Self.object(observer) else { return }
        let removed = removeSelectors(of: target, name: name, object: object)
        guard let bus = session()?.bus else { return }
        recordRemoval(by: target, name: name, removed: removed, bus: bus, callSite: callSite)
    }

    /// Records a removal by owner (and name): each selector it removed, each block observation the
    /// owner holds that it could not remove (attached to the owner, so that findings say where),
    /// and, when it removed nothing, the removal itself.
    private func recordRemoval(by target: AnyObject, name: Notification.Name?, removed: [SelectorObserver],
                               bus: Bus, callSite: CallSite) {
        let message = name.map(Self.message(for:))
        let reason: RemovalReason = name == nil ? .ownerSelectors : .explicit
        let ownerID = ownerID(of: target, bus: bus)
        for selector in removed {
            bus.record(.observerRemoved(observer: selector.id, message: selector.message, owner: selector.ownerID,
                                        reason: reason, callSite: callSite))
        }
        let held = RecordedObservation.held(by: target).filter {
            $0.isRegistered && (name == nil || $0.name == name)
        }
        // In the owner's deinit no reference to it can be made: its observations were attached
        // earlier (at a screen's lifecycle steps) or are found by their own owner id.
        weak let probe = target
        for observation in held {
            if probe != nil { bus.attach(observation, to: target) }
            bus.record(.observerRemoved(observer: nil, message: name == nil ? nil : observation.message,
                                        owner: observation.ownerID, reason: reason, callSite: callSite))
        }
        // Removed nothing at all: the call itself (a removal by a name never observed is a typo).
        if removed.isEmpty && held.isEmpty {
            bus.record(.observerRemoved(observer: nil, message: message, owner: ownerID, reason: reason,
                                        callSite: callSite))
        }
    }

    // MARK: Posting

    /// Posts a notification: `NotificationCenter`'s `post(name:object:userInfo:)`.
    public func post(name: Notification.Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) {
        post(Notification(name: name, object: object, userInfo: userInfo))
    }

    /// Posts a notification: `NotificationCenter`'s `post(_:)`.
    public func post(_ notification: Notification) {
        guard let (bus, tracker) = session() else {
            center.post(notification)
            return
        }
        let post = Self.recordPost(notification, bus: bus, tracker: tracker, origin: nil)
        tracker.own(notification, post: post) {
            CurrentPost.with(bus: bus, post: post) { center.post(notification) }
        }
    }

    /// Records a post first seen at one of its observers: UIKit's, or the app's to the real center.
    static func recordForeignPost(_ note: Notification, bus: Bus, tracker: PostTracker) -> UInt64 {
        recordPost(note, bus: bus, tracker: tracker, origin: CurrentPost.value(for: bus) == nil ? .stimulus : .reaction)
    }

    /// Records a post as its catalog message or a named one; when a ``FoundationBridge`` bridges the
    /// name, the catalog message is also delivered to the bus's observers, in this one post.
    static func recordPost(_ note: Notification, bus: Bus, tracker: PostTracker, origin: PostOrigin?) -> UInt64 {
        let sender = object(note.object)
        switch FoundationBridge.translate(note) {
        case .message(let message):
            func post<M: BusMessage>(_ message: M) -> UInt64 { bus.post(message, sender: sender, origin: origin) }
            return tracker.isBridged(note.name) ? post(message)
                : bus.recordPost(message, sender: sender, origin: origin)
        case .rejected(let reason):
            bus.record(.bridgeRejected(name: note.name.rawValue, reason: reason))
            return bus.recordPost(NamedMessage(name: note.name.rawValue, payload: payload(note.userInfo)),
                                  sender: sender, origin: origin)
        case .notInCatalog:
            return bus.recordPost(NamedMessage(name: note.name.rawValue, payload: payload(note.userInfo)),
                                  sender: sender, origin: origin)
        }
    }

    // MARK: Helpers

    /// The owner id of `object`, kept so that its `deinit` finds it again.
    func ownerID(of object: AnyObject, bus: Bus) -> UInt64 {
        let key = ObjectIdentifier(object)
        if let known = owners.withLock({ $0[key] }), known.bus === bus {
            if known.ref.object === object { return known.id }
            // No live reference and none can be made: `object` is in its deinit, the one recorded.
            weak let probe = object
            if known.ref.object == nil && probe == nil { return known.id }
        }
        let id = bus.ownerID(of: object)
        owners.withLock { owners in
            if owners.count > 1_024 { owners = owners.filter { $0.value.ref.object != nil } }
            owners[key] = KnownOwner(ref: WeakRef(object: object), id: id, bus: bus)
        }
        return id
    }

    /// The object behind an `Any`, if it is one.
    static func object(_ value: Any?) -> AnyObject? {
        guard let value, type(of: value) is AnyClass else { return nil }
        return value as AnyObject
    }

    static func message(for name: Notification.Name) -> String {
        FoundationBridge.catalogName(for: name) ?? name.rawValue
    }

    /// The type a call site's file is named after: `App/CheckoutScreen.swift` → `CheckoutScreen`,
    /// `UIViewController+Keyboard.swift` → `UIViewController` (STYLE: files are named after their type).
    static func typeName(ofFile file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        let stem = base.hasSuffix(".swift") ? String(base.dropLast(6)) : base
        return stem.split(separator: "+").first.map(String.init) ?? stem
    }

    /// A `userInfo` as JSON: string keys; strings, numbers, booleans, arrays and
    /// dictionaries as themselves; anything else as its description.
    static func payload(_ info: [AnyHashable: Any]?) -> JSONValue {
        guard let info, !info.isEmpty else { return .null }
        var fields: [String: JSONValue] = [:]
        for (key, value) in info { fields[String(describing: key.base)] = json(any: value) }
        return .object(fields)
    }

    private static func json(any value: Any) -> JSONValue {
        switch value {
        case let value as String: .string(value)
        case let value as Bool: .bool(value)
        case let value as Int: .number(Double(value))
        case let value as Double: JSONValue(number: value) ?? .null
        case let value as [Any]: .array(value.map(json(any:)))
        case let value as [String: Any]: .object(value.mapValues(json(any:)))
        default: .string(String(describing: value))
        }
    }
}

/// An object this center gave an owner id.
struct KnownOwner: Sendable {
    let ref: WeakRef
    let id: UInt64
    let bus: Bus
}

/// A weak reference to an object, compared by identity only.
struct WeakRef: @unchecked Sendable {
    // @unchecked: loading a weak reference is atomic, and the object is only compared.
    weak var object: AnyObject?
}

/// An observer's queue, carried into the block Foundation calls.
struct QueueRef: @unchecked Sendable {
    // @unchecked: `OperationQueue` is thread safe.
    let queue: OperationQueue?
}

/// A notification carried to the queue its observer runs on, while its poster waits.
struct SendableNotification: @unchecked Sendable {
    // @unchecked: as in Foundation, the observer gets the poster's notification on another thread.
    let note: Notification
}
