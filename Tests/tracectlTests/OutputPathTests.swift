import Foundation
import Testing

/// What the commands that write a file do with the path they are given: an input is never
/// replaced, a directory never removed, a link followed, a device or pipe written to; a full disk
/// or standard output is one line and 74, never a trap; an interrupted `record` leaves no
/// partial file, and a killed one's are removed by the next recording into the same file.
@Suite struct OutputPathTests {
    /// A directory with a trace (`x.trace`) and its scenario (`s.json`).
    static func workspace() throws -> (TemporaryDirectory, trace: String, scenario: String) {
        let dir = try TemporaryDirectory()
        let scenario = dir.file("s.json")
        try FileManager.default.copyItem(atPath: example("seed000-keyboard-leak"), toPath: scenario)
        let trace = dir.file("x.trace")
        #expect(try tracectl("record", scenario, "-o", trace).status == 0)
        return (dir, trace, scenario)
    }

    static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func anOutputThatIsAnInputIsRefusedAndTheInputKept() throws {
        let (dir, trace, scenario) = try Self.workspace()
        let (traceBytes, scenarioBytes) = (Self.contents(trace), Self.contents(scenario))
        // Through another spelling, and a link, too.
        let link = dir.file("link.trace")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: trace)
        let runs: [[String]] = [
            ["timeline", trace, "-o", trace],
            ["timeline", trace, "-o", dir.path + "/./x.trace"],
            ["export", trace, "--format", "chrome-trace", "-o", link],
            ["leaks", trace, "--write-baseline", trace],
            ["record", scenario, "-o", scenario],
            ["replay", trace, "--output", trace],
            ["replay", trace, "--scenario", scenario, "--output", scenario],
        ]
        for arguments in runs {
            let run = try tracectl(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.hasPrefix("tracectl: ") && run.stderr.contains("give another output path"), "\(arguments): \(run.stderr)")
        }
        #expect(Self.contents(trace) == traceBytes)
        #expect(Self.contents(scenario) == scenarioBytes)
        // The default output name of `record` is the input itself when the scenario ends in .trace.
        let named = dir.file("n.trace")
        try FileManager.default.copyItem(atPath: scenario, toPath: named)
        #expect(try tracectl(["record", "n.trace"], in: dir.path).status == 64)
        #expect(Self.contents(named) == scenarioBytes)
    }

    @Test func aDirectoryIsRefusedAndKept() throws {
        let (dir, trace, scenario) = try Self.workspace()
        let target = dir.file("d.trace")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target + "/keep.txt"))
        for arguments in [["replay", trace, "--output", target], ["record", scenario, "-o", target],
                          ["timeline", trace, "-o", target], ["leaks", trace, "--write-baseline", target]] {
            let run = try tracectl(arguments)
            #expect(run.status == 73, "\(arguments)")
            #expect(run.stderr == "tracectl: \(target): a directory; give a file path\n", "\(arguments)")
            #expect(Self.contents(target + "/keep.txt") == Data("keep".utf8), "\(arguments)")
        }
    }

    @Test func aLinkIsFollowedAndAPipeWrittenTo() throws {
        let (dir, trace, scenario) = try Self.workspace()
        // A link to a page: the page is replaced, the link stays a link.
        let page = dir.file("real.html"), link = dir.file("link.html")
        try Data("old".utf8).write(to: URL(fileURLWithPath: page))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.html")
        #expect(try tracectl("timeline", trace, "-o", link).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.html")
        #expect(String(decoding: Self.contents(page) ?? Data(), as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
        // A dangling link names the trace to create.
        let traceLink = dir.file("new.trace")
        try FileManager.default.createSymbolicLink(atPath: traceLink, withDestinationPath: "made.trace")
        #expect(try tracectl("record", scenario, "-o", traceLink).status == 0)
        #expect(try tracectl("verify", dir.file("made.trace")).status == 0)
        // A pipe is written to, not replaced.
        let fifo = dir.file("out.json")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "wc -c < \"$0\" > \"$1\"", fifo, dir.file("count")]
        try reader.run()
        #expect(try tracectl("export", trace, "--format", "chrome-trace", "-o", fifo).status == 0)
        reader.waitUntilExit()
        let exported = try tracectl("export", trace, "--format", "chrome-trace").stdout
        #expect(Int(String(decoding: Self.contents(dir.file("count")) ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) == exported.utf8.count)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        // A trace cannot be a pipe.
        #expect(try tracectl("record", scenario, "-o", fifo).status == 73)
    }

    /// `/dev/full` fails every write with ENOSPC, as a full disk does.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFailedWriteIsOneLineAnd74() throws {
        let (dir, trace, _) = try Self.workspace()
        let full = FileHandle(forWritingAtPath: "/dev/full")!
        for arguments in [["events", trace], ["leaks", trace], ["sessions", trace], ["stats", trace],
                          ["export", trace, "--format", "chrome-trace"], ["demo", "--print-scenario"]] {
            let run = try tracectl(arguments, standardOutput: full)
            #expect(run.status == 74, "\(arguments)")
            #expect(run.stderr == "tracectl: cannot write standard output (No space left on device)\n", "\(arguments): \(run.stderr)")
        }
        let run = try tracectl("timeline", trace, "-o", "/dev/full")
        #expect(run.status == 74)
        #expect(run.stderr == "tracectl: /dev/full: cannot write the timeline (No space left on device)\n")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.contains(".partial-") })
    }

    /// A recording long enough to be interrupted while it writes.
    static func longScenario(in dir: TemporaryDirectory) throws -> String {
        let base = try JSONSerialization.jsonObject(with: Self.contents(example("seed000-keyboard-leak"))!) as! [String: Any]
        var scenario = base
        let steps = base["steps"] as! [Any]
        scenario["steps"] = [steps[0]] + Array(repeating: [["background": [:]], ["foreground": [:]]], count: 30_000).flatMap { $0 }
        let path = dir.file("long.json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts `record` of the long scenario into `out.trace` and returns once its partial file
    /// exists; with `ignoringHangUp`, from a shell that ignores SIGHUP, as `nohup` does.
    static func startRecording(_ scenario: String, in dir: TemporaryDirectory, ignoringHangUp: Bool = false) throws -> Process {
        let process = Process()
        let tracectl = productsDirectory().appendingPathComponent("tracectl").path
        if ignoringHangUp {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' HUP; exec \"$0\" record \"$1\" -o \"$2\"", tracectl, scenario, dir.file("out.trace")]
        } else {
            process.executableURL = URL(fileURLWithPath: tracectl)
            process.arguments = ["record", scenario, "-o", dir.file("out.trace")]
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // However slow the build (a sanitizer's, a loaded machine): until the first batch is written,
        // or the recording ended (then the test's expectations say so).
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning, Date() < deadline {
            if try partials(in: dir).contains(where: { $0.hasSuffix("-wal") }) { break }
            usleep(5_000)
        }
        return process
    }

    static func partials(in dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial-") }
    }

    @Test func anInterruptedRecordLeavesNoPartialFile() throws {
        let dir = try TemporaryDirectory()
        let scenario = try Self.longScenario(in: dir)
        for number in [SIGTERM, SIGINT] {
            let process = try Self.startRecording(scenario, in: dir)
            try #require(process.isRunning, "the recording ended before it could be interrupted")
            kill(process.processIdentifier, number)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == number)
            #expect(try Self.partials(in: dir) == [], "signal \(number)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("out.trace")))
        }
    }

    /// A hang-up the caller ignores (`nohup`) is still ignored: the recording finishes.
    @Test func anIgnoredHangUpStaysIgnored() throws {
        let dir = try TemporaryDirectory()
        let process = try Self.startRecording(try Self.longScenario(in: dir), in: dir, ignoringHangUp: true)
        try #require(process.isRunning, "the recording ended before the hang-up")
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(try tracectl("verify", dir.file("out.trace")).status == 0)
        #expect(try Self.partials(in: dir) == [])
    }

    /// A page's partial file left by a killed run (its process gone) goes with the next run
    /// writing that page; one of a process still running stays.
    @Test func aKilledRunsPartialPageGoesWithTheNextRun() throws {
        let (dir, trace, _) = try Self.workspace()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let abandoned = dir.file("page.html.partial-\(gone.processIdentifier)")
        let ours = dir.file("page.html.partial-1")   // pid 1 always runs
        for path in [abandoned, ours] { try Data("half".utf8).write(to: URL(fileURLWithPath: path)) }
        #expect(try tracectl("timeline", trace, "-o", dir.file("page.html")).status == 0)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: ours))
    }

    @Test func aKilledRecordsPartialFilesGoWithTheNextRecording() throws {
        let dir = try TemporaryDirectory()
        let process = try Self.startRecording(try Self.longScenario(in: dir), in: dir)
        try #require(process.isRunning, "the recording ended before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = try Self.partials(in: dir)
        #expect(left.contains { $0.hasSuffix("-wal") }, "SIGKILL leaves them: \(left)")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", dir.file("out.trace")).status == 0)
        #expect(try Self.partials(in: dir) == [])
        #expect(try tracectl("verify", dir.file("out.trace")).status == 0)
    }

    /// An input's side files hold part of it (a killed trace's `-wal` holds its events): writing
    /// over one, existing or not, through any spelling, is refused like writing over the input.
    @Test func anOutputThatIsAnInputsSideFileIsRefused() throws {
        let (dir, trace, _) = try Self.workspace()
        let wal = trace + "-wal"
        try Data("the events a killed recorder committed".utf8).write(to: URL(fileURLWithPath: wal))
        let before = Self.contents(wal)
        let folder = dir.file("folder")
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: dir.path)
        for output in [wal, trace + "-shm", trace + "-journal", trace + "-eventlog-1", folder + "/x.trace-wal",
                       dir.path + "/./x.trace-eventlog-12"] {
            for command in [["timeline", trace, "-o", output], ["export", trace, "--format", "chrome-trace", "-o", output],
                            ["leaks", trace, "--write-baseline", output]] {
                let run = try tracectl(command)
                #expect(run.status == 64, "\(command): \(run.stderr)")
                #expect(run.stderr.contains("a side file of the input"), "\(command): \(run.stderr)")
            }
        }
        #expect(Self.contents(wal) == before)
        #expect(!FileManager.default.fileExists(atPath: trace + "-eventlog-1"))
        // A name that only starts like one is another file.
        #expect(try tracectl("timeline", trace, "-o", trace + "-wal.html").status == 0)
    }

    /// `record -o existing.trace` adds a session, as the library does; `--replace` replaces the file;
    /// a file that is not a trace is refused with a pointer to `--replace`, and kept.
    @Test func recordAppendsToAnExistingTraceUnlessReplace() throws {
        let (dir, trace, scenario) = try Self.workspace()
        let appended = try tracectl("record", example("seed003-orientation"), "-o", trace)
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(appended.stdout.contains("session 2"), "\(appended.stdout)")
        let sessions = try #require(try json(try tracectl("sessions", trace, "--format", "json").stdout) as? [[String: Any]])
        #expect(sessions.count == 2, "\(sessions)")
        #expect(sessions.allSatisfy { $0["endedCleanly"] as? Bool == true })
        #expect(try tracectl("verify", trace).status == 0)
        // Both sessions analyse as when recorded alone.
        let alone = dir.file("alone.trace")
        #expect(try tracectl("record", example("seed003-orientation"), "-o", alone).status == 0)
        #expect(try tracectl("leaks", trace, "--session", "2", "--format", "json").stdout
                    .replacingOccurrences(of: trace, with: "T").replacingOccurrences(of: "\"session\":2", with: "\"session\":1")
                    .replacingOccurrences(of: "--session 2 ", with: "")
                == (try tracectl("leaks", alone, "--format", "json").stdout.replacingOccurrences(of: alone, with: "T")))
        #expect(try tracectl("record", scenario, "-o", trace, "--replace").status == 0)
        let replaced = try #require(try json(try tracectl("sessions", trace, "--format", "json").stdout) as? [[String: Any]])
        #expect(replaced.count == 1)

        let notATrace = dir.file("notes.trace")
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: notATrace))
        let refused = try tracectl("record", scenario, "-o", notATrace)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("--replace"), "\(refused.stderr)")
        #expect(Self.contents(notATrace) == Data("my notes".utf8))
        #expect(try Self.partials(in: dir) == [])
    }

    /// A path is a path: `file:x.trace` names a file of that name, never an SQLite URI.
    @Test func aFileColonPathIsAFileName() throws {
        let dir = try TemporaryDirectory()
        let run = try tracectl(["record", example("seed000-keyboard-leak"), "-o", "file:x.trace"], in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("file:x.trace")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.trace")))
        #expect(try tracectl(["verify", "file:x.trace"], in: dir.path).status == 0)
        // Appending into it too.
        #expect(try tracectl(["record", example("seed000-keyboard-leak"), "-o", "file:x.trace"], in: dir.path).status == 0)
        #expect(try tracectl(["finish", "file:x.trace"], in: dir.path).status == 0)
        let sessions = try json(try tracectl(["sessions", "file:x.trace", "--format", "json"], in: dir.path).stdout) as? [[String: Any]]
        #expect(sessions?.count == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.trace")))
    }
}
