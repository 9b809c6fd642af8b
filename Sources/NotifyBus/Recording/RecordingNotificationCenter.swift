public import Foundation
import Synchronization

/// A stand-in for `NotificationCenter.default` that records an existing app's
/// notification traffic into a ``Bus``'s trace, while a real `NotificationCenter`
/// keeps delivering.
///
/// Replace the one place that picks the center and leave the rest of the code alone:
///
/// ```swift
/// // let center = NotificationCenter.default
/// let center = RecordingNotificationCenter(bus: Bus(sink: recorder))
/// token = center.addObserver(forName: .init("UIKeyboardWillShowNotification"), object: nil, queue: nil) { note in … }
/// center.post(name: .init("CartDidChange"), object: cart, userInfo: ["count": 3])
/// ```
///
/// It has the methods of NotificationCenter's block API and of SF-0011's typed
/// messages, with the same names and parameters. Each records, then calls the real
/// center ``center``, which delivers as Foundation always does (same threads, same
/// queues, same order). What the trace says, in the bus's terms (`NOTIFICATIONCENTER.md`):
///
/// - `addObserver(forName:object:queue:using:)` is a **block** observer. Its owner is
///   the observation object returned to the app: the app holds it to remove the block
///   later. If the app lets it go while the block is registered, the block can never be
///   removed, and the trace records that owner released: the leak analysis reports
///   `observer-outlives-owner`.
/// - `removeObserver(self)` removes no block in Foundation. The trace records it as a
///   removal by owner of `self`, and of each live observation `self` holds in a stored
///   property (attached to `self`): the analysis reports `removal-misses-observer` for each.
/// - `addObserver(of:for:using:)` (SF-0011) is a **token** observer; Foundation removes
///   it when its token is released, and so does the trace (`tokenReleased`). A token
///   released before its observer heard anything is `token-released-unheard`.
/// - Names UIKit posts for the keyboard, the application's activity and the device's
///   orientation are recorded as their catalog messages (``KeyboardWillShow``…), read
///   from `userInfo` by ``FoundationBridge``; any other name is a ``NamedMessage``
///   whose payload is the `userInfo` as JSON.
///
/// To tie each delivery to its post, a post through this center carries its post id in
/// `userInfo` under ``postIDKey``; the observers added here never see it.
public final class RecordingNotificationCenter: Sendable {
    /// The center that delivers.
    public let center: NotificationCenter
    /// The bus whose trace receives the events; nothing is delivered through it.
    public let bus: Bus
    /// The typed observers, by message type, for their posts' ids.
    private let typedObservers = Mutex<[ObjectIdentifier: [WeakRegistration]]>([:])
    /// The live typed observations, by their token's hash, to find them again at removal.
    private let typedTokens = Mutex<[Int: WeakRegistration]>([:])

    /// The `userInfo` key of the post id a post through this center carries.
    public static let postIDKey = "NotifyBus.RecordingNotificationCenter.post"

    /// A center recording into `bus`'s trace and delivering through `center`.
    /// - Parameters:
    ///   - bus: Records; make it with a sink (``Bus/init(sink:clock:selectorSemantics:)``).
    ///   - center: Delivers; a new, private center by default. Observers added to it
    ///     directly are not recorded.
    public init(bus: Bus, center: NotificationCenter = NotificationCenter()) {
        self.bus = bus
        self.center = center
    }

    // MARK: Block observers

    /// Adds a block observer: NotificationCenter's `addObserver(forName:object:queue:using:)`.
    ///
    /// - Parameters:
    ///   - name: The name to observe; `nil` for every name.
    ///   - object: Only posts from this object, when given.
    ///   - queue: Where Foundation runs the block; `nil` for the posting thread.
    ///   - file: Recorded as the observer's call site.
    ///   - line: Recorded as the observer's call site.
    ///   - block: The block, called with the notification as posted.
    /// - Returns: The observation, to pass to ``removeObserver(_:file:line:)``; if it is
    ///   released first, the block stays registered for good, and the trace says so.
    public func addObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?,
        file: String = #fileID, line: Int = #line, using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        let message = name.map { FoundationBridge.catalogName(for: $0) ?? $0.rawValue }
        let observation = RecordedObservation(name: name, message: message, object: object, bus: bus)
        let id = bus.recordObserverAdded(message: message, owner: observation, sender: Self.object(object), kind: .block,
                                         callSite: CallSite(file: file, line: line))
        let bus = self.bus
        let real = center.addObserver(forName: name, object: object, queue: queue) { note in
            let (post, plain) = Self.unmark(note, bus: bus)
            if let post { bus.record(.delivered(post: post, observer: id)) }
            CurrentPost.with(bus: bus, post: post) { block(plain) }
        }
        observation.register(id: id, ownerID: bus.ownerID(of: observation), real: real)
        return observation
    }

    /// Removes a block observer given its observation, or, given any other object,
    /// does what Foundation's `removeObserver(_:)` does: removes its selector
    /// observers (there are none here) and no block. That miss is recorded.
    public func removeObserver(_ observer: Any, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        if let observation = observer as? RecordedObservation {
            remove(observation, callSite: callSite)
            return
        }
        center.removeObserver(observer)
        recordRemovalByOwner(observer, name: nil, callSite: callSite)
    }

    /// Foundation's `removeObserver(_:name:object:)`: removes a block observer given its
    /// observation when the name (and object) match; otherwise the selector observers of
    /// `observer` for `name`, and no block. That miss is recorded.
    public func removeObserver(_ observer: Any, name: Notification.Name?, object: Any?,
                               file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        if let observation = observer as? RecordedObservation {
            let sameObject = object == nil || Self.object(object) === Self.object(observation.object)
            if (name == nil || name == observation.name) && sameObject {
                remove(observation, callSite: callSite)
            } else {
                // Foundation leaves it registered; record what was asked for.
                bus.record(.observerRemoved(observer: nil, message: name.map(Self.message(for:)),
                                            owner: observation.ownerID, reason: .explicit, callSite: callSite))
            }
            return
        }
        center.removeObserver(observer, name: name, object: object)
        recordRemovalByOwner(observer, name: name, callSite: callSite)
    }

    private func remove(_ observation: RecordedObservation, callSite: CallSite) {
        // A second removal is recorded as Foundation would take it: harmless, unbalanced.
        if let real = observation.takeForRemoval() { center.removeObserver(real) }
        bus.record(.observerRemoved(observer: observation.observerID, message: observation.message,
                                    owner: observation.ownerID, reason: .explicit, callSite: callSite))
    }

    /// A removal by owner (and name): recorded for `owner` and for each live observation
    /// it holds, attached to it, since neither removes a block.
    private func recordRemovalByOwner(_ owner: Any, name: Notification.Name?, callSite: CallSite) {
        guard let object = Self.object(owner) else { return }
        let message = name.map(Self.message(for:))
        let held = Self.observations(heldBy: object).filter {
            $0.isRegistered && (name == nil || $0.name == name)
        }
        let reason: RemovalReason = name == nil ? .ownerSelectors : .explicit
        for observation in held {
            bus.attach(observation, to: object)
            bus.record(.observerRemoved(observer: nil, message: message ?? (name == nil ? nil : observation.message),
                                        owner: observation.ownerID, reason: reason, callSite: callSite))
        }
        let ownerID = bus.ownerID(of: object)
        bus.record(.observerRemoved(observer: nil, message: message, owner: ownerID, reason: reason, callSite: callSite))
    }

    // MARK: Posting

    /// Posts a notification: NotificationCenter's `post(name:object:userInfo:)`.
    public func post(name: Notification.Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) {
        post(Notification(name: name, object: object, userInfo: userInfo))
    }

    /// Posts a notification: NotificationCenter's `post(_:)`.
    public func post(_ notification: Notification) {
        let message: any BusMessage = switch FoundationBridge.translate(notification) {
        case .message(let message): message
        case .rejected(let reason):
            recordRejection(notification, reason)
        case .notInCatalog:
            NamedMessage(name: notification.name.rawValue, payload: Self.payload(notification.userInfo))
        }
        let post = bus.recordPost(message, sender: Self.object(notification.object))
        var info = notification.userInfo ?? [:]
        info[Self.postIDKey] = PostMark(bus: ObjectIdentifier(bus), post: post)
        CurrentPost.with(bus: bus, post: post) {
            center.post(name: notification.name, object: notification.object, userInfo: info)
        }
    }

    private func recordRejection(_ notification: Notification, _ reason: String) -> any BusMessage {
        bus.record(.bridgeRejected(name: notification.name.rawValue, reason: reason))
        return NamedMessage(name: notification.name.rawValue, payload: Self.payload(notification.userInfo))
    }

    // MARK: SF-0011 typed messages

    /// Adds an observer of a main-actor message: SF-0011's `addObserver(of:for:using:)`.
    ///
    /// Recorded as a token observer of the message's name; releasing the token removes it
    /// (Foundation's rule), recorded as `tokenReleased`.
    public func addObserver<Message: NotificationCenter.MainActorMessage>(
        of subject: Message.Subject? = nil, for messageType: Message.Type,
        file: String = #fileID, line: Int = #line, using observer: @escaping @MainActor (Message) -> Void
    ) -> NotificationCenter.ObservationToken where Message.Subject: AnyObject {
        let registration = registerTyped(Message.self, subject: subject, callSite: CallSite(file: file, line: line))
        let bus = self.bus
        let token = center.addObserver(of: subject, for: messageType) { [registration] message in
            let post = registration.deliveryPost()
            CurrentPost.with(bus: bus, post: post) { observer(message) }
        }
        typedTokens.withLock { $0[token.hashValue] = WeakRegistration(registration) }
        registration.tokenHash = token.hashValue
        return token
    }

    /// Adds an observer of an asynchronous message: SF-0011's `addObserver(of:for:using:)`.
    public func addObserver<Message: NotificationCenter.AsyncMessage>(
        of subject: Message.Subject? = nil, for messageType: Message.Type,
        file: String = #fileID, line: Int = #line, using observer: @escaping @Sendable (Message) async -> Void
    ) -> NotificationCenter.ObservationToken where Message.Subject: AnyObject {
        let registration = registerTyped(Message.self, subject: subject, callSite: CallSite(file: file, line: line))
        let token = center.addObserver(of: subject, for: messageType) { [registration] message in
            _ = registration.deliveryPost()
            await observer(message)
        }
        typedTokens.withLock { $0[token.hashValue] = WeakRegistration(registration) }
        registration.tokenHash = token.hashValue
        return token
    }

    /// Posts a main-actor message: SF-0011's `post(_:subject:)`.
    @MainActor
    public func post<Message: NotificationCenter.MainActorMessage>(_ message: Message, subject: Message.Subject)
    where Message.Subject: AnyObject {
        let post = recordTypedPost(Message.self, message: message, subject: subject)
        CurrentPost.with(bus: bus, post: post) { center.post(message, subject: subject) }
    }

    /// Posts a main-actor message without a subject: SF-0011's `post(_:)`.
    @MainActor
    public func post<Message: NotificationCenter.MainActorMessage>(_ message: Message) {
        let post = recordTypedPost(Message.self, message: message, subject: nil)
        CurrentPost.with(bus: bus, post: post) { center.post(message) }
    }

    /// Posts an asynchronous message: SF-0011's `post(_:subject:)`.
    public func post<Message: NotificationCenter.AsyncMessage>(_ message: Message, subject: Message.Subject)
    where Message.Subject: AnyObject {
        _ = recordTypedPost(Message.self, message: message, subject: subject)
        center.post(message, subject: subject)
    }

    /// Posts an asynchronous message without a subject: SF-0011's `post(_:)`.
    public func post<Message: NotificationCenter.AsyncMessage>(_ message: Message) {
        _ = recordTypedPost(Message.self, message: message, subject: nil)
        center.post(message)
    }

    /// Removes a typed observer: SF-0011's `removeObserver(_:)`.
    public func removeObserver(_ token: NotificationCenter.ObservationToken, file: String = #fileID, line: Int = #line) {
        let registration = typedTokens.withLock { $0[token.hashValue]?.registration }
        registration?.markRemoved()
        center.removeObserver(token)
        guard let registration else { return }
        bus.record(.observerRemoved(observer: registration.observerID, message: registration.message, owner: nil,
                                    reason: .explicit, callSite: CallSite(file: file, line: line)))
    }

    private func registerTyped<Message>(_ type: Message.Type, subject: AnyObject?, callSite: CallSite)
        -> TypedRegistration {
        let message = Self.typedName(Message.self)
        let id = bus.recordObserverAdded(message: message, owner: nil, sender: subject, kind: .token, callSite: callSite)
        let registration = TypedRegistration(observerID: id, message: message, subject: subject, bus: bus, center: self)
        typedObservers.withLock { $0[ObjectIdentifier(type), default: []].append(WeakRegistration(registration)) }
        return registration
    }

    private func recordTypedPost<Message>(_ type: Message.Type, message: Message, subject: AnyObject?) -> UInt64 {
        let name = Self.typedName(Message.self)
        let payload: JSONValue = (message as? any Encodable).flatMap(Self.json) ?? .null
        let post = bus.recordPost(NamedMessage(name: name, payload: payload), sender: subject)
        let reached = typedObservers.withLock { observers in
            (observers[ObjectIdentifier(type)] ?? []).compactMap(\.registration).filter { $0.accepts(subject: subject) }
        }
        for registration in reached { registration.expect(post) }
        return post
    }

    /// Drops a typed registration once Foundation let go of its observer.
    fileprivate func forget(_ registration: TypedRegistration) {
        typedObservers.withLock { observers in
            for key in observers.keys { observers[key]?.removeAll { $0.registration == nil } }
        }
        if let hash = registration.tokenHash {
            typedTokens.withLock { tokens in if tokens[hash]?.registration == nil { tokens[hash] = nil } }
        }
    }

    // MARK: Helpers

    /// What a post through a recording center carries under ``postIDKey``: a type no caller can
    /// make, so a `userInfo` value of the caller's own under that key is never taken for a post
    /// id, and the bus that recorded the post, so that two recording centers sharing one
    /// `NotificationCenter` do not record each other's posts as their own.
    private struct PostMark: Sendable {
        let bus: ObjectIdentifier
        let post: UInt64
    }

    /// The post id `bus` recorded for a notification, and the notification without the mark
    /// (any recording center's: the app's blocks never see one). A notification with no mark (posted
    /// to the real center directly) or another bus's has no post id here.
    private static func unmark(_ note: Notification, bus: Bus) -> (UInt64?, Notification) {
        guard var info = note.userInfo, let mark = info[postIDKey] as? PostMark else { return (nil, note) }
        info[postIDKey] = nil
        let plain = Notification(name: note.name, object: note.object, userInfo: info.isEmpty ? nil : info)
        return (mark.bus == ObjectIdentifier(bus) ? mark.post : nil, plain)
    }

    /// The object behind an `Any`, if it is one.
    private static func object(_ value: Any?) -> AnyObject? {
        guard let value, type(of: value) is AnyClass else { return nil }
        return value as AnyObject
    }

    private static func message(for name: Notification.Name) -> String {
        FoundationBridge.catalogName(for: name) ?? name.rawValue
    }

    /// A typed message's name in the trace: its type's name (SF-0011's default `name`,
    /// which corelibs Foundation does not make public).
    private static func typedName<Message>(_ type: Message.Type) -> String {
        String(describing: type)
    }

    /// The observations `object` holds in its stored properties, directly or in an
    /// optional, array, set or dictionary.
    private static func observations(heldBy object: AnyObject) -> [RecordedObservation] {
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

    private static func json(_ value: any Encodable) -> JSONValue? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }
}

/// What ``RecordingNotificationCenter/addObserver(forName:object:queue:file:line:using:)``
/// returns: the app's handle on a block observer, and the block's owner in the trace.
public final class RecordedObservation: NSObject, TraceLabeled, @unchecked Sendable {
    // @unchecked: `state` is a Mutex; `name`, `message`, `object` and `bus` are set once in init.
    let name: Notification.Name?
    let message: String?
    nonisolated(unsafe) let object: Any?
    weak let bus: Bus?
    private let state = Locked(State())

    private struct State {
        var observerID: UInt64 = 0
        var ownerID: UInt64 = 0
        /// Foundation's observer, until removed.
        var real: FoundationObserver?
    }

    init(name: Notification.Name?, message: String?, object: Any?, bus: Bus) {
        self.name = name
        self.message = message
        self.object = object
        self.bus = bus
    }

    deinit {
        // Released while registered: the block can never be removed now.
        let (registered, ownerID) = state.withLock { ($0.real != nil, $0.ownerID) }
        if registered { bus?.recordReleased(ownerID: ownerID) }
    }

    /// "block observer of keyboardWillShow".
    public var traceLabel: String { "block observer of \(message ?? "every name")" }
    public var traceTypeName: String { "RecordedObservation" }

    /// The observer's id in the trace.
    public var observerID: UInt64 { state.withLock { $0.observerID } }
    var ownerID: UInt64 { state.withLock { $0.ownerID } }
    var isRegistered: Bool { state.withLock { $0.real != nil } }

    func register(id: UInt64, ownerID: UInt64, real: any NSObjectProtocol) {
        let real = FoundationObserver(token: real)
        state.withLock {
            $0.observerID = id
            $0.ownerID = ownerID
            $0.real = real
        }
    }

    /// Foundation's observer, the first time only.
    func takeForRemoval() -> (any NSObjectProtocol)? {
        state.withLock { state in
            defer { state.real = nil }
            return state.real
        }?.token
    }
}

/// A typed observer's record: the posts it is to receive, in order, and whether it was
/// removed explicitly. Foundation holds it through the observer's closure; when
/// Foundation lets go of it without an explicit removal, the token was released.
final class TypedRegistration: Sendable {
    let observerID: UInt64
    let message: String
    private let subjectRef: WeakObject
    let hasSubject: Bool
    weak let bus: Bus?
    weak let center: RecordingNotificationCenter?

    /// Whether a post with `subject` reaches this observer: every post when it observes no subject.
    func accepts(subject: AnyObject?) -> Bool {
        !hasSubject || (subject != nil && subjectRef.object === subject)
    }
    private let state = Locked(State())

    private struct State {
        var pending: [UInt64] = []
        var removed = false
        var tokenHash: Int?
    }

    var tokenHash: Int? {
        get { state.withLock { $0.tokenHash } }
        set { state.withLock { $0.tokenHash = newValue } }
    }

    init(observerID: UInt64, message: String, subject: AnyObject?, bus: Bus, center: RecordingNotificationCenter) {
        self.observerID = observerID
        self.message = message
        self.subjectRef = WeakObject(object: subject)
        self.hasSubject = subject != nil
        self.bus = bus
        self.center = center
    }

    deinit {
        let removed = state.withLock { $0.removed }
        center?.forget(self)
        if !removed {
            bus?.record(.observerRemoved(observer: observerID, message: message, owner: nil, reason: .tokenReleased,
                                         callSite: nil))
        }
    }

    /// A post that will reach this observer.
    func expect(_ post: UInt64) { state.withLock { $0.pending.append(post) } }

    /// The post being delivered, recorded as delivered.
    func deliveryPost() -> UInt64? {
        let post = state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
        if let post { bus?.record(.delivered(post: post, observer: observerID)) }
        return post
    }

    func markRemoved() { state.withLock { $0.removed = true } }
}

/// A Foundation observer token.
struct FoundationObserver: @unchecked Sendable {
    // @unchecked: an opaque object only handed back to the center that made it,
    // which is thread safe.
    let token: any NSObjectProtocol
}

/// A typed registration, held weakly: Foundation's observer closure holds it strongly.
struct WeakRegistration: Sendable {
    weak var registration: TypedRegistration?
    init(_ registration: TypedRegistration) { self.registration = registration }
}
