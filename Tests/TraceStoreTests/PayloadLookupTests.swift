import Foundation
import Testing
@testable import TraceStore

/// The walks that find a post's payload by its id (``PayloadLookup``: the printing walk of
/// `tracectl events`, and `diff`'s rows) against the query that joins `payloads`, on a trace whose
/// posts name payloads that share a slot, repeat, are too long to keep, are missing, or are not
/// ids at all.
@Suite struct PayloadLookupTests {
    /// A session of 700 posts with distinct payloads, then: posts 0–599 pointed at ids that take
    /// turns in the same slots (`1 + n % 300`: ids 1 and 257 share slot 1, each seen again after
    /// the other), posts 600–609 at one payload longer than ``PayloadLookup/keptBytes``, one post
    /// at an id no payload has, one at text, one at a real number, one at an empty text, one at NULL.
    static func hostileTrace(at path: String) throws -> Int64 {
        let session = try recordSample(at: path, posts: 700)
        let db = try Database(path: path, mode: .create)
        try db.execute("""
            CREATE TEMP TABLE p AS SELECT seq, row_number() OVER (ORDER BY seq) - 1 AS n
                FROM events WHERE kind = \(EventKind.posted.rawValue);
            UPDATE events SET payload = 1 + (SELECT n FROM p WHERE p.seq = events.seq) % 300
                WHERE seq IN (SELECT seq FROM p WHERE n < 600);
            INSERT INTO payloads(json) VALUES ('{"long":"' || replace(hex(zeroblob(\(PayloadLookup.keptBytes))), '00', 'xy') || '"}');
            UPDATE events SET payload = last_insert_rowid() WHERE seq IN (SELECT seq FROM p WHERE n BETWEEN 600 AND 609);
            UPDATE events SET payload = (SELECT max(id) FROM payloads) + 1000 WHERE seq = (SELECT seq FROM p WHERE n = 610);
            UPDATE events SET payload = 'abc' WHERE seq = (SELECT seq FROM p WHERE n = 611);
            UPDATE events SET payload = 2.5 WHERE seq = (SELECT seq FROM p WHERE n = 612);
            INSERT INTO payloads(json) VALUES ('');
            UPDATE events SET payload = last_insert_rowid() WHERE seq = (SELECT seq FROM p WHERE n = 613);
            UPDATE events SET payload = NULL WHERE seq = (SELECT seq FROM p WHERE n = 614);
            """)
        return session
    }

    /// Each post's payload as the join reads it, by `seq`.
    static func joinedPayloads(_ reader: TraceReader, session: Int64) throws -> [Int64: [UInt8]?] {
        var payloads: [Int64: [UInt8]?] = [:]
        for event in try reader.events(session: session) where event.kind == .posted {
            payloads[Int64(event.seq)] = .some(event.payload.map { Array($0.utf8) })
        }
        return payloads
    }

    /// Calls `read` on ``hostileTrace(at:)`` and checks that it finds each post's payload as the join does.
    static func expectJoinedPayloads(_ read: (TraceReader, Int64) throws -> [Int64: [UInt8]?]) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try hostileTrace(at: path)
        let reader = try TraceReader(path: path)
        let expected = try joinedPayloads(reader, session: session)
        #expect(expected.count == 700)
        #expect(expected.values.contains { ($0?.count ?? 0) > PayloadLookup.keptBytes })
        #expect(expected.values.contains { $0 == [] })
        #expect(expected.values.filter { $0 == nil }.count == 4)
        let found = try read(reader, session)
        #expect(found.count == expected.count)
        for (seq, payload) in expected {
            #expect(found[seq] == payload, "post at seq \(seq)")
        }
    }

    @Test func printingWalkFindsWhatTheJoinFinds() throws {
        try Self.expectJoinedPayloads { reader, session in
            var found: [Int64: [UInt8]?] = [:]
            try reader.forEachEventRow(session: session, filter: EventFilter(), deliveries: { _ in true }) { row, _ in
                if row.kind == .posted {
                    found[row.int64(.seq)] = .some(row.bytes(.payload).map(Array.init))
                    #expect(row.isNull(.payload) == (row.bytes(.payload) == nil))
                }
                return true
            }
            return found
        }
    }

    /// With a small batch too: posts come back as rows, where the query's subquery finds the payload.
    @Test(arguments: [TraceRows.batchSize, 7])
    func diffRowsFindWhatTheJoinFinds(batchSize: Int) throws {
        try Self.expectJoinedPayloads { reader, session in
            var rows = try TraceRows(reader, session: session, batchSize: batchSize)
            var found: [Int64: [UInt8]?] = [:]
            while let row = try rows.next() {
                guard row.kind == .posted else { continue }
                found[Int64(row.seq)] = .some(row.payloadText.map { Array($0.utf8) })
                #expect(row.isNull(.payload) == (row.payloadText == nil))
            }
            return found
        }
    }
}
