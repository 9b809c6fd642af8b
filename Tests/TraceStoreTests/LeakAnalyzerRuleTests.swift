import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import TestSupport
import Testing
@testable import TraceStore

/// Records a scenario of `Tests/Fixtures/rules` and returns its findings and the session.
func ruleFixtureFindings(_ name: String) throws -> (findings: [LeakFinding], session: SessionSummary) {
    let dir = try TemporaryDirectory()
    let path = dir.file("\(name).trace")
    let data = try Data(contentsOf: repositoryFile("Tests/Fixtures/rules/\(name).json"))
    let summary = try ScenarioRecording.record(scenario: data, file: "\(name).json", to: path)
    let reader = try TraceReader(path: path)
    return (try LeakAnalyzer.analyze(reader, session: summary.sessionID), try reader.session(summary.sessionID))
}

/// A finding as the tests write it: `rule message owner @ path into the scenario`.
func described(_ finding: LeakFinding) -> String {
    let path = finding.callSite.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? finding.callSite
    return "\(finding.rule.rawValue) \(finding.message ?? "*") \(finding.owner ?? "-") @ \(path)"
}

/// The rule defects of issue 22 §2, each reproduced as a scenario with its exact findings.
@Suite struct LeakAnalyzerRuleTests {
    static func expect(_ name: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try ruleFixtureFindings(name).findings.map(described).sorted()
        #expect(found == expected.sorted(), "\(name)", sourceLocation: sourceLocation)
    }

    @Test func removeSelfThatAlsoRemovedASelectorStillReportsEachBlockItMissed() throws {
        try Self.expect("defect-remove-self-selector-and-blocks", [
            "removal-misses-observer UIContentSizeCategoryDidChangeNotification Settings @ screens.Settings.removals[0]",
            "removal-misses-observer keyboardWillHide Settings @ screens.Settings.removals[0]",
            "observer-outlives-owner UIContentSizeCategoryDidChangeNotification Settings @ screens.Settings.observers[1]",
            "observer-outlives-owner keyboardWillHide Settings @ screens.Settings.observers[2]",
            "delivery-after-owner-gone UIContentSizeCategoryDidChangeNotification Settings @ screens.Settings.observers[1]",
        ])
    }

    @Test func aRemovalByNameThatMissesABlockIsOneFindingSayingWhatItMissed() throws {
        try Self.expect("defect-remove-by-name-misses-block", [
            "removal-misses-observer keyboardWillShow Login @ screens.Login.removals[0]",
            "delivery-while-offscreen keyboardWillShow Login @ screens.Login.observers[0]",
        ])
        let missed = try #require(try ruleFixtureFindings("defect-remove-by-name-misses-block").findings
            .first { $0.rule == .removalMissesObserver })
        #expect(missed.observer != nil && missed.observerKind == .block)
    }

    @Test func aTokenDroppedWithItsOwnerIsNotReleasedUnheard() throws {
        try Self.expect("defect-token-dropped-with-owner", [])
    }

    @Test func aHelperAliveAfterItsScreenIsReportedLikeARetainedScreen() throws {
        try Self.expect("defect-text-view-kept-by-cache", [
            "observer-outlives-owner keyboardWillShow TextView @ objects.TextView.observers[0]",
            "delivery-after-owner-gone keyboardWillShow TextView @ objects.TextView.observers[0]",
        ])
        try Self.expect("defect-retained-editor-screen", [
            "observer-outlives-owner keyboardWillShow Editor @ screens.Editor.observers[0]",
            "delivery-after-owner-gone keyboardWillShow Editor @ screens.Editor.observers[0]",
        ])
        let helper = try ruleFixtureFindings("defect-text-view-kept-by-cache").findings
        let outlives = try #require(helper.first { $0.rule == .observerOutlivesOwner })
        #expect(outlives.ownerReleased == false && outlives.ownerGoneAt != nil)
        #expect(outlives.ownerLocation == "TextView in Editor")
    }

    @Test func activityMessagesToACoveredScreenAreOneSeverityBelowKeyboardOnes() throws {
        let findings = try ruleFixtureFindings("defect-covered-activity-and-keyboard").findings
        let severities = Dictionary(uniqueKeysWithValues: findings.map { ($0.message ?? "*", $0.severity) })
        #expect(findings.allSatisfy { $0.rule == .deliveryWhileOffscreen })
        #expect(severities == ["didBecomeActive": .note, "keyboardWillShow": .warning])
        #expect(FindingGroup.groups(of: findings).map(\.severity).sorted() == [.note, .warning])
    }

    @Test func theOffscreenMessageSetNarrowsAndWidens() throws {
        let defaults = LeakAnalyzer.defaultOffscreenMessages
        #expect(try LeakAnalyzer.offscreenMessages("-activity") == defaults.subtracting(LeakRuleDefinition.activityMessages))
        #expect(try LeakAnalyzer.offscreenMessages("keyboard") == MessageCatalog.keyboardNames)
        #expect(try LeakAnalyzer.offscreenMessages("+UIContentSizeCategoryDidChangeNotification,-orientationDidChange")
                == defaults.union(["UIContentSizeCategoryDidChangeNotification"]).subtracting(["orientationDidChange"]))
        #expect(throws: TraceStoreError.self) { try LeakAnalyzer.offscreenMessages("") }
        #expect(throws: TraceStoreError.self) { try LeakAnalyzer.offscreenMessages("keyboard,+activity") }
    }

    @Test func legacySelectorSemanticsAreRecordedAndTurnAReleasedTargetsPostIntoACrash() throws {
        let (findings, session) = try ruleFixtureFindings("legacy-tone-generator-interruption")
        #expect(session.selectorSemantics == .legacy)
        let after = try #require(findings.first { $0.rule == .deliveryAfterOwnerGone })
        #expect(after.deliveriesAfter.map(\.outcome) == [.trapped])
        // The same scenario under modern semantics: the center drops the observer, no finding.
        var json = try String(contentsOf: repositoryFile("Tests/Fixtures/rules/legacy-tone-generator-interruption.json"), encoding: .utf8)
        json = json.replacingOccurrences(of: "\"legacy\"", with: "\"modern\"")
        let dir = try TemporaryDirectory()
        let summary = try ScenarioRecording.record(scenario: Data(json.utf8), file: "modern.json", to: dir.file("m.trace"))
        let reader = try TraceReader(path: dir.file("m.trace"))
        #expect(try reader.session(summary.sessionID).selectorSemantics == .modern)
        #expect(try LeakAnalyzer.analyze(reader, session: summary.sessionID).isEmpty)
    }

    @Test func aLegacyScenarioReplaysEqual() throws {
        let dir = try TemporaryDirectory()
        let data = try Data(contentsOf: repositoryFile("Tests/Fixtures/rules/legacy-dialog-removes-show-twice.json"))
        try ScenarioRecording.record(scenario: data, file: "legacy.json", to: dir.file("l.trace"))
        try TraceAssert.replaysScenario(dir.file("l.trace"))
    }
}

/// Public observer bug reports, each written (in our words) as a scenario with its fix twin in
/// `Tests/Fixtures/rules` (README.md there cites each report): the bug's exact findings, none on the fix.
@Suite struct LeakAnalyzerRealBugTests {
    static let bugs: [String: [String]] = [
        "legacy-tone-generator-interruption": [
            "observer-outlives-owner AVAudioSessionInterruptionNotification ToneGenerator @ objects.ToneGenerator.observers[0]",
            "delivery-after-owner-gone AVAudioSessionInterruptionNotification ToneGenerator @ objects.ToneGenerator.observers[0]",
        ],
        "legacy-analytics-instance-destroyed": [
            "observer-outlives-owner didEnterBackground Analytics @ objects.Analytics.observers[0]",
            "observer-outlives-owner willEnterForeground Analytics @ objects.Analytics.observers[1]",
            "delivery-after-owner-gone didEnterBackground Analytics @ objects.Analytics.observers[0]",
            "delivery-after-owner-gone willEnterForeground Analytics @ objects.Analytics.observers[1]",
        ],
        "legacy-volume-handler-in-subview": [
            "observer-outlives-owner AVAudioSessionInterruptionNotification VolumeButtonHandler @ objects.VolumeButtonHandler.observers[0]",
            "delivery-after-owner-gone AVAudioSessionInterruptionNotification VolumeButtonHandler @ objects.VolumeButtonHandler.observers[0]",
        ],
        "legacy-dialog-removes-show-twice": [
            "unbalanced-removal keyboardWillShow Dialog @ screens.Dialog.removals[1]",
            "observer-outlives-owner keyboardWillHide Dialog @ screens.Dialog.observers[1]",
            "delivery-after-owner-gone keyboardWillHide Dialog @ screens.Dialog.observers[1]",
        ],
        "drop-view-remove-self-misses-blocks": [
            "removal-misses-observer orientationDidChange DropView @ objects.DropView.removals[0]",
            "removal-misses-observer keyboardWillChangeFrame DropView @ objects.DropView.removals[0]",
            "observer-outlives-owner orientationDidChange DropView @ objects.DropView.observers[0]",
            "observer-outlives-owner keyboardWillChangeFrame DropView @ objects.DropView.observers[1]",
            "delivery-after-owner-gone orientationDidChange DropView @ objects.DropView.observers[0]",
        ],
        "calendar-strong-blocks-never-stored": [
            "block-retains-owner didBecomeActive Calendar @ screens.Calendar.observers[0]",
            "block-retains-owner UIContentSizeCategoryDidChangeNotification Calendar @ screens.Calendar.observers[1]",
            "observer-outlives-owner didBecomeActive Calendar @ screens.Calendar.observers[0]",
            "observer-outlives-owner UIContentSizeCategoryDidChangeNotification Calendar @ screens.Calendar.observers[1]",
            "delivery-after-owner-gone UIContentSizeCategoryDidChangeNotification Calendar @ screens.Calendar.observers[1]",
        ],
        "cloud-defaults-removes-wrong-object": [
            "removal-misses-observer NSUbiquitousKeyValueStoreDidChangeExternally CloudDefaults @ objects.CloudDefaults.removals[0]",
        ],
        "form-cancelled-dismiss-adds-twice": [
            "duplicate-registration keyboardWillShow Form @ screens.Form.observers[0]",
            "duplicate-registration keyboardWillHide Form @ screens.Form.observers[1]",
        ],
        "conversation-list-adds-on-appear": [
            "duplicate-registration AuthenticationStateChanged ConversationList @ screens.ConversationList.observers[0]",
        ],
        "popup-bar-unowned-keyboard": [
            "observer-outlives-owner keyboardWillShow PopupBarController @ objects.PopupBarController.observers[0]",
            "unowned-capture-after-release keyboardWillShow PopupBarController @ objects.PopupBarController.observers[0]",
        ],
        "covered-conversation-marks-read": [
            "delivery-while-offscreen willEnterForeground Messages @ screens.Messages.observers[0]",
            "delivery-while-offscreen didEnterBackground Messages @ screens.Messages.observers[1]",
        ],
        "reader-discards-block-token": [
            "observer-outlives-owner UIContentSizeCategoryDidChangeNotification Reader @ screens.Reader.observers[0]",
            "delivery-after-owner-gone UIContentSizeCategoryDidChangeNotification Reader @ screens.Reader.observers[0]",
        ],
        "composer-removes-twice": [
            "unbalanced-removal keyboardWillShow Composer @ screens.Composer.removals[0]",
        ],
        "keyboard-helper-added-per-appear": [
            "duplicate-registration keyboardWillShow KeyboardAvoider @ objects.KeyboardAvoider.observers[0]",
        ],
    ]

    @Test(arguments: bugs.keys.sorted())
    func theBugIsReportedExactlyAndItsFixIsClean(name: String) throws {
        let found = try ruleFixtureFindings(name).findings.map(described).sorted()
        #expect(found == Self.bugs[name]!.sorted(), "\(name)")
        let fixed = try ruleFixtureFindings(name + "-fixed").findings.map(described)
        #expect(fixed.isEmpty, "\(name)-fixed: \(fixed)")
    }

    @Test func everyFixtureHasItsTwinAndAnExpectation() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: repositoryFile("Tests/Fixtures/rules").path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
        let bugs = Set(names.filter { !$0.hasSuffix("-fixed") && !$0.hasPrefix("defect-") })
        #expect(bugs == Set(Self.bugs.keys))
        for bug in bugs { #expect(names.contains(bug + "-fixed"), "\(bug)") }
    }
}
