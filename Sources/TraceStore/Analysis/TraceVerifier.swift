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

    /// Verifies every session of the trace.
    ///
    /// One streaming pass per session over its rows in `seq` order (the primary key:
    /// no index needed, so a killed trace verifies as fast as a finished one), keeping
    /// the posted and added ids as ranges, plus SQLite's `quick_check` of the file's
    /// structure (`integrity_check` with `thorough`, which also cross-checks every index entry).
    public static func run(_ reader: TraceReader, thorough: Bool = false) throws -> TraceVerification {
        let integrity = try reader.rows(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check", [])
            .map(\.[0].description).joined(separator: "; ")
        var reports: [SessionReport] = []
        for session in try reader.sessions() {
            reports.append(try verify(reader, session: session))
        }
        return TraceVerification(schemaVersion: reader.schemaVersion, integrity: integrity, sessions: reports)
    }

    private static func verify(_ reader: TraceReader, session: SessionSummary) throws(TraceStoreError) -> SessionReport {
        let statement = try reader.db.prepare("SELECT seq, kind, post, observer FROM events WHERE session = ?1 ORDER BY seq")
        try statement.bind([.integer(session.id)])
        var problems: [String] = []
        var count = 0
        var previous: Int64?
        var firstGap: Int64?
        var lastKind: Int64?
        var posted = IDSet(), added = IDSet()
        var danglingPosts = 0, danglingObservers = 0
        let postedKind = Int64(EventKind.posted.rawValue), addedKind = Int64(EventKind.observerAdded.rawValue)
        let deliveredKind = Int64(EventKind.delivered.rawValue), skippedKind = Int64(EventKind.skipped.rawValue)
        do {
            while try statement.step() {
                let seq = statement.int64(0), kind = statement.int64(1)
                if count == 0, seq != 0 {
                    problems.append("first event is seq \(seq), not 0 (the session start)")
                }
                if let previous, firstGap == nil, seq != previous &+ 1 { firstGap = seq }
                previous = seq
                count += 1
                lastKind = kind
                switch kind {
                case postedKind:
                    if let post = statement.optionalInt64(2) { posted.insert(UInt64(bitPattern: post)) }
                case addedKind:
                    if let observer = statement.optionalInt64(3) { added.insert(UInt64(bitPattern: observer)) }
                case deliveredKind, skippedKind:
                    let post = statement.optionalInt64(2), observer = statement.optionalInt64(3)
                    if !(post.map { posted.contains(UInt64(bitPattern: $0)) } ?? false) {
                        danglingPosts += 1
                        if danglingPosts <= listedProblems {
                            problems.append("seq \(seq): delivery of post \(post.map(String.init) ?? "NULL"), which was never posted before it")
                        }
                    }
                    if !(observer.map { added.contains(UInt64(bitPattern: $0)) } ?? false) {
                        danglingObservers += 1
                        if danglingObservers <= listedProblems {
                            problems.append("seq \(seq): delivery to observer \(observer.map(String.init) ?? "NULL"), which was never added before it")
                        }
                    }
                default:
                    break
                }
            }
        } catch {
            throw TraceReader.damaged(reader.path, error)
        }
        if count == 0 { problems.append("no events") }
        if let firstGap, let previous {
            problems.append("sequence gap: \(count) events but seq runs to \(previous); first gap before seq \(firstGap)")
        }
        for (number, what) in [(danglingPosts, "deliveries of posts never posted"), (danglingObservers, "deliveries to observers never added")]
        where number > listedProblems {
            problems.append("\(number) \(what) in all")
        }
        if session.endedCleanly, lastKind != Int64(EventKind.sessionEnded.rawValue) {
            problems.append("session is marked ended but its last event is not sessionEnded")
        }
        return SessionReport(session: session, problems: problems, rowCount: count)
    }
}
