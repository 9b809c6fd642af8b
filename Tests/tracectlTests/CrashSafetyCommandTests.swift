import Foundation
import Testing

/// A crashed or cut-short session is never reported as clean: `leaks` and `verify` say so, with
/// where the record stops, in text, JSON and SARIF, and exit 3.
@Suite struct CrashSafetyCommandTests {
    /// A recorded trace, and a copy as a killed recorder leaves it: no end, no indexes.
    static func traces(_ dir: Scratch) throws -> (closed: String, killed: String) {
        let closed = dir.file("closed.trace"), killed = dir.file("killed.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", closed).status == 0)
        try FileManager.default.copyItem(atPath: closed, toPath: killed)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", killed, """
            DROP INDEX events_by_kind; DROP INDEX events_by_observer; DROP INDEX events_by_post; DROP INDEX events_by_owner;
            DELETE FROM events WHERE kind = 10; UPDATE sessions SET ended_at = NULL, last_seq = NULL;
            """]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        return (closed, killed)
    }

    @Test func leaksOnACrashedSessionSaysWhereItStopsAndExits3() throws {
        let dir = try Scratch()
        let (closed, killed) = try Self.traces(dir)
        let clean = try tracectl("leaks", closed)
        #expect(clean.status == 1, "findings only: \(clean.stderr)")
        #expect(!clean.stdout.contains("cut short") && !clean.stdout.contains("crashed"))

        let cut = try tracectl("leaks", killed)
        #expect(cut.status == 3, "\(cut.stdout) \(cut.stderr)")
        #expect(cut.stdout.contains("cut short: never closed"), "\(cut.stdout)")
        #expect(cut.stdout.contains("the record stops at seq "), "\(cut.stdout)")
        #expect(cut.stdout.contains("report incomplete"), "\(cut.stdout)")

        #expect(try tracectl("finish", killed).status == 0)
        let crashed = try tracectl("leaks", killed)
        #expect(crashed.status == 3)
        #expect(crashed.stdout.contains("crashed: its recorder died before closing it"), "\(crashed.stdout)")
        // Even with every finding baselined or filtered out: 3, not 0.
        let none = try tracectl("leaks", killed, "--rule", "duplicate-registration")
        #expect(none.status == 3, "\(none.stdout)")

        let report = try #require(try json(try tracectl("leaks", killed, "--format", "json").stdout) as? [String: Any])
        let recording = try #require(report["recording"] as? [String: Any])
        #expect(recording["state"] as? String == "crashed")
        #expect(recording["ended"] as? Bool == false)
        let lastSeq = try #require(recording["lastSeq"] as? Int)
        #expect(lastSeq > 0)
        #expect((recording["lastEvent"] as? String)?.isEmpty == false)
        #expect((report["summary"] as? [String: Any])?["complete"] as? Bool == false)
        let cleanReport = try #require(try json(try tracectl("leaks", closed, "--format", "json").stdout) as? [String: Any])
        #expect((cleanReport["recording"] as? [String: Any])?["state"] as? String == "ended")

        let sarif = try #require(try json(try tracectl("leaks", killed, "--format", "sarif").stdout) as? [String: Any])
        let run = try #require((sarif["runs"] as? [[String: Any]])?.first)
        let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
        #expect(invocation["executionSuccessful"] as? Bool == false)
        let notice = try #require((invocation["toolExecutionNotifications"] as? [[String: Any]])?.first)
        #expect(((notice["message"] as? [String: Any])?["text"] as? String)?.contains("seq \(lastSeq)") == true)
        let cleanSarif = try #require(try json(try tracectl("leaks", closed, "--format", "sarif").stdout) as? [String: Any])
        let cleanRun = try #require((cleanSarif["runs"] as? [[String: Any]])?.first)
        #expect((cleanRun["invocations"] as? [[String: Any]])?.first?["executionSuccessful"] as? Bool == true)
    }

    @Test func verifyOnACutShortSessionExits3() throws {
        let dir = try Scratch()
        let (closed, killed) = try Self.traces(dir)
        #expect(try tracectl("verify", closed).status == 0)
        let cut = try tracectl("verify", killed)
        #expect(cut.status == 3, "\(cut.stdout) \(cut.stderr)")
        #expect(cut.stdout.contains("the record stops at seq "))
        let report = try #require(try json(try tracectl("verify", killed, "--format", "json").stdout) as? [String: Any])
        #expect(report["valid"] as? Bool == true)
        #expect(report["complete"] as? Bool == false)
    }
}
