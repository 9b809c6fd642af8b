internal import CSQLite

/// Checks a trace's consistency: what `tracectl verify` reports.
public struct TraceVerification: Sendable {
    public struct SessionReport: Sendable {
        public var session: SessionSummary
        /// Problems found; empty when the session is consistent.
        public var problems: [String]
        /// The rows the session really holds, counted by the verification pass.
        public var rowCount: Int
    }

    public var schemaVersion: Int
    public var integrity: String
    /// Problems of the file rather than of one session: no session at all, or events whose
    /// session has no row in `sessions` (every other command refuses such a file, or never
    /// reads those events). Empty when there is none.
    public var problems: [String] = []
    public var sessions: [SessionReport]

    /// Whether nothing is wrong. A session that did not end is reported, but is not a problem.
    public var isValid: Bool {
        integrity == "ok" && problems.isEmpty && sessions.allSatisfy { $0.problems.isEmpty }
    }

    /// How many problems of one kind a session lists before it only counts them.
    public static let listedProblems = 5

    /// The columns the pass reads, in the order it hands them to the fold: the three that
    /// cannot be NULL first, then the object ids, the ids that name a string, and the payload.
    enum Column: Int, CaseIterable {
        case seq, kind, time, post, observer, owner, parent, sender, message, detail, note, callsite, handler, payload

        /// The SQL of the argument (`handler` is NULL before schema version 2).
        func sql(schemaVersion: Int) -> String {
            switch self {
            case .time: "time_ns"
            case .handler: schemaVersion >= 2 ? "handler" : "NULL"
            default: "\(self)"
            }
        }

        /// The columns whose schema says NOT NULL: an integer in every row.
        static let requiredCount = Column.time.rawValue + 1
        /// The columns holding a `strings.id`.
        static let strings: ClosedRange<Int> = Column.message.rawValue...Column.handler.rawValue
    }

    /// The kinds whose rows carry only a post and an observer: most of a trace's rows, handed to the
    /// fold with those two columns alone (their kind as a literal, read once by the CASE); a column
    /// these kinds do not have is read by no command, and is not read here either.
    static let deliveryKinds: [EventKind] = [.delivered, .skipped, .enqueued]
    /// The columns a post has, besides the three every row has; the others are NULL literals.
    static let postColumns: Set<Column> = [.post, .parent, .sender, .message, .detail, .payload]

    /// The one pass of a session's verification: its rows in primary-key order, each
    /// handed to the fold by `notifybus_walk`, none returned.
    ///
    /// - Parameter wholeTable: Whether every event of the file is of `session`, as for
    ///   ``TraceReader/sessionWalk(_:alias:wholeTable:)``: no row's session is then compared.
    package static func scanSQL(_ reader: TraceReader, session: Int64, wholeTable: Bool = false) -> String {
        let walk = reader.sessionWalk(session, alias: "events", wholeTable: wholeTable)
        let columns = Column.allCases.map { $0.sql(schemaVersion: reader.schemaVersion) }.joined(separator: ", ")
        let deliveries = deliveryKinds.map { kind in
            "WHEN \(kind.rawValue) THEN \(RowWalk.name)(seq, \(kind.rawValue), time_ns, post, observer)"
        }.joined(separator: " ")
        let posted = EventKind.posted.rawValue
        let postArguments = Column.allCases.map { column in
            column == .kind ? "\(posted)"
                : column.rawValue < Column.requiredCount || postColumns.contains(column) ? column.sql(schemaVersion: reader.schemaVersion)
                : "NULL"
        }.joined(separator: ", ")
        return """
            SELECT seq FROM events WHERE \(walk.condition)
              AND CASE kind \(deliveries) WHEN \(posted) THEN \(RowWalk.name)(\(postArguments))
              ELSE \(RowWalk.name)(\(columns)) END ORDER BY \(walk.order)
            """
    }

    /// Verifies every session of the trace.
    ///
    /// One pass per session over its rows in `seq` order (the primary key: no index
    /// needed, so a killed trace verifies as fast as a finished one), keeping the posted
    /// and added ids as ranges, and checking the stored type of each column the row's kind has
    /// (a delivery's post and observer, a post's six, every column of the other kinds) and each
    /// id that names a string or a payload. Reading every row also reads every page of the `events`
    /// table, so damage there is an error; the other tables get SQLite's `quick_check`.
    /// Events whose session has no row in `sessions` are found by a search of the primary key
    /// per distinct session, and counted with one range scan of each such session.
    /// With `thorough`, SQLite's `integrity_check` of the whole file instead, which also
    /// cross-checks every index entry against its row (many times slower on a large trace;
    /// the indexes are derived data that `tracectl finish` rebuilds).
    public static func run(_ reader: TraceReader, thorough: Bool = false) throws -> TraceVerification {
        var results: [String] = []
        if thorough {
            results = try reader.rows("PRAGMA integrity_check", []).map(\.[0].description)
        } else {
            for table in ["meta", "sessions", "strings", "payloads"] {
                results += try reader.rows("PRAGMA quick_check(\(table))", []).map(\.[0].description)
            }
        }
        // One read transaction: what it sees of the sessions is what the walks read.
        try reader.db.execute("BEGIN")
        // Ending a read transaction changes nothing and cannot lose anything.
        defer { try? reader.db.execute("COMMIT") }
        let integrityProblems = results.filter { $0 != "ok" }
        let integrity = integrityProblems.isEmpty ? "ok" : integrityProblems.joined(separator: "; ")
        let known = try KnownIDs(reader)
        let sessions = try reader.sessions()
        var reports: [SessionReport] = []
        for session in sessions {
            reports.append(try verify(reader, session: session, known: known))
        }
        var problems = try orphanedEvents(reader, sessions: Set(sessions.map(\.id)))
        if sessions.isEmpty { problems.insert("trace holds no session", at: 0) }
        return TraceVerification(schemaVersion: reader.schemaVersion, integrity: integrity, problems: problems,
                                 sessions: reports)
    }

    /// The ids of the `strings` and `payloads` tables, which event columns name.
    struct KnownIDs {
        var strings = IDSet(), payloads = IDSet()

        init(_ reader: TraceReader) throws {
            for (table, keyPath) in [("strings", \KnownIDs.strings), ("payloads", \KnownIDs.payloads)] {
                do {
                    let statement = try reader.db.prepare("SELECT id FROM \(table) ORDER BY id")
                    while try statement.step() { self[keyPath: keyPath].insert(UInt64(bitPattern: statement.int64(0))) }
                } catch {
                    throw TraceReader.damaged(reader.path, error)
                }
            }
        }
    }

    /// Events of a session that `sessions` does not list: one search of the primary key for each
    /// distinct `session` value, then a count of each unlisted one's rows.
    private static func orphanedEvents(_ reader: TraceReader, sessions: Set<Int64>) throws -> [String] {
        var problems: [String] = []
        do {
            let first = try reader.db.prepare("SELECT session FROM events ORDER BY session LIMIT 1")
            let next = try reader.db.prepare("SELECT session FROM events WHERE session > ?1 ORDER BY session LIMIT 1")
            let count = try reader.db.prepare("SELECT count(*), min(seq) FROM events WHERE session = ?1")
            var current: SQLValue? = try first.step() ? first.value(0) : nil
            while let session = current {
                let listed = if case .integer(let id) = session { sessions.contains(id) } else { false }
                if !listed {
                    try count.bind([session])
                    _ = try count.step()
                    let rows = count.int64(0), firstSeq = count.value(1)
                    let name = if case .integer = session { "session \(session)" } else { "session '\(session)' (not an integer)" }
                    problems.append("\(rows) event(s) of \(name), which has no row in sessions (first seq \(firstSeq))")
                }
                try next.bind([session])
                current = try next.step() ? next.value(0) : nil
            }
        } catch {
            throw TraceReader.damaged(reader.path, error)
        }
        return problems
    }

    /// The first break in a session's sequence numbers.
    enum Gap {
        /// These numbers are missing (never empty).
        case missing(ClosedRange<Int64>)
        /// The row after `after` has a number that is not greater (it is not an integer).
        case outOfOrder(after: Int64)
    }

    /// Damage of one kind in one column: how often, and where first.
    private struct Damage {
        var count = 0
        var firstSeq: Int64 = 0
        var firstValue = ""
    }

    /// The fold of one session's verification.
    // Exclusivity is not checked at run time on the fold's state: one thread, and no
    // access overlaps another (the checks cost a tenth of the pass).
    private final class Fold {
        @exclusivity(unchecked) var problems: [String] = []
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var previous: Int64?
        @exclusivity(unchecked) var firstGap: Gap?
        @exclusivity(unchecked) var lastKind: Int64?
        @exclusivity(unchecked) var posted = IDSet(), added = IDSet()
        @exclusivity(unchecked) var danglingPosts = 0, danglingObservers = 0, unknownKinds = 0
        /// Values whose stored type is wrong, and ids naming no string or payload, by column.
        @exclusivity(unchecked) var wrongTypes = [Damage](repeating: Damage(), count: Column.allCases.count)
        @exclusivity(unchecked) var missing = [Damage](repeating: Damage(), count: Column.allCases.count)
        let known: KnownIDs
        let postedKind = Int64(EventKind.posted.rawValue), addedKind = Int64(EventKind.observerAdded.rawValue)
        let deliveredKind = Int64(EventKind.delivered.rawValue), skippedKind = Int64(EventKind.skipped.rawValue)
        let enqueuedKind = Int64(EventKind.enqueued.rawValue)

        init(known: KnownIDs) { self.known = known }

        func apply(_ row: WalkRow) {
            let argv = row.argv
            let seq = sqlite3_value_int64(argv[Column.seq.rawValue]), kind = sqlite3_value_int64(argv[Column.kind.rawValue])
            // The kind of a delivery or a post is a literal of the CASE that picked it.
            required(argv, .seq, seq: seq)
            required(argv, .time, seq: seq)
            if count == 0, seq != 0 {
                problems.append("first event is seq \(seq), not 0 (the session start)")
            }
            if let previous, firstGap == nil, seq != previous &+ 1 {
                // Rows come in key order, so a later one has a greater seq unless its seq is not an
                // integer. Greater and not next, it is at least two past `previous`: no overflow.
                firstGap = seq > previous ? .missing(previous + 1...seq - 1) : .outOfOrder(after: previous)
            }
            previous = seq
            count += 1
            lastKind = kind
            switch kind {
            case deliveredKind, skippedKind, enqueuedKind:
                let post = id(argv, .post, seq: seq), observer = id(argv, .observer, seq: seq)
                guard kind != enqueuedKind else { return }
                if !(post.map { posted.contains($0) } ?? false) {
                    danglingPosts += 1
                    if danglingPosts <= listedProblems {
                        problems.append("seq \(seq): delivery of post \(post.map { String(Int64(bitPattern: $0)) } ?? "NULL"), which was never posted before it")
                    }
                }
                if !(observer.map { added.contains($0) } ?? false) {
                    danglingObservers += 1
                    if danglingObservers <= listedProblems {
                        problems.append("seq \(seq): delivery to observer \(observer.map { String(Int64(bitPattern: $0)) } ?? "NULL"), which was never added before it")
                    }
                }
                return
            default:
                break
            }
            // Any other kind: every column (a post's, and NULL for the others).
            if kind != postedKind { required(argv, .kind, seq: seq) }
            checkColumns(argv, seq: seq)
            switch kind {
            case postedKind:
                if let post = row.id(Column.post.rawValue) { posted.insert(post) }
            case addedKind:
                if let observer = row.id(Column.observer.rawValue) { added.insert(observer) }
            default:
                // Every reader refuses a row of a kind it does not know (a damaged or foreign file).
                if EventKind(rawValue: Int(truncatingIfNeeded: kind)) == nil {
                    unknownKinds += 1
                    if unknownKinds <= listedProblems { problems.append("seq \(seq): unknown event kind \(kind)") }
                }
            }
        }

        /// A column every row has: an integer.
        @inline(__always)
        private func required(_ argv: UnsafeMutablePointer<OpaquePointer?>, _ column: Column, seq: Int64) {
            let type = sqlite3_value_type(argv[column.rawValue])
            if type != SQLITE_INTEGER { note(&wrongTypes[column.rawValue], seq: seq, value: Self.typeName(type)) }
        }

        /// An id column of a delivery: its value, `nil` for NULL, and a note when it is not an integer.
        @inline(__always)
        private func id(_ argv: UnsafeMutablePointer<OpaquePointer?>, _ column: Column, seq: Int64) -> UInt64? {
            let value = argv[column.rawValue]
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: return UInt64(bitPattern: sqlite3_value_int64(value))
            case SQLITE_NULL: return nil
            case let type:
                note(&wrongTypes[column.rawValue], seq: seq, value: Self.typeName(type))
                return UInt64(bitPattern: sqlite3_value_int64(value))
            }
        }

        /// The stored type of each column after the three every row has, and each id that names a
        /// string or a payload.
        private func checkColumns(_ argv: UnsafeMutablePointer<OpaquePointer?>, seq: Int64) {
            for column in Column.requiredCount..<Column.allCases.count {
                let value = argv[column]
                let type = sqlite3_value_type(value)
                if type == SQLITE_INTEGER {
                    guard column >= Column.strings.lowerBound else { continue }
                    let id = UInt64(bitPattern: sqlite3_value_int64(value))
                    let found = column == Column.payload.rawValue ? known.payloads.contains(id) : known.strings.contains(id)
                    if !found { note(&missing[column], seq: seq, value: String(Int64(bitPattern: id))) }
                } else if type != SQLITE_NULL {
                    note(&wrongTypes[column], seq: seq, value: Self.typeName(type))
                }
            }
        }

        private func note(_ damage: inout Damage, seq: Int64, value: @autoclosure () -> String) {
            if damage.count == 0 { damage.firstSeq = seq; damage.firstValue = value() }
            damage.count += 1
        }

        static func typeName(_ type: Int32) -> String {
            switch type {
            case SQLITE_NULL: "NULL"
            case SQLITE_FLOAT: "a real"
            case SQLITE_TEXT: "text"
            case SQLITE_BLOB: "a blob"
            default: "an integer"
            }
        }

        /// One line for each column with damage of one kind.
        var columnProblems: [String] {
            var lines: [String] = []
            for column in Column.allCases {
                let name = column.sql(schemaVersion: Int.max)
                let wrong = wrongTypes[column.rawValue]
                if wrong.count > 0 {
                    lines.append("column \(name): \(wrong.count) value(s) not an integer (first at seq \(wrong.firstSeq): \(wrong.firstValue))")
                }
                let absent = missing[column.rawValue]
                if absent.count > 0 {
                    let table = column == .payload ? "payload" : "string"
                    lines.append("column \(name): \(absent.count) id(s) naming no \(table) (first at seq \(absent.firstSeq): id \(absent.firstValue))")
                }
            }
            return lines
        }
    }

    private static func verify(_ reader: TraceReader, session: SessionSummary, known: KnownIDs) throws -> SessionReport {
        let statement = try reader.db.prepare(scanSQL(reader, session: session.id,
                                                      wholeTable: try reader.holdsOnly(session: session.id)))
        try statement.bind([.integer(session.id)])
        let fold = Fold(known: known)
        do {
            try reader.walk.run(statement, body: { row in fold.apply(row); return false }, row: {})
        } catch let error as TraceStoreError {
            throw TraceReader.damaged(reader.path, error)
        }
        var problems = fold.problems + fold.columnProblems
        if fold.count == 0 { problems.append("no events") }
        if let gap = fold.firstGap, let previous = fold.previous {
            let missing = switch gap {
            case .missing(let seqs): seqs.lowerBound == seqs.upperBound ? "seq \(seqs.lowerBound) missing"
                : "seq \(seqs.lowerBound)…\(seqs.upperBound) missing"
            case .outOfOrder(let after): "the row after seq \(after) does not follow it (its seq is not an integer)"
            }
            problems.append("sequence gap: \(fold.count) events but seq runs to \(previous); first gap: \(missing)")
        }
        for (number, what) in [(fold.danglingPosts, "deliveries of posts never posted"),
                               (fold.danglingObservers, "deliveries to observers never added"),
                               (fold.unknownKinds, "events of an unknown kind")]
        where number > listedProblems {
            problems.append("\(number) \(what) in all")
        }
        if session.endedCleanly, fold.lastKind != Int64(EventKind.sessionEnded.rawValue) {
            problems.append("session is marked ended but its last event is not sessionEnded")
        }
        return SessionReport(session: session, problems: problems, rowCount: fold.count)
    }
}
