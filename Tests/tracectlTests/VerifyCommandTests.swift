import Foundation
import Testing
@testable import TraceStore

/// `tracectl verify` on damage that every other command sees: exit 1 (problems found) and a line
/// naming each, in text and JSON.
@Suite struct VerifyCommandTests {
    func damagedDemo(_ dir: Scratch, _ sql: String) throws -> String {
        let trace = dir.file("demo.trace")
        let run = try tracectl("demo", "-o", trace)
        #expect(run.status == 0, "\(run.stderr)")
        try Database(path: trace, mode: .readWrite).execute(sql)
        return trace
    }

    /// Every other command exits 65 on such a file; `verify` said "integrity ok" and exited 0.
    @Test func aTraceWithoutSessionsIsAProblem() throws {
        let dir = try Scratch()
        let trace = try damagedDemo(dir, "DELETE FROM sessions")
        #expect(try tracectl("events", trace).status == 65)
        let text = try tracectl("verify", trace)
        #expect(text.status == 1, "\(text.stdout) \(text.stderr)")
        #expect(text.stdout.contains("trace holds no session"), "\(text.stdout)")
        #expect(text.stdout.contains("which has no row in sessions (first seq 0)"), "\(text.stdout)")
        let run = try tracectl("verify", trace, "--format", "json")
        #expect(run.status == 1)
        let object = try #require(try json(run.stdout) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        let problems = try #require(object["problems"] as? [String])
        #expect(problems.first == "trace holds no session" && problems.count == 2, "\(problems)")
    }

    /// The reviewer's repro: an observer whose message id names nothing read as a wildcard.
    @Test func aMessageIdNamingNothingIsAProblem() throws {
        let dir = try Scratch()
        let trace = try damagedDemo(dir, "UPDATE events SET message = 99999 WHERE seq = 16")
        let run = try tracectl("verify", trace)
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stdout.contains("column message: 1 id(s) naming no string (first at seq 16: id 99999)"), "\(run.stdout)")
        let json = try #require(try json(try tracectl("verify", trace, "--format", "json").stdout) as? [String: Any])
        #expect((json["problems"] as? [String])?.isEmpty == true)
    }

    @Test func anUndamagedTraceHasNoProblems() throws {
        let dir = try Scratch()
        let trace = try damagedDemo(dir, "SELECT 1")
        let run = try tracectl("verify", trace, "--format", "json")
        #expect(run.status == 0, "\(run.stdout)")
        let object = try #require(try json(run.stdout) as? [String: Any])
        #expect(object["problems"] as? [String] == [])
    }
}
