import Foundation
import Testing

/// `tracectl events` prints exactly what it printed before its output was written by bytes
/// (issue 13): the golden files were made by the String-building version. `every-kind.trace` is
/// the demo trace with rows added by SQL: every event kind, fields missing, a negative owner id,
/// times that round on a tie or exceed 2^53 ns, and strings with quotes, backslashes, tabs,
/// control characters and non-ASCII text, so every path of the text and JSON writers is compared.
@Suite struct EventsGoldenTests {
    static let cases: [(trace: String, arguments: [String], golden: String)] = [
        ("events-golden/every-kind", [], "every-kind.txt"),
        ("events-golden/every-kind", ["--format", "json"], "every-kind.json"),
        ("events-golden/every-kind", ["--owner", "3", "--format", "json"], "every-kind-owner-3.json"),
        ("events-golden/every-kind", ["--kind", "observerAdded", "--kind", "trapped", "--since", "100"], "every-kind-added-trapped.txt"),
        ("v2-audio-interruption-unowned", [], "v2-audio-interruption-unowned.txt"),
        ("v2-audio-interruption-unowned", ["--format", "json"], "v2-audio-interruption-unowned.json"),
        ("v1/seed000-keyboard-leak", [], "v1-seed000-keyboard-leak.txt"),
    ]

    @Test(arguments: 0..<cases.count)
    func eventsPrintsTheGoldenOutput(index: Int) throws {
        let (trace, arguments, golden) = Self.cases[index]
        let run = try tracectl(["events", fixture(trace)] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Data(contentsOf: repositoryFile("Tests/Fixtures/events-golden/\(golden)"))
        #expect(Data(run.stdout.utf8) == expected, "events \(trace) \(arguments) differs from \(golden)")
    }

    /// The same on the trace as a killed recorder leaves it: one walk, filtered in SQL.
    @Test func aKilledCopyPrintsTheSameLines() throws {
        let dir = try Scratch()
        let killed = dir.file("killed.trace")
        try FileManager.default.copyItem(atPath: fixture("events-golden/every-kind"), toPath: killed)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", killed, """
            DROP INDEX events_by_kind; DROP INDEX events_by_observer; DROP INDEX events_by_post; DROP INDEX events_by_owner;
            UPDATE sessions SET ended_at = NULL, last_seq = NULL;
            """]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        for (trace, arguments, golden) in Self.cases where trace == "events-golden/every-kind" {
            let run = try tracectl(["events", killed] + arguments)
            let expected = try Data(contentsOf: repositoryFile("Tests/Fixtures/events-golden/\(golden)"))
            #expect(Data(run.stdout.utf8) == expected, "events (killed) \(arguments) differs from \(golden)")
        }
    }
}
