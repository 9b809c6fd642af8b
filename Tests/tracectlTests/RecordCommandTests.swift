import Foundation
import Testing

@Suite struct RecordCommandTests {
    @Test func invalidScenarioExits65NamingThePathAndLeavesNoTrace() throws {
        let dir = try Scratch()
        let scenario = dir.file("bad.json")
        try #"""
        {"name": "bad", "screens": {"Home": {"observers": []}, "Login": {"observers": []}},
         "root": {"navigation": "Home"},
         "steps": [{"push": "Login"}, {"pop": {}}, {"keyboard": "show"}, {"pop": {}}]}
        """#.write(toFile: scenario, atomically: true, encoding: .utf8)
        let trace = dir.file("bad.trace")
        let run = try tracectl("record", scenario, "-o", trace)
        #expect(run.status == 65)
        #expect(run.stderr == "tracectl: steps[3].pop: nothing to pop\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.json"])
    }

    @Test func unknownKeyAndNameAreReportedByPath() throws {
        let dir = try Scratch()
        let scenario = dir.file("typo.json")
        try #"{"name": "t", "screens": {"Home": {"observers": [{"message": "keyboardWillShow", "addOn": "viewDidApear", "removeOn": "never"}]}}, "root": {"screen": "Home"}, "steps": []}"#
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try tracectl("record", scenario, "-o", dir.file("t.trace"))
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("tracectl: screens.Home.observers[0].addOn: unknown moment 'viewDidApear'"))
        try "{ not json".write(toFile: scenario, atomically: true, encoding: .utf8)
        let broken = try tracectl("record", scenario, "-o", dir.file("t.trace"))
        #expect(broken.status == 65)
        #expect(broken.stderr.hasPrefix("tracectl: invalid JSON"))
        #expect(broken.stderr.split(separator: "\n").count == 1)
    }

    @Test func missingScenarioExits66() throws {
        let run = try tracectl("record", "/nonexistent.json", "-o", "/tmp/never.trace")
        #expect(run.status == 66)
    }

    @Test func recordReplacesAnExistingTraceAndDefaultsTheOutputName() throws {
        let dir = try Scratch()
        #expect(try tracectl("record", example("seed003-orientation"), in: dir.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: dir.file("seed003-orientation.trace")))
        // Without --replace, a second recording adds a session (OutputPathTests.recordAppendsToAnExistingTraceUnlessReplace).
        #expect(try tracectl("record", example("seed003-orientation"), "--replace", in: dir.path).status == 0)
        let sessions = try #require(try json(try tracectl("sessions", dir.file("seed003-orientation.trace"), "--format", "json").stdout) as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions[0]["endedCleanly"] as? Bool == true)
        #expect(sessions[0]["hasScenario"] as? Bool == true)
    }
}

@Suite struct RecordNumberLimitTests {
    @Test func aHugeWaitExits65NamingThePathAndLeavesNoTrace() throws {
        let dir = try Scratch()
        let scenario = dir.file("huge.json")
        try #"{"name": "huge", "screens": {"Home": {"observers": []}}, "root": {"screen": "Home"}, "steps": [{"wait": 2e10}]}"#
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try tracectl("record", scenario, "-o", dir.file("huge.trace"))
        #expect(run.status == 65)
        #expect(run.stderr == "tracectl: steps[0].wait: must be at most 1000000 seconds\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["huge.json"])
    }
}
