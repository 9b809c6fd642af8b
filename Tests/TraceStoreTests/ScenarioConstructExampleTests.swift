import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

/// The Examples of the scenario constructs of format v2: each bug's findings, and its fixed
/// version (the same steps) giving none.
@Suite struct ScenarioConstructExampleTests {
    @Test func aChildScreenFollowsItsParentOffScreenAndBackOn() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("child-screen-keyboard", in: dir)
        #expect(all.map(\.rule) == [.deliveryWhileOffscreen, .duplicateRegistration])
        #expect(all.allSatisfy { $0.owner == "SearchBar" && $0.message == "keyboardWillShow" })
        #expect(all[0].deliveryCount == 1, "only the show while Detail covers Feed and its child")
    }

    @Test func aCancelledSwipeBreaksDidAppearAndDidDisappearPairs() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("interactive-pop-cancel", in: dir)
        #expect(all.map(\.rule) == [.unbalancedRemoval, .duplicateRegistration, .duplicateRegistration])
        #expect(all.map(\.owner) == ["Home", "Detail", "Compose"])
        #expect(all[0].callSite == "interactive-pop-cancel.json: screens.Home.observers[0]")
    }

    @Test func didMoveToWindowComesAgainAfterAPop() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("window-moments", in: dir)
        #expect(all.map(\.rule) == [.duplicateRegistration])
        #expect(all.map(\.message) == ["orientationDidChange"])
    }

    @Test func removingThenAddingAtOneMomentKeepsOneRegistrationButNotTheOwnersRelease() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("readd-same-moment", in: dir)
        // The first removal finds nothing, but it is the defensive remove-then-add: no unbalanced-removal.
        #expect(all.map(\.rule) == [.observerOutlivesOwner, .deliveryAfterOwnerGone])
        #expect(!all.contains { $0.rule == .duplicateRegistration }, "Login appeared twice and was registered once")
    }

    @Test func aTabSwitchUnderASheetTakesTheOldTabOffScreen() throws {
        let dir = try TemporaryDirectory()
        let all = try findings("tab-switch-under-sheet", in: dir)
        #expect(all.map(\.rule) == [.deliveryWhileOffscreen])
        #expect(all[0].owner == "Home")
        #expect(all[0].deliveryCount == 1, "the show under the sheet alone is on screen")
    }

    @Test(arguments: ["child-screen-keyboard", "interactive-pop-cancel", "window-moments", "readd-same-moment",
                      "tab-switch-under-sheet"])
    func theFixedVersionGivesNoFinding(example: String) throws {
        let dir = try TemporaryDirectory()
        #expect(try findings(example + "-fixed", in: dir).isEmpty)
    }

    @Test(arguments: ["child-screen-keyboard", "interactive-pop-cancel", "window-moments", "readd-same-moment",
                      "tab-switch-under-sheet"])
    func theFixedVersionRunsTheSameSteps(example: String) throws {
        let bug = try Scenario.parse(Data(contentsOf: examplesDirectory().appendingPathComponent(example + ".json")))
        let fixed = try Scenario.parse(Data(contentsOf: examplesDirectory().appendingPathComponent(example + "-fixed.json")))
        #expect(bug.steps == fixed.steps)
        #expect(bug.root == fixed.root)
        #expect(bug.screens != fixed.screens)
    }

    @Test(arguments: ["child-screen-keyboard", "interactive-pop-cancel", "tab-switch-under-sheet"])
    func recordedConstructsReplayEqual(example: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(example + ".trace")
        let data = try Data(contentsOf: examplesDirectory().appendingPathComponent(example + ".json"))
        try ScenarioRecording.record(scenario: data, file: example + ".json", to: path)
        let report = try TraceReplayer.replayScenario(trace: path)
        #expect(report.isEqual, "\(report.diffText)")
    }
}

@Suite struct TouchExampleTests {
    /// Seed 000's touch-ignoring overlay: taps recorded with who received them.
    @Test func tapsAreRecordedWithTheScreenThatTookThem() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("touch.trace")
        let data = try Data(contentsOf: examplesDirectory().appendingPathComponent("seed000-touch-pass-through.json"))
        let summary = try ScenarioRecording.record(scenario: data, file: "seed000-touch-pass-through.json", to: path)
        let reader = try TraceReader(path: path)
        var state = TraceState()
        var touches: [String] = []
        try reader.forEachEvent(session: summary.sessionID) { event in
            state.apply(event)
            if let phase = event.phase, phase == .touchReceived || phase == .touchPassedThrough, let owner = event.owner {
                touches.append("\(state.owners[owner]?.label ?? "?") \(phase.rawValue)")
            }
            return true
        }
        #expect(touches == [
            "Overlay touchPassedThrough", "Home touchReceived",
            "Overlay touchReceived",
            "Card touchPassedThrough", "Overlay touchPassedThrough", "Home touchReceived",
            "Card touchPassedThrough", "Overlay touchPassedThrough", "Home touchReceived",
        ])
        #expect(try LeakAnalyzer.analyze(reader, session: summary.sessionID).isEmpty)
    }
}
