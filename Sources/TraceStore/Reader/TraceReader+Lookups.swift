extension TraceReader {
    /// An owner as registered in a session.
    public struct OwnerInfo: Sendable, Hashable {
        public var id: UInt64
        public var type: String
        public var label: String
    }

    /// An observer as added in a session.
    public struct ObserverInfo: Sendable, Hashable {
        public var id: UInt64
        public var message: String?
        public var owner: UInt64?
        public var callSite: String?
        public var addedAt: UInt64
    }

    /// The session's owners by id. Grows with owners, not events.
    ///
    /// One search of the kind index on a finished trace; a walk of the session on a killed one.
    public func owners(session: Int64) throws -> [UInt64: OwnerInfo] {
        var result: [UInt64: OwnerInfo] = [:]
        try forEachEvent(session: session, filter: EventFilter(kinds: [.ownerRegistered])) { event in
            if let id = event.owner { result[id] = OwnerInfo(event) }
            return true
        }
        return result
    }

    /// The session's observers by id, as they were added.
    public func observerInfo(session: Int64) throws -> [UInt64: ObserverInfo] {
        var result: [UInt64: ObserverInfo] = [:]
        try forEachEvent(session: session, filter: EventFilter(kinds: [.observerAdded])) { event in
            if let id = event.observer { result[id] = ObserverInfo(event) }
            return true
        }
        return result
    }

    /// The rows of `sql` with `values` bound, for the package's own queries.
    func rows(_ sql: String, _ values: [SQLValue]) throws(TraceStoreError) -> [[SQLValue]] {
        let statement = try db.prepare(sql)
        try statement.bind(values)
        var rows: [[SQLValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map(statement.value))
        }
        return rows
    }
}

extension TraceReader.OwnerInfo {
    /// The owner an `ownerRegistered` event registers.
    public init(_ event: RecordedEvent) {
        self.init(id: event.owner ?? 0, type: event.detail ?? "?", label: event.note ?? event.detail ?? "?")
    }
}

extension TraceReader.ObserverInfo {
    /// The observer an `observerAdded` event adds.
    public init(_ event: RecordedEvent) {
        self.init(id: event.observer ?? 0, message: event.message, owner: event.owner, callSite: event.callSite,
                  addedAt: event.seq)
    }
}
