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
    package let db: Database
    /// Whether the file has the secondary indexes a closed (or finished) session builds;
    /// a killed recorder's file has none until `tracectl finish`.
    public let hasIndexes: Bool
    /// Events read from a dead recorder's journal (``JournalRecovery``), by session: they were
    /// journaled before their handlers ran but never committed to the file. The reader sees them
    /// as part of the session; `tracectl finish` writes them into the file. Empty for most traces.
    public let recoveredEvents: [Int64: Int]
    /// The file's session when it holds exactly one (the usual trace): a walk of that session is
    /// then a walk of the whole table, which SQLite runs without checking each row against the
    /// end of the session's key range (~4% of a walk, `BENCHMARKS.md`).
    package let onlySession: Int64?
    private(set) var strings: [Int64: String] = [:]
    /// `notifybus_walk(...)` on this reader's connection.
    package let walk = RowWalk()

    /// Opens and validates a trace.
    ///
    /// - Throws: ``TraceStoreError`` with kind `.fileNotFound`, `.notATrace`,
    ///   `.foreignDatabase` or `.unsupportedSchema` for each way the file can be unusable.
    public convenience init(path: String) throws(TraceStoreError) {
        try self.init(path: path, recoveringJournals: true)
    }

    /// Opens and validates a trace; with `recoveringJournals` false, a dead recorder's journal is
    /// not read (`tracectl finish`, which writes it into the file, reads only the sessions first).
    package init(path: String, recoveringJournals: Bool) throws(TraceStoreError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TraceStoreError(.fileNotFound, "\(path): no such file")
        }
        // 66 in tracectl, as for a scenario or baseline that is a directory: no input file at this path.
        guard !isDirectory.boolValue else { throw TraceStoreError(.fileNotFound, "\(path): a directory, not a trace") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw TraceStoreError(.notATrace, "\(path): empty file, not a trace")
        }
        let file = try Database(path: path, mode: .readOnly)
        schemaVersion = try TraceSchema.validate(file)
        // A dead recorder's journal may hold events the file lacks: they are read from a private
        // copy with them added, never written into a file another process may be recording into.
        let journals = recoveringJournals && schemaVersion >= 2 ? try JournalRecovery.pending(trace: path, db: file) : []
        db = journals.isEmpty ? file : try JournalRecovery.snapshot(of: file, adding: journals)
        recoveredEvents = Dictionary(journals.map { ($0.session, $0.events.count) }, uniquingKeysWith: +)
        try db.execute("PRAGMA query_only = 1")
        hasIndexes = try db.scalar("""
            SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'
              AND name IN ('events_by_kind', 'events_by_observer', 'events_by_post', 'events_by_owner')
            """) == 4
        onlySession = try db.scalar("SELECT count(*) FROM sessions") == 1 ? try db.scalar("SELECT id FROM sessions") : nil
        try loadStrings()
        try walk.register(on: db)
    }

    /// The id of an interned string, if the trace holds it.
    package func stringID(_ value: String) -> Int64? {
        if stringIDs == nil {
            var ids: [String: Int64] = [:]
            for (id, text) in strings { ids[text] = id }
            stringIDs = ids
        }
        return stringIDs?[value]
    }
    private var stringIDs: [String: Int64]?

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

    static func negativeSeq(_ path: String, session: Int64, seq: Int64) -> TraceStoreError {
        TraceStoreError(.notATrace, "\(path): trace is damaged: session \(session) holds event seq \(seq), and sequence numbers cannot be negative")
    }

    /// The interned string `id`, from the in-memory copy of the `strings` table.
    func string(_ id: Int64) -> String? { strings[id] }

    static func damaged(_ path: String, _ error: TraceStoreError) -> TraceStoreError {
        if case .sqlite(let code) = error.kind, code == .corrupt || code == .notADatabase {
            return TraceStoreError(.notATrace, "\(path): trace is damaged (\(error.message))")
        }
        return error
    }

    /// The query of ``sessions()``: the `sessions` table alone.
    package var sessionsSQL: String {
        """
        SELECT id, name, app, started_at, tool_version, scenario, ended_at,
               \(schemaVersion >= 2 ? "selector_semantics" : "NULL"), \(schemaVersion >= 3 ? "crashed_at" : "NULL")
        FROM sessions ORDER BY id
        """
    }

    /// The ends of a session's `seq` range: a few rows of the primary key each, never a scan.
    package static let firstEventSQL = "SELECT seq FROM events WHERE session = ?1 ORDER BY seq LIMIT 1"
    package static let lastEventsSQL = "SELECT seq, time_ns FROM events WHERE session = ?1 ORDER BY seq DESC LIMIT 2"

    /// The sessions in the file, oldest first.
    ///
    /// Cheap whatever the trace's size: each session's event count and duration come
    /// from the ends of its `seq` range (primary-key lookups), never from a scan.
    public func sessions() throws(TraceStoreError) -> [SessionSummary] {
        var result: [SessionSummary] = []
        do throws(TraceStoreError) {
            let statement = try db.prepare(sessionsSQL)
            let first = try db.prepare(Self.firstEventSQL), last = try db.prepare(Self.lastEventsSQL)
            while try statement.step() {
                let id = statement.int64(0)
                try first.bind([.integer(id)])
                let low: Int64? = try first.step() ? first.int64(0) : nil
                try last.bind([.integer(id)])
                var high: Int64?
                var duration: Int64 = 0
                // The newest two: a closed session's `sessionEnded` has no time of its own.
                while try last.step() {
                    if high == nil { high = last.int64(0) }
                    duration = max(duration, last.int64(1))
                }
                var count = 0
                if let low, let high, high >= low {
                    let (span, overflow) = high.subtractingReportingOverflow(low)
                    count = overflow || span >= Int64(Int.max) ? Int.max : Int(span) + 1
                }
                result.append(SessionSummary(
                    id: id, name: statement.text(1) ?? "", app: statement.text(2) ?? "",
                    startedAt: statement.text(3) ?? "", toolVersion: statement.text(4) ?? "",
                    scenario: statement.text(5), endedAt: statement.text(6),
                    eventCount: count, duration: UInt64(duration),
                    selectorSemantics: statement.text(7).flatMap(SelectorSemantics.init(rawValue:)),
                    crashedAt: statement.text(8)))
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
            throw TraceStoreError(.noSuchSession(wanted), "\(path): no session \(wanted) (sessions: \(all.map { String($0.id) }.joined(separator: ", ")))")
        }
        // Sequence numbers are unsigned: a negative one is damage, refused here (one index probe) rather than
        // trapping wherever it is read.
        if let first = try db.scalar(Self.firstEventSQL, .integer(wanted)), first < 0 {
            throw Self.negativeSeq(path, session: wanted, seq: first)
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

    /// The index that serves `filter`, named: without statistics SQLite's planner would
    /// rather walk the session's primary key than search a partial index it must join back.
    private func index(for filter: EventFilter) -> String {
        guard hasIndexes else { return "" }
        if filter.observer != nil { return "INDEXED BY events_by_observer" }
        if let owner = filter.owner, Int64(owner) != nil { return "INDEXED BY events_by_owner" }
        // One kind comes out of the kind index in `seq` order; several would need a sort.
        if let kinds = filter.kinds, kinds.count == 1, filter.message == nil, filter.owner == nil {
            return "INDEXED BY events_by_kind"
        }
        return ""
    }

    /// The last event at or before a point: a primary-key search.
    package static let lastEventAtSQL = "SELECT seq FROM events WHERE session = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1"

    /// The query of ``state(session:at:)``: one walk of the primary key up to `seq` that
    /// returns only the events that change the state (registrations, removals, lifecycle,
    /// application-state posts, skips), leaving deliveries and other posts inside SQLite.
    package func stateQuery(session: Int64, at seq: UInt64?) -> (sql: String, values: [SQLValue]) {
        let messages = TraceState.applicationStateMessages.compactMap(stringID).map(String.init).joined(separator: ", ")
        // A CASE of constants, deliveries first (most rows): `kind NOT IN (…)` looks each row's
        // kind up in a temporary index, which cost more than the rest of the condition.
        let advanceOnly = ([.delivered] + TraceState.kindsThatOnlyAdvance.filter { $0 != .delivered })
            .map { "WHEN \($0.rawValue) THEN 0" }.joined(separator: " ")
        let kept = "(CASE e.kind \(advanceOnly) WHEN \(EventKind.posted.rawValue) THEN e.message IN (\(messages)) ELSE 1 END)"
        return eventQuery(session: session, filter: EventFilter(until: seq), payloads: false, condition: kept)
    }

    /// How a query walks every event of `session` in `seq` order (parameter `?1`): a range of the
    /// primary key, or, when the file holds only that session, the whole table, in the same order.
    ///
    /// - Parameter wholeTable: Whether every event of the file is of `session` as of the caller's
    ///   read transaction (``holdsOnly(session:)``): the walk then does not compare each row's
    ///   session at all, ~150 instructions a row (`BENCHMARKS.md`). Without it, a file known at
    ///   opening to hold one session is walked whole but still checked row by row, as a killed
    ///   recording may have added another since.
    package func sessionWalk(_ session: Int64, alias: String = "e", wholeTable: Bool = false) -> (condition: String, order: String) {
        wholeTable ? ("?1 = ?1", "\(alias).session, \(alias).seq")
            : onlySession == session ? ("+\(alias).session = ?1", "\(alias).session, \(alias).seq")
            : ("\(alias).session = ?1", "\(alias).seq")
    }

    /// The SQL and parameters of ``events(session:filter:payloads:)``: one range scan of the
    /// primary key (or a search of an index for an observer or owner filter), no correlated subquery.
    package func eventQuery(session: Int64, filter: EventFilter, payloads: Bool,
                            condition: String? = nil) -> (sql: String, values: [SQLValue]) {
        let index = index(for: filter)
        // A seq range or an index needs the session as the key's first term.
        let walk = index.isEmpty && filter.since == nil && filter.until == nil ? sessionWalk(session) : (condition: "e.session = ?1", order: "e.seq")
        var sql = """
            SELECT e.seq, e.time_ns, e.kind, e.message, e.owner, e.observer, e.post, e.parent, e.sender, e.detail,
                   e.note, e.callsite, \(payloads ? "p.json" : "NULL"), \(schemaVersion >= 2 ? "e.handler" : "NULL")
            FROM events e \(index) \(payloads ? "LEFT JOIN payloads p ON p.id = e.payload " : "")WHERE \(walk.condition)
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
                sql += " AND e.owner IN (SELECT owner FROM events o WHERE o.session = ?1 AND o.kind = \(EventKind.ownerRegistered.rawValue)"
                    + " AND o.note = (SELECT id FROM strings WHERE value = \(parameter(.text(owner)))))"
            }
        }
        if let observer = filter.observer { sql += " AND e.observer = \(parameter(.integer(Int64(bitPattern: observer))))" }
        if let since = filter.since { sql += " AND e.seq >= \(parameter(.integer(Int64(clamping: since))))" }
        if let until = filter.until { sql += " AND e.seq <= \(parameter(.integer(Int64(clamping: until))))" }
        if let condition { sql += " AND " + condition }
        sql += " ORDER BY \(walk.order)"
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
        let (sql, values) = stateQuery(session: session, at: seq)
        let statement = try db.prepare(sql)
        try statement.bind(values)
        let cursor = EventCursor(statement: statement, session: session, strings: strings, path: path)
        while let event = try cursor.next() { state.apply(event) }
        // The events left out changed nothing but the position.
        let last = try db.prepare(Self.lastEventAtSQL)
        try last.bind([.integer(session), .integer(Int64(clamping: seq ?? UInt64(Int64.max)))])
        if try last.step() { state.advance(to: UInt64(bitPattern: last.int64(0))) }
        return state
    }

    /// Compiles a user's query: SQL that does not compile is the caller's mistake, not a damaged trace.
    private func compileQuery(_ sql: String) throws(TraceStoreError) -> Statement {
        try queryError { () throws(TraceStoreError) in try db.prepareSingle(sql) }
    }

    /// Runs read-only SQL and calls `body` with the column names once, then each row.
    ///
    /// - Throws: ``TraceStoreError`` of kind `.invalidArgument` for SQL that does not compile, that is
    ///   more than one statement, or that would write (the connection is read-only, so nothing is changed
    ///   either way), or that fails while it runs with SQLite's generic `SQLITE_ERROR` (an integer
    ///   overflow, a bad argument to a function); SQLite's own error for anything else (a damaged file).
    public func query(_ sql: String, columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        let statement = try compileQuery(sql)
        guard statement.isReadOnly else {
            throw TraceStoreError(.invalidArgument, "trace is opened read-only; only queries are allowed - while executing `\(sql)`")
        }
        try columns((0..<statement.columnCount).map(statement.columnName))
        while try queryError({ () throws(TraceStoreError) in try statement.step() }) {
            try row((0..<statement.columnCount).map(statement.value))
        }
    }

    /// Runs `body`, turning SQLite's generic error into the caller's mistake.
    private func queryError<T>(_ body: () throws(TraceStoreError) -> T) throws(TraceStoreError) -> T {
        do {
            return try body()
        } catch {
            guard error.kind == .sqlite(.error) else { throw Self.damaged(path, error) }
            throw TraceStoreError(.invalidArgument, error.description)
        }
    }
}
