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

    /// The SQL of ``forEachEventRowWithRegistrations(session:filter:_:)``: one walk of the session's
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
}
