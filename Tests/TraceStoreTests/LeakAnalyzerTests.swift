import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

/// The repository's Examples folder.
func examplesDirectory() -> URL { repositoryFile("Examples") }

/// Records an example scenario into a trace in `dir` and returns the findings.
func findings(_ example: String, in dir: TemporaryDirectory) throws -> [LeakFinding] {
    let path = dir.file(example + ".trace")
    let data = try Data(contentsOf: examplesDirectory().appendingPathComponent(example + ".json"))
    let summary = try ScenarioRecording.record(scenario: data, file: example + ".json", to: path)
    return try LeakAnalyzer.analyze(try TraceReader(path: path), session: summary.sessionID)
}

@Suite struct LeakAnalyzerTests {
    @Test func seed000PopLeakIsFoundWithItsCallSiteAndDeliveries() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("seed000-keyboard-leak", in: dir)
        let outlives = all.filter { $0.rule == .observerOutlivesOwner }
        #expect(outlives.map(\.message) == ["keyboardWillShow", "keyboardWillHide"])
        #expect(outlives.map(\.callSite) == [
            "seed000-keyboard-leak.json: screens.Login.observers[0]",
            "seed000-keyboard-leak.json: screens.Login.observers[1]",
        ])
        #expect(outlives.allSatisfy { $0.owner == "Login" && $0.ownerReleased == true && $0.ownerGoneAt != nil })
        let after = try #require(all.first { $0.rule == .deliveryAfterOwnerGone })
        #expect(after.message == "keyboardWillShow")
        #expect(after.deliveriesAfter.map(\.outcome) == [.skipped])
        #expect(after.deliveryCount == 1)
        #expect(after.seq > after.ownerGoneAt!)
        // Seed 000 removes on resign-active what it only added on become-active.
        #expect(all.filter { $0.rule == .unbalancedRemoval }.map(\.message) == ["keyboardWillShow", "keyboardWillHide"])
        #expect(all.count == 5)
    }

    @Test func seed004TimingYieldsNoFinding() throws {
        let dir = try TemporaryDirectory()
        #expect(try findings("seed004-keyboard-timing", in: dir).isEmpty)
    }

    @Test(arguments: ["seed000-activity-observers", "seed002-main-scan-action", "seed003-orientation"])
    func balancedExamplesYieldNoFinding(example: String) throws {
        let dir = try TemporaryDirectory()
        #expect(try findings(example, in: dir).isEmpty)
    }

    @Test func keyboardDeliveredUnderAFullScreenModalIsOffscreenButNotUnderASheet() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("pagesheet-keyboard", in: dir)
        #expect(all.map(\.rule) == [.deliveryWhileOffscreen])
        let finding = all[0]
        #expect(finding.owner == "Home")
        #expect(finding.message == "keyboardWillShow")
        #expect(finding.deliveryCount == 1, "only the show under the full-screen modal; the sheet's show is on screen")
    }

    @Test func retainedScreenOutlivesWithoutRelease() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("custom-transition", in: dir)
        let outlives = try #require(all.first { $0.rule == .observerOutlivesOwner })
        #expect(outlives.owner == "Photo")
        #expect(outlives.ownerReleased == false)
        let deliveries = try #require(all.first { $0.rule == .deliveryAfterOwnerGone })
        #expect(deliveries.deliveriesAfter.map(\.outcome) == [.delivered])
    }

    @Test func duplicateRegistrationIsFound() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("dup.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "dup"))
        let bus = Bus(sink: recorder)
        let screen = Owner("Login")
        var tokens: [ObservationToken] = []
        for _ in 0..<2 { tokens.append(bus.observe(Ping.self, owner: screen) { _ in }) }
        bus.post(Ping(n: 1))
        try recorder.close()
        let all = try LeakAnalyzer.analyze(try TraceReader(path: path), session: recorder.sessionID)
        #expect(all.map(\.rule) == [.duplicateRegistration])
        #expect(all[0].callSite.hasPrefix("TraceStoreTests/LeakAnalyzerTests.swift:"))
        _ = tokens
    }

    @Test func fingerprintIsStableAndSeparatesRules() {
        let a = LeakFinding.fingerprint(rule: .observerOutlivesOwner, message: "keyboardWillShow", ownerType: "LoginViewController", callSite: "x.json: screens.Login.observers[0]")
        #expect(a == LeakFinding.fingerprint(rule: .observerOutlivesOwner, message: "keyboardWillShow", ownerType: "LoginViewController", callSite: "x.json: screens.Login.observers[0]"))
        #expect(a.count == 16)
        #expect(a != LeakFinding.fingerprint(rule: .deliveryAfterOwnerGone, message: "keyboardWillShow", ownerType: "LoginViewController", callSite: "x.json: screens.Login.observers[0]"))
    }

    @Test func failedRecordingLeavesNoTrace() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bad.trace")
        let json = #"{"name": "s", "screens": {"Home": {"observers": []}}, "root": {"navigation": "Home"}, "steps": [{"pop": {}}]}"#
        #expect(throws: NotifyBusError("nothing to pop", path: "steps[0].pop")) {
            try ScenarioRecording.record(scenario: Data(json.utf8), file: "bad.json", to: path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
