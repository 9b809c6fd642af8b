import Foundation
import Testing
import NotifyBus
@testable import TraceStore

/// Damage that changes how a trace reads, each found by `verify` (a new user's review found
/// all of these accepted): ids naming nothing, values of the wrong type, events of no session.
@Suite struct VerifyDamageTests {
    /// A copy of the demo fixture, damaged by `sql`, verified.
    func verifyDamaged(_ sql: String) throws -> TraceVerification {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.trace")
        try FileManager.default.copyItem(atPath: fixture("demo"), toPath: path)
        try Database(path: path, mode: .readWrite).execute(sql)
        return try TraceVerification.run(try TraceReader(path: path))
    }

    /// Every problem, the file's and the sessions'.
    func problems(_ verification: TraceVerification) -> [String] {
        verification.problems + verification.sessions.flatMap(\.problems)
    }

    @Test func theUndamagedFixtureIsValid() throws {
        let verification = try verifyDamaged("SELECT 1")
        #expect(verification.isValid, "\(problems(verification))")
    }

    /// An id that names no string made `events` show an observer as a wildcard (`every message`).
    @Test(arguments: ["message", "detail", "note", "callsite", "handler"])
    func anIdNamingNoStringIsAProblem(column: String) throws {
        let verification = try verifyDamaged("UPDATE events SET \(column) = 99999 WHERE seq IN (16, 18)")
        #expect(!verification.isValid)
        #expect(problems(verification) == ["column \(column): 2 id(s) naming no string (first at seq 16: id 99999)"])
    }

    @Test func anIdNamingNoPayloadIsAProblem() throws {
        let verification = try verifyDamaged("""
            UPDATE events SET payload = 4242 WHERE seq = (SELECT min(seq) FROM events WHERE payload IS NOT NULL)
            """)
        let seq = try #require(try firstSeq("payload IS NOT NULL"))
        #expect(problems(verification) == ["column payload: 1 id(s) naming no payload (first at seq \(seq): id 4242)"])
    }

    /// A string deleted from `strings` leaves every row naming it dangling.
    @Test func aDeletedStringIsAProblemWhereverItIsNamed() throws {
        let id = try #require(try Database(path: fixture("demo"), mode: .readOnly).scalar("SELECT message FROM events WHERE seq = 16"))
        let seq = try #require(try firstSeq("message = \(id)"))
        let count = try #require(try Database(path: fixture("demo"), mode: .readOnly)
            .scalar("SELECT count(*) FROM events WHERE message = \(id)"))
        let verification = try verifyDamaged("DELETE FROM strings WHERE id = \(id)")
        #expect(problems(verification) == ["column message: \(count) id(s) naming no string (first at seq \(seq): id \(id))"])
    }

    /// One line per column and kind of damage, with its count and first seq.
    @Test func aValueOfTheWrongTypeIsAProblem() throws {
        let verification = try verifyDamaged("""
            UPDATE events SET time_ns = 'abc' WHERE seq IN (5, 9, 12);
            UPDATE events SET observer = 1.5 WHERE seq = 16;
            UPDATE events SET note = x'00' WHERE seq = 20
            """)
        #expect(problems(verification) == [
            "column time_ns: 3 value(s) not an integer (first at seq 5: text)",
            "column observer: 1 value(s) not an integer (first at seq 16: a real)",
            "column note: 1 value(s) not an integer (first at seq 20: a blob)",
        ])
    }

    /// NULL is an absent id, not damage, in a nullable column.
    @Test func nullInANullableColumnIsNoProblem() throws {
        let verification = try verifyDamaged("UPDATE events SET callsite = NULL, handler = NULL, payload = NULL WHERE seq = 16")
        #expect(verification.isValid, "\(problems(verification))")
    }

    /// Every other command refuses a file without sessions (`trace holds no session`).
    @Test func aTraceWithoutSessionsIsAProblem() throws {
        let verification = try verifyDamaged("DELETE FROM sessions")
        let count = try #require(try eventCount())
        #expect(!verification.isValid)
        #expect(verification.sessions.isEmpty)
        #expect(verification.problems == ["trace holds no session",
                                          "\(count) event(s) of session 1, which has no row in sessions (first seq 0)"])
    }

    @Test func eventsOfAnUnlistedSessionAreAProblem() throws {
        let count = try #require(try eventCount())
        let verification = try verifyDamaged("UPDATE events SET session = 7 WHERE seq >= 30; UPDATE events SET session = 'x' WHERE seq = 29")
        #expect(verification.problems == [
            "\(count - 30) event(s) of session 7, which has no row in sessions (first seq 30)",
            "1 event(s) of session 'x' (not an integer), which has no row in sessions (first seq 29)",
        ])
        // Session 1 lost its end.
        #expect(verification.sessions.map(\.rowCount) == [29])
    }

    /// The gap names the seq that is missing, not the one after it.
    @Test func aGapNamesTheMissingSeq() throws {
        let one = problems(try verifyDamaged("DELETE FROM events WHERE seq = 20"))
        #expect(one.contains { $0.hasSuffix("first gap: seq 20 missing") }, "\(one)")
        let range = problems(try verifyDamaged("DELETE FROM events WHERE seq BETWEEN 20 AND 23"))
        #expect(range.contains { $0.hasSuffix("first gap: seq 20…23 missing") }, "\(range)")
    }

    private func eventCount() throws -> Int64? {
        try Database(path: fixture("demo"), mode: .readOnly).scalar("SELECT count(*) FROM events")
    }

    private func firstSeq(_ condition: String) throws -> Int64? {
        try Database(path: fixture("demo"), mode: .readOnly).scalar("SELECT min(seq) FROM events WHERE \(condition)")
    }

    /// Sequence numbers at the ends of the integers: a gap from the smallest, and a row after the
    /// largest whose seq is text (it sorts after every integer), are reported, not a trap.
    @Test func gapsAtTheEndsOfTheIntegersAreReported() throws {
        let fromMinimum = try verifyDamaged("UPDATE events SET seq = -9223372036854775808 WHERE seq = 0")
        #expect(problems(fromMinimum).contains { $0.hasSuffix("first gap: seq -9223372036854775807…0 missing") },
                "\(problems(fromMinimum))")
        let afterMaximum = try verifyDamaged("""
            DELETE FROM events WHERE seq > 0; UPDATE events SET seq = 9223372036854775807 WHERE seq = 0;
            INSERT INTO events(session, seq, time_ns, kind) VALUES (1, 'abc', 0, \(EventKind.delivered.rawValue));
            """)
        #expect(problems(afterMaximum).contains {
            $0.hasSuffix("first gap: the row after seq 9223372036854775807 does not follow it (its seq is not an integer)")
        }, "\(problems(afterMaximum))")
    }
}
