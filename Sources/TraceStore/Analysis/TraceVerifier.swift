/// Checks a trace's consistency: what `tracectl verify` reports.
public struct TraceVerification: Sendable {
    public struct SessionReport: Sendable {
        public var session: SessionSummary
        /// Problems found; empty when the session is consistent.
        public var problems: [String]
    }

    public var schemaVersion: Int
    public var integrity: String
    public var sessions: [SessionReport]

    /// Whether nothing is wrong. A session that did not end is reported, but is not a problem.
    public var isValid: Bool { integrity == "ok" && sessions.allSatisfy { $0.problems.isEmpty } }

    /// Verifies every session of the trace.
    public static func run(_ reader: TraceReader) throws -> TraceVerification {
        let integrity = try reader.rows("PRAGMA integrity_check", []).map(\.[0].description).joined(separator: "; ")
        var reports: [SessionReport] = []
        for session in try reader.sessions() {
            let s = SQLValue.integer(session.id)
            var problems: [String] = []
            let bounds = try reader.rows("SELECT count(*), min(seq), max(seq) FROM events WHERE session = ?1", [s])[0]
            let count = bounds[0].int
            if count == 0 {
                problems.append("no events")
            } else if bounds[1].int != 0 {
                problems.append("first event is seq \(bounds[1].int), not 0 (the session start)")
            } else if bounds[2].int != count - 1 {
                let gap = try reader.rows("""
                    SELECT e.seq FROM events e WHERE e.session = ?1 AND e.seq > 0
                      AND NOT EXISTS (SELECT 1 FROM events p WHERE p.session = e.session AND p.seq = e.seq - 1)
                    ORDER BY e.seq LIMIT 1
                    """, [s]).first?[0].int ?? -1
                problems.append("sequence gap: \(count) events but seq runs 0...\(bounds[2].int); first gap before seq \(gap)")
            }
            let danglingPosts = try reader.rows("""
                SELECT d.seq, d.post FROM events d WHERE d.session = ?1 AND d.kind IN (5, 6)
                  AND NOT EXISTS (SELECT 1 FROM events p WHERE p.session = d.session AND p.kind = 4 AND p.post = d.post AND p.seq < d.seq)
                ORDER BY d.seq LIMIT 5
                """, [s])
            for row in danglingPosts { problems.append("seq \(row[0].int): delivery of post \(row[1].int), which was never posted before it") }
            let danglingObservers = try reader.rows("""
                SELECT d.seq, d.observer FROM events d WHERE d.session = ?1 AND d.kind IN (5, 6)
                  AND NOT EXISTS (SELECT 1 FROM events a WHERE a.session = d.session AND a.kind = 2 AND a.observer = d.observer AND a.seq < d.seq)
                ORDER BY d.seq LIMIT 5
                """, [s])
            for row in danglingObservers { problems.append("seq \(row[0].int): delivery to observer \(row[1].int), which was never added before it") }
            if session.endedCleanly {
                let end = try reader.rows("SELECT max(seq), kind FROM events WHERE session = ?1", [s])[0]
                if end[1].int != EventKind.sessionEnded.rawValue {
                    problems.append("session is marked ended but its last event is not sessionEnded")
                }
            }
            reports.append(SessionReport(session: session, problems: problems))
        }
        return TraceVerification(schemaVersion: reader.schemaVersion, integrity: integrity, sessions: reports)
    }
}
