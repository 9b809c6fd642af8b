internal import CSQLite

/// Walks that hand out rows in place (``EventRow``) instead of ``RecordedEvent``s: what
/// `tracectl events` prints from.
extension TraceReader {
    /// The kinds a printing walk reads inside SQLite's loop, from the arguments of `notifybus_walk(...)`:
    /// deliveries, most rows of a large trace, which need only their observer and post.
    package static let kindsReadInWalk: [EventKind] = [.delivered, .skipped, .enqueued]

    /// The SQL of ``forEachEventRow(session:filter:deliveries:rows:)``: one walk of the session's
    /// primary key in `seq` order (a `seq` range bounds it). Deliveries go to `notifybus_walk(...)`
    /// with the columns up to the post as arguments (NULL literals for those they do not have) and
    /// stay inside SQLite unless the walk stops; every other row comes back with every column, its
    /// payload as the id the row holds, whose text the walk finds (``PayloadLookup``).
    ///
    /// - Parameter wholeTable: As for ``sessionWalk(_:alias:wholeTable:)``.
    package func printingWalkQuery(session: Int64, filter: EventFilter, wholeTable: Bool = false) -> (sql: String, values: [SQLValue]) {
        let ranged = filter.since != nil || filter.until != nil
        let walk = ranged ? (condition: "e.session = ?1", order: "e.seq")
            : sessionWalk(session, wholeTable: wholeTable)
        var values: [SQLValue] = [.integer(session)]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        // CASE of constants, deliveries first: each branch passes its kind as a literal, so the kind is read once.
        let branches = Self.kindsReadInWalk.map { kind in
            "WHEN \(kind.rawValue) THEN \(RowWalk.name)(e.seq, e.time_ns, \(kind.rawValue), e.observer, e.post)"
        }.joined(separator: " ")
        var sql = """
            SELECT e.seq, e.time_ns, e.kind, e.message, e.owner, e.observer, e.post, e.parent, e.sender, e.detail,
                   e.note, e.callsite, e.payload, \(schemaVersion >= 2 ? "e.handler" : "NULL")
            FROM events e WHERE \(walk.condition)
            """
        if let since = filter.since {
            // Registrations before the range still come back: later events name what they register.
            let registrations = Self.registrationKinds.map { String($0.rawValue) }.joined(separator: ", ")
            sql += " AND (e.seq >= " + parameter(.integer(Int64(clamping: since))) + " OR +e.kind IN (\(registrations)))"
        }
        if let until = filter.until { sql += " AND e.seq <= " + parameter(.integer(Int64(clamping: until))) }
        sql += " AND CASE e.kind \(branches) ELSE 1 END ORDER BY \(walk.order)"
        return (sql, values)
    }

    /// Calls `deliveries` with each delivery and `rows` with every other event of `session` in
    /// `seq` order, within `filter.since`…`filter.until` (its other fields are not read), until
    /// either returns `false`; `rows` also gets the owner and observer registrations before
    /// `filter.since`, with `wanted` false, so that a caller naming owners and observers learns them.
    ///
    /// Deliveries are read inside SQLite's loop (a function call per row, no round trip), which
    /// is what keeps printing every event of a large trace near a plain scan; `deliveries` must
    /// not use the reader. A negative sequence number or an unknown kind is damage, thrown before
    /// the row is given to anyone.
    package func forEachEventRow(session: Int64, filter: EventFilter,
                                 deliveries: @escaping (Delivery) -> Bool,
                                 rows: (_ row: StatementEventRow, _ wanted: Bool) throws -> Bool) throws {
        // One read transaction: what it sees of the sessions is what the walk reads.
        try db.execute("BEGIN")
        // Ending a read transaction changes nothing and cannot lose anything: a failure to end it
        // (the walk's own error already thrown) has nothing to report.
        defer { try? db.execute("COMMIT") }
        let (sql, values) = printingWalkQuery(session: session, filter: filter,
                                              wholeTable: try holdsOnly(session: session))
        let statement = try db.prepare(sql)
        try statement.bind(values)
        let payloads = try PayloadLookup(db)
        // Set by the function when it keeps a row: a delivery that stopped the walk or was damaged.
        final class Stop { var damage: TraceStoreError?; var stopped = false }
        let stop = Stop()
        let path = self.path
        let since = Int64(clamping: filter.since ?? 0)
        walk.body = { row in
            let seq = row.int64(Delivery.arguments.seq)
            guard seq >= 0 else {
                stop.damage = Self.negativeSeq(path, session: session, seq: seq)
                return true
            }
            guard seq >= since else { return false }
            // The kind is one of the CASE's literals.
            let kind = EventKind(rawValue: Int(row.int64(Delivery.arguments.kind))) ?? .delivered
            if deliveries(Delivery(row, kind: kind)) { return false }
            stop.stopped = true
            return true
        }
        defer { walk.body = nil }
        while try damaged({ () throws(TraceStoreError) in try statement.step() }) {
            if let damage = stop.damage { throw damage }
            if stop.stopped { return }
            var row = try checkedRow(statement, session: session)
            let id = sqlite3_column_value(statement.handle, EventColumn.payload.rawValue)
            row.payload = .found(try damaged { () throws(TraceStoreError) in try payloads.text(id) })
            guard try rows(row, row.int64(.seq) >= since) else { return }
        }
    }

    /// Whether every event in the file is of `session`: the first and last keys of the primary key
    /// (two searches, no scan). Asked inside the walk's read transaction, so the walk sees the same.
    package func holdsOnly(session: Int64) throws(TraceStoreError) -> Bool {
        try db.scalar("SELECT (SELECT min(session) FROM events) = ?1 AND (SELECT max(session) FROM events) = ?1", .integer(session)) == 1
    }

    /// Calls `body` with each event of `session` that `filter` passes, in `seq` order (or an
    /// index's order, which is also `seq` order), until it returns `false`: the rows of
    /// ``eventQuery(session:filter:payloads:condition:)`` with payloads, in place.
    package func forEachEventRow(session: Int64, filter: EventFilter, _ body: (StatementEventRow) throws -> Bool) throws {
        let (sql, values) = eventQuery(session: session, filter: filter, payloads: true)
        let statement = try db.prepare(sql)
        try statement.bind(values)
        while try damaged({ () throws(TraceStoreError) in try statement.step() }) {
            guard try body(try checkedRow(statement, session: session)) else { return }
        }
    }

    /// Calls `body` with each event of `session` that `filter` passes (`wanted` true) and with
    /// every owner and observer registration (`wanted` false unless the filter passes it too),
    /// rows in place, in `seq` order, until it returns `false` or `filter.limit` wanted events were given.
    ///
    /// One walk of the session: a caller naming owners and observers learns them from the
    /// registrations, which always come before the events that mention them, while SQLite
    /// leaves every other row the filter rejects. This is how `tracectl events` reads a trace
    /// without indexes; with indexes, a filter that an index serves is a search instead.
    package func forEachEventRowWithRegistrations(session: Int64, filter: EventFilter,
                                                  _ body: (_ row: StatementEventRow, _ wanted: Bool) throws -> Bool) throws {
        let (sql, values) = registrationsAndEventsQuery(session: session, filter: filter)
        let statement = try db.prepare(sql)
        try statement.bind(values)
        let labelled = LabelledOwners()
        walk.body = { row in row.id(0).map(labelled.ids.contains) ?? false }
        defer { walk.body = nil }
        var given = 0
        if let limit = filter.limit, limit <= 0 { return }
        while try damaged({ () throws(TraceStoreError) in try statement.step() }) {
            let row = try checkedRow(statement, session: session)
            if statement.int64(Int(Self.labelsOwnerColumn)) != 0, !row.isNull(.owner) {
                labelled.ids.insert(UInt64(bitPattern: row.int64(.owner)))
            }
            let wanted = statement.int64(Int(Self.wantedColumn)) != 0
            guard try body(row, wanted) else { return }
            if wanted {
                given += 1
                if let limit = filter.limit, given >= limit { return }
            }
        }
    }

    /// The current row of `statement`, its sequence number and kind checked as ``EventCursor`` checks them.
    func checkedRow(_ statement: Statement, session: Int64) throws(TraceStoreError) -> StatementEventRow {
        let s = statement.handle
        let seq = sqlite3_column_int64(s, EventColumn.seq.rawValue)
        guard seq >= 0 else { throw Self.negativeSeq(path, session: session, seq: seq) }
        let raw = sqlite3_column_int64(s, EventColumn.kind.rawValue)
        guard let kind = EventKind(rawValue: Int(truncatingIfNeeded: raw)) else {
            throw TraceStoreError(.notATrace, "\(path): trace is damaged: unknown event kind \(raw) at seq \(seq) of session \(session)")
        }
        return StatementEventRow(handle: s, kind: kind)
    }

    /// Runs a step, reporting a damaged file as such.
    func damaged<T>(_ body: () throws(TraceStoreError) -> T) throws(TraceStoreError) -> T {
        do { return try body() } catch { throw Self.damaged(path, error) }
    }

    /// The interned strings by id, as stored: a printer renders each once.
    package var internedStrings: [Int64: String] { strings }
}

/// The owners registered under a label so far, read by the walk function between rows.
private final class LabelledOwners {
    var ids = Set<UInt64>()
}
