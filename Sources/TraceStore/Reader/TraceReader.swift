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

    static func negativeSeq(_ path: String, session: Int64, seq: Int64) -> TraceStoreError {
        TraceStoreError(.notATrace, "\(path): trace is damaged: session \(session) holds event seq \(seq), and sequence numbers cannot be negative")
    }

    static func damaged(_ path: String, _ error: TraceStoreError) -> TraceStoreError {
        if case .sqlite(let code) = error.kind, code == .corrupt || code == .notADatabase {
            return TraceStoreError(.notATrace, "\(path): trace is damaged (\(error.message))")
        }
        return error
    }

    /// The sessions in the file, oldest first.
    public func sessions() throws(TraceStoreError) -> [SessionSummary] {
        let statement = try db.prepare("""
            SELECT s.id, s.name, s.app, s.started_at, s.tool_version, s.scenario, s.ended_at,
                   (SELECT count(*) FROM events e WHERE e.session = s.id),
                   (SELECT max(time_ns) FROM events e WHERE e.session = s.id),
                   \(schemaVersion >= 2 ? "s.selector_semantics" : "NULL")
            FROM sessions s ORDER BY s.id
            """)
        var result: [SessionSummary] = []
        do throws(TraceStoreError) {
            while try statement.step() {
                result.append(SessionSummary(
                    id: statement.int64(0), name: statement.text(1) ?? "", app: statement.text(2) ?? "",
                    startedAt: statement.text(3) ?? "", toolVersion: statement.text(4) ?? "",
                    scenario: statement.text(5), endedAt: statement.text(6),
                    eventCount: Int(statement.int64(7)), duration: UInt64(max(0, statement.int64(8))),
                    selectorSemantics: statement.text(9).flatMap(SelectorSemantics.init(rawValue:))))
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
        if let first = try db.scalar("SELECT seq FROM events WHERE session = ?1 ORDER BY seq LIMIT 1", .integer(wanted)), first < 0 {
            throw Self.negativeSeq(path, session: wanted, seq: first)
        }
        return session
    }

    /// Calls `body` with each event of `session` that matches `filter`, in `seq`
    /// order, until it returns `false`. Memory does not grow with the trace.
    public func forEachEvent(session: Int64, filter: EventFilter = EventFilter(),
                             _ body: (RecordedEvent) throws -> Bool) throws {
        // SQLite stores sequence numbers as signed integers: none is beyond Int64.max.
        if let since = filter.since, since > UInt64(Int64.max) { return }
        var sql = """
            SELECT seq, time_ns, kind, message, owner, observer, post, parent, sender, detail, note, callsite,
                   (SELECT json FROM payloads p WHERE p.id = e.payload), \(schemaVersion >= 2 ? "handler" : "NULL")
            FROM events e WHERE session = ?1
            """
        var values: [SQLValue] = [.integer(session)]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        if let kinds = filter.kinds, !kinds.isEmpty {
            sql += " AND kind IN (" + kinds.map { parameter(.integer(Int64($0.rawValue))) }.joined(separator: ", ") + ")"
        }
        if let message = filter.message {
            sql += " AND message = (SELECT id FROM strings WHERE value = \(parameter(.text(message))))"
        }
        if let owner = filter.owner {
            if let id = Int64(owner) {
                sql += " AND owner = \(parameter(.integer(id)))"
            } else {
                sql += " AND owner IN (SELECT owner FROM events o WHERE o.session = ?1 AND o.kind = 1"
                    + " AND o.note = (SELECT id FROM strings WHERE value = \(parameter(.text(owner)))))"
            }
        }
        // Ids are stored as their bit pattern; an `until` beyond Int64.max bounds nothing.
        if let observer = filter.observer { sql += " AND observer = \(parameter(.integer(Int64(bitPattern: observer))))" }
        if let since = filter.since { sql += " AND seq >= \(parameter(.integer(Int64(clamping: since))))" }
        if let until = filter.until { sql += " AND seq <= \(parameter(.integer(Int64(clamping: until))))" }
        sql += " ORDER BY seq"
        if let limit = filter.limit { sql += " LIMIT \(parameter(.integer(Int64(limit))))" }

        let statement = try db.prepare(sql)
        try statement.bind(values)
        do {
            while try statement.step() {
                guard try body(try event(from: statement, session: session)) else { break }
            }
        } catch let error as TraceStoreError {
            throw Self.damaged(path, error)
        }
    }

    private func event(from s: Statement, session: Int64) throws(TraceStoreError) -> RecordedEvent {
        let seq = s.int64(0)
        guard seq >= 0 else { throw Self.negativeSeq(path, session: session, seq: seq) }
        guard let kind = EventKind(rawValue: Int(s.int64(2))) else {
            throw TraceStoreError(.notATrace, "\(path): trace is damaged: unknown event kind \(s.int64(2)) at seq \(seq) of session \(session)")
        }
        func id(_ column: Int) -> UInt64? { s.optionalInt64(column).map { UInt64(bitPattern: $0) } }
        func string(_ column: Int) -> String? { s.optionalInt64(column).flatMap { strings[$0] } }
        return RecordedEvent(
            session: session, seq: UInt64(seq), time: UInt64(bitPattern: s.int64(1)),
            kind: kind,
            message: string(3), owner: id(4), observer: id(5), post: id(6), parent: id(7), sender: id(8),
            detail: string(9), note: string(10), callSite: string(11), payload: s.text(12), handler: string(13))
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
        try forEachEvent(session: session, filter: EventFilter(until: seq)) { event in
            state.apply(event)
            return true
        }
        return state
    }

    /// Compiles a user's query: SQL that does not compile is the caller's mistake, not a damaged trace.
    private func compileQuery(_ sql: String) throws(TraceStoreError) -> Statement {
        do {
            return try db.prepareSingle(sql)
        } catch {
            guard error.kind == .sqlite(.error) else { throw error }
            throw TraceStoreError(.invalidArgument, error.description)
        }
    }

    /// Runs read-only SQL and calls `body` with the column names once, then each row.
    ///
    /// - Throws: ``TraceStoreError`` of kind `.invalidArgument` for SQL that does not compile, that is
    ///   more than one statement, or that would write (the connection is read-only, so nothing is changed
    ///   either way); SQLite's error for a query that fails while it runs.
    public func query(_ sql: String, columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        let statement = try compileQuery(sql)
        guard statement.isReadOnly else {
            throw TraceStoreError(.invalidArgument, "trace is opened read-only; only queries are allowed - while executing `\(sql)`")
        }
        try columns((0..<statement.columnCount).map(statement.columnName))
        while try statement.step() {
            try row((0..<statement.columnCount).map(statement.value))
        }
    }
}
