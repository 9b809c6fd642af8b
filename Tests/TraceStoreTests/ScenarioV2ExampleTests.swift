import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

/// The format-v2 examples, each modelled on a real observer bug, recorded and
/// analysed: the bug's exact findings, and none for its fixed version.
@Suite struct ScenarioV2ExampleTests {
    struct Expected: Hashable, CustomStringConvertible {
        var rule: LeakRule
        var message: String?
        var owner: String?
        var callSite: String
        var description: String { "\(rule.rawValue) \(message ?? "*") \(owner ?? "-") @ \(callSite)" }
    }

    /// Records an example and returns its findings.
    static func findings(of name: String) throws -> [LeakFinding] {
        let dir = try TemporaryDirectory()
        let path = dir.file("\(name).trace")
        let data = try Data(contentsOf: URL(fileURLWithPath: example(name)))
        let summary = try ScenarioRecording.record(scenario: data, file: "\(name).json", to: path)
        return try LeakAnalyzer.analyze(try TraceReader(path: path), session: summary.sessionID)
    }

    static func expect(_ name: String, _ expected: [Expected]) throws {
        let found = try findings(of: name).map {
            Expected(rule: $0.rule, message: $0.message, owner: $0.owner, callSite: $0.callSite)
        }
        #expect(found.sorted(by: { $0.description < $1.description }) == expected.sorted(by: { $0.description < $1.description }),
                "\(name): \(found)")
    }

    @Test func keyboardHelperObjectLeaksItsWeakBlocks() throws {
        let site = "v2-keyboard-helper-leak.json: objects.KeyboardHelper.observers"
        try Self.expect("v2-keyboard-helper-leak", [
            Expected(rule: .observerOutlivesOwner, message: "keyboardWillShow", owner: "KeyboardHelper", callSite: "\(site)[0]"),
            Expected(rule: .observerOutlivesOwner, message: "keyboardWillHide", owner: "KeyboardHelper", callSite: "\(site)[1]"),
            Expected(rule: .deliveryAfterOwnerGone, message: "keyboardWillShow", owner: "KeyboardHelper", callSite: "\(site)[0]"),
            Expected(rule: .deliveryAfterOwnerGone, message: "keyboardWillHide", owner: "KeyboardHelper", callSite: "\(site)[1]"),
        ])
    }

    @Test func keyboardHelperFindingsSayWhereTheHelperLives() throws {
        let findings = try Self.findings(of: "v2-keyboard-helper-leak")
        #expect(!findings.isEmpty)
        #expect(findings.allSatisfy { $0.ownerLocation == "KeyboardHelper in Editor" && $0.observerKind == .block && $0.capture == .weak })
    }

    @Test func navigationBarCategoryRegistersAgainEachTimeItEntersTheWindow() throws {
        try Self.expect("v2-navigation-bar-category", [
            Expected(rule: .duplicateRegistration, message: "orientationDidChange", owner: "NavigationBar",
                     callSite: "v2-navigation-bar-category.json: objects.NavigationBar.observers[0]"),
        ])
    }

    @Test func popupWhoseStrongBlockRetainsIt() throws {
        try Self.expect("v2-popup-strong-block", [
            Expected(rule: .blockRetainsOwner, message: "PopupShouldDismiss", owner: "Popup",
                     callSite: "v2-popup-strong-block.json: objects.Popup.observers[0]"),
        ])
    }

    @Test func audioInterruptionHandlerWithUnownedCaptureTraps() throws {
        let site = "v2-audio-interruption-unowned.json: objects.AudioInterruptionHandler.observers[0]"
        let name = SystemNotification.audioInterruption
        try Self.expect("v2-audio-interruption-unowned", [
            Expected(rule: .observerOutlivesOwner, message: name, owner: "AudioInterruptionHandler", callSite: site),
            Expected(rule: .unownedCaptureAfterRelease, message: name, owner: "AudioInterruptionHandler", callSite: site),
        ])
    }

    @Test func removeObserverSelfMissesTheBlock() throws {
        let name = SystemNotification.contentSizeCategoryChange
        let file = "v2-remove-self-misses-block.json: screens.Settings"
        try Self.expect("v2-remove-self-misses-block", [
            Expected(rule: .removalMissesObserver, message: name, owner: "Settings", callSite: "\(file).removals[0]"),
            Expected(rule: .observerOutlivesOwner, message: name, owner: "Settings", callSite: "\(file).observers[0]"),
            Expected(rule: .deliveryAfterOwnerGone, message: name, owner: "Settings", callSite: "\(file).observers[0]"),
        ])
    }

    @Test func removalUnderTheWrongName() throws {
        let file = "v2-removal-wrong-name.json: screens.Login"
        try Self.expect("v2-removal-wrong-name", [
            Expected(rule: .removalMissesObserver, message: "keyboardDidShow", owner: "Login", callSite: "\(file).removals[0]"),
            Expected(rule: .deliveryWhileOffscreen, message: "keyboardWillShow", owner: "Login", callSite: "\(file).observers[0]"),
        ])
    }

    @Test func observationOverwrittenAtEachAppearance() throws {
        let name = SystemNotification.memoryWarning
        let site = "v2-token-overwritten.json: screens.Gallery.observers[0]"
        try Self.expect("v2-token-overwritten", [
            Expected(rule: .duplicateRegistration, message: name, owner: "Gallery", callSite: site),
            Expected(rule: .observerOutlivesOwner, message: name, owner: "Gallery", callSite: site),
            Expected(rule: .observerOutlivesOwner, message: name, owner: "Gallery", callSite: site),
            Expected(rule: .deliveryAfterOwnerGone, message: name, owner: "Gallery", callSite: site),
            Expected(rule: .deliveryAfterOwnerGone, message: name, owner: "Gallery", callSite: site),
        ])
    }

    @Test(arguments: ["v2-keyboard-helper-leak-fixed", "v2-navigation-bar-category-fixed", "v2-popup-strong-block-fixed",
                      "v2-audio-interruption-unowned-fixed", "v2-remove-self-misses-block-fixed", "v2-removal-wrong-name-fixed",
                      "v2-token-overwritten-fixed"])
    func fixedVersionHasNoFinding(name: String) throws {
        let findings = try Self.findings(of: name)
        #expect(findings.isEmpty, "\(findings.map { "\($0.rule.rawValue) \($0.callSite)" })")
    }

    /// Every example records the same trace twice: replaying it from its stored scenario is equal.
    static let bugs = ["v2-keyboard-helper-leak", "v2-navigation-bar-category", "v2-popup-strong-block",
                       "v2-audio-interruption-unowned", "v2-remove-self-misses-block", "v2-removal-wrong-name",
                       "v2-token-overwritten"]

    @Test(arguments: bugs + bugs.map { $0 + "-fixed" })
    func exampleReplaysEqual(name: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("\(name).trace")
        let data = try Data(contentsOf: URL(fileURLWithPath: example(name)))
        try ScenarioRecording.record(scenario: data, file: "\(name).json", to: path)
        let report = try TraceReplayer.replayScenario(trace: path)
        #expect(report.isEqual, "\(report.diffText)")
    }
}

/// Golden traces of two v2 examples: today's model must still record them event for event.
@Suite struct ScenarioV2GoldenTests {
    @Test(arguments: ["v2-keyboard-helper-leak", "v2-audio-interruption-unowned"])
    func goldenReplaysEqual(name: String) throws {
        let report = try TraceReplayer.replayScenario(trace: fixture(name))
        #expect(report.isEqual, "\(report.diffText)")
        #expect(report.expectedCount > 20)
    }

    @Test func goldenFindingsAreTheExamplesFindings() throws {
        for name in ["v2-keyboard-helper-leak", "v2-audio-interruption-unowned"] {
            let golden = try LeakAnalyzer.analyze(try TraceReader(path: fixture(name)), session: 1)
            #expect(golden.map(\.fingerprint).sorted() == (try ScenarioV2ExampleTests.findings(of: name)).map(\.fingerprint).sorted())
            #expect(!golden.isEmpty)
        }
    }
}

@Suite struct ScenarioV2FixTests {
    /// A fix changes the code, not what happens to the app: the same root and steps as its bug.
    @Test(arguments: ScenarioV2ExampleTests.bugs)
    func fixedVersionRunsTheSameSession(name: String) throws {
        let bug = try Scenario.parse(Data(contentsOf: URL(fileURLWithPath: example(name))))
        let fixed = try Scenario.parse(Data(contentsOf: URL(fileURLWithPath: example(name + "-fixed"))))
        #expect(bug.steps == fixed.steps)
        #expect(bug.root == fixed.root)
        #expect(bug.screens.keys.sorted() == fixed.screens.keys.sorted())
        #expect(bug.objects.keys.sorted() == fixed.objects.keys.sorted())
        #expect(bug != fixed)
    }
}

@Suite struct ScenarioV2DocumentationTests {
    /// Every format-v2 example is in the table of docs/SCENARIOS.md, and every example named there exists.
    @Test func docsListEveryV2Example() throws {
        let text = try String(contentsOf: repositoryFile("docs/SCENARIOS.md"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: repositoryFile("Examples").path)
            .filter { $0.hasPrefix("v2-") && $0.hasSuffix(".json") && !$0.hasSuffix("-fixed.json") }.sorted()
        #expect(files.count == 7)
        for file in files { #expect(text.contains("`\(file)`"), "\(file) is not documented") }
        let named = text.components(separatedBy: "`v2-").dropFirst().map { "v2-" + $0.prefix { $0 != "`" } }
        for file in named {
            #expect(FileManager.default.fileExists(atPath: repositoryFile("Examples/\(file)").path), "\(file) does not exist")
            let fixed = file.replacingOccurrences(of: ".json", with: "-fixed.json")
            #expect(FileManager.default.fileExists(atPath: repositoryFile("Examples/\(fixed)").path), "\(fixed) does not exist")
        }
    }
}
