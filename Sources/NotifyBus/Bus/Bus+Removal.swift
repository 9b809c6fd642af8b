import Synchronization

// The ways to remove observers: by token, by block observation, by target (and name)
// as Foundation's `removeObserver`, and every observer of an owner.
//
// Owners are found through the session's registry, whose identity holds while the
// owner runs its `deinit`: `removeObserver(self)` there finds what `self` added.

extension Bus {
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
    /// block observer shows in the trace. Called from `target`'s `deinit`, it finds
    /// `target`'s observers as anywhere else.
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
        removeSelectors(of: target, named: messageName(of: M.self), sender: sender, callSite: CallSite(file: file, line: line))
    }

    /// Removes the selector observers of `target` for the named message `name`.
    public func removeObserver(
        _ target: AnyObject, name: String, object sender: AnyObject? = nil, file: String = #fileID, line: Int = #line
    ) {
        removeSelectors(of: target, named: name, sender: sender, callSite: CallSite(file: file, line: line))
    }

    /// Removes every observer of `owner`, of every kind: NotifyBus's own strict form.
    /// Works in `owner`'s `deinit` too.
    public func removeAll(owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let output = self.output
        let released = withSession { table, session -> [OwnerRetainer?] in
            guard let ownerID = session.owners.id(of: owner) else { return [] }
            return table.observers(ownedBy: ownerID).map { observer in
                defer {
                    session.emit(.observerRemoved(observer: observer.id, message: observer.messageName, owner: ownerID,
                                                  reason: .ownerRemoved, callSite: callSite), to: output)
                }
                return table.remove(observer)
            }
        }
        _ = released  // released here, outside the lock
    }

    /// Removes the observers of one message type that `owner` added, of every kind.
    ///
    /// When there is nothing to remove, the call is recorded as an unbalanced removal.
    public func remove<M: BusMessage>(_ type: M.Type, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        removeObservers(named: messageName(of: M.self), owner: owner, file: file, line: line)
    }

    /// Removes the observers of the message called `name` that `owner` added, of every kind.
    package func removeObservers(named name: String, owner: AnyObject, file: String = #fileID, line: Int = #line) {
        let callSite = CallSite(file: file, line: line)
        let output = self.output
        let released = withSession { table, session -> [OwnerRetainer?] in
            guard let ownerID = ownerIDForRemoval(owner, in: &session) else { return [] }
            let matching = table.observers(ownedBy: ownerID).filter { $0.messageName == name }
            if matching.isEmpty {
                session.emit(.observerRemoved(observer: nil, message: name, owner: ownerID, reason: .explicit,
                                              callSite: callSite), to: output)
            }
            return matching.map { observer in
                defer {
                    session.emit(.observerRemoved(observer: observer.id, message: name, owner: ownerID,
                                                  reason: .explicit, callSite: callSite), to: output)
                }
                return table.remove(observer)
            }
        }
        _ = released  // released here, outside the lock
        sweepOwnersIfDue()
    }

    /// Removes `observer`; a `strong` block's owner is released after the lock is.
    func removeObserver(_ observer: Observer, reason: RemovalReason, reportMissing: Bool, callSite: CallSite? = nil) {
        guard output == nil else {
            return removeRecordedObserver(observer, reason: reason, reportMissing: reportMissing, callSite: callSite)
        }
        let released = state.withLock { table -> OwnerRetainer? in
            guard observer.isActive.load(ordering: .relaxed) else { return nil }
            return table.remove(observer)
        }
        _ = released
    }

    /// ``removeObserver(_:reason:reportMissing:callSite:)`` on a recording bus: out of line, so that
    /// a removal on a bus that does not record stays small enough to be inlined where it is called.
    @inline(never)
    private func removeRecordedObserver(_ observer: Observer, reason: RemovalReason, reportMissing: Bool,
                                        callSite: CallSite?) {
        let output = self.output
        let released = withSession { table, session -> OwnerRetainer? in
            guard observer.isActive.load(ordering: .relaxed) else {
                if reportMissing {
                    session.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                                  owner: observer.ownerID, reason: reason, callSite: callSite), to: output)
                }
                return nil
            }
            defer {
                session.emit(.observerRemoved(observer: observer.id, message: observer.messageName,
                                              owner: observer.ownerID, reason: reason, callSite: callSite), to: output)
            }
            return table.remove(observer)
        }
        _ = released
    }

    private func removeSelectors(of target: AnyObject, named name: String?, sender: AnyObject?, callSite: CallSite) {
        let senderKey = sender.map(ObjectIdentifier.init)
        let output = self.output
        let removed = withSession { table, session -> [Observer] in
            guard let ownerID = ownerIDForRemoval(target, in: &session) else { return [] }
            let matching = table.observers(ownedBy: ownerID).filter {
                $0.kind == .selector && (name == nil || $0.messageName == name)
                    && (senderKey == nil || $0.senderID == senderKey)
            }
            // Selector observers never hold their target strongly.
            let reason: RemovalReason = name == nil ? .ownerSelectors : .explicit
            if matching.isEmpty {
                session.emit(.observerRemoved(observer: nil, message: name, owner: ownerID, reason: reason,
                                              callSite: callSite), to: output)
            }
            for observer in matching {
                _ = table.remove(observer)
                session.emit(.observerRemoved(observer: observer.id, message: observer.messageName, owner: ownerID,
                                              reason: reason, callSite: callSite), to: output)
            }
            return matching
        }
        _ = removed  // released here, outside the lock
        sweepOwnersIfDue()
    }

    /// The owner id a removal by `owner` is about: its identity, which holds in its `deinit`.
    /// A recording bus registers an owner it has not seen, so that the trace shows the removal
    /// that found nothing; a bus that does not record has nothing to remove for it.
    private func ownerIDForRemoval(_ owner: AnyObject, in session: inout SessionState) -> UInt64? {
        guard output != nil else { return session.owners.id(of: owner) }
        return session.registerOwner(owner, output: output)
    }

    /// The name removals by message type match: the registered one, without registering
    /// a type nobody observes.
    func messageName<M: BusMessage>(of type: M.Type) -> String {
        session.state.withLock { $0.messages.name(of: M.self) } ?? M.name
    }
}
