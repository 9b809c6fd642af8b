import Foundation
import Testing

/// The commands give the same answers on a killed recorder's file (no indexes, never
/// ended: they walk it once) as on the finished file (they search its indexes).
@Suite struct KilledTraceCommandTests {
    /// The demo trace, and a copy of it as a killed recorder would have left it.
    func traces(_ dir: Scratch) throws -> (closed: String, killed: String) {
        let closed = dir.file("demo.trace"), killed = dir.file("killed.trace")
        #expect(try tracectl("demo", "-o", closed).status == 0)
        try FileManager.default.copyItem(atPath: closed, toPath: killed)
        let sql = """
            DROP INDEX events_by_kind; DROP INDEX events_by_observer; DROP INDEX events_by_post; DROP INDEX events_by_owner;
            DELETE FROM events WHERE kind = 10; UPDATE sessions SET ended_at = NULL, last_seq = NULL;
            """
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", killed, sql]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        return (closed, killed)
    }

    @Test func eventsWithEachFilterAgreeOnKilledAndFinishedTraces() throws {
        let dir = try Scratch()
        let (closed, killed) = try traces(dir)
        let filters: [[String]] = [
            [], ["--owner", "Login"], ["--owner", "3"], ["--kind", "lifecycle"], ["--kind", "delivered", "--kind", "posted"],
            ["--message", "keyboardWillShow"], ["--observer", "1"], ["--owner", "Login", "--kind", "lifecycle", "--limit", "3"],
            ["--since", "10", "--until", "40"], ["--observer", "2", "--since", "30", "--limit", "2"],
        ]
        for filter in filters {
            for format in ["text", "json"] {
                let arguments = filter + ["--format", format]
                let a = try tracectl(["events", closed] + arguments), b = try tracectl(["events", killed] + arguments)
                #expect(a.status == 0 && b.status == 0, "\(filter): \(a.stderr) \(b.stderr)")
                #expect(!a.stdout.isEmpty)
                // The killed copy lost only its sessionEnded event.
                let drop: (String) -> String = { $0.split(separator: "\n").filter { !$0.contains("sessionEnded") }.joined(separator: "\n") }
                if format == "text" { #expect(drop(a.stdout) == drop(b.stdout), "events \(filter)") }
                else if !filter.isEmpty { #expect(a.stdout == b.stdout, "events \(filter)") }
            }
        }
    }

    @Test func verifySaysASessionWasNeverClosedAndFinishMarksItCrashed() throws {
        let dir = try Scratch()
        let (_, killed) = try traces(dir)
        let before = try tracectl("verify", killed)
        #expect(before.status == 0)
        #expect(before.stdout.contains("never closed: crashed or still recording"))
        let finish = try tracectl("finish", killed)
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(finish.stdout.contains("session 1: marked crashed after seq"))
        let after = try tracectl("verify", killed, "--format", "json")
        #expect(after.status == 0)
        let report = try #require(try json(after.stdout) as? [String: Any])
        let session = try #require((report["sessions"] as? [[String: Any]])?.first)
        #expect(session["crashedAt"] is String)
        #expect(session["endedCleanly"] as? Bool == false)
        #expect(try tracectl("verify", killed).stdout.contains("never closed: its recorder was killed"))
        // Run again, it says why there is nothing to do: the session is already marked crashed.
        let again = try tracectl("finish", killed)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "nothing to finish: session 1 was already marked crashed by an earlier finish; indexes checked\n")
        let againJSON = try #require(try json(try tracectl("finish", killed, "--format", "json").stdout) as? [String: Any])
        #expect(againJSON["alreadyCrashed"] as? [Int] == [1])
        #expect((againJSON["finished"] as? [Any])?.isEmpty == true)
        #expect(try tracectl("finish", dir.file("missing.trace")).status == 66)
    }

    @Test func finishSaysWhenEverySessionHadEnded() throws {
        let dir = try Scratch()
        let (closed, _) = try traces(dir)
        let run = try tracectl("finish", closed)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "nothing to finish: every session had ended; indexes checked\n")
    }

    /// `finish` opens a file for writing, where SQLite would take an empty file for a new database and
    /// report a directory as its own error 14: it checks the file as every other command does first.
    @Test func finishRefusesWhatIsNotATraceAsTheOtherCommandsDo() throws {
        let dir = try Scratch()
        let empty = dir.file("empty.trace"), folder = dir.file("folder.trace")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (path, message, code) in [(empty, "\(empty): empty file, not a trace\n", Int32(65)),
                                      (folder, "\(folder): a directory, not a trace\n", 66)] {
            let finish = try tracectl("finish", path), events = try tracectl("events", path)
            #expect(finish.status == code, "\(finish.stderr)")
            #expect(finish.stderr == "tracectl: " + message)
            #expect(finish.stdout.isEmpty)
            #expect(finish.status == events.status && finish.stderr == events.stderr)
        }
        // The empty file is left as it was, not made into a database.
        #expect(try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int == 0)
    }
}
