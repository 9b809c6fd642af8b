import Synchronization

// Posting: the snapshot of a post's observers, and what the post does with each
// (deliver, skip, trap), decided and recorded under the lock.

extension Bus {
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
        // `self.output` below, not a binding of it: the bus holds it, and a binding retained it.
        guard output != nil else {
            let (typed, wildcards) = state.withLock { table in
                (table.items(for: M.self, named: named), table.wildcardItems)
            }
            merged(typed, wildcards) { deliver(message, to: $0, sender: sender, post: 0, recorded: false) }
            return 0
        }
        let senderRef = sender.map(ObjectRef.init)
        let frames = CurrentPost.top
        // The first observer's owner, when it is admitted with the post: loaded under the
        // lock, released after the lock is (its deinit may call the bus), once its handler ran.
        var firstOwner: AnyObject?
        // The snapshot and the `posted` event are taken together, so that the trace
        // orders the post exactly where its set of observers was decided.
        let (typed, wildcards, postID, sweepDue, first) = withSession { table, session in
            if named == nil && table.list(for: ObjectIdentifier(M.self)) == nil {
                // First sight of the type on this bus: its name is checked against the session's.
                _ = table.addList(for: ObjectIdentifier(M.self), name: registeredName(of: M.self, in: &session))
            }
            let typed = table.items(for: M.self, named: named)
            let wildcards = table.wildcardItems
            let senderID = senderRef.map { session.registerOwner($0.object, output: output) }
            let parent = CurrentPost.value(for: self, in: frames)
            let postID = session.takePostID()
            let postTime = session.emitPost(postID, message: message, sender: senderID, parent: parent,
                                            origin: origin ?? (parent == nil ? .app : .reaction), to: output)
            let sweepDue = senderRef != nil && session.owners.sweepDue
            // A sweep records its releases before the first delivery: that observer waits its turn.
            let first = sweepDue ? FirstTurn.open
                : admitFirst(of: typed, wildcards, sender: sender, post: postID, at: postTime, owner: &firstOwner,
                             table: &table, session: &session)
            return (typed, wildcards, postID, sweepDue, first)
        }
        if sweepDue { sweepOwners() }
        CurrentPost.with(bus: self, post: postID, in: frames) {
            var first = first
            merged(typed, wildcards) { observer in
                if first == .open {
                    return deliver(message, to: observer, sender: sender, post: postID, recorded: true)
                }
                // The first observer, admitted (or not) with the post; its owner goes after the call.
                let owner = firstOwner.take()
                if first == .call { call(message, observer, owner: owner) }
                first = .open
            }
        }
        return postID
    }

    /// What a recorded post decided, in its own critical section, for its first observer.
    enum FirstTurn {
        /// Nothing: it is admitted at its turn, as the others are.
        case open
        /// Admitted, its delivery recorded: call it.
        case call
        /// Not to be called: skipped or trapped, and recorded so.
        case pass
    }

    /// Admits the first observer of a recorded post in the post's own critical section, just
    /// after its `posted` event, when it is a posting-thread observer that hears `sender`: as
    /// ``admit(_:post:owner:)`` would at its turn, without taking the locks again.
    ///
    /// Nothing runs on the posting thread between the snapshot and the first delivery, so the
    /// outcome is one the post could have had at its turn: a removal on another thread is
    /// ordered either before the post (and not in the snapshot) or after this delivery. Later
    /// observers wait for their turn: an earlier handler may remove them.
    /// `owner` receives the owner, loaded once, for the caller to keep alive through the call
    /// and release after unlocking.
    ///
    /// A delivery recorded here carries `postTime`, the post's own clock reading: it is the next
    /// event of the same critical section, tens of nanoseconds later, and a second reading of the
    /// clock cost more than the rest of the delivery's recording (docs/TRACE_FORMAT.md, `time_ns`).
    @inline(__always)
    private func admitFirst(of typed: [Observer?], _ wildcards: [Observer?], sender: AnyObject?, post: UInt64,
                            at postTime: UInt64?, owner: inout AnyObject?, table: inout ObserverTable,
                            session: inout SessionState) -> FirstTurn {
        guard let first = firstObserver(typed, wildcards) else { return .open }
        return first._withUnsafeGuaranteedRef { observer in
            guard observer.dispatch == .postingThread, observer.accepts(sender: sender) else { return .open }
            // Registered (`isActive`): the snapshot was taken in this critical section.
            if observer.ownerID != nil { owner = observer.owner }
            return admit(observer, ownerAlive: owner != nil || observer.ownerID == nil, post: post, at: postTime,
                         table: &table, session: &session) ? .call : .pass
        }
    }

    /// The observer ``merged(_:_:_:)`` calls first, without retaining it (see ``forEach(in:_:)``).
    @inline(__always)
    private func firstObserver(_ typed: [Observer?], _ wildcards: [Observer?]) -> Unmanaged<Observer>? {
        var first: Unmanaged<Observer>?
        for index in typed.indices {
            if let observer = typed[index].map(Unmanaged.passUnretained) { first = observer; break }
        }
        for index in wildcards.indices {
            guard let wildcard = wildcards[index].map(Unmanaged.passUnretained) else { continue }
            if let typed = first,
               typed._withUnsafeGuaranteedRef({ $0.id }) < wildcard._withUnsafeGuaranteedRef({ $0.id }) { break }
            first = wildcard
            break
        }
        return first
    }

    /// Calls `body` with each observer of `snapshot`, in order, without retaining it.
    ///
    /// `snapshot` is a post's copy of a list's items: its buffer holds each observer
    /// strongly until the caller releases it, and nothing can write to it (a change to the
    /// list copies the buffer first), so each observer outlives its call. Retaining and
    /// releasing each one anyway was two atomic operations per delivery, about half of
    /// its time at fan-out 100 (`BENCHMARKS.md`). `BusReentrancyTests` checks that an
    /// observer whose last token goes during a post lives until the post ends.
    @inline(__always)
    private func forEach(in snapshot: [Observer?], _ body: (Observer) -> Void) {
        for index in snapshot.indices {
            guard let observer = snapshot[index].map(Unmanaged.passUnretained) else { continue }
            observer._withUnsafeGuaranteedRef(body)
        }
    }

    /// Calls `body` with the observers of both lists in registration (id) order, without
    /// retaining them (see ``forEach(in:_:)``).
    @inline(__always)
    private func merged(_ typed: [Observer?], _ wildcards: [Observer?], _ body: (Observer) -> Void) {
        if wildcards.isEmpty { return forEach(in: typed, body) }
        var t = typed.startIndex, w = wildcards.startIndex
        while true {
            while t < typed.endIndex && typed[t] == nil { t += 1 }
            while w < wildcards.endIndex && wildcards[w] == nil { w += 1 }
            if t == typed.endIndex && w == wildcards.endIndex { return }
            let next: Unmanaged<Observer>
            if w == wildcards.endIndex || (t < typed.endIndex && typed[t]!.id < wildcards[w]!.id) {
                next = Unmanaged.passUnretained(typed[t]!); t += 1
            } else {
                next = Unmanaged.passUnretained(wildcards[w]!); w += 1
            }
            next._withUnsafeGuaranteedRef(body)
        }
    }

    @inline(__always)
    /// `recorded`: whether the bus records, known where the post inlines this (its own `output` check).
    private func deliver<M: BusMessage>(_ message: M, to observer: Observer, sender: AnyObject?, post: UInt64,
                                        recorded: Bool) {
        guard observer.accepts(sender: sender) else { return }
        if observer.dispatch != .postingThread {
            deliverElsewhere(message, to: unsafeDowncast(observer, to: TypedObserver<M>.self), post: post)
            return
        }
        // Loaded once: keeps the owner alive through the call, and is released
        // after any lock is, so that its deinit never runs under the bus's lock.
        var owner: AnyObject?
        guard admit(observer, post: post, recorded: recorded, owner: &owner) else { return }
        call(message, observer, owner: owner)
    }

    /// Calls a posting-thread observer's handler, admitted for `message`'s post; `owner` is its owner, loaded
    /// when it was admitted.
    @inline(__always)
    private func call<M: BusMessage>(_ message: M, _ observer: Observer, owner: AnyObject?) {
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
        admit(observer, post: post, recorded: output != nil, owner: &owner)
    }

    /// ``admit(_:post:owner:)``, `recorded` saying whether the bus records.
    @inline(__always)
    private func admit(_ observer: Observer, post: UInt64, recorded: Bool, owner: inout AnyObject?) -> Bool {
        if recorded {
            let admission = admitRecorded(observer, post: post)
            owner = admission.owner
            return admission.admitted
        }
        guard observer.isActive.load(ordering: .acquiring) else { return false }
        guard observer.ownerID != nil else { return true }
        owner = observer.owner
        if owner != nil { return true }
        return admitOwnerGone(observer, post: post)
    }

    // The two below take the lock; out of line, so that the loop of a post that does not record
    // stays small (inlined, they made each of its deliveries set up a larger frame: ~12 instructions).

    /// ``admit(_:post:owner:)`` on a recording bus. (The owner returned, not written through an
    /// `inout`: that kept the caller's in memory rather than in a register, in every delivery.)
    @inline(never)
    private func admitRecorded(_ observer: Observer, post: UInt64) -> (admitted: Bool, owner: AnyObject?) {
        // Checked and recorded under the lock, so that a removal on another
        // thread is either before this delivery in the trace or not applied to it.
        var owner: AnyObject?
        let admitted = withSession { table, session in
            guard observer.isActive.load(ordering: .relaxed) else { return false }
            if observer.ownerID != nil { owner = observer.owner }
            return admit(observer, ownerAlive: owner != nil || observer.ownerID == nil, post: post,
                         table: &table, session: &session)
        }
        return (admitted, owner)
    }

    /// ``admit(_:post:owner:)`` on a bus that does not record, for an observer whose owner is gone.
    @inline(never)
    private func admitOwnerGone(_ observer: Observer, post: UInt64) -> Bool {
        withSession { table, session in
            observer.isActive.load(ordering: .relaxed)
                && admit(observer, ownerAlive: false, post: post, table: &table, session: &session)
        }
    }

    /// Queues `post` for an observer that runs elsewhere: under the lock, if it is
    /// still registered, records ``TraceEvent/Kind/enqueued(post:observer:)`` and calls
    /// `push`, so that the queue's order is the trace's.
    /// - Returns: Whether it was queued.
    func enqueue(_ observer: Observer, post: UInt64, push: () -> Void) -> Bool {
        guard let output else {
            return state.withLock { _ in
                guard observer.isActive.load(ordering: .relaxed) else { return false }
                push()
                return true
            }
        }
        return withSession { _, session in
            guard observer.isActive.load(ordering: .relaxed) else { return false }
            session.emit(.enqueued(post: post, observer: observer.id), to: output)
            push()
            return true
        }
    }

    /// Decides, under the lock, what a post does with an active observer, and records it.
    /// - Returns: Whether to call the handler.
    /// `postTime`: the post's clock reading, when its `posted` event is the last one recorded, in
    /// this critical section: a delivery recorded straight after it carries that time.
    private func admit(_ observer: Observer, ownerAlive: Bool, post: UInt64, at postTime: UInt64? = nil,
                       table: inout ObserverTable, session: inout SessionState) -> Bool {
        let output = self.output
        guard !ownerAlive, let ownerID = observer.ownerID else {
            session.emit(.delivered(post: post, observer: observer.id), to: output, at: postTime)
            return true
        }
        session.reportReleased(ownerID, output: output)
        switch (observer.kind, observer.capture) {
        case (.block, .unowned?):
            session.emit(.trapped(post: post, observer: observer.id, reason: .unownedCapture), to: output)
            return false
        case (.block, _):
            // A `weak` block keeps running after its owner is gone, doing nothing useful.
            session.emit(.delivered(post: post, observer: observer.id), to: output)
            return true
        case (.selector, _) where selectorSemantics == .legacy:
            session.emit(.trapped(post: post, observer: observer.id, reason: .deallocatedTarget), to: output)
            return false
        case (.selector, _), (.token, _):
            session.emit(.skipped(post: post, observer: observer.id), to: output)
            _ = table.remove(observer)  // tokens and selectors hold no owner
            session.emit(.observerRemoved(observer: observer.id, message: observer.messageName, owner: ownerID,
                                          reason: .ownerGone, callSite: nil), to: output)
            return false
        }
    }
}
