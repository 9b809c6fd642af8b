import Foundation
import Testing

/// `leaks --offscreen-messages` and the selector semantics in the leak report.
@Suite struct LeakReportRuleOptionTests {
    static func record(_ fixture: String, in dir: Scratch) throws -> String {
        let trace = dir.file("\(fixture).trace")
        let run = try tracectl("record", repositoryFile("Tests/Fixtures/rules/\(fixture).json").path, "-o", trace)
        #expect(run.status == 0, "\(run.stderr)")
        return trace
    }

    static func findings(_ arguments: [String]) throws -> [(rule: String, message: String, severity: String)] {
        let run = try tracectl(arguments + ["--format", "json"])
        let report = try #require(try json(run.stdout) as? [String: Any], "\(run.stderr)")
        return (report["leaks"] as? [[String: Any]] ?? []).map {
            ($0["rule"] as? String ?? "", $0["message"] as? String ?? "", $0["severity"] as? String ?? "")
        }
    }

    @Test func offscreenMessagesNarrowsAndWidensTheSet() throws {
        let dir = try Scratch()
        let trace = try Self.record("defect-covered-activity-and-keyboard", in: dir)
        let all = try Self.findings(["leaks", trace])
        #expect(all.map { "\($0.message) \($0.severity)" }.sorted() == ["didBecomeActive note", "keyboardWillShow warning"])
        let narrowed = try Self.findings(["leaks", trace, "--offscreen-messages", "default-activity"])
        #expect(narrowed.map(\.message) == ["keyboardWillShow"])
        let keyboardOnly = try Self.findings(["leaks", trace, "--offscreen-messages", "keyboard"])
        #expect(keyboardOnly.map(\.message) == ["keyboardWillShow"])
        // The notes leave the exit code with --min-severity warning: only the keyboard finding counts.
        let warning = try tracectl("leaks", trace, "--offscreen-messages", "activity", "--min-severity", "warning")
        #expect(warning.status == 0, "\(warning.stdout)")

        let sizeTrace = try Self.record("reader-discards-block-token-fixed", in: dir)
        #expect(try Self.findings(["leaks", sizeTrace]).isEmpty)
        let widened = try Self.findings(["leaks", sizeTrace, "--offscreen-messages", "default+UIContentSizeCategoryDidChangeNotification"])
        #expect(widened.isEmpty, "the Reader is visible when the size changes: nothing covered")

        let bad = try tracectl("leaks", trace, "--offscreen-messages", "keyboard+")
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("--offscreen-messages"))
    }

    @Test func theReportSaysWhichSelectorSemanticsTheSessionUsed() throws {
        let dir = try Scratch()
        let legacy = try Self.record("legacy-tone-generator-interruption", in: dir)
        let text = try tracectl("leaks", legacy)
        #expect(text.status == 1)
        #expect(text.stdout.contains("[legacy selector semantics: before iOS 9, a post to a deallocated target crashes]"))
        #expect(text.stdout.contains("trapped seq"))
        let report = try #require(try json(try tracectl("leaks", legacy, "--format", "json").stdout) as? [String: Any])
        #expect((report["summary"] as? [String: Any])?["selectorSemantics"] as? String == "legacy")

        let modern = try Self.record("legacy-tone-generator-interruption-fixed", in: dir)
        let clean = try tracectl("leaks", modern, "--format", "json")
        #expect(clean.status == 0)
        #expect(((try json(clean.stdout) as? [String: Any])?["summary"] as? [String: Any])?["selectorSemantics"] as? String == "legacy")
        let sessions = try tracectl("sql", modern, "SELECT selector_semantics FROM sessions")
        #expect(sessions.stdout.contains("legacy"))
    }

    @Test func aBadSelectorSemanticsIsRefusedNamingItsPath() throws {
        let dir = try Scratch()
        let scenario = dir.file("bad.json")
        try Data(#"{"name": "s", "selectorSemantics": "ios8", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": []}"#.utf8)
            .write(to: URL(fileURLWithPath: scenario))
        let run = try tracectl("record", scenario, "-o", dir.file("bad.trace"))
        #expect(run.status == 65)
        #expect(run.stderr == "tracectl: selectorSemantics: unknown selector semantics 'ios8' (expected one of modern, legacy)\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("bad.trace")))
    }
}
