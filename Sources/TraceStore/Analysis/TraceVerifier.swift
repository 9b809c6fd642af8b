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
    public var sessions: [SessionReport]

    /// Whether nothing is wrong. A session that did not end is reported, but is not a problem.
    public var isValid: Bool { integrity == "ok" && sessions.allSatisfy { $0.problems.isEmpty } }

    /// How many problems of one kind a session lists before it only counts them.
    public static let listedProblems = 5

    /// The one pass of a session's verification: its rows in primary-key order, each
    /// handed to the fold by `notifybus_walk`, none returned.
    package static func scanSQL(_ reader: TraceReader, session: Int64) -> String {
        let walk = reader.sessionWalk(session, alias: "events")
        return "SELECT seq FROM events WHERE \(walk.condition) AND notifybus_walk(seq, kind, post, observer) ORDER BY \(walk.order)"
    }

    /// Verifies every session of the trace.
    ///
    /// One pass per session over its rows in `seq` order (the primary key: no index
    /// needed, so a killed trace verifies as fast as a finished one), keeping the posted
    /// and added ids as ranges. Reading every row also reads every page of the `events`
    /// table, so damage there is an error; the other tables get SQLite's `quick_check`.
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
        let problems = results.filter { $0 != "ok" }
        let integrity = problems.isEmpty ? "ok" : problems.joined(separator: "; ")
        var reports: [SessionReport] = []
        for session in try reader.sessions() {
            reports.append(try verify(reader, session: session))
        }
        return TraceVerification(schemaVersion: reader.schemaVersion, integrity: integrity, sessions: reports)
    }

    /// The fold of one session's verification.
    // Exclusivity is not checked at run time on the fold's state: one thread, and no
    // access overlaps another (the checks cost a tenth of the pass).
    private final class Fold {
        @exclusivity(unchecked) var problems: [String] = []
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var previous: Int64?
        @exclusivity(unchecked) var firstGap: Int64?
        @exclusivity(unchecked) var lastKind: Int64?
        @exclusivity(unchecked) var posted = IDSet(), added = IDSet()
        @exclusivity(unchecked) var danglingPosts = 0, danglingObservers = 0, unknownKinds = 0
        let postedKind = Int64(EventKind.posted.rawValue), addedKind = Int64(EventKind.observerAdded.rawValue)
        let deliveredKind = Int64(EventKind.delivered.rawValue), skippedKind = Int64(EventKind.skipped.rawValue)

        func apply(_ row: WalkRow) {
            let seq = row.int64(0), kind = row.int64(1)
            if count == 0, seq != 0 {
                problems.append("first event is seq \(seq), not 0 (the session start)")
            }
            if let previous, firstGap == nil, seq != previous &+ 1 { firstGap = seq }
            previous = seq
            count += 1
            lastKind = kind
            switch kind {
            case postedKind:
                if let post = row.id(2) { posted.insert(post) }
            case addedKind:
                if let observer = row.id(3) { added.insert(observer) }
            case deliveredKind, skippedKind:
                let post = row.id(2), observer = row.id(3)
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
            default:
                // Every reader refuses a row of a kind it does not know (a damaged or foreign file).
                if EventKind(rawValue: Int(truncatingIfNeeded: kind)) == nil {
                    unknownKinds += 1
                    if unknownKinds <= listedProblems { problems.append("seq \(seq): unknown event kind \(kind)") }
                }
            }
        }
    }

    private static func verify(_ reader: TraceReader, session: SessionSummary) throws -> SessionReport {
        let statement = try reader.db.prepare(scanSQL(reader, session: session.id))
        try statement.bind([.integer(session.id)])
        let fold = Fold()
        do {
            try reader.walk.run(statement, body: { row in fold.apply(row); return false }, row: {})
        } catch let error as TraceStoreError {
            throw TraceReader.damaged(reader.path, error)
        }
        var problems = fold.problems
        if fold.count == 0 { problems.append("no events") }
        if let firstGap = fold.firstGap, let previous = fold.previous {
            problems.append("sequence gap: \(fold.count) events but seq runs to \(previous); first gap before seq \(firstGap)")
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
