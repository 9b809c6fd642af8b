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
/// - Owners are held weakly. What a post does once an observer's owner is gone
///   depends on the observer's ``ObserverKind``: a token or (modern) selector
///   observer is skipped and removed, a `weak` block still runs, an `unowned`
///   block or a legacy selector observer traps; all of it is recorded.
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
    /// The deliveries waiting for the main actor, in the order they were queued.
    let mainActorQueue = MainActorQueue()
    /// What a post does with a selector observer whose target was deallocated.
    public let selectorSemantics: SelectorSemantics
    /// What this bus's tokens hold: its identity, and a weak way back to it.
    let handle = BusHandle()

    /// A bus that records nothing.
    public init(selectorSemantics: SelectorSemantics = .modern) {
        recording = nil
        self.selectorSemantics = selectorSemantics
        handle.bus = self
    }

    /// A bus that records every event into `sink`.
    ///
    /// - Parameters:
    ///   - sink: Receives the events, in sequence order.
    ///   - clock: Stamps the events; monotonic time since the bus was made by default.
    ///   - selectorSemantics: What a post does with a selector observer whose target is gone;
    ///     give the recorder's session the same value, so that the trace says which was in force.
    public init(sink: any TraceSink, clock: TraceClock = .monotonic(), selectorSemantics: SelectorSemantics = .modern) {
        recording = Recording(sink: sink, clock: clock)
        self.selectorSemantics = selectorSemantics
        handle.bus = self
    }

    deinit {
        // Observers point at their lists and the lists at the observers: break the
        // cycles, and release the observers (and the owners strong blocks hold) unlocked.
        let lists = state.withLock { state in state.byType.lists + Array(state.byName.values) + [state.wildcards] }
        var released: [Observer?] = []
        for slots in lists {
            released.append(contentsOf: slots.items)
            slots.items = []
        }
        for case let observer? in released { observer.slots = nil }
    }

    /// Whether this bus records its events.
    public var isRecording: Bool { recording != nil }

    // MARK: Token observers

    /// Adds an observer of one message type: the typed-token kind, like SF-0011's
    /// `addObserver(of:for:using:)`.
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
    /// - Note: For a ``MainActorMessage`` (keyboard, activity, orientation), a closure
    ///   written at the call site picks the `@MainActor` overload instead; code generic
    ///   over ``BusMessage`` calls this one for every message.
    @_disfavoredOverload
    @inlinable
    public func observe<M: BusMessage>(
        _ type: M.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (M) -> Void
    ) -> ObservationToken {
        // Inlined where `M` is known, so that `TypedObserver<M>`'s metadata is a constant
        // of the caller's rather than a run-time lookup on every add.
        addToken(type: ObjectIdentifier(M.self), messageType: M.self, sender: sender, owner: owner,
                 callSite: CallSite(file: file, line: line)) { fields in TypedObserver<M>(fields, handler: handler) }
    }

    /// Adds a token observer of the named message `name`.
    ///
    /// - Returns: A token; the observer is removed when its last copy is released.
    public func observe(
        named name: String, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (NamedMessage) -> Void
    ) -> ObservationToken {
        let observer = add(NamedMessage.self, named: name, sender: sender, owner: owner, kind: .token,
                           callSite: CallSite(file: file, line: line), handler: handler)
        return ObservationToken(box: TokenBox(observer: observer, handle: handle))
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
            recording?.emit(.observerAdded(observer: id, message: nil, owner: ownerID, sender: nil, callSite: callSite),
                            in: &state)
            return observer
        }
        sweepOwnersIfDue()
        return ObservationToken(box: TokenBox(observer: observer, handle: handle))
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

    // MARK: Block observers

    /// Adds a block observer: Foundation's `addObserver(forName:object:queue:using:)`.
    ///
    /// The bus keeps the block until ``removeObserver(_:file:line:)-(BlockObservation,_,_)``
    /// is called with the returned observation. `capture` says how the block holds
    /// `owner`, as its capture list would:
    /// - ``BlockCapture/strong``: the bus keeps `owner` alive while the block is
    ///   registered (a cycle through the center); a sweep that finds nothing else
    ///   holding it records that the block retains it.
    /// - ``BlockCapture/weak``: after `owner` is gone the block still runs, and each
    ///   run is recorded.
    /// - ``BlockCapture/unowned``: the first post after `owner` is gone is recorded
    ///   as a trap and the block is not called.
    ///
    /// ```swift
    /// observation = bus.addObserver(forName: KeyboardWillShow.self, owner: self, capture: .weak) { note in
    ///     print("keyboard to", note.endFrame)
    /// }
    /// ```
    /// - Returns: The observation; releasing it does not remove the block.
    public func addObserver<M: BusMessage, Owner: AnyObject>(
        forName type: M.Type, object sender: AnyObject? = nil, owner: Owner, capture: BlockCapture,
        file: String = #fileID, line: Int = #line, using handler: @escaping @Sendable (M) -> Void
    ) -> BlockObservation {
        let observer = add(M.self, named: nil, sender: sender, owner: owner, kind: .block, capture: capture,
                           callSite: CallSite(file: file, line: line), handler: handler)
        return BlockObservation(observer: observer, bus: self)
    }

    /// Adds a block observer of the named message `name`; see
    /// ``addObserver(forName:object:owner:capture:file:line:using:)-(M.Type,_,_,_,_,_,_)``.
    public func addObserver<Owner: AnyObject>(
        forName name: String, object sender: AnyObject? = nil, owner: Owner, capture: BlockCapture,
        file: String = #fileID, line: Int = #line, using handler: @escaping @Sendable (NamedMessage) -> Void
    ) -> BlockObservation {
        let observer = add(NamedMessage.self, named: name, sender: sender, owner: owner, kind: .block, capture: capture,
                           callSite: CallSite(file: file, line: line), handler: handler)
        return BlockObservation(observer: observer, bus: self)
    }

    // MARK: Selector observers

    /// Adds a selector observer: Foundation's `addObserver(_:selector:name:object:)`.
    ///
    /// `target` is held weakly and is the owner. Under ``SelectorSemantics/modern`` a
    /// post that finds it deallocated drops the observer silently; under
    /// ``SelectorSemantics/legacy`` that post is recorded as a trap. Adding the same
    /// target and selector twice registers it twice.
    ///
    /// ```swift
    /// bus.addObserver(self, selector: "keyboardWillShow:", name: KeyboardWillShow.self,
    ///                 action: LoginScreen.keyboardWillShow)
    /// ```
    /// - Parameters:
    ///   - target: The observer, held weakly.
    ///   - selector: The action's name, recorded so that one handler registered for
    ///     two names can be recognised.
    ///   - name: The message type.
    ///   - sender: Only posts from this object, when given.
    ///   - action: The method called on `target`.
    public func addObserver<Target: AnyObject, M: BusMessage>(
        _ target: Target, selector: String, name: M.Type, object sender: AnyObject? = nil,
        file: String = #fileID, line: Int = #line, action: @escaping @Sendable (Target) -> (M) -> Void
    ) {
        _ = add(M.self, named: nil, sender: sender, owner: target, kind: .selector, handlerName: selector,
                callSite: CallSite(file: file, line: line), handler: { _ in },
                action: { object, message in action(unsafeDowncast(object, to: Target.self))(message) })
    }

    /// Adds a selector observer of the named message `name`.
    public func addObserver<Target: AnyObject>(
        _ target: Target, selector: String, name: String, object sender: AnyObject? = nil,
        file: String = #fileID, line: Int = #line, action: @escaping @Sendable (Target) -> (NamedMessage) -> Void
    ) {
        _ = add(NamedMessage.self, named: name, sender: sender, owner: target, kind: .selector, handlerName: selector,
                callSite: CallSite(file: file, line: line), handler: { _ in },
                action: { object, message in action(unsafeDowncast(object, to: Target.self))(message) })
    }

    /// Registers an observer of `M` (or of the named message `name`), recording it.
    func add<M: BusMessage, Owner: AnyObject>(
        _ type: M.Type, named name: String?, sender: AnyObject?, owner: Owner?, kind: ObserverKind,
        capture: BlockCapture? = nil, handlerName: String? = nil, callSite: CallSite,
        handler: @escaping @Sendable (M) -> Void, action: (@Sendable (AnyObject, M) -> Void)? = nil,
        mainActorHandler: (@MainActor @Sendable (M) -> Void)? = nil,
        mailbox: Mailbox<M>? = nil
    ) -> Observer {
        var makeRetainer: (() -> OwnerRetainer)?
        if capture == .strong, let owner { makeRetainer = { TypedOwnerRetainer(owner) } }
        return add(type: ObjectIdentifier(M.self), messageType: M.self, named: name, sender: sender, owner: owner,
                   kind: kind, capture: capture, handlerName: handlerName, callSite: callSite,
                   makeRetainer: makeRetainer) { fields in
            TypedObserver<M>(fields, handler: handler, action: action, mainActorHandler: mainActorHandler, mailbox: mailbox)
        }
    }

    /// The token observer of ``observe(_:sender:owner:file:line:_:)``, for its inlined body.
    @usableFromInline
    func addToken(type: ObjectIdentifier, messageType: any BusMessage.Type, sender: AnyObject?, owner: AnyObject?,
                  callSite: CallSite, make: (__owned ObserverFields) -> Observer) -> ObservationToken {
        let observer = add(type: type, messageType: messageType, named: nil, sender: sender, owner: owner, kind: .token,
                           capture: nil, handlerName: nil, callSite: callSite, makeRetainer: nil, make: make)
        return ObservationToken(box: TokenBox(observer: observer, handle: handle))
    }

    /// Registers the observer `make` builds from its fields, under the lock, and records it.
    ///
    /// Not generic: the caller builds the `TypedObserver<M>`, where `M` is known, so that
    /// an add looks up no generic metadata at run time (~330 instructions when it did).
    private func add(
        type: ObjectIdentifier, messageType: any BusMessage.Type, named name: String?, sender: AnyObject?,
        owner: AnyObject?, kind: ObserverKind, capture: BlockCapture?, handlerName: String?, callSite: CallSite,
        makeRetainer: (() -> OwnerRetainer)?, make: (__owned ObserverFields) -> Observer
    ) -> Observer {
        // Code generic over `BusMessage` passes no name for `NamedMessage` (concrete code gets a warning,
        // `Bus+NamedMessageType.swift`): such an observer would hear nothing.
        precondition(name != nil || type != ObjectIdentifier(NamedMessage.self), namedMessageByType)
        var ownerRef: ObjectRef?, senderRef: ObjectRef?
        if let owner { ownerRef = ObjectRef(object: owner) }
        if let sender { senderRef = ObjectRef(object: sender) }
        let (observer, sweepDue) = state.withLock { state -> (Observer, Bool) in
            let id = state.takeObserverID()
            var ownerID: UInt64?, senderID: UInt64?
            if let ownerRef { ownerID = registerOwner(ownerRef, in: &state) }
            if let senderRef { senderID = registerOwner(senderRef, in: &state) }
            let slots: Slots
            if let name { slots = state.slots(named: name) } else { slots = state.slots(for: type, messageType) }
            var retainer: OwnerRetainer?
            if let makeRetainer, let ownerID {
                let shared = state.retainers[ownerID] ?? makeRetainer()
                shared.count += 1
                state.retainers[ownerID] = shared
                retainer = shared
            }
            let observer = make(ObserverFields(id: id, type: type, name: slots.name, owner: ownerRef, ownerID: ownerID,
                                               sender: senderRef, callSite: callSite, kind: kind, capture: capture,
                                               retainer: retainer))
            state.insert(observer, into: slots)
            recording?.emit(.observerAdded(observer: id, message: slots.name, owner: ownerID, sender: senderID,
                                           callSite: callSite, kind: kind, capture: capture, handler: handlerName),
                            in: &state)
            return (observer, state.ownerSweepDue)
        }
        if sweepDue { sweepOwners() }
        return observer
    }

    // MARK: Removing

    /// Removes the observer of `token`.
    ///
    /// Removing an observer that is no longer registered changes nothing and is
    /// recorded as an unbalanced removal. A token from another bus is ignored.
    public func remove(_ token: ObservationToken, file: String = #fileID, line: Int = #line) {
        guard token.box.handle === handle else { return }
        removeObserver(token.box.observer, reason: .explicit, reportMissing: true, callSite: CallSite(file: file, line: line))
    }

    /// Removes a block observer: Foundation's `removeObserver(token)`.
    ///
    /// Removing it twice changes nothing and is recorded as an unbalanced removal;
    /// an observation from another bus is ignored.
    public func removeObserver(_ observation: BlockObservation, file: String = #fileID, line: Int = #line) {
        guard observation.bus === self else { return }
        removeObserver(observation.observer, reason: .explicit, reportMissing: true, callSite: CallSite(file: file, line: line))
    }

    /// Removes the selector observers of `target`: Foundation's `removeObserver(self)`.
    ///
    /// Like Foundation, it removes every selector observer added for `target`,
    /// whoever added it, and no block or token observer: those go only through
    /// their observation or token. Given a ``BlockObservation``, it removes that block.
    /// A call that removes nothing is recorded, so that a removal that misses a
    /// block observer shows in the trace.
    public func removeObserver(_ target: AnyObject, file: String = #fileID, line: Int = #line) {
        if let observation = target as? BlockObservation {
            removeObserver(observation, file: file, line: line)
            return
        }
        removeSelectors(of: target, named: nil, sender: nil, callSite: CallSite(file: file, line: line))
    }

    /// Removes the selector observers of `target` for messages of type `name`
    /// (from `sender`, when given): Foundation's `removeObserver(_:name:object:)`.
    ///
    /// Block and token observers are not removed. A call that removes nothing is
    /// recorded with the name it asked for.
    public func removeObserver<M: BusMessage>(
        _ target: AnyObject, name: M.Type, object sender: AnyObject? = nil, file: String = #fileID, line: Int = #line
    ) {
        // The name its list was made with, without making a list for a type nobody observes.
        let slotsName = state.withLock { $0.byType[ObjectIdentifier(M.self)]?.name } ?? M.name
        removeSelectors(of: target, named: slotsName, sender: sender, callSite: CallSite(file: file, line: line))
    }

    /// Removes the selector observers of `target` for the named message `name`.
    public func removeObserver(
        _ target: AnyObject, name: String, object sender: AnyObject? = nil, file: String = #fileID, line: Int = #line
    ) {
        removeSelectors(of: target, named: name, sender: sender, callSite: CallSite(file: file, line: line))
    }

    private func removeSelectors(of target: AnyObject, named name: String?, sender: AnyObject?, callSite: CallSite) {
        let ref = ObjectRef(object: target)
        let senderKey = sender.map(ObjectIdentifier.init)
        let removed = state.withLock { state -> [Observer] in
            let ownerID = registerOwner(ref, in: &state)
            let matching = state.observers(ownedBy: ownerID).filter {
                $0.kind == .selector && (name == nil || $0.messageName == name)
                    && (senderKey == nil || $0.senderID == senderKey)
            }
            // Selector observers never hold their target strongly.
            let reason: RemovalReason = name == nil ? .ownerSelectors : .explicit
            if matching.isEmpty {
                recording?.emit(.observerRemoved(observer: nil, message: name, owner: ownerID, reason: reason,
                                                 callSite: callSite), in: &state)
            }
            for observer in matching {
                _ = state.remove(observer)
                recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName, owner: ownerID,
                                                 reason: reason, callSite: callSite), in: &state)
            }
            return matching
        }
        _ = removed  // released here, outside the lock
        sweepOwnersIfDue()
    }

    /// Removes every observer of `owner`, of every kind: NotifyBus's own strict form.
    public func removeAll(owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let owner = ObjectRef(object: owner)
        let released = state.withLock { state -> [OwnerRetainer?] in
            guard let ownerID = state.liveOwnerID(of: owner) else { return [] }
            return state.observers(ownedBy: ownerID).map { observer in
                defer {
                    recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                                     owner: ownerID, reason: .ownerRemoved, callSite: callSite), in: &state)
                }
                return state.remove(observer)
            }
        }
        _ = released  // released here, outside the lock
    }

    /// Removes the observers of one message type that `owner` added, of every kind.
    ///
    /// When there is nothing to remove, the call is recorded as an unbalanced removal.
    public func remove<M: BusMessage>(_ type: M.Type, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        removeObservers(named: M.name, owner: owner, file: file, line: line)
    }

    /// Removes the observers of the message called `name` that `owner` added, of every kind.
    package func removeObservers(named name: String, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let owner = ObjectRef(object: owner)
        let released = state.withLock { state -> [OwnerRetainer?] in
            let ownerID = registerOwner(owner, in: &state)
            let matching = state.observers(ownedBy: ownerID).filter { $0.messageName == name }
            if matching.isEmpty {
                recording?.emit(.observerRemoved(observer: nil, message: name, owner: ownerID, reason: .explicit,
                                                 callSite: callSite), in: &state)
            }
            return matching.map { observer in
                defer {
                    recording?.emit(.observerRemoved(observer: observer.id, message: name, owner: ownerID,
                                                     reason: .explicit, callSite: callSite), in: &state)
                }
                return state.remove(observer)
            }
        }
        _ = released  // released here, outside the lock
        sweepOwnersIfDue()
    }

    /// Removes `observer`; a `strong` block's owner is released after the lock is.
    func removeObserver(_ observer: Observer, reason: RemovalReason, reportMissing: Bool, callSite: CallSite? = nil) {
        let released = state.withLock { state -> OwnerRetainer? in
            guard observer.isActive.load(ordering: .relaxed) else {
                if reportMissing {
                    recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                                     owner: observer.ownerID, reason: reason, callSite: callSite),
                                    in: &state)
                }
                return nil
            }
            defer {
                recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                                 owner: observer.ownerID, reason: reason, callSite: callSite), in: &state)
            }
            return state.remove(observer)
        }
        _ = released
    }

    /// The number of registered observers.
    public var observerCount: Int { state.withLock { $0.count } }

    // MARK: Posting

    /// Posts a message to its observers, synchronously, in registration order.
    ///
    /// - Parameters:
    ///   - message: The message; a ``NamedMessage`` reaches the observers of its name.
    ///   - sender: The posting object; observers with a sender filter receive only its posts.
    /// - Complexity: O(*n*) in the observers of `M` plus the observers of every message.
    public func post<M: BusMessage>(_ message: M, sender: AnyObject? = nil) {
        post(message, sender: sender, origin: nil)
    }

    /// Posts with an explicit origin; `nil` derives it (a reaction inside a
    /// delivery, the app otherwise).
    /// - Returns: The post's id in the trace; 0 when not recording.
    @discardableResult
    package func post<M: BusMessage>(_ message: M, sender: AnyObject?, origin: PostOrigin?) -> UInt64 {
        let named = M.self == NamedMessage.self ? message.messageName : nil
        guard let recording else {
            let (typed, wildcards) = state.withLock { state in
                (state.items(for: M.self, named: named), state.wildcards.live == 0 ? [] : state.wildcards.items)
            }
            if wildcards.isEmpty {
                for case let observer? in typed { deliver(message, to: observer, sender: sender, post: 0) }
            } else {
                merged(typed, wildcards) { deliver(message, to: $0, sender: sender, post: 0) }
            }
            return 0
        }
        let senderRef = sender.map(ObjectRef.init)
        // The snapshot and the `posted` event are taken together, so that the trace
        // orders the post exactly where its set of observers was decided.
        let (typed, wildcards, postID, sweepDue) = state.withLock { state in
            let typed = state.items(for: M.self, named: named)
            let wildcards = state.wildcards.live == 0 ? [] : state.wildcards.items
            let senderID = senderRef.map { registerOwner($0, in: &state) }
            let parent = CurrentPost.value(for: self)
            state.postCounter += 1
            let postID = state.postCounter
            recording.emit(.posted(post: postID, message: message, sender: senderID, parent: parent,
                                   origin: origin ?? (parent == nil ? .app : .reaction)), in: &state)
            return (typed, wildcards, postID, senderRef != nil && state.ownerSweepDue)
        }
        if sweepDue { sweepOwners() }
        CurrentPost.with(bus: self, post: postID) {
            merged(typed, wildcards) { deliver(message, to: $0, sender: sender, post: postID) }
        }
        return postID
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
        guard observer.accepts(sender: sender) else { return }
        if observer.dispatch != .postingThread {
            deliverElsewhere(message, to: unsafeDowncast(observer, to: TypedObserver<M>.self), post: post)
            return
        }
        // Loaded once: keeps the owner alive through the call, and is released
        // after any lock is, so that its deinit never runs under the bus's lock.
        var owner: AnyObject?
        guard admit(observer, post: post, owner: &owner) else { return }
        if observer.typeKey == nil {
            unsafeDowncast(observer, to: WildcardObserver.self).handler(message)
        } else {
            unsafeDowncast(observer, to: TypedObserver<M>.self).call(message, owner: owner)
        }
    }

    /// Whether `observer` is to be called for `post` now, recording the delivery, skip or trap.
    /// `owner` receives the owner, loaded once, for the caller to keep alive through the call.
    @inline(__always)
    func admit(_ observer: Observer, post: UInt64, owner: inout AnyObject?) -> Bool {
        if let recording {
            // Checked and recorded under the lock, so that a removal on another
            // thread is either before this delivery in the trace or not applied to it.
            return state.withLock { state in
                guard observer.isActive.load(ordering: .relaxed) else { return false }
                if observer.ownerID != nil { owner = observer.owner }
                return admit(observer, ownerAlive: owner != nil || observer.ownerID == nil, post: post,
                             recording: recording, state: &state)
            }
        }
        guard observer.isActive.load(ordering: .acquiring) else { return false }
        guard observer.ownerID != nil else { return true }
        owner = observer.owner
        if owner != nil { return true }
        return state.withLock { state in
            observer.isActive.load(ordering: .relaxed)
                && admit(observer, ownerAlive: false, post: post, recording: nil, state: &state)
        }
    }

    /// Queues `post` for an observer that runs elsewhere: under the lock, if it is
    /// still registered, records ``TraceEvent/Kind/enqueued(post:observer:)`` and calls
    /// `push`, so that the queue's order is the trace's.
    /// - Returns: Whether it was queued.
    func enqueue(_ observer: Observer, post: UInt64, push: () -> Void) -> Bool {
        state.withLock { state in
            guard observer.isActive.load(ordering: .relaxed) else { return false }
            recording?.emit(.enqueued(post: post, observer: observer.id), in: &state)
            push()
            return true
        }
    }

    /// Decides, under the lock, what a post does with an active observer, and records it.
    /// - Returns: Whether to call the handler.
    private func admit(_ observer: Observer, ownerAlive: Bool, post: UInt64, recording: Recording?,
                       state: inout State) -> Bool {
        guard !ownerAlive, let ownerID = observer.ownerID else {
            recording?.emit(.delivered(post: post, observer: observer.id), in: &state)
            return true
        }
        if let recording, state.reportedGone.insert(ownerID).inserted {
            recording.emit(.ownerReleased(owner: ownerID, retainedBy: nil), in: &state)
        }
        switch (observer.kind, observer.capture) {
        case (.block, .unowned?):
            recording?.emit(.trapped(post: post, observer: observer.id, reason: .unownedCapture), in: &state)
            return false
        case (.block, _):
            // A `weak` block keeps running after its owner is gone, doing nothing useful.
            recording?.emit(.delivered(post: post, observer: observer.id), in: &state)
            return true
        case (.selector, _) where selectorSemantics == .legacy:
            recording?.emit(.trapped(post: post, observer: observer.id, reason: .deallocatedTarget), in: &state)
            return false
        case (.selector, _), (.token, _):
            recording?.emit(.skipped(post: post, observer: observer.id), in: &state)
            _ = state.remove(observer)  // tokens and selectors hold no owner
            recording?.emit(.observerRemoved(observer: observer.id, message: observer.messageName, owner: ownerID,
                                             reason: .ownerGone, callSite: nil), in: &state)
            return false
        }
    }

    // MARK: Owners and other events

    /// Records that `object` lives inside `host`: a helper or view attached to its
    /// screen, a child screen to its container. Findings about `object` then say
    /// where it lives (`KeyboardFrameObserver in AztecEditor`).
    public func attach(_ object: AnyObject, to host: AnyObject) {
        let ref = ObjectRef(object: object), hostRef = ObjectRef(object: host)
        state.withLock { state in
            let owner = registerOwner(ref, in: &state)
            let host = registerOwner(hostRef, in: &state)
            recording?.emit(.ownerAttached(owner: owner, host: host), in: &state)
        }
        sweepOwnersIfDue()
    }

    /// Records every owner the program has released since the last sweep, and every
    /// owner only a `strong` block observer still keeps alive.
    ///
    /// The bus holds owners weakly and learns of a release only when it next uses
    /// the owner; call this before closing a recording (the scenario runner does),
    /// so that the trace knows what was released even when nothing was posted afterwards.
    /// - Complexity: O(*n*) in the owners the bus knows.
    public func sweepReleasedOwners() {
        var alive: [AnyObject] = []
        state.withLock { state in
            // Before any owner is loaded below: a loaded reference would make it shared.
            for (ownerID, retainer) in state.retainers.sorted(by: { $0.key < $1.key })
            where retainer.holdsLastReference() && state.reportedRetained.insert(ownerID).inserted {
                let holder = state.observers(ownedBy: ownerID).first { $0.retainer === retainer }
                recording?.emit(.ownerReleased(owner: ownerID, retainedBy: holder?.id), in: &state)
            }
            sweepOwners(&state, alive: &alive)
        }
    }

    /// The id under which `object` appears in this bus's trace, registering it
    /// (and recording an ``TraceEvent/Kind/ownerRegistered(owner:typeName:label:)``) on first sight.
    package func ownerID(of object: AnyObject) -> UInt64 {
        let ref = ObjectRef(object: object)
        defer { sweepOwnersIfDue() }
        return state.withLock { registerOwner(ref, in: &$0) }
    }

    /// Records an event that is not an observer change or a post: a lifecycle
    /// step, a routed action, a rejected bridge notification. Does nothing when not recording.
    package func record(_ kind: @autoclosure () -> TraceEvent.Kind) {
        guard let recording else { return }
        // Built before locking: building it may register owners, which locks.
        let kind = kind()
        state.withLock { recording.emit(kind, in: &$0) }
    }

    // MARK: Recording another center

    /// Records an observer that another center (``RecordingNotificationCenter``'s real
    /// one) registered and delivers to: the bus allocates its id and records it, but
    /// never calls it.
    /// - Returns: The observer's id in the trace.
    package func recordObserverAdded(message: String?, owner: AnyObject?, sender: AnyObject?, kind: ObserverKind,
                                     handler: String? = nil, callSite: CallSite) -> UInt64 {
        let ownerRef = owner.map(ObjectRef.init), senderRef = sender.map(ObjectRef.init)
        defer { sweepOwnersIfDue() }
        return state.withLock { state in
            let id = state.takeObserverID()
            let ownerID = ownerRef.map { registerOwner($0, in: &state) }
            let senderID = senderRef.map { registerOwner($0, in: &state) }
            recording?.emit(.observerAdded(observer: id, message: message, owner: ownerID, sender: senderID,
                                           callSite: callSite, kind: kind, handler: handler), in: &state)
            return id
        }
    }

    /// Records a post that another center delivers; a post recorded while a delivery
    /// of this bus's is running on the thread is its reaction.
    /// - Returns: The post's id in the trace.
    package func recordPost(_ message: any BusMessage, sender: AnyObject?, origin: PostOrigin? = nil) -> UInt64 {
        let senderRef = sender.map(ObjectRef.init)
        return state.withLock { state in
            let senderID = senderRef.map { registerOwner($0, in: &state) }
            let parent = CurrentPost.value(for: self)
            state.postCounter += 1
            recording?.emit(.posted(post: state.postCounter, message: message, sender: senderID, parent: parent,
                                    origin: origin ?? (parent == nil ? .app : .reaction)), in: &state)
            return state.postCounter
        }
    }

    /// Records that the owner `ownerID` was released, unless that is already recorded.
    package func recordReleased(ownerID: UInt64) {
        state.withLock { state in
            if let recording, state.reportedGone.insert(ownerID).inserted {
                recording.emit(.ownerReleased(owner: ownerID, retainedBy: nil), in: &state)
            }
        }
    }

    private func registerOwner(_ ref: ObjectRef, in state: inout State) -> UInt64 {
        let object = ref.object
        let key = ObjectIdentifier(object)
        // The caller holds `object`, so a live record at its address is this object.
        if let known = state.owners[key] {
            if known.ref.object != nil { return known.id }
            // A new object at a released one's address: the old one is gone, and the
            // trace says so before the new one appears, as a sweep would have.
            if let recording, state.reportedGone.insert(known.id).inserted {
                recording.emit(.ownerReleased(owner: known.id, retainedBy: nil), in: &state)
            }
        }
        let id = state.nextOwnerID
        state.nextOwnerID += 1
        state.addOwner(OwnerRecord(id: id, ref: WeakObject(object: object)), key: key)
        if let recording {
            let labeled = object as? any TraceLabeled
            let typeName = labeled?.traceTypeName ?? String(describing: type(of: object))
            let label = labeled?.traceLabel ?? typeName
            recording.emit(.ownerRegistered(owner: id, typeName: typeName, label: label), in: &state)
        }
        return id
    }

    /// Drops the records of deallocated owners once the table has doubled, so that it
    /// stays proportional to the live owners. Outside the lock's callers: loading the
    /// owners makes strong references, and the last one may run a deinit that calls the bus.
    private func sweepOwnersIfDue() {
        guard state.withLock({ $0.ownerSweepDue }) else { return }
        sweepOwners()
    }

    private func sweepOwners() {
        var alive: [AnyObject] = []
        state.withLock { state in
            if state.ownerSweepDue { sweepOwners(&state, alive: &alive) }
        }
    }

    /// Records the released owners and drops their records; `alive` receives the
    /// live ones, for the caller to release after unlocking.
    private func sweepOwners(_ state: inout State, alive: inout [AnyObject]) {
        var live: [ObjectIdentifier: OwnerRecord] = [:]
        for (key, record) in state.owners.sorted(by: { $0.value.id < $1.value.id }) {
            if let object = record.ref.object {
                alive.append(object)
                live[key] = record
            } else if let recording, state.reportedGone.insert(record.id).inserted {
                recording.emit(.ownerReleased(owner: record.id, retainedBy: nil), in: &state)
            }
        }
        state.owners = live
        state.ownerSweepThreshold = max(64, live.count * 2)
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
    /// order (removing the last one shortens the array instead, with any holes
    /// before it); the array is compacted once holes outnumber observers. A post
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
            if observer.slot == items.count - 1 {
                // The last one, as when an observer is added and soon removed: no hole,
                // and the holes before it go too, so the list needs no compaction.
                items.removeLast()
                while let last = items.last, last == nil { items.removeLast() }
            } else {
                items[observer.slot] = nil
            }
            observer.slots = nil
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
        var byType = SlotTable()
        /// The lists of named messages, by name.
        var byName: [String: Slots] = [:]
        let wildcards = Slots(name: "*")
        var count = 0
        var owners: [ObjectIdentifier: OwnerRecord] = [:]
        var ownerSweepThreshold = 64
        /// The owners kept alive by `strong` block observers.
        var retainers: [UInt64: OwnerRetainer] = [:]
        /// Owners whose release was recorded; those found kept alive only by a block.
        var reportedGone: Set<UInt64> = []
        var reportedRetained: Set<UInt64> = []
        /// The trace's counters: every event is emitted under the bus's lock.
        var seq: UInt64 = 0
        var postCounter: UInt64 = 0

        var ownerSweepDue: Bool { owners.count > ownerSweepThreshold }

        mutating func takeObserverID() -> UInt64 {
            defer { nextObserverID += 1 }
            return nextObserverID
        }

        /// The list of `type`'s observers, made on first use. The default `name`
        /// builds a string from the type at every call, so it is read once, here.
        /// The list of the message type `type` (whose identity is `key`), made on first use.
        mutating func slots(for key: ObjectIdentifier, _ type: any BusMessage.Type) -> Slots {
            if let slots = byType[key] { return slots }
            let slots = Slots(name: type.name)
            byType.insert(slots, for: key)
            return slots
        }

        /// The list of the named message `name`, made on first use.
        mutating func slots(named name: String) -> Slots {
            if let slots = byName[name] { return slots }
            let slots = Slots(name: name)
            byName[name] = slots
            return slots
        }

        /// The observers a post of `M` (named `name`, for a ``NamedMessage``) reaches.
        @inline(__always)
        func items<M: BusMessage>(for type: M.Type, named name: String?) -> [Observer?] {
            if let name { return byName[name]?.items ?? [] }
            return byType[ObjectIdentifier(M.self)]?.items ?? []
        }

        mutating func insert(_ observer: Observer, into slots: Slots) {
            slots.append(observer)
            count += 1
        }

        /// Unregisters `observer`.
        /// - Returns: What kept a `strong` block's owner alive: release it after unlocking,
        ///   since the owner's deinit may call the bus.
        mutating func remove(_ observer: Observer) -> OwnerRetainer? {
            observer.isActive.store(false, ordering: .releasing)
            count -= 1
            observer.slots?.remove(observer)
            if observer.dispatch == .async { observer.didRemove() }
            guard let retainer = observer.retainer, let ownerID = observer.ownerID else { return nil }
            observer.retainer = nil
            retainer.count -= 1
            if retainer.count == 0 { retainers[ownerID] = nil }
            return retainer
        }

        func observers(ownedBy ownerID: UInt64) -> [Observer] {
            var lists: [Slots] = byType.lists
            lists.append(contentsOf: byName.values)
            lists.append(wildcards)
            return lists.flatMap { $0.items.compactMap { $0 } }.filter { $0.ownerID == ownerID }.sorted { $0.id < $1.id }
        }

        func liveOwnerID(of owner: ObjectRef) -> UInt64? {
            guard let record = owners[ObjectIdentifier(owner.object)], record.ref.object === owner.object else { return nil }
            return record.id
        }

        /// Adds an owner; ``Bus/sweepOwnersIfDue()`` keeps the table proportional to the live owners.
        mutating func addOwner(_ record: OwnerRecord, key: ObjectIdentifier) {
            owners[key] = record
        }
    }

    /// The sink and its clock. Events are emitted under the bus's lock, which
    /// orders them and keeps the sink from being called concurrently.
    final class Recording: Sendable {
        private let sink: any TraceSink
        private let clock: TraceClock

        init(sink: any TraceSink, clock: TraceClock) {
            self.sink = sink
            self.clock = clock
        }

        @inline(__always)
        func emit(_ kind: TraceEvent.Kind, in state: inout State) {
            state.seq += 1
            sink.record(TraceEvent(seq: state.seq, time: clock.now(), kind: kind))
        }
    }
}
