public import Foundation
#if canImport(Combine)
public import Combine
#endif

extension RecordingNotificationCenter {
    /// SF-0011's message protocols and token, under the names an app spells through the typealias
    /// (`NotificationCenter.MainActorMessage`).
    public typealias MainActorMessage = Foundation.NotificationCenter.MainActorMessage
    /// SF-0011's asynchronous messages.
    public typealias AsyncMessage = Foundation.NotificationCenter.AsyncMessage
    /// SF-0011's observation token.
    public typealias ObservationToken = Foundation.NotificationCenter.ObservationToken
    /// SF-0011's message identifiers (`for: .cartDidChange`).
    public typealias MessageIdentifier = Foundation.NotificationCenter.MessageIdentifier
    /// SF-0011's identifier of one message type.
    public typealias BaseMessageIdentifier = Foundation.NotificationCenter.BaseMessageIdentifier
    #if canImport(Combine)
    /// Combine's publisher of a center's notifications.
    public typealias Publisher = Foundation.NotificationCenter.Publisher
    #endif

    // MARK: SF-0011 typed messages

    /// Adds an observer of a main-actor message: SF-0011's `addObserver(of:for:using:)`.
    ///
    /// Recorded as a token observer of the message's type name; releasing the token removes it
    /// (Foundation's rule), recorded as `tokenReleased`.
    public func addObserver<Message: MainActorMessage>(
        of subject: Message.Subject? = nil, for messageType: Message.Type,
        file: String = #fileID, line: Int = #line, using observer: @escaping @MainActor (Message) -> Void
    ) -> ObservationToken where Message.Subject: AnyObject {
        guard let bus else { return center.addObserver(of: subject, for: messageType, using: observer) }
        let registration = typed.register(Message.self, subject: subject, bus: bus, callSite: CallSite(file: file, line: line))
        let token = center.addObserver(of: subject, for: messageType) { [registration] message in
            let post = registration.deliveryPost()
            CurrentPost.with(bus: bus, post: post) { observer(message) }
        }
        typed.remember(token, registration)
        return token
    }

    /// SF-0011's `addObserver(of:for:using:)` with a message identifier (`for: .cartDidChange`).
    public func addObserver<Identifier: MessageIdentifier, Message: MainActorMessage>(
        of subject: Message.Subject? = nil, for identifier: Identifier,
        file: String = #fileID, line: Int = #line, using observer: @escaping @MainActor (Message) -> Void
    ) -> ObservationToken where Identifier.MessageType == Message, Message.Subject: AnyObject {
        addObserver(of: subject, for: Message.self, file: file, line: line, using: observer)
    }

    /// SF-0011's `addObserver(of:for:using:)` for every subject of a type (`of: Cart.self`).
    public func addObserver<Identifier: MessageIdentifier, Message: MainActorMessage>(
        of subjectType: Message.Subject.Type, for identifier: Identifier,
        file: String = #fileID, line: Int = #line, using observer: @escaping @MainActor (Message) -> Void
    ) -> ObservationToken where Identifier.MessageType == Message, Message.Subject: AnyObject {
        addObserver(of: nil, for: Message.self, file: file, line: line, using: observer)
    }

    /// Adds an observer of an asynchronous message: SF-0011's `addObserver(of:for:using:)`.
    public func addObserver<Message: AsyncMessage>(
        of subject: Message.Subject? = nil, for messageType: Message.Type,
        file: String = #fileID, line: Int = #line, using observer: @escaping @Sendable (Message) async -> Void
    ) -> ObservationToken where Message.Subject: AnyObject {
        guard let bus else { return center.addObserver(of: subject, for: messageType, using: observer) }
        let registration = typed.register(Message.self, subject: subject, bus: bus, callSite: CallSite(file: file, line: line))
        let token = center.addObserver(of: subject, for: messageType) { [registration] message in
            _ = registration.deliveryPost()
            await observer(message)
        }
        typed.remember(token, registration)
        return token
    }

    /// Posts a main-actor message: SF-0011's `post(_:subject:)`.
    @MainActor
    public func post<Message: MainActorMessage>(_ message: Message, subject: Message.Subject)
    where Message.Subject: AnyObject {
        guard let bus else { return center.post(message, subject: subject) }
        let post = typed.recordPost(Message.self, message: message, subject: subject, bus: bus)
        CurrentPost.with(bus: bus, post: post) { center.post(message, subject: subject) }
    }

    /// Posts a main-actor message without a subject: SF-0011's `post(_:)`.
    @MainActor
    public func post<Message: MainActorMessage>(_ message: Message) {
        guard let bus else { return center.post(message) }
        let post = typed.recordPost(Message.self, message: message, subject: nil, bus: bus)
        CurrentPost.with(bus: bus, post: post) { center.post(message) }
    }

    /// Posts an asynchronous message: SF-0011's `post(_:subject:)`.
    public func post<Message: AsyncMessage>(_ message: Message, subject: Message.Subject)
    where Message.Subject: AnyObject {
        if let bus { _ = typed.recordPost(Message.self, message: message, subject: subject, bus: bus) }
        center.post(message, subject: subject)
    }

    /// Posts an asynchronous message without a subject: SF-0011's `post(_:)`.
    public func post<Message: AsyncMessage>(_ message: Message) {
        if let bus { _ = typed.recordPost(Message.self, message: message, subject: nil, bus: bus) }
        center.post(message)
    }

    /// Removes a typed observer: SF-0011's `removeObserver(_:)`.
    public func removeObserver(_ token: ObservationToken, file: String = #fileID, line: Int = #line) {
        let registration = typed.registration(of: token)
        registration?.markRemoved()
        center.removeObserver(token)
        guard let registration, let bus = registration.bus else { return }
        bus.record(.observerRemoved(observer: registration.observerID, message: registration.message, owner: nil,
                                    reason: .explicit, callSite: CallSite(file: file, line: line)))
    }

    // MARK: Asynchronous sequences and Combine

    /// The notifications of `name` (from `object`, when given) as an asynchronous sequence:
    /// `NotificationCenter`'s `notifications(named:object:)`.
    ///
    /// Recorded as a token observer, removed when the iteration ends (its task cancelled, or the
    /// sequence released). Notifications are buffered until consumed.
    public func notifications(named name: Notification.Name, object: AnyObject? = nil,
                              file: String = #fileID, line: Int = #line) -> Notifications {
        let (stream, continuation) = AsyncStream.makeStream(of: SendableNotification.self, bufferingPolicy: .unbounded)
        let observation = addObserver(forName: name, object: object, queue: nil, file: file, line: line) { note in
            continuation.yield(SendableNotification(note: note))
        }
        let handle = FoundationObserver(token: observation)
        continuation.onTermination = { [weak self] _ in
            self?.removeObserver(handle.token, file: file, line: line)
        }
        return Notifications(stream: stream)
    }

    /// What ``notifications(named:object:file:line:)`` returns: the notifications, in the order posted.
    public struct Notifications: AsyncSequence, Sendable {
        public typealias Element = Notification
        let stream: AsyncStream<SendableNotification>

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<SendableNotification>.AsyncIterator
            public mutating func next() async -> Notification? { await base.next()?.note }
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Notification? {
                await base.next(isolation: actor)?.note
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
    }

    #if canImport(Combine)
    /// Combine's publisher of the notifications of `name`: `NotificationCenter`'s
    /// `publisher(for:object:)`, recorded as a block observer while subscribed.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil,
                          file: String = #fileID, line: Int = #line) -> AnyPublisher<Notification, Never> {
        let subject = PassthroughSubject<Notification, Never>()
        let center = self
        return subject.handleEvents(
            receiveSubscription: { _ in
                let observation = center.addObserver(forName: name, object: object, queue: nil, file: file, line: line) {
                    subject.send($0)
                }
                subscriptions.withLock { $0[ObjectIdentifier(subject)] = FoundationObserver(token: observation) }
            },
            receiveCancel: {
                if let handle = subscriptions.withLock({ $0.removeValue(forKey: ObjectIdentifier(subject)) }) {
                    center.removeObserver(handle.token, file: file, line: line)
                }
            }
        ).eraseToAnyPublisher()
    }
    #endif
}

#if canImport(Combine)
/// The observations of the publishers subscribed to.
private let subscriptions = Locked<[ObjectIdentifier: FoundationObserver]>([:])
#endif

/// The typed observers of a center: the posts each is to receive, for their deliveries' post ids.
final class TypedObservers: Sendable {
    private let byType = Locked<[ObjectIdentifier: [WeakRegistration]]>([:])
    private let byToken = Locked<[Int: WeakRegistration]>([:])

    func register<Message>(_ type: Message.Type, subject: AnyObject?, bus: Bus, callSite: CallSite) -> TypedRegistration {
        let message = Self.typedName(Message.self)
        let id = bus.recordObserverAdded(message: message, owner: nil, sender: subject, kind: .token, callSite: callSite)
        let registration = TypedRegistration(observerID: id, message: message, subject: subject, bus: bus, observers: self)
        byType.withLock { $0[ObjectIdentifier(type), default: []].append(WeakRegistration(registration)) }
        return registration
    }

    func remember(_ token: NotificationCenter.ObservationToken, _ registration: TypedRegistration) {
        byToken.withLock { $0[token.hashValue] = WeakRegistration(registration) }
        registration.tokenHash = token.hashValue
    }

    func registration(of token: NotificationCenter.ObservationToken) -> TypedRegistration? {
        byToken.withLock { $0[token.hashValue]?.registration }
    }

    func recordPost<Message>(_ type: Message.Type, message: Message, subject: AnyObject?, bus: Bus) -> UInt64 {
        let name = Self.typedName(Message.self)
        let payload: JSONValue = (message as? any Encodable).flatMap(Self.json) ?? .null
        let post = bus.recordPost(NamedMessage(name: name, payload: payload), sender: subject)
        let reached = byType.withLock { observers in
            (observers[ObjectIdentifier(type)] ?? []).compactMap(\.registration).filter { $0.accepts(subject: subject) }
        }
        for registration in reached { registration.expect(post) }
        return post
    }

    /// Drops a registration once Foundation let go of its observer.
    func forget(_ registration: TypedRegistration) {
        byType.withLock { observers in
            for key in observers.keys { observers[key]?.removeAll { $0.registration == nil } }
        }
        if let hash = registration.tokenHash {
            byToken.withLock { tokens in if tokens[hash]?.registration == nil { tokens[hash] = nil } }
        }
    }

    /// A typed message's name in the trace: its type's name (SF-0011's default `name`,
    /// which corelibs Foundation does not make public).
    private static func typedName<Message>(_ type: Message.Type) -> String {
        String(describing: type)
    }

    private static func json(_ value: any Encodable) -> JSONValue? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }
}

/// A typed observer's record: the posts it is to receive, in order, and whether it was
/// removed explicitly. Foundation holds it through the observer's closure; when
/// Foundation lets go of it without an explicit removal, the token was released.
final class TypedRegistration: Sendable {
    let observerID: UInt64
    let message: String
    private let subjectRef: WeakRef
    let hasSubject: Bool
    weak let bus: Bus?
    weak let observers: TypedObservers?
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

    init(observerID: UInt64, message: String, subject: AnyObject?, bus: Bus, observers: TypedObservers) {
        self.observerID = observerID
        self.message = message
        self.subjectRef = WeakRef(object: subject)
        self.hasSubject = subject != nil
        self.bus = bus
        self.observers = observers
    }

    deinit {
        let removed = state.withLock { $0.removed }
        observers?.forget(self)
        if !removed {
            bus?.record(.observerRemoved(observer: observerID, message: message, owner: nil, reason: .tokenReleased,
                                         callSite: nil))
        }
    }

    /// Whether a post with `subject` reaches this observer: every post when it observes no subject.
    func accepts(subject: AnyObject?) -> Bool {
        !hasSubject || (subject != nil && subjectRef.object === subject)
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

/// A typed registration, held weakly: Foundation's observer closure holds it strongly.
struct WeakRegistration: Sendable {
    weak var registration: TypedRegistration?
    init(_ registration: TypedRegistration) { self.registration = registration }
}
