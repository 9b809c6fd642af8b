// Message identity: one name per type in a recording session.

extension Bus {
    /// Registers the message type `type` under its ``BusMessage/name`` in this bus's
    /// session, as observing or posting it first does.
    ///
    /// Call it at start-up to find a clash as an error rather than a trap: a bus stops
    /// the process at the first observer or recorded post of a type whose name another
    /// type already has, since their observers, removals and trace entries would merge.
    /// - Throws: ``NotifyBusError`` naming both types when another type has the name.
    public func register<M: BusMessage>(_ type: M.Type) throws(NotifyBusError) {
        guard M.self != NamedMessage.self else { return }
        _ = try session.state.withLock { state throws(NotifyBusError) in try state.messages.register(M.self) }
    }

    /// The name `type` has in this bus's session, registering it; stops on a clash.
    func registeredName(of type: any BusMessage.Type, in session: inout SessionState) -> String {
        do {
            return try session.messages.register(type)
        } catch {
            preconditionFailure(error.description)
        }
    }
}
