import Foundation
import Testing

@Suite struct LeaksCommandTests {
    @Test func seed000PopLeakIsFoundWithItsCallSite() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        let record = try tracectl("record", example("seed000-keyboard-leak"), "-o", trace)
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stdout.hasPrefix("recorded 'seed000-keyboard-leak'"))

        let leaks = try tracectl("leaks", trace, "--format", "json")
        #expect(leaks.status == 1)
        let report = try #require(try json(leaks.stdout) as? [String: Any])
        let findings = try #require(report["leaks"] as? [[String: Any]])
        let outlives = findings.filter { $0["rule"] as? String == "observer-outlives-owner" }
        #expect(outlives.map { $0["owner"] as? String } == ["Login", "Login"])
        #expect(outlives.map { $0["callsite"] as? String } == [
            "seed000-keyboard-leak.json: screens.Login.observers[0]",
            "seed000-keyboard-leak.json: screens.Login.observers[1]",
        ])
        #expect(outlives.map { $0["message"] as? String } == ["keyboardWillShow", "keyboardWillHide"])
        #expect(outlives.allSatisfy { ($0["addedAt"] as? Int ?? 0) > 0 && ($0["ownerGoneAt"] as? Int ?? 0) > ($0["addedAt"] as? Int ?? 0) })
        let after = try #require(findings.first { $0["rule"] as? String == "delivery-after-owner-gone" })
        #expect((after["deliveriesAfter"] as? [[String: Any]])?.first?["outcome"] as? String == "skipped")
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["total"] as? Int == findings.count)
        #expect(summary["new"] as? Int == findings.count)

        let text = try tracectl("leaks", trace)
        #expect(text.status == 1)
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "error    seed000-keyboard-leak.json: screens.Login.observers[0]  LoginViewController",
                "each group starts with its severity, call site and owner type")
        #expect(text.stdout.contains("  error    observer-outlives-owner    keyboardWillShow  owner Login  ["))
        let tail = text.stdout.split(separator: "\n").suffix(2).map(String.init)
        #expect(tail == [
            "2 bugs (2 errors), 5 findings: 2 observer-outlives-owner, 1 delivery-after-owner-gone, 2 unbalanced-removal",
            "See when each observer lived beside its screen: tracectl timeline \(trace) -o timeline.html",
        ])
    }

    /// The text report says where an attached owner lives, as JSON's `ownerLocation` does; a screen,
    /// which lives in no host, is named alone.
    @Test func textNamesWhereAnAttachedOwnerLives() throws {
        let trace = repositoryFile("Tests/Fixtures/v2-keyboard-helper-leak.trace").path
        let text = try tracectl("leaks", trace)
        #expect(text.status == 1, "\(text.stderr)")
        let report = try #require(try json(try tracectl("leaks", trace, "--format", "json").stdout) as? [String: Any])
        let leaks = try #require(report["leaks"] as? [[String: Any]])
        #expect(!leaks.isEmpty)
        for leak in leaks {
            let location = try #require(leak["ownerLocation"] as? String)
            #expect(location == "KeyboardHelper in Editor")
            let fingerprint = try #require(leak["fingerprint"] as? String)
            let line = try #require(text.stdout.split(separator: "\n").first { $0.contains(fingerprint) })
            #expect(line.contains("  owner \(location)  "), "\(line)")
        }
        let screen = try tracectl("leaks", repositoryFile("Tests/Fixtures/seed000-keyboard-leak.trace").path)
        #expect(screen.status == 1, "\(screen.stderr)")
        #expect(screen.stdout.contains("  keyboardWillShow  owner Login  ["), "\(screen.stdout)")
    }

    /// What `leaks --help` and README say of `--write-baseline`: it writes the findings at or above
    /// `--min-severity`, and exits 0 whatever was found; JSON lists the same findings.
    @Test func writeBaselineKeepsWhatMinSeverityKeepsAndExitsZero() throws {
        let dir = try Scratch()
        let trace = repositoryFile("Tests/Fixtures/demo.trace").path, baseline = dir.file("baseline.json")
        let written = try tracectl("leaks", trace, "--min-severity", "error", "--write-baseline", baseline)
        #expect(written.status == 0, "\(written.stderr)")
        let report = try #require(try json(try tracectl("leaks", trace, "--min-severity", "error", "--format", "json").stdout) as? [String: Any])
        let leaks = try #require(report["leaks"] as? [[String: Any]])
        #expect(!leaks.isEmpty && leaks.allSatisfy { $0["severity"] as? String == "error" })
        #expect((report["summary"] as? [String: Any])?["hidden"] as? Int ?? 0 > 0)
        let fingerprints = try #require(try json(String(decoding: Data(contentsOf: URL(fileURLWithPath: baseline)), as: UTF8.self)) as? [String])
        #expect(Set(fingerprints) == Set(leaks.compactMap { $0["fingerprint"] as? String }))
        #expect(try tracectl("leaks", trace, "--min-severity", "error").status == 1)
    }

    @Test func seed004TimingYieldsNoFinding() throws {
        let dir = try Scratch()
        let trace = dir.file("fixed.trace")
        #expect(try tracectl("record", example("seed004-keyboard-timing"), "-o", trace).status == 0)
        let leaks = try tracectl("leaks", trace)
        #expect(leaks.status == 0)
        #expect(leaks.stdout == "no leaks in session 1 ('seed004-keyboard-timing')\n")
        let json = try json(try tracectl("leaks", trace, "--format", "json").stdout) as? [String: Any]
        #expect((json?["leaks"] as? [Any])?.isEmpty == true)
    }

    @Test func baselineTurnsExitOneIntoZeroAndNewFindingsStillFail() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        let baseline = dir.file("baseline.json")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        #expect(try tracectl("leaks", trace).status == 1)
        #expect(try tracectl("leaks", trace, "--write-baseline", baseline).status == 0)
        let accepted = try tracectl("leaks", trace, "--baseline", baseline)
        #expect(accepted.status == 0)
        #expect(accepted.stdout.contains("(0 new, 5 baselined)"))

        // Drop one fingerprint: that finding is new again.
        var list = try #require(try json(String(contentsOfFile: baseline, encoding: .utf8)) as? [String])
        list.removeFirst()
        try (#"[""# + list.joined(separator: #"",""#) + #""]"#).write(toFile: baseline, atomically: true, encoding: .utf8)
        #expect(try tracectl("leaks", trace, "--baseline", baseline).status == 1)
    }

    @Test func ruleFilterKeepsOnlyThatRule() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        let run = try tracectl("leaks", trace, "--rule", "unbalanced-removal", "--format", "json")
        let findings = try #require((try json(run.stdout) as? [String: Any])?["leaks"] as? [[String: Any]])
        #expect(Set(findings.compactMap { $0["rule"] as? String }) == ["unbalanced-removal"])
        #expect(findings.count == 2)
    }

    @Test func missingTraceExits66() throws {
        let run = try tracectl("leaks", "/nonexistent/dir/nothing.trace")
        #expect(run.status == 66)
        #expect(run.stderr == "tracectl: /nonexistent/dir/nothing.trace: no such file\n")
    }

    @Test func corruptTraceExits65WithOneLine() throws {
        let dir = try Scratch()
        let path = dir.file("corrupt.trace")
        try String(repeating: "garbage ", count: 512).write(toFile: path, atomically: true, encoding: .utf8)
        let run = try tracectl("leaks", path)
        #expect(run.status == 65)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.contains("not an SQLite database"))
    }

    @Test func truncatedTraceExits65() throws {
        let dir = try Scratch()
        let trace = dir.file("t.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: trace))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: trace))
        let run = try tracectl("leaks", trace)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func foreignSQLiteFileExits65() throws {
        let dir = try Scratch()
        let path = dir.file("foreign.sqlite")
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["python3", "-c", "import sqlite3; c = sqlite3.connect('\(path)'); c.execute('create table t(x)'); c.commit()"]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
        let run = try tracectl("leaks", path)
        #expect(run.status == 65)
        #expect(run.stderr == "tracectl: \(path): an SQLite database, but not a NotifyBus trace (no meta table)\n")
    }

    @Test func usageErrorExits64() throws {
        #expect(try tracectl("leaks").status == 64)
        #expect(try tracectl("leaks", "x.trace", "--rule", "bogus").status == 64)
        #expect(try tracectl("frobnicate").status == 64)
    }
}
