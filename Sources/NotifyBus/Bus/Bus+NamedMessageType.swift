// MARK: - NamedMessage observed by its type: a mistake, said at compile time

/// Why ``NamedMessage`` cannot be observed by its type: its observers are found by name.
let namedMessageByType = """
    a NamedMessage is observed by its name: observe(named:), addObserver(forName: String, …) or \
    addObserver(_:selector:name: String, …); observing NamedMessage.self would hear no post
    """

// Each spelling that adds an observer of a message type has an overload for `NamedMessage.Type`,
// preferred to the generic one for that type, which the compiler flags with the message above.
// An `@available(*, unavailable)` overload would not do: Swift ranks an unavailable declaration
// below any available one that fits, so the generic one would be chosen without a word. Code
// generic over `BusMessage` still reaches the generic one: the bus stops there, when the
// observer is added, with the same message.

extension Bus {
    /// Not an observer of named messages: use ``observe(named:sender:owner:file:line:_:)``.
    ///
    /// `observe(NamedMessage.self) { … }` would register an observer of the type name
    /// `"NamedMessage"`, which no post reaches: a named message is delivered to the observers of
    /// its name. The compiler warns at the call; the call stops the process.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use observe(named:)")
    public func observe(
        _ type: NamedMessage.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line, _ handler: @escaping @Sendable (NamedMessage) -> Void
    ) -> ObservationToken {
        preconditionFailure(namedMessageByType)
    }

    /// Not an observer of named messages: use ``observe(named:sender:owner:file:line:_:)``.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use observe(named:)")
    public func observe(
        _ type: NamedMessage.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        @_inheritActorContext _ handler: @escaping @Sendable @isolated(any) (NamedMessage) async -> Void
    ) -> ObservationToken {
        preconditionFailure(namedMessageByType)
    }

    /// Not a sequence of named messages: observe the name with ``observe(named:sender:owner:file:line:_:)``.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use observe(named:)")
    public func messages(
        of type: NamedMessage.Type, sender: AnyObject? = nil, file: String = #fileID, line: Int = #line
    ) -> AsyncStream<NamedMessage> {
        preconditionFailure(namedMessageByType)
    }

    /// Not a block observer of named messages: use
    /// ``addObserver(forName:object:owner:capture:file:line:using:)-(String,_,_,_,_,_,_)``.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use addObserver(forName: String, …)")
    public func addObserver<Owner: AnyObject>(
        forName type: NamedMessage.Type, object sender: AnyObject? = nil, owner: Owner, capture: BlockCapture,
        file: String = #fileID, line: Int = #line, using handler: @escaping @Sendable (NamedMessage) -> Void
    ) -> BlockObservation {
        preconditionFailure(namedMessageByType)
    }

    /// Not a selector observer of named messages: use
    /// ``addObserver(_:selector:name:object:file:line:action:)-(Target,_,String,_,_,_,_)``.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use addObserver(_:selector:name: String, …)")
    public func addObserver<Target: AnyObject>(
        _ target: Target, selector: String, name: NamedMessage.Type, object sender: AnyObject? = nil,
        file: String = #fileID, line: Int = #line, action: @escaping @Sendable (Target) -> (NamedMessage) -> Void
    ) {
        preconditionFailure(namedMessageByType)
    }
}

extension MainActorObserving where Self == Bus {
    /// Not an observer of named messages: use ``Bus/observe(named:sender:owner:file:line:_:)``.
    @available(*, deprecated, message: "a NamedMessage is observed by its name: use observe(named:)")
    public func observe(
        _ type: NamedMessage.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line, _ handler: @escaping @MainActor @Sendable (NamedMessage) -> Void
    ) -> ObservationToken {
        preconditionFailure(namedMessageByType)
    }
}
