/// A filtered read in one walk of the primary key, for traces without indexes (a killed
/// recorder's) and for reads a `seq` range alone narrows.
extension TraceReader {
    /// The event kinds a reader that names owners and observers must see before the events
    /// that mention them: every one comes back from ``registrationsAndEventsQuery(session:filter:)``.
    package static let registrationKinds: [EventKind] = [.ownerRegistered, .observerAdded]

    /// The result column saying whether a row passes the filter (`1`) or is a registration only (`0`).
    static let wantedColumn: Int32 = 14
    /// The result column saying whether a row registers an owner under the label `--owner` names.
    static let labelsOwnerColumn: Int32 = 15

    /// The SQL of ``forEachEventWithRegistrations(session:filter:_:)``: one walk of the session's
    /// primary key (up to `filter.until`) whose `WHERE` keeps the rows the filter passes and the
    /// registrations, with the filter computed by SQLite on the integer columns: a message by its
    /// interned id, looked up once here; an owner label by the owners registered under it so far
    /// (a set `notifybus_walk(e.owner)` looks up, filled as their registrations are read).
    ///
    /// The kind is compared with a unary `+` in the registrations' term, so that on a trace with
    /// indexes SQLite does not answer the `OR` from two indexes and sort the union.
    package func registrationsAndEventsQuery(session: Int64, filter: EventFilter) -> (sql: String, values: [SQLValue]) {
        var values: [SQLValue] = [.integer(session)]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        var terms: [String] = []
        if let kinds = filter.kinds, !kinds.isEmpty {
            terms.append("e.kind IN (" + kinds.map { parameter(.integer(Int64($0.rawValue))) }.joined(separator: ", ") + ")")
        }
        if let message = filter.message {
            // A message the trace never interned matches nothing: NULL equals nothing.
            terms.append("e.message = " + parameter(stringID(message).map(SQLValue.integer) ?? .null))
        }
        var labelTerm = "0"
        if let owner = filter.owner {
            if let id = Int64(owner) {
                terms.append("e.owner = " + parameter(.integer(id)))
            } else {
                // The registration itself passes: its owner is not in the set until it has been read.
                labelTerm = "(e.kind = \(EventKind.ownerRegistered.rawValue) AND e.note = "
                    + parameter(stringID(owner).map(SQLValue.integer) ?? .null) + ")"
                terms.append("(\(labelTerm) OR \(RowWalk.name)(e.owner))")
            }
        }
        if let observer = filter.observer { terms.append("e.observer = " + parameter(.integer(Int64(bitPattern: observer)))) }
        if let since = filter.since { terms.append("e.seq >= " + parameter(.integer(Int64(clamping: since)))) }
        let wanted = terms.isEmpty ? "1" : "(" + terms.joined(separator: " AND ") + ")"
        let registrations = Self.registrationKinds.map { String($0.rawValue) }.joined(separator: ", ")
        var sql = """
            SELECT e.seq, e.time_ns, e.kind, e.message, e.owner, e.observer, e.post, e.parent, e.sender, e.detail,
                   e.note, e.callsite, p.json, \(schemaVersion >= 2 ? "e.handler" : "NULL"), \(wanted), \(labelTerm)
            FROM events e LEFT JOIN payloads p ON p.id = e.payload WHERE e.session = ?1
            """
        if let until = filter.until { sql += " AND e.seq <= " + parameter(.integer(Int64(clamping: until))) }
        if !terms.isEmpty { sql += " AND (+e.kind IN (\(registrations)) OR \(wanted))" }
        sql += " ORDER BY e.seq"
        return (sql, values)
    }

    /// Calls `body` with each event of `session` that `filter` passes (`wanted` true) and with
    /// every owner and observer registration (`wanted` false unless the filter passes it too),
    /// in `seq` order, until it returns `false` or `filter.limit` wanted events were given.
    ///
    /// One walk of the session: a caller naming owners and observers learns them from the
    /// registrations, which always come before the events that mention them, while SQLite
    /// leaves every other row the filter rejects. This is how `tracectl events` reads a trace
    /// without indexes; with indexes, a filter that an index serves is a search instead
    /// (``forEachEvent(session:filter:_:)``).
    package func forEachEventWithRegistrations(session: Int64, filter: EventFilter,
                                               _ body: (_ event: RecordedEvent, _ wanted: Bool) throws -> Bool) throws {
        let (sql, values) = registrationsAndEventsQuery(session: session, filter: filter)
        let statement = try db.prepare(sql)
        try statement.bind(values)
        let labelled = OwnerSet()
        walk.body = { row in row.id(0).map(labelled.ids.contains) ?? false }
        defer { walk.body = nil }
        let cursor = EventCursor(statement: statement, session: session, strings: strings, path: path)
        var given = 0
        if let limit = filter.limit, limit <= 0 { return }
        while let event = try cursor.next() {
            if statement.int64(Int(Self.labelsOwnerColumn)) != 0, let owner = event.owner { labelled.ids.insert(owner) }
            let wanted = statement.int64(Int(Self.wantedColumn)) != 0
            guard try body(event, wanted) else { return }
            if wanted {
                given += 1
                if let limit = filter.limit, given >= limit { return }
            }
        }
    }
}

/// The owners registered under a label so far, read by the walk function between rows.
private final class OwnerSet {
    var ids = Set<UInt64>()
}
