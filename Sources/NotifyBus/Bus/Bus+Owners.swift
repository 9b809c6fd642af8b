// Owners and the events that are not observer changes or posts: attachments,
// releases, lifecycle steps, and what another center (RecordingNotificationCenter)
// records through the bus.

extension Bus {
    /// Records that `object` lives inside `host`: a helper or view attached to its
    /// screen, a child screen to its container. Findings about `object` then say
    /// where it lives (`KeyboardFrameObserver in AztecEditor`).
    public func attach(_ object: AnyObject, to host: AnyObject) {
        let output = self.output
        let sweepDue = session.state.withLock { session in
            let owner = session.registerOwner(object, output: output)
            let host = session.registerOwner(host, output: output)
            session.emit(.ownerAttached(owner: owner, host: host), to: output)
            return session.owners.sweepDue
        }
        if sweepDue { sweepOwners() }
    }

    /// Records every owner the program has released since the last sweep, and every
    /// owner only a `strong` block observer still keeps alive.
    ///
    /// The bus holds owners weakly and learns of a release only when it next uses
    /// the owner; call this before closing a recording (the scenario runner does),
    /// so that the trace knows what was released even when nothing was posted afterwards.
    /// - Complexity: O(*n*) in the owners the session knows.
    public func sweepReleasedOwners() {
        var alive: [AnyObject] = []
        let output = self.output
        withSession { table, session in
            // Before any owner is loaded below: a loaded reference would make it shared.
            for (ownerID, retainer) in table.retainers.sorted(by: { $0.key < $1.key })
            where retainer.holdsLastReference() && table.reportedRetained.insert(ownerID).inserted {
                let holder = table.observers(ownedBy: ownerID).first { $0.retainer === retainer }
                session.emit(.ownerReleased(owner: ownerID, retainedBy: holder?.id), to: output)
            }
            session.sweepOwners(output: output, alive: &alive)
        }
    }

    /// The id under which `object` appears in this bus's trace, registering it
    /// (and recording an ``TraceEvent/Kind/ownerRegistered(owner:typeName:label:)``) on first sight.
    package func ownerID(of object: AnyObject) -> UInt64 {
        let output = self.output
        let (id, sweepDue) = session.state.withLock { session in
            (session.registerOwner(object, output: output), session.owners.sweepDue)
        }
        if sweepDue { sweepOwners() }
        return id
    }

    /// Records an event that is not an observer change or a post: a lifecycle
    /// step, a routed action, a rejected bridge notification. Does nothing when not recording.
    package func record(_ kind: @autoclosure () -> TraceEvent.Kind) {
        guard let output else { return }
        // Built before locking: building it may register owners, which locks.
        let kind = kind()
        session.state.withLock { $0.emit(kind, to: output) }
    }

    // MARK: Recording another center

    /// Records an observer that another center (``RecordingNotificationCenter``'s real
    /// one) registered and delivers to: the session allocates its id and records it, but
    /// the bus never calls it.
    /// - Returns: The observer's id in the trace.
    package func recordObserverAdded(message: String?, owner: AnyObject?, sender: AnyObject?, kind: ObserverKind,
                                     handler: String? = nil, callSite: CallSite) -> UInt64 {
        let output = self.output
        let (id, sweepDue) = withSession { table, session in
            let id = output == nil ? table.takeLocalObserverID() : session.takeObserverID()
            let ownerID = owner.map { session.registerOwner($0, output: output) }
            let senderID = sender.map { session.registerOwner($0, output: output) }
            session.emit(.observerAdded(observer: id, message: message, owner: ownerID, sender: senderID,
                                        callSite: callSite, kind: kind, handler: handler), to: output)
            return (id, session.owners.sweepDue)
        }
        if sweepDue { sweepOwners() }
        return id
    }

    /// Records a post that another center delivers; a post recorded while a delivery
    /// of this session's is running on the thread is its reaction.
    /// - Returns: The post's id in the trace.
    package func recordPost(_ message: any BusMessage, sender: AnyObject?, origin: PostOrigin? = nil) -> UInt64 {
        let output = self.output
        let parent = CurrentPost.value(for: self)
        return session.state.withLock { session in
            let senderID = sender.map { session.registerOwner($0, output: output) }
            let post = session.takePostID()
            session.emit(.posted(post: post, message: message, sender: senderID, parent: parent,
                                 origin: origin ?? (parent == nil ? .app : .reaction)), to: output)
            return post
        }
    }

    /// Records that the owner `ownerID` was released, unless that is already recorded.
    package func recordReleased(ownerID: UInt64) {
        let output = self.output
        session.state.withLock { $0.reportReleased(ownerID, output: output) }
    }

    /// Drops the records of deallocated owners once the table has grown, so that it
    /// stays proportional to the live owners. Outside the lock's callers: loading the
    /// owners makes strong references, and the last one may run a deinit that calls the bus.
    func sweepOwnersIfDue() {
        guard session.state.withLock({ $0.owners.sweepDue }) else { return }
        sweepOwners()
    }

    func sweepOwners() {
        var alive: [AnyObject] = []
        let output = self.output
        session.state.withLock { session in
            if session.owners.sweepDue { session.sweepOwners(output: output, alive: &alive) }
        }
    }
}
