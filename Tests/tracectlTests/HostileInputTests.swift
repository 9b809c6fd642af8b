import Foundation
import Testing
@testable import TraceStore

/// Issue 13, items 3 and 4: every runtime failure has its own exit code, and no input makes `tracectl` trap.
@Suite struct HostileInputTests {
    func demoTrace(_ dir: Scratch, name: String = "demo.trace") throws -> String {
        let trace = dir.file(name)
        let run = try tracectl("demo", "-o", trace)
        #expect(run.status == 0, "\(run.stderr)")
        return trace
    }

    /// One line on stderr, starting with `tracectl: `.
    func expectOneLine(_ run: Run, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.stderr.contains(text), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: Exit codes

    @Test func everyExitCodeIsDocumentedInTheHelpAndTheREADME() throws {
        let help = try tracectl("--help").stdout
        let readme = try String(contentsOf: repositoryFile("README.md"), encoding: .utf8)
        for code in [0, 1, 64, 65, 66, 69, 70, 73, 74, 75] {
            #expect(help.contains("\n  \(String(code).padding(toLength: 4, withPad: " ", startingAt: 0))"), "help lacks \(code)")
            #expect(readme.contains("| `\(code)` |"), "README lacks \(code)")
        }
    }

    @Test func aSessionThatDoesNotExistIsNotAFinding() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        for command in ["leaks", "events", "observers", "stats", "replay"] {
            let run = try tracectl(command, trace, "--session", "99")
            #expect(run.status == 69, "\(command): \(run.status) \(run.stderr)")
            expectOneLine(run, containing: "no session 99")
        }
        let diff = try tracectl("diff", trace, trace, "--session-b", "99")
        #expect(diff.status == 69, "\(diff.stderr)")
    }

    @Test func aBaselineThatCannotBeWrittenIsAnOutputFailure() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let run = try tracectl("leaks", trace, "--write-baseline", dir.file("no/such/dir/baseline.json"))
        #expect(run.status == 73, "\(run.stderr)")
        expectOneLine(run, containing: "cannot write the baseline")
    }

    @Test(arguments: ["export", "timeline"])
    func anExportThatCannotBeWrittenIsAnOutputFailure(command: String) throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let format = command == "export" ? ["--format", "chrome-trace"] : []
        let run = try tracectl([command, trace, "-o", dir.file("no/such/dir/out")] + format)
        #expect(run.status == 73, "\(run.stderr)")
        expectOneLine(run, containing: "no/such/dir/out: cannot write")
    }

    @Test func aTraceThatCannotBeCreatedIsAnOutputFailure() throws {
        let dir = try Scratch()
        let run = try tracectl("record", example("seed000-keyboard-leak"), "-o", dir.file("no/such/dir/out.trace"))
        #expect(run.status == 73, "\(run.stderr)")
        expectOneLine(run, containing: "no/such/dir/out.trace")
    }

    @Test func aLockedTraceIsBusy() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        // Another process holds an exclusive lock on the file: readers wait, then give up with 75.
        let locker = try Database(path: trace, mode: .create)
        try locker.execute("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        // Readers wait 5 seconds for a lock before they give up.
        let run = try tracectl("sessions", trace)
        #expect(run.status == 75, "\(run.stderr)")
        expectOneLine(run, containing: "locked")
        try locker.execute("COMMIT")
    }

    // MARK: Out-of-range numbers

    @Test(arguments: [
        ["events", "--since", "9223372036854775808"],
        ["events", "--until", "18446744073709551615"],
        ["events", "--observer", "18446744073709551615"],
        ["observers", "--at", "18446744073709551615"],
    ])
    func numbersBeyondTheTraceRangeAreUsageErrors(arguments: [String]) throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let run = try tracectl([arguments[0], trace] + arguments.dropFirst())
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("\(arguments[1]) \(arguments[2]) is out of range"), "\(run.stderr)")
    }

    @Test(arguments: ["wait", "present"])
    func aDurationBeyondTheClockIsBadInputNamingItsPath(step: String) throws {
        let dir = try Scratch()
        let scenario = dir.file("long.json")
        let steps = step == "wait" ? #"[{"push": "Login"}, {"wait": 2e10}]"# : #"[{"present": "Login", "duration": 2e10}]"#
        try """
            {"name": "long", "screens": {"Home": {"observers": []}, "Login": {"observers": []}},
             "root": {"navigation": "Home"}, "steps": \(steps)}
            """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try tracectl("record", scenario, "-o", dir.file("long.trace"))
        #expect(run.status == 65, "\(run.stderr)")
        expectOneLine(run, containing: step == "wait" ? "steps[1].wait: " : "steps[0].duration: ")
        #expect(!FileManager.default.fileExists(atPath: dir.file("long.trace")))
    }

    @Test func aNegativeSequenceNumberIsADamagedTrace() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE events SET seq = -5 WHERE seq = 3")
        }
        for command in ["events", "observers", "leaks", "stats", "replay"] {
            let run = try tracectl(command, trace)
            #expect(run.status == 65, "\(command): \(run.status) \(run.stderr)")
            expectOneLine(run, containing: "seq -5")
        }
        for command in [["timeline", "-o", dir.file("t.html")], ["export", "--format", "chrome-trace", "-o", dir.file("t.json")]] {
            let run = try tracectl(command + [trace])
            #expect(run.status == 65, "\(command): \(run.status) \(run.stderr)")
            expectOneLine(run, containing: "seq -5")
        }
        #expect(try tracectl("diff", trace, fixture("demo")).status == 65)
        let verify = try tracectl("verify", trace)
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stdout.contains("seq -5"))
    }

    /// Ids are read as their bits: a negative one in a damaged file is a huge id, which every
    /// reading command must carry without converting it to a narrower type (the timeline trapped).
    @Test(arguments: ["observer", "post", "owner", "parent", "sender"])
    func aNegativeIdIsCarriedByEveryReadingCommand(column: String) throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE events SET \(column) = -1 WHERE \(column) IS NOT NULL AND seq % 2 = 0")
        }
        let commands: [[String]] = [["events"], ["observers"], ["observers", "--at", "60"], ["leaks"],
                                    ["leaks", "--format", "sarif"], ["stats"], ["verify"], ["sessions"],
                                    ["timeline", "-o", dir.file("t.html")],
                                    ["export", "--format", "chrome-trace", "-o", dir.file("t.json")]]
        for command in commands {
            let run = try tracectl(command + [trace])
            // Findings, problems or bad input, each with its code; never a trap (132, 134) or internal error (70).
            #expect([0, 1, 65].contains(run.status), "\(command): \(run.status) \(run.stderr.prefix(300))")
        }
    }

    @Test func anUnknownEventKindIsADamagedTraceNotABridgeRejection() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE events SET kind = 99 WHERE seq = 3")
        }
        // Every reading command refuses the file; `verify` reports it as a problem.
        for command in ["events", "stats", "leaks", "observers", "timeline", "diff"] {
            let arguments = command == "diff" ? [command, trace, trace] : command == "timeline" ? [command, trace, "-o", dir.file("t.html")] : [command, trace]
            let run = try tracectl(arguments)
            #expect(run.status == 65, "\(command): \(run.stderr)")
            expectOneLine(run, containing: "unknown event kind 99 at seq 3")
        }
        let verify = try tracectl("verify", trace)
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stdout.contains("seq 3: unknown event kind 99"), "\(verify.stdout)")
    }

    /// A payload that is not ASCII JSON (a NUL inside, invalid UTF-8) is printed as a C string
    /// read it: up to the NUL, invalid bytes replaced; never a trap, never the bytes after the NUL.
    @Test func aPayloadWithANulOrInvalidUTF8IsPrintedUpToTheNul() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE payloads SET json = CAST(X'7B2261223A22C3A9FF227D005A5158' AS TEXT) WHERE id = (SELECT payload FROM events WHERE seq = 19)")
        }
        #expect(try tracectl("events", trace).status == 0)
        // JSON prints a post's payload as it is stored (text does not print it).
        let run = try tracectl("events", trace, "--format", "json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"payload\":{\"a\":\"é\u{FFFD}\"}"), "\(run.stdout.prefix(2000))")
        #expect(!run.stdout.contains("ZQX"))
    }

    @Test func aSequenceNumberStoredAsAHugeRealDoesNotTrap() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        do {
            let db = try Database(path: trace, mode: .create)
            try db.execute("UPDATE events SET seq = 1e300 WHERE seq = 3; UPDATE events SET observer = -1e300 WHERE seq = 5")
        }
        for command in ["verify", "stats", "events", "leaks", "observers", "sessions"] {
            let run = try tracectl(command, trace)
            #expect([0, 1, 65].contains(run.status) && !run.stderr.contains("Fatal error"), "\(command): \(run.status) \(run.stderr)")
        }
    }

    // MARK: Paths

    @Test func aDirectoryIsNeitherATraceNorAScenario() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        // 66 like a scenario or baseline that is a directory (it was 65 for a trace: one code for one mistake).
        for arguments in [["events", dir.path], ["diff", trace, dir.path]] {
            let run = try tracectl(arguments)
            #expect(run.status == 66, "\(arguments): \(run.stderr)")
            expectOneLine(run, containing: "\(dir.path): a directory, not a trace")
        }
        for arguments in [["record", dir.path], ["replay", trace, "--scenario", dir.path], ["leaks", trace, "--baseline", dir.path]] {
            let run = try tracectl(arguments)
            #expect(run.status == 66, "\(arguments): \(run.stderr)")
            expectOneLine(run, containing: "\(dir.path): a directory, not a file")
        }
    }

    @Test(arguments: ["café.trace", "with space.trace", "100%.trace", "what?.trace", "hash#tag.trace", "ünï çødé/ß%3F.trace"])
    func anyFileNameWorks(name: String) throws {
        let dir = try Scratch()
        let trace = dir.file(name)
        try FileManager.default.createDirectory(atPath: (trace as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let recorded = try tracectl("record", example("seed000-keyboard-leak"), "-o", trace)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        for command in ["sessions", "verify", "events", "stats"] {
            let run = try tracectl(command, trace)
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
        #expect(try tracectl("leaks", trace).status == 1)
        #expect(try tracectl("replay", trace).status == 0)
    }

    @Test func aStaleWriteAheadLogDoesNotLeakOldRowsIntoANewTrace() throws {
        let dir = try Scratch()
        let trace = dir.file("out.trace")
        // A killed recording left out.trace-wal (and -shm) holding another database's pages.
        let recorder = try TraceRecorder(path: dir.file("old.trace"), session: SessionInfo(name: "old-session"))
        try recorder.flush()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: dir.file("old.trace") + suffix, toPath: trace + suffix)
        }
        #expect(FileManager.default.fileExists(atPath: trace + "-wal"))
        let recorded = try tracectl("record", example("seed000-keyboard-leak"), "-o", trace)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let sessions = try #require(try json(try tracectl("sessions", trace, "--format", "json").stdout) as? [[String: Any]])
        #expect(sessions.map { $0["name"] as? String } == ["seed000-keyboard-leak"])
        #expect(try tracectl("verify", trace).status == 0)
        _ = recorder
    }

    // MARK: Refusals

    @Test func replayRefusesToOverwriteItsOwnTrace() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.trace"), withDestinationPath: trace)
        for output in [trace, dir.file("./demo.trace"), dir.file("link.trace")] {
            let run = try tracectl("replay", trace, "--output", output)
            #expect(run.status == 64, "\(output): \(run.stderr)")
            expectOneLine(run, containing: "; give another output path")
            #expect(try Data(contentsOf: URL(fileURLWithPath: trace)) == before)
        }
        #expect(try tracectl("replay", trace, "--output", "demo.trace", in: dir.path).status == 64)
        #expect(try tracectl("verify", trace).status == 0)
    }

    @Test func sqlRefusesSeveralStatements() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let run = try tracectl("sql", trace, "SELECT 1; SELECT 2")
        #expect(run.status == 64, "\(run.stderr)")
        expectOneLine(run, containing: "one statement")
        #expect(run.stdout.isEmpty)
        // A trailing semicolon, whitespace or comment is still one statement.
        let one = try tracectl("sql", trace, "SELECT 1 AS n;  -- done\n")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout == "n\n1\n")
        let bad = try tracectl("sql", trace, "SELEKT 1")
        #expect(bad.status == 64, "\(bad.stderr)")
        expectOneLine(bad, containing: "syntax error")
        // An error SQLite finds only while running the query is the query's too.
        let overflow = try tracectl("sql", trace, "SELECT abs(-9223372036854775807 - 1)")
        #expect(overflow.status == 64, "\(overflow.stderr)")
        expectOneLine(overflow, containing: "integer overflow")
        // In JSON, an error before the first row leaves no half-open list on standard output.
        let overflowJSON = try tracectl("sql", trace, "SELECT abs(-9223372036854775807 - 1)", "--format", "json")
        #expect(overflowJSON.status == 64, "\(overflowJSON.stderr)")
        #expect(overflowJSON.stdout.isEmpty, "\(overflowJSON.stdout)")
        // The message quotes the first statement whole, whatever its characters.
        let accented = try tracectl("sql", trace, "SELECT 'café ☕' AS x; SELECT 2")
        #expect(accented.status == 64, "\(accented.stderr)")
        expectOneLine(accented, containing: "found another after `SELECT 'café ☕' AS x;`")
    }
}

extension Run: CustomStringConvertible {
    var description: String { "status \(status)\n\(stdout)\(stderr)" }
}
