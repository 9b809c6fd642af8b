import Synchronization

/// A typed notification center with strict, recordable semantics.
///
/// `Bus` keeps the add/remove-observer model of Foundation's
/// `NotificationCenter` and tightens what it leaves loose:
///
/// - Delivery is synchronous on the posting thread, in registration order.
/// - The observers of a post are snapshotted under a lock and called with the
///   lock released. An observer removed during a post is not called later in
///   that post; one added during a post is not called in it. Handlers may post;
///   such posts are recorded with their parent.
/// - Owners are held weakly. A post that finds an observer's owner gone skips
///   it, records the skip and removes the observer.
/// - With a ``TraceSink`` every add, remove, post, delivery and skip is
///   recorded in order; without one, recording costs a branch.
///
/// ```swift
/// let bus = Bus()
/// let token = bus.observe(KeyboardWillShow.self, owner: screen) { note in
///     print("keyboard to", note.endFrame)
/// }
/// bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: 508, width: 390, height: 336),
///                           curve: .easeInOut, duration: 0.25))
/// bus.remove(token)
/// ```
public final class Bus: Sendable {
    private let state = Locked(State())
    private let recording: Recording?

    /// A bus that records nothing.
    public init() {
        recording = nil
    }

    /// A bus that records every event into `sink`.
    ///
    /// - Parameters:
    ///   - sink: Receives the events, in sequence order.
    ///   - clock: Stamps the events; monotonic time since the bus was made by default.
    public init(sink: any TraceSink, clock: TraceClock = .monotonic()) {
        recording = Recording(sink: sink, clock: clock)
    }

    /// Whether this bus records its events.
    public var isRecording: Bool { recording != nil }

    // MARK: Observing

    /// Adds an observer of one message type.
    ///
    /// - Parameters:
    ///   - type: The message type to observe.
    ///   - sender: When given, only posts from this object (by identity) are delivered.
    ///     Held weakly.
    ///   - owner: The object the observer belongs to, held weakly. Once it is gone,
    ///     the observer is skipped and removed, and the skip is recorded: a leak.
    ///   - file: The call site recorded with the observer.
    ///   - line: The call site recorded with the observer.
    ///   - handler: Called synchronously on the posting thread.
    /// - Returns: A token; the observer is removed when its last copy is released.
    /// - Complexity: O(1) amortized.
    public func observe<M: BusMessage>(
        _ type: M.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (M) -> Void
    ) -> ObservationToken {
        let callSite = CallSite(file: file, line: line)
        let owner = owner.map(ObjectRef.init), sender = sender.map(ObjectRef.init)
        let observer = state.withLock { state -> Observer in
            let id = state.takeObserverID()
            let ownerID = owner.map { registerOwner($0, in: &state) }
            let senderID = sender.map { registerOwner($0, in: &state) }
            let slots = state.slots(for: M.self)
            let name = slots.name
            let observer = TypedObserver<M>(id: id, name: name, owner: owner, ownerID: ownerID, sender: sender,
                                            callSite: callSite, handler: handler)
            state.insert(observer, into: slots)
            recording?.emit(.observerAdded(observer: id, message: name, owner: ownerID,
                                           sender: senderID, callSite: callSite))
            return observer
        }
        return ObservationToken(box: TokenBox(observer: observer, bus: self))
    }

    /// Adds an observer of every message, for loggers and inspectors.
    ///
    /// - Parameters:
    ///   - owner: Held weakly, as in ``observe(_:sender:owner:file:line:_:)``.
    ///   - file: The call site recorded with the observer.
    ///   - line: The call site recorded with the observer.
    ///   - handler: Called with each message, in registration order among the other observers.
    /// - Returns: A token; the observer is removed when its last copy is released.
    public func observeAll(
        owner: AnyObject? = nil, file: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (any BusMessage) -> Void
    ) -> ObservationToken {
        let callSite = CallSite(file: file, line: line)
        let owner = owner.map(ObjectRef.init)
        let observer = state.withLock { state -> Observer in
            let id = state.takeObserverID()
            let ownerID = owner.map { registerOwner($0, in: &state) }
            let observer = WildcardObserver(id: id, owner: owner, ownerID: ownerID, callSite: callSite, handler: handler)
            state.insert(observer, into: state.wildcards)
            recording?.emit(.observerAdded(observer: id, message: nil, owner: ownerID, sender: nil, callSite: callSite))
            return observer
        }
        return ObservationToken(box: TokenBox(observer: observer, bus: self))
    }

    /// The messages of one type as an asynchronous sequence.
    ///
    /// The sequence observes the bus until it is cancelled or released;
    /// messages are buffered until they are consumed.
    ///
    /// ```swift
    /// for await change in bus.messages(of: OrientationDidChange.self) { ... }
    /// ```
    public func messages<M: BusMessage>(
        of type: M.Type, sender: AnyObject? = nil, file: String = #fileID, line: Int = #line
    ) -> AsyncStream<M> {
        let (stream, continuation) = AsyncStream.makeStream(of: M.self, bufferingPolicy: .unbounded)
        let token = observe(type, sender: sender, file: file, line: line) { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.remove(token) }
        return stream
    }

    // MARK: Removing

    /// Removes the observer of `token`.
    ///
    /// Removing an observer that is no longer registered changes nothing and is
    /// recorded as an unbalanced removal. A token from another bus is ignored.
    public func remove(_ token: ObservationToken, file: String = #fileID, line: Int = #line) {
        guard token.box.busID == ObjectIdentifier(self) else { return }
        removeObserver(token.box.observer, reason: .explicit, reportMissing: true, callSite: CallSite(file: file, line: line))
    }

    /// Removes every observer of `owner`.
    public func removeAll(owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let owner = ObjectRef(object: owner)
        state.withLock { state in
            guard let ownerID = state.liveOwnerID(of: owner) else { return }
            for observer in state.observers(ownedBy: ownerID) {
                state.remove(observer)
                recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                                 owner: ownerID, reason: .ownerRemoved, callSite: callSite))
            }
        }
    }

    /// Removes the observers of one message type that `owner` added: Foundation's
    /// `removeObserver(_:name:object:)`.
    ///
    /// When there is nothing to remove, the call is recorded as an unbalanced removal.
    public func remove<M: BusMessage>(_ type: M.Type, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        removeObservers(named: M.name, owner: owner, file: file, line: line)
    }

    /// Removes the observers of the message called `name` that `owner` added.
    package func removeObservers(named name: String, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let owner = ObjectRef(object: owner)
        state.withLock { state in
            let ownerID = registerOwner(owner, in: &state)
            let matching = state.observers(ownedBy: ownerID).filter { $0.messageName == name }
            if matching.isEmpty {
                recording?.emit(.observerRemoved(observer: nil, message: name, owner: ownerID, reason: .explicit, callSite: callSite))
            }
            for observer in matching {
                state.remove(observer)
                recording?.emit(.observerRemoved(observer: observer.id, message: name, owner: ownerID, reason: .explicit,
                                                 callSite: callSite))
            }
        }
    }

    func removeObserver(_ observer: Observer, reason: RemovalReason, reportMissing: Bool, callSite: CallSite? = nil) {
        state.withLock { state in
            guard observer.isActive.load(ordering: .relaxed) else {
                if reportMissing {
                    recording?.emit(.observerRemoved(observer: observer.id, message: nil, owner: nil, reason: reason,
                                                     callSite: callSite))
                }
                return
            }
            state.remove(observer)
            recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                             owner: observer.ownerID, reason: reason, callSite: callSite))
        }
    }

    /// The number of registered observers.
    public var observerCount: Int { state.withLock { $0.count } }

    // MARK: Posting

    /// Posts a message to its observers, synchronously, in registration order.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - sender: The posting object; observers with a sender filter receive only its posts.
    /// - Complexity: O(*n*) in the observers of `M` plus the observers of every message.
    public func post<M: BusMessage>(_ message: M, sender: AnyObject? = nil) {
        post(message, sender: sender, origin: nil)
    }

    /// Posts with an explicit origin; `nil` derives it (a reaction inside a
    /// delivery, the app otherwise).
    package func post<M: BusMessage>(_ message: M, sender: AnyObject?, origin: PostOrigin?) {
        let key = ObjectIdentifier(M.self)
        let (typed, wildcards) = state.withLock { state in
            (state.byType[key]?.items ?? [], state.wildcards.live == 0 ? [] : state.wildcards.items)
        }
        guard !typed.isEmpty || !wildcards.isEmpty || recording != nil else { return }
        guard let recording else {
            if wildcards.isEmpty {
                for case let observer? in typed { deliver(message, to: observer, sender: sender, post: 0) }
            } else {
                merged(typed, wildcards) { deliver(message, to: $0, sender: sender, post: 0) }
            }
            return
        }
        let senderID = sender.map { object in
            let ref = ObjectRef(object: object)
            return state.withLock { registerOwner(ref, in: &$0) }
        }
        let parent = CurrentPost.value
        let resolvedOrigin = origin ?? (parent == nil ? .app : .reaction)
        let postID = recording.emitPost { postID in
            .posted(post: postID, message: message, sender: senderID, parent: parent, origin: resolvedOrigin)
        }
        CurrentPost.with(postID) {
            merged(typed, wildcards) { deliver(message, to: $0, sender: sender, post: postID) }
        }
    }

    /// Calls `body` with the observers of both lists in registration (id) order.
    @inline(__always)
    private func merged(_ typed: [Observer?], _ wildcards: [Observer?], _ body: (Observer) -> Void) {
        var t = typed.startIndex, w = wildcards.startIndex
        while true {
            while t < typed.endIndex && typed[t] == nil { t += 1 }
            while w < wildcards.endIndex && wildcards[w] == nil { w += 1 }
            if t == typed.endIndex && w == wildcards.endIndex { return }
            if w == wildcards.endIndex || (t < typed.endIndex && typed[t]!.id < wildcards[w]!.id) {
                body(typed[t]!); t += 1
            } else {
                body(wildcards[w]!); w += 1
            }
        }
    }

    @inline(__always)
    private func deliver<M: BusMessage>(_ message: M, to observer: Observer, sender: AnyObject?, post: UInt64) {
        guard observer.isActive.load(ordering: .acquiring), observer.accepts(sender: sender) else { return }
        if observer.ownerID != nil, observer.owner == nil {
            recording?.emit(.skipped(post: post, observer: observer.id))
            removeObserver(observer, reason: .ownerGone, reportMissing: false)
            return
        }
        recording?.emit(.delivered(post: post, observer: observer.id))
        if observer.typeKey == nil {
            unsafeDowncast(observer, to: WildcardObserver.self).handler(message)
        } else {
            unsafeDowncast(observer, to: TypedObserver<M>.self).handler(message)
        }
    }

    // MARK: Owners and other events

    /// The id under which `object` appears in this bus's trace, registering it
    /// (and recording an ``TraceEvent/Kind/ownerRegistered(owner:typeName:label:)``) on first sight.
    package func ownerID(of object: AnyObject) -> UInt64 {
        let ref = ObjectRef(object: object)
        return state.withLock { registerOwner(ref, in: &$0) }
    }

    /// Records an event that is not an observer change or a post: a lifecycle
    /// step, a routed action, a rejected bridge notification. Does nothing when not recording.
    package func record(_ kind: @autoclosure () -> TraceEvent.Kind) {
        recording?.emit(kind())
    }

    private func registerOwner(_ ref: ObjectRef, in state: inout State) -> UInt64 {
        let object = ref.object
        let key = ObjectIdentifier(object)
        if let known = state.owners[key], known.ref.object != nil { return known.id }
        let id = state.nextOwnerID
        state.nextOwnerID += 1
        state.addOwner(OwnerRecord(id: id, ref: WeakObject(object: object)), key: key)
        if let recording {
            let labeled = object as? any TraceLabeled
            let typeName = labeled?.traceTypeName ?? String(describing: type(of: object))
            let label = labeled?.traceLabel ?? typeName
            recording.emit(.ownerRegistered(owner: id, typeName: typeName, label: label))
        }
        return id
    }
}

/// An object that names itself in traces, such as a screen called "Login".
///
/// The bus reads these properties once, when it first sees the object, while
/// holding its lock: they must be cheap and must not call into the bus.
public protocol TraceLabeled: AnyObject {
    /// The label recorded when the object is first seen by a bus.
    var traceLabel: String { get }
    /// The type recorded with the label; leak fingerprints group by it.
    /// Defaults to the object's Swift type.
    var traceTypeName: String { get }
}

extension TraceLabeled {
    public var traceTypeName: String { String(describing: type(of: self)) }
}

// MARK: - Internals

struct OwnerRecord {
    let id: UInt64
    let ref: WeakObject
}

extension Bus {
    /// The observers of one message type (or the wildcards) in registration
    /// order. Removal leaves a hole (`nil`) so that it is O(1) and keeps the
    /// order; the array is compacted once holes outnumber observers. A post
    /// snapshots the array by retaining it; a change while a post holds it
    /// copies it first (copy on write). One per message type ever observed,
    /// kept for the bus's life so that observers can point at it.
    final class Slots: @unchecked Sendable {
        // @unchecked: `items`, `live` and the observers' `slot` are read and
        // written only under the bus's lock; posts take a copy of `items`.
        let name: String
        @exclusivity(unchecked) var items: [Observer?] = []
        @exclusivity(unchecked) var live = 0

        init(name: String) { self.name = name }

        func append(_ observer: Observer) {
            observer.slot = items.count
            observer.slots = self
            items.append(observer)
            live += 1
        }

        func remove(_ observer: Observer) {
            items[observer.slot] = nil
            live -= 1
            if live == 0 {
                items.removeAll(keepingCapacity: true)
            } else if items.count >= 16 && live * 2 < items.count {
                items = items.filter { $0 != nil }
                for (index, item) in items.enumerated() { item!.slot = index }
            }
        }
    }

    struct State {
        var nextObserverID: UInt64 = 1
        var nextOwnerID: UInt64 = 1
        var byType: [ObjectIdentifier: Slots] = [:]
        let wildcards = Slots(name: "*")
        var count = 0
        var owners: [ObjectIdentifier: OwnerRecord] = [:]
        private var ownerSweepThreshold = 64

        mutating func takeObserverID() -> UInt64 {
            defer { nextObserverID += 1 }
            return nextObserverID
        }

        /// The list of `type`'s observers, made on first use. The default `name`
        /// builds a string from the type at every call, so it is read once, here.
        mutating func slots<M: BusMessage>(for type: M.Type) -> Slots {
            let key = ObjectIdentifier(type)
            if let slots = byType[key] { return slots }
            let slots = Slots(name: M.name)
            byType[key] = slots
            return slots
        }

        mutating func insert(_ observer: Observer, into slots: Slots) {
            slots.append(observer)
            count += 1
        }

        mutating func remove(_ observer: Observer) {
            observer.isActive.store(false, ordering: .releasing)
            count -= 1
            observer.slots?.remove(observer)
        }

        func observers(ownedBy ownerID: UInt64) -> [Observer] {
            (byType.values.flatMap(\.items) + wildcards.items).compactMap { $0 }
                .filter { $0.ownerID == ownerID }.sorted { $0.id < $1.id }
        }

        func liveOwnerID(of owner: ObjectRef) -> UInt64? {
            guard let record = owners[ObjectIdentifier(owner.object)], record.ref.object === owner.object else { return nil }
            return record.id
        }

        /// Adds an owner, dropping the records of deallocated owners whenever the
        /// table has doubled, so that it stays proportional to the live owners.
        mutating func addOwner(_ record: OwnerRecord, key: ObjectIdentifier) {
            owners[key] = record
            if owners.count > ownerSweepThreshold {
                owners = owners.filter { $0.value.ref.object != nil }
                ownerSweepThreshold = max(64, owners.count * 2)
            }
        }
    }

    /// The sink, its clock and the counters, behind their own lock so that the
    /// sink sees events in sequence order.
    final class Recording: Sendable {
        private let sink: any TraceSink
        private let clock: TraceClock
        private let counters = Locked(Counters())

        struct Counters {
            var seq: UInt64 = 0
            var post: UInt64 = 0
        }

        init(sink: any TraceSink, clock: TraceClock) {
            self.sink = sink
            self.clock = clock
        }

        func emit(_ kind: TraceEvent.Kind) {
            counters.withLock { counters in
                counters.seq += 1
                sink.record(TraceEvent(seq: counters.seq, time: clock.now(), kind: kind))
            }
        }

        func emitPost(_ make: (UInt64) -> TraceEvent.Kind) -> UInt64 {
            counters.withLock { counters in
                counters.seq += 1
                counters.post += 1
                sink.record(TraceEvent(seq: counters.seq, time: clock.now(), kind: make(counters.post)))
                return counters.post
            }
        }
    }
}
