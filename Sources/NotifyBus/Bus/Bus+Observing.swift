import Synchronization

// The ways to add an observer: typed tokens, wildcards, async sequences, blocks and
// selectors, and the one registration they all end in.

extension Bus {
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
                 callSite: CallSite(file: file, line: line)) { id, list, ties in
            TypedObserver<M>.make(id: id, list: list, ties: ties, handler: handler)
        }
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
        return ObservationToken(box: TokenBox(observer: observer))
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
        let ownerRef = owner.map(ObjectRef.init)
        let output = self.output
        let (observer, sweepDue) = withSession { table, session -> (Observer, Bool) in
            let id = output == nil ? table.takeLocalObserverID() : session.takeObserverID()
            let ownerID = ownerRef.map { session.registerOwner($0.object, output: output) }
            let observer = WildcardObserver(id: id, list: table.wildcards, owner: ownerRef, ownerID: ownerID, handler: handler)
            table.insert(observer)
            session.emit(.observerAdded(observer: id, message: nil, owner: ownerID, sender: nil, callSite: callSite),
                         to: output)
            return (observer, session.owners.sweepDue)
        }
        if sweepDue { sweepOwners() }
        return ObservationToken(box: TokenBox(observer: observer))
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
        var elsewhere: TypedObserver<M>.Elsewhere?
        if let mainActorHandler {
            elsewhere = .mainActor(mainActorHandler)
        } else if let mailbox {
            elsewhere = .async(mailbox)
        }
        return add(type: ObjectIdentifier(M.self), messageType: M.self, named: name, sender: sender, owner: owner,
                   kind: kind, capture: capture, handlerName: handlerName, callSite: callSite,
                   makeRetainer: makeRetainer) { id, list, ties in
            TypedObserver<M>.make(id: id, list: list, ties: ties, handler: handler, action: action, elsewhere: elsewhere)
        }
    }

    /// The token observer of ``observe(_:sender:owner:file:line:_:)``, for its inlined body.
    @usableFromInline
    func addToken(type: ObjectIdentifier, messageType: any BusMessage.Type, sender: AnyObject?, owner: AnyObject?,
                  callSite: CallSite,
                  make: (UInt64, __owned ObserverList, __owned ObserverTies?) -> Observer) -> ObservationToken {
        let observer = add(type: type, messageType: messageType, named: nil, sender: sender, owner: owner, kind: .token,
                           capture: nil, handlerName: nil, callSite: callSite, makeRetainer: nil, make: make)
        return ObservationToken(box: TokenBox(observer: observer))
    }

    /// Registers the observer `make` builds from its fields, under the lock, and records it.
    ///
    /// Not generic: the caller builds the `TypedObserver<M>`, where `M` is known, so that
    /// an add looks up no generic metadata at run time (~330 instructions when it did).
    /// A bus that does not record adds an observer with neither owner nor sender without
    /// touching its session's state (but for a message type's first name check).
    private func add(
        type: ObjectIdentifier, messageType: any BusMessage.Type, named name: String?, sender: AnyObject?,
        owner: AnyObject?, kind: ObserverKind, capture: BlockCapture?, handlerName: String?, callSite: CallSite,
        makeRetainer: (() -> OwnerRetainer)?, make: (UInt64, __owned ObserverList, __owned ObserverTies?) -> Observer
    ) -> Observer {
        // Code generic over `BusMessage` passes no name for `NamedMessage` (concrete code gets a warning,
        // `Bus+NamedMessageType.swift`): such an observer would hear nothing.
        precondition(name != nil || type != ObjectIdentifier(NamedMessage.self), namedMessageByType)
        var ownerRef: ObjectRef?, senderRef: ObjectRef?
        if let owner { ownerRef = ObjectRef(object: owner) }
        if let sender { senderRef = ObjectRef(object: sender) }
        let output = self.output
        let local = output == nil && owner == nil && sender == nil && kind == .token && capture == nil
        // One lock: the bus's is its session's.
        let (observer, sweepDue) = withSession { table, session -> (Observer, Bool) in
            let list: ObserverList
            if let name {
                list = table.list(named: name)
            } else if let known = table.list(for: type) {
                list = known
            } else {
                list = table.addList(for: type, name: registeredName(of: messageType, in: &session))
            }
            if local {
                let observer = make(table.takeLocalObserverID(), list, nil)
                table.insert(observer)
                return (observer, false)
            }
            let id = output == nil ? table.takeLocalObserverID() : session.takeObserverID()
            var ownerID: UInt64?, senderID: UInt64?
            if let ownerRef { ownerID = session.registerOwner(ownerRef.object, output: output) }
            if let senderRef { senderID = session.registerOwner(senderRef.object, output: output) }
            var retainer: OwnerRetainer?
            if let makeRetainer, let ownerID {
                let shared = table.retainers[ownerID] ?? makeRetainer()
                shared.count += 1
                table.retainers[ownerID] = shared
                retainer = shared
            }
            let ties: ObserverTies? = ownerRef == nil && senderRef == nil && kind == .token && capture == nil ? nil
                : ObserverTies(owner: ownerRef, ownerID: ownerID, sender: senderRef,
                               senderID: senderRef.map { ObjectIdentifier($0.object) }, kind: kind, capture: capture,
                               retainer: retainer)
            // Consumed: passing a copy retained the owner again, on the runtime's slow path
            // for an object that has weak references.
            let observer = make(id, list, consume ties)
            table.insert(observer)
            session.emit(.observerAdded(observer: id, message: list.name, owner: ownerID, sender: senderID,
                                        callSite: callSite, kind: kind, capture: capture, handler: handlerName),
                         to: output)
            return (observer, session.owners.sweepDue)
        }
        if sweepDue { sweepOwners() }
        return observer
    }
}
