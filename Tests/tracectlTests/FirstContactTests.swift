import Foundation
import ArgumentParser
import Testing
@testable import tracectl

/// What a newcomer meets first: a mistyped command or option gets a suggestion, a directory is the
/// same error from every command, and a file given to the wrong command says which command takes it.
@Suite struct FirstContactTests {
    func recordedTrace(_ dir: Scratch) throws -> String {
        let trace = dir.file("login.trace")
        let run = try tracectl("record", example("seed000-keyboard-leak"), "-o", trace)
        try #require(run.status == 0, "\(run.stderr)")
        return trace
    }

    // MARK: Suggestions

    @Test(arguments: [("leak", "leaks"), ("evnets", "events"), ("timline", "timeline"), ("sesions", "sessions"),
                      ("recrd", "record")])
    func aMistypedCommandGetsASuggestion(typed: String, meant: String) throws {
        let run = try tracectl(typed, "login.trace")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("Error: Unknown command '\(typed)'. Did you mean '\(meant)'?\n"), "\(run.stderr)")
        #expect(run.stderr.contains("tracectl --help"))
        #expect(run.stdout.isEmpty)
    }

    @Test func anUnknownCommandFarFromAnyListsTheCommands() throws {
        let run = try tracectl("frobnicate")
        #expect(run.status == 64)
        #expect(run.stderr.contains("Unknown command 'frobnicate'. Commands: demo, record, leaks"), "\(run.stderr)")
    }

    @Test(arguments: [(["leaks", "T", "--severity", "error"], "--severity", "--min-severity"),
                      (["leaks", "T", "--min-sev", "error"], "--min-sev", "--min-severity"),
                      (["events", "T", "--owners", "Login"], "--owners", "--owner"),
                      (["timeline", "T", "--sinse", "4"], "--sinse", "--since"),
                      (["export", "T", "--format", "chrome-trace", "--outptu", "x"], "--outptu", "--output")])
    func aMistypedOptionGetsASuggestion(arguments: [String], typed: String, meant: String) throws {
        let run = try tracectl(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("Unknown option '\(typed)'. Did you mean '\(meant)'?"), "\(run.stderr)")
        // Once, not twice: ArgumentParser's own suggestion is kept when it made one.
        #expect(run.stderr.components(separatedBy: "Did you mean").count == 2, "\(run.stderr)")
        #expect(run.stderr.contains("Usage: tracectl \(arguments[0])"), "\(run.stderr)")
    }

    @Test func anOptionFarFromAnyHasNoSuggestion() throws {
        let run = try tracectl("leaks", "T", "--zzzzzz")
        #expect(run.status == 64)
        #expect(run.stderr.contains("Unknown option '--zzzzzz'"))
        #expect(!run.stderr.contains("Did you mean"), "\(run.stderr)")
    }

    @Test func closestPrefersAContainingNameThenFewestEdits() {
        #expect(UsageHints.closest(to: "severity", in: ["session", "min-severity", "format"]) == "min-severity")
        #expect(UsageHints.closest(to: "sesion", in: ["session", "sessions"]) == "session")
        #expect(UsageHints.closest(to: "xyz", in: ["events", "leaks"]) == nil)
    }

    // MARK: A directory where a file belongs

    /// Every command given a directory for an input file exits 66 with one line naming it. The list
    /// comes from `tracectl`'s subcommands, so a new command without a case here fails this test.
    @Test func aDirectoryIsMissingInputForEveryCommand() throws {
        let dir = try Scratch()
        let trace = try recordedTrace(dir)
        let folder = dir.file("folder.trace")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let out = dir.file("out")
        let cases: [String: [[String]]] = [
            "record": [["record", folder, "-o", out + ".trace"]],
            "leaks": [["leaks", folder], ["leaks", trace, "--baseline", folder]],
            "sessions": [["sessions", folder]],
            "events": [["events", folder]],
            "observers": [["observers", folder]],
            "stats": [["stats", folder]],
            "sql": [["sql", folder, "SELECT 1"]],
            "verify": [["verify", folder]],
            "replay": [["replay", folder], ["replay", trace, "--scenario", folder]],
            "diff": [["diff", folder, trace], ["diff", trace, folder]],
            "finish": [["finish", folder]],
            "timeline": [["timeline", folder, "-o", out + ".html"]],
            "export": [["export", folder, "--format", "chrome-trace", "-o", out + ".json"]],
        ]
        let listed = Set(TraceCtl.configuration.subcommands.map { $0._commandName })
        // demo reads no input; companions (scan, push…) are their own executables' to check.
        let uncovered = listed.subtracting(cases.keys).subtracting(["demo", "help", "scan", "push", "report"])
        #expect(uncovered.isEmpty, "commands with no directory case: \(uncovered.sorted())")
        for (_, runs) in cases {
            for arguments in runs {
                let run = try tracectl(arguments)
                #expect(run.status == 66, "\(arguments): \(run.status) \(run.stderr)")
                #expect(run.stderr.hasPrefix("tracectl: \(folder): a directory, not a "), "\(arguments): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out + ".trace"))
    }

    // MARK: The wrong kind of file

    @Test func recordGivenATraceSaysHowToReadIt() throws {
        let dir = try Scratch()
        let trace = try recordedTrace(dir)
        let run = try tracectl("record", trace, "-o", dir.file("again.trace"))
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("tracectl: \(trace): a trace, not a scenario: read it with `tracectl leaks \(trace)`"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("again.trace")))
    }

    @Test(arguments: [["leaks"], ["events"], ["sessions"], ["verify"], ["stats"], ["observers"],
                      ["timeline", "-o", "/dev/null"], ["export", "--format", "chrome-trace"]])
    func aTraceCommandGivenAScenarioSaysToRecordIt(command: [String]) throws {
        let scenario = example("seed000-keyboard-leak")
        let run = try tracectl([command[0], scenario] + command.dropFirst())
        #expect(run.status == 65, "\(command): \(run.stderr)")
        #expect(run.stderr == "tracectl: \(scenario): a scenario, not a trace: record it first with "
                + "`tracectl record \(scenario)` (it writes seed000-keyboard-leak.trace), "
                + "then `tracectl \(command[0]) seed000-keyboard-leak.trace`\n", "\(command)")
    }

    /// A JSON file that is no scenario is still just not a trace.
    @Test func aTraceCommandGivenOtherJSONSaysNotATrace() throws {
        let dir = try Scratch()
        let file = dir.file("list.json")
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: file))
        let run = try tracectl("leaks", file)
        #expect(run.status == 65)
        #expect(!run.stderr.contains("a scenario"), "\(run.stderr)")
    }
}
