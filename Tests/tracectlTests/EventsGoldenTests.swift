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

/// `tracectl diff` prints exactly what it printed when it compared rendered lines (issue 13):
/// golden files made by that version, on traces that part in their stimuli, in their
/// reactions only, and across schema versions.
@Suite struct DiffGoldenTests {
    /// The demo trace less its first delivery and its last removal: the reactions part, the stimuli agree.
    static func fewerReactions(_ dir: Scratch) throws -> String {
        let path = dir.file("fewer.trace")
        try FileManager.default.copyItem(atPath: fixture("demo"), toPath: path)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", path, """
            DELETE FROM events WHERE seq = (SELECT min(seq) FROM events WHERE kind = 5);
            DELETE FROM events WHERE seq = (SELECT max(seq) FROM events WHERE kind = 3);
            """]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        return path
    }

    static let cases: [(expected: String, actual: String, arguments: [String], golden: String, status: Int32)] = [
        ("demo", "events-golden/every-kind", [], "diff-demo-every-kind.txt", 1),
        ("demo", "events-golden/every-kind", ["--format", "json"], "diff-demo-every-kind.json", 1),
        ("events-golden/every-kind", "demo", [], "diff-every-kind-demo.txt", 1),
        ("seed000-keyboard-leak", "seed004-keyboard-timing", [], "diff-seed000-seed004.txt", 1),
        ("v2-keyboard-helper-leak", "v2-audio-interruption-unowned", ["--format", "json"], "diff-v2-helper-audio.json", 1),
        ("v1/seed000-keyboard-leak", "seed000-keyboard-leak", [], "diff-v1-v3-seed000.txt", 0),
        ("demo", "fewer", [], "diff-demo-fewer-reactions.txt", 1),
        ("fewer", "demo", ["--format", "json"], "diff-fewer-reactions-demo.json", 1),
    ]

    @Test(arguments: 0..<cases.count)
    func diffPrintsTheGoldenOutput(index: Int) throws {
        let dir = try Scratch()
        let fewer = try Self.fewerReactions(dir)
        let (expected, actual, arguments, golden, status) = Self.cases[index]
        func path(_ name: String) -> String { name == "fewer" ? fewer : fixture(name) }
        let run = try tracectl(["diff", path(expected), path(actual)] + arguments)
        #expect(run.status == status, "\(run.stderr)")
        let goldenBytes = try Data(contentsOf: repositoryFile("Tests/Fixtures/events-golden/\(golden)"))
        #expect(Data(run.stdout.utf8) == goldenBytes, "diff \(expected) \(actual) \(arguments) differs from \(golden):\n\(run.stdout)")
    }
}
