import Foundation
internal import CSQLite
import NotifyBus

/// Reads a trace file. Opens it read-only, so nothing done through a reader can change a trace.
///
/// Events are streamed in `seq` order, never loaded all at once; strings are
/// resolved from an in-memory copy of the `strings` table.
///
/// ```swift
/// let reader = try TraceReader(path: "session.trace")
/// try reader.forEachEvent(session: reader.lastSessionID()) { event in
///     print(event.seq, event.kind, event.message ?? "")
///     return true
/// }
/// ```
public final class TraceReader {
    /// The file.
    public let path: String
    /// The file's schema version.
    public let schemaVersion: Int
    let db: Database
    private var strings: [Int64: String] = [:]

    /// Opens and validates a trace.
    ///
    /// - Throws: ``TraceStoreError`` with kind `.fileNotFound`, `.notATrace`,
    ///   `.foreignDatabase` or `.unsupportedSchema` for each way the file can be unusable.
    public init(path: String) throws(TraceStoreError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw TraceStoreError(.fileNotFound, "\(path): no such file")
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw TraceStoreError(.notATrace, "\(path): empty file, not a trace")
        }
        db = try Database(path: path, mode: .readOnly)
        try db.execute("PRAGMA query_only = 1")
        schemaVersion = try TraceSchema.validate(db)
        try loadStrings()
    }

    private func loadStrings() throws(TraceStoreError) {
        do {
            let statement = try db.prepare("SELECT id, value FROM strings")
            while try statement.step() {
                strings[statement.int64(0)] = statement.text(1) ?? ""
            }
        } catch {
            throw Self.damaged(path, error)
        }
    }

    /// The interned string `id`, from the in-memory copy of the `strings` table.
    func string(_ id: Int64) -> String? { strings[id] }

    static func damaged(_ path: String, _ error: TraceStoreError) -> TraceStoreError {
        if case .sqlite(let code) = error.kind, code == .corrupt || code == .notADatabase {
            return TraceStoreError(.notATrace, "\(path): trace is damaged (\(error.message))")
        }
        return error
    }

    /// The sessions in the file, oldest first.
    ///
    /// Cheap whatever the trace's size: each session's event count and duration come
    /// from the ends of its `seq` range (primary-key lookups), never from a scan.
    public func sessions() throws(TraceStoreError) -> [SessionSummary] {
        let statement = try db.prepare("""
            SELECT s.id, s.name, s.app, s.started_at, s.tool_version, s.scenario, s.ended_at,
                   (SELECT min(seq) FROM events e WHERE e.session = s.id),
                   (SELECT max(seq) FROM events e WHERE e.session = s.id),
                   (SELECT max(time_ns) FROM (SELECT time_ns FROM events e WHERE e.session = s.id ORDER BY seq DESC LIMIT 2)),
                   \(schemaVersion >= 2 ? "s.selector_semantics" : "NULL"),
                   \(schemaVersion >= 3 ? "s.crashed_at" : "NULL")
            FROM sessions s ORDER BY s.id
            """)
        var result: [SessionSummary] = []
        do throws(TraceStoreError) {
            while try statement.step() {
                let first = statement.optionalInt64(7), last = statement.optionalInt64(8)
                var count = 0
                if let first, let last, last >= first {
                    let (span, overflow) = last.subtractingReportingOverflow(first)
                    count = overflow || span >= Int64(Int.max) ? Int.max : Int(span) + 1
                }
                result.append(SessionSummary(
                    id: statement.int64(0), name: statement.text(1) ?? "", app: statement.text(2) ?? "",
                    startedAt: statement.text(3) ?? "", toolVersion: statement.text(4) ?? "",
                    scenario: statement.text(5), endedAt: statement.text(6),
                    eventCount: count, duration: UInt64(max(0, statement.int64(9))),
                    selectorSemantics: statement.text(10).flatMap(SelectorSemantics.init(rawValue:)),
                    crashedAt: statement.text(11)))
            }
        } catch {
            throw Self.damaged(path, error)
        }
        return result
    }

    /// The newest session's id.
    ///
    /// - Throws: When the file holds no session.
    public func lastSessionID() throws(TraceStoreError) -> Int64 {
        guard let id = try db.scalar("SELECT max(id) FROM sessions") else {
            throw TraceStoreError(.notATrace, "\(path): trace holds no session")
        }
        return id
    }

    /// Resolves a session argument: `nil` means the newest.
    public func session(_ id: Int64?) throws(TraceStoreError) -> SessionSummary {
        let all = try sessions()
        let wanted: Int64
        if let id { wanted = id } else { wanted = try lastSessionID() }
        guard let session = all.first(where: { $0.id == wanted }) else {
            throw TraceStoreError(.misuse, "\(path): no session \(wanted) (sessions: \(all.map { String($0.id) }.joined(separator: ", ")))")
        }
        return session
    }

    /// Calls `body` with each event of `session` that matches `filter`, in `seq`
    /// order, until it returns `false`. Memory does not grow with the trace.
    public func forEachEvent(session: Int64, filter: EventFilter = EventFilter(),
                             _ body: (RecordedEvent) throws -> Bool) throws {
        let cursor = try events(session: session, filter: filter, payloads: true)
        while let event = try cursor.next() {
            guard try body(event) else { break }
        }
    }

    /// A cursor over the events of `session` that match `filter`, in `seq` order:
    /// one row in memory at a time, so two can be walked side by side.
    ///
    /// - Parameter payloads: Whether to read the payload JSON (a join per post); analyses that
    ///   never look at payloads leave it out.
    package func events(session: Int64, filter: EventFilter = EventFilter(), payloads: Bool) throws(TraceStoreError) -> EventCursor {
        let (sql, values) = eventQuery(session: session, filter: filter, payloads: payloads)
        let statement = try db.prepare(sql)
        try statement.bind(values)
        return EventCursor(statement: statement, session: session, strings: strings, path: path)
    }

    /// The SQL and parameters of ``events(session:filter:payloads:)``: one range scan of the
    /// primary key (or a search of an index for an observer or owner filter), no correlated subquery.
    package func eventQuery(session: Int64, filter: EventFilter, payloads: Bool) -> (sql: String, values: [SQLValue]) {
        var sql = """
            SELECT e.seq, e.time_ns, e.kind, e.message, e.owner, e.observer, e.post, e.parent, e.sender, e.detail,
                   e.note, e.callsite, \(payloads ? "p.json" : "NULL"), \(schemaVersion >= 2 ? "e.handler" : "NULL")
            FROM events e \(payloads ? "LEFT JOIN payloads p ON p.id = e.payload " : "")WHERE e.session = ?1
            """
        var values: [SQLValue] = [.integer(session)]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        if let kinds = filter.kinds, !kinds.isEmpty {
            sql += " AND e.kind IN (" + kinds.map { parameter(.integer(Int64($0.rawValue))) }.joined(separator: ", ") + ")"
        }
        if let message = filter.message {
            sql += " AND e.message = (SELECT id FROM strings WHERE value = \(parameter(.text(message))))"
        }
        if let owner = filter.owner {
            if let id = Int64(owner) {
                sql += " AND e.owner = \(parameter(.integer(id)))"
            } else {
                sql += " AND e.owner IN (SELECT owner FROM events o WHERE o.session = ?1 AND o.kind = 1"
                    + " AND o.note = (SELECT id FROM strings WHERE value = \(parameter(.text(owner)))))"
            }
        }
        if let observer = filter.observer { sql += " AND e.observer = \(parameter(.integer(Int64(bitPattern: observer))))" }
        if let since = filter.since { sql += " AND e.seq >= \(parameter(.integer(Int64(clamping: since))))" }
        if let until = filter.until { sql += " AND e.seq <= \(parameter(.integer(Int64(clamping: until))))" }
        sql += " ORDER BY e.seq"
        if let limit = filter.limit { sql += " LIMIT \(parameter(.integer(Int64(clamping: limit))))" }
        return (sql, values)
    }

    /// Every event of a session, in order. Convenient for small traces and tests;
    /// use ``forEachEvent(session:filter:_:)`` for large ones.
    public func events(session: Int64, filter: EventFilter = EventFilter()) throws -> [RecordedEvent] {
        var result: [RecordedEvent] = []
        try forEachEvent(session: session, filter: filter) { result.append($0); return true }
        return result
    }

    /// The state at `seq` (inclusive), rebuilt by folding the log from the start.
    public func state(session: Int64, at seq: UInt64? = nil) throws -> TraceState {
        var state = TraceState()
        let cursor = try events(session: session, filter: EventFilter(until: seq), payloads: false)
        while let event = try cursor.next() { state.apply(event) }
        return state
    }

    /// Runs read-only SQL and calls `body` with the column names once, then each row.
    ///
    /// - Throws: ``TraceStoreError`` for SQL that fails or that would write (the
    ///   connection is read-only, so nothing is changed either way).
    public func query(_ sql: String, columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        let statement = try db.prepare(sql)
        guard statement.isReadOnly else {
            throw TraceStoreError(.sqlite(.readOnly), "trace is opened read-only; only queries are allowed", sql: sql)
        }
        try columns((0..<statement.columnCount).map(statement.columnName))
        while try statement.step() {
            try row((0..<statement.columnCount).map(statement.value))
        }
    }
}
