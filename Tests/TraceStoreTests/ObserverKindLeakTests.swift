import Foundation
import AppModel
import NotifyBus
import ScenarioTrace
import Testing
@testable import TraceStore

/// Each observer kind × how it is removed × whether its owner lives, on plain
/// objects (no screens), with the exact findings the analysis gives.
@MainActor @Suite struct ObserverKindLeakTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case selectorModern, selectorLegacy, blockStrong, blockWeak, blockUnowned, token
        var description: String { rawValue }
    }

    enum Removal: String, CaseIterable, CustomStringConvertible {
        /// The removal that really removes it.
        case correctly
        case never
        /// The removal people write that does not reach it: by owner for a block or a
        /// token, under another name for a selector.
        case wrongWay
        var description: String { rawValue }
    }

    final class Widget: TraceLabeled, @unchecked Sendable {
        // @unchecked: touched on the test's thread only.
        var traceLabel: String { "KeyboardFrameObserver" }
        var moved = 0
        func keyboardWillShow(_ note: KeyboardWillShow) { moved += 1 }
    }

    static let show = KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: 508, width: 390, height: 336),
                                       curve: .easeInOut, duration: 0.25)

    /// Runs one case and returns its findings' rules, sorted.
    static func findings(_ kind: Kind, _ removal: Removal, ownerReleased: Bool) throws -> [String] {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let semantics: SelectorSemantics = kind == .selectorLegacy ? .legacy : .modern
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "\(kind)", selectorSemantics: semantics))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock, selectorSemantics: semantics)
        var widget: Widget? = Widget()
        let host = NSObject()
        bus.attach(widget!, to: host)
        var observation: BlockObservation?
        var token: ObservationToken?
        switch kind {
        case .selectorModern, .selectorLegacy:
            bus.addObserver(widget!, selector: "keyboardWillShow:", name: KeyboardWillShow.self,
                            action: Widget.keyboardWillShow)
        case .blockStrong, .blockWeak, .blockUnowned:
            let capture: BlockCapture = kind == .blockStrong ? .strong : kind == .blockWeak ? .weak : .unowned
            observation = bus.addObserver(forName: KeyboardWillShow.self, owner: widget!, capture: capture) { _ in }
        case .token:
            token = bus.observe(KeyboardWillShow.self, owner: widget) { _ in }
        }
        bus.post(show)
        switch (removal, kind) {
        case (.correctly, .selectorModern), (.correctly, .selectorLegacy):
            bus.removeObserver(widget!, name: KeyboardWillShow.self)
        case (.correctly, .token):
            bus.remove(token!)
        case (.correctly, _):
            bus.removeObserver(observation!)
        case (.never, _):
            break
        case (.wrongWay, .selectorModern), (.wrongWay, .selectorLegacy):
            bus.removeObserver(widget!, name: KeyboardWillHide.self)
        case (.wrongWay, _):
            bus.removeObserver(widget!)
        }
        if ownerReleased { widget = nil }
        bus.post(show)
        bus.sweepReleasedOwners()
        try recorder.close()
        withExtendedLifetime((token, observation, widget)) {}
        let reader = try TraceReader(path: path)
        return try LeakAnalyzer.analyze(reader, session: recorder.sessionID).map(\.rule.rawValue).sorted()
    }

    static let expected: [String: [String]] = [
        // Modern selectors: the center drops a released target's observer; only a removal
        // under a name never observed is a finding.
        "selectorModern correctly alive": [], "selectorModern correctly released": [],
        "selectorModern never alive": [], "selectorModern never released": [],
        "selectorModern wrongWay alive": ["removal-misses-observer"],
        "selectorModern wrongWay released": ["removal-misses-observer"],
        // Legacy selectors: a released target still registered is messaged: a crash.
        "selectorLegacy correctly alive": [], "selectorLegacy correctly released": [],
        "selectorLegacy never alive": [],
        "selectorLegacy never released": ["delivery-after-owner-gone", "observer-outlives-owner"],
        "selectorLegacy wrongWay alive": ["removal-misses-observer"],
        "selectorLegacy wrongWay released": ["delivery-after-owner-gone", "observer-outlives-owner",
                                             "removal-misses-observer"],
        // Strong blocks: the owner cannot go; the block keeps it.
        "blockStrong correctly alive": [], "blockStrong correctly released": [],
        "blockStrong never alive": [], "blockStrong never released": ["block-retains-owner"],
        "blockStrong wrongWay alive": ["removal-misses-observer"],
        "blockStrong wrongWay released": ["block-retains-owner", "removal-misses-observer"],
        // Weak blocks run after their owner, every time.
        "blockWeak correctly alive": [], "blockWeak correctly released": [],
        "blockWeak never alive": [],
        "blockWeak never released": ["delivery-after-owner-gone", "observer-outlives-owner"],
        "blockWeak wrongWay alive": ["removal-misses-observer"],
        "blockWeak wrongWay released": ["delivery-after-owner-gone", "observer-outlives-owner",
                                        "removal-misses-observer"],
        // Unowned blocks trap at the first run after their owner.
        "blockUnowned correctly alive": [], "blockUnowned correctly released": [],
        "blockUnowned never alive": [],
        "blockUnowned never released": ["observer-outlives-owner", "unowned-capture-after-release"],
        "blockUnowned wrongWay alive": ["removal-misses-observer"],
        "blockUnowned wrongWay released": ["observer-outlives-owner", "removal-misses-observer",
                                           "unowned-capture-after-release"],
        // Typed tokens: the bus skips and removes a gone owner's observer, and says so.
        "token correctly alive": [], "token correctly released": [],
        "token never alive": [], "token never released": ["delivery-after-owner-gone", "observer-outlives-owner"],
        "token wrongWay alive": ["removal-misses-observer"],
        "token wrongWay released": ["delivery-after-owner-gone", "observer-outlives-owner", "removal-misses-observer"],
    ]

    @Test(arguments: Kind.allCases, Removal.allCases)
    func findingsMatchHowTheKindReallyBehaves(kind: Kind, removal: Removal) throws {
        for released in [false, true] {
            let name = "\(kind) \(removal) \(released ? "released" : "alive")"
            let rules = try Self.findings(kind, removal, ownerReleased: released)
            #expect(rules == Self.expected[name], "\(name)")
        }
    }

    @Test func aFindingNamesTheObjectAndWhereItLives() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "attached"))
        let bus = Bus(sink: recorder)
        final class Editor: TraceLabeled { var traceLabel: String { "AztecEditor" } }
        let editor = Editor()
        var widget: Widget? = Widget()
        bus.attach(widget!, to: editor)
        let observation = bus.addObserver(forName: KeyboardWillShow.self, owner: widget!, capture: .weak) { _ in }
        widget = nil
        bus.post(Self.show)
        try recorder.close()
        let findings = try LeakAnalyzer.analyze(try TraceReader(path: path), session: recorder.sessionID)
        let outlives = try #require(findings.first { $0.rule == .observerOutlivesOwner })
        #expect(outlives.ownerLocation == "KeyboardFrameObserver in AztecEditor")
        #expect(outlives.observerKind == .block)
        #expect(outlives.capture == .weak)
        _ = observation
    }

    @Test func aSkippedDeliveryMarksAPlainOwnerGoneInAVersionOneTrace() throws {
        // Version-1 traces have no release events; a skip alone says the owner was deallocated.
        let findings = try LeakAnalyzer.analyze(try TraceReader(path: fixture("v1/seed000-keyboard-leak")), session: 1)
        #expect(findings.map(\.rule.rawValue).sorted() == [
            "delivery-after-owner-gone", "observer-outlives-owner", "observer-outlives-owner",
            "unbalanced-removal", "unbalanced-removal",
        ])
    }
}

/// The revised rules' false positives: what must not be reported.
@MainActor @Suite struct LeakRuleBoundaryTests {
    static func analyze(_ body: (Bus) -> Void) throws -> [LeakFinding] {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "rules"))
        let bus = Bus(sink: recorder)
        body(bus)
        bus.sweepReleasedOwners()
        try recorder.close()
        return try LeakAnalyzer.analyze(try TraceReader(path: path), session: recorder.sessionID)
    }

    final class Screen: TraceLabeled {
        var traceLabel: String { "Conversation" }
        func keyboardChanged(_ note: KeyboardWillShow) {}
        func frameChanged(_ note: KeyboardWillChangeFrame) {}
    }

    @Test func sameMessageTwiceIsADuplicateWhateverTheCallSites() throws {
        let screen = Screen()
        var tokens: [ObservationToken] = []
        let findings = try Self.analyze { bus in
            tokens.append(bus.observe(KeyboardWillShow.self, owner: screen) { _ in })
            tokens.append(bus.observe(KeyboardWillShow.self, owner: screen) { _ in })
        }
        #expect(findings.map(\.rule) == [.duplicateRegistration])
        _ = tokens
    }

    @Test func sameMessageFromTwoSendersOrAfterARemovalIsNoDuplicate() throws {
        let screen = Screen(), a = Screen(), b = Screen()
        var tokens: [ObservationToken] = []
        let findings = try Self.analyze { bus in
            tokens.append(bus.observe(KeyboardWillShow.self, sender: a, owner: screen) { _ in })
            tokens.append(bus.observe(KeyboardWillShow.self, sender: b, owner: screen) { _ in })
            let again = bus.observe(KeyboardDidShow.self, owner: screen) { _ in }
            bus.remove(again)
            tokens.append(bus.observe(KeyboardDidShow.self, owner: screen) { _ in })
        }
        #expect(findings.isEmpty)
        _ = tokens
    }

    @Test func oneSelectorForTwoMessagesOneActionPostsTogetherIsADuplicate() throws {
        let screen = Screen()
        let findings = try Self.analyze { bus in
            bus.addObserver(screen, selector: "keyboardChanged:", name: KeyboardWillShow.self, action: Screen.keyboardChanged)
            bus.addObserver(screen, selector: "keyboardChanged:", name: KeyboardWillChangeFrame.self) { screen in
                { _ in screen.keyboardChanged(KeyboardWillShow(beginFrame: .zero, endFrame: .zero, curve: .linear,
                                                                duration: 0)) }
            }
        }
        #expect(findings.map(\.rule) == [.duplicateRegistration])
    }

    @Test func twoSelectorsForMessagesPostedTogetherAreNoDuplicate() throws {
        let screen = Screen()
        let findings = try Self.analyze { bus in
            bus.addObserver(screen, selector: "keyboardChanged:", name: KeyboardWillShow.self, action: Screen.keyboardChanged)
            bus.addObserver(screen, selector: "frameChanged:", name: KeyboardWillChangeFrame.self, action: Screen.frameChanged)
        }
        #expect(findings.isEmpty)
    }

    @Test func aWeakBlockRemovedByItsTokenIsNoFinding() throws {
        var screen: Screen? = Screen()
        let findings = try Self.analyze { bus in
            let observation = bus.addObserver(forName: DidBecomeActive.self, owner: screen!, capture: .weak) { _ in }
            bus.removeObserver(observation)
            screen = nil
            bus.post(DidBecomeActive())
        }
        #expect(findings.isEmpty)
    }

    @Test func removeObserverSelfWithNothingRegisteredIsNoFinding() throws {
        let screen = Screen()
        let findings = try Self.analyze { bus in bus.removeObserver(screen) }
        #expect(findings.isEmpty)
    }

    /// `removeObserver(self, name:)` right before adding that name: the defensive re-add that keeps
    /// one registration, correct code, no finding.
    @Test func removingANameRightBeforeAddingItIsNoFinding() throws {
        let screen = Screen()
        let findings = try Self.analyze { bus in
            bus.removeObserver(screen, name: KeyboardWillShow.self)
            bus.addObserver(screen, selector: "keyboardChanged:", name: KeyboardWillShow.self, action: Screen.keyboardChanged)
            bus.removeObserver(screen, name: KeyboardWillShow.self)
        }
        #expect(findings.isEmpty)
    }

    /// With a post between, the removal was not part of a re-add: it removed nothing, and is only unbalanced.
    @Test func removingANameLongBeforeAddingItIsOnlyUnbalanced() throws {
        let screen = Screen()
        let findings = try Self.analyze { bus in
            bus.removeObserver(screen, name: KeyboardWillShow.self)
            bus.post(DidBecomeActive())
            bus.addObserver(screen, selector: "keyboardChanged:", name: KeyboardWillShow.self, action: Screen.keyboardChanged)
            bus.removeObserver(screen, name: KeyboardWillShow.self)
        }
        #expect(findings.map(\.rule) == [.unbalancedRemoval])
    }
}

/// Fingerprints must not depend on how much came before (issue 13: caches of 16,384
/// removed observers and 4,096 posts used to decide them).
@MainActor @Suite struct FingerprintStabilityTests {
    static func unbalancedFingerprint(removedBefore: Int, postsBefore: Int) throws -> String {
        let findings = try LeakRuleBoundaryTests.analyze { bus in
            let screen = LeakRuleBoundaryTests.Screen()
            let first = bus.observe(KeyboardWillShow.self, owner: screen) { _ in }
            bus.remove(first)
            for _ in 0..<removedBefore { bus.remove(bus.observe(Ping.self) { _ in }) }
            for n in 0..<postsBefore { bus.post(Ping(n: n)) }
            bus.remove(first)
        }
        let finding = try #require(findings.first { $0.rule == .unbalancedRemoval })
        #expect(finding.message == KeyboardWillShow.name)
        #expect(finding.ownerType == "Screen")
        return finding.fingerprint
    }

    @Test func anUnbalancedRemovalHasTheSameFingerprintAfterManyRemovalsAndPosts() throws {
        let short = try Self.unbalancedFingerprint(removedBefore: 0, postsBefore: 0)
        let long = try Self.unbalancedFingerprint(removedBefore: 17_000, postsBefore: 5_000)
        #expect(short == long)
    }
}

/// Issue 10's second misfire: a screen covered by another keeps reacting to the app
/// going to the background and coming back.
@Suite struct CoveredScreenActivityTests {
    static func findings(addOn: String, removeOn: String) throws -> [LeakFinding] {
        let scenario = """
            {"name": "conversation", "screens": {
               "Conversation": {"observers": [
                 {"message": "didEnterBackground", "addOn": "\(addOn)", "removeOn": "\(removeOn)"},
                 {"message": "willEnterForeground", "addOn": "\(addOn)", "removeOn": "\(removeOn)"}]},
               "Profile": {"observers": []}},
             "root": {"navigation": "Conversation"},
             "steps": [{"push": "Profile"}, {"background": {}}, {"foreground": {}}, {"pop": {}}, {"background": {}}]}
            """
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let summary = try ScenarioRecording.record(scenario: Data(scenario.utf8), file: "c.json", to: path)
        return try LeakAnalyzer.analyze(try TraceReader(path: path), session: summary.sessionID)
    }

    @Test func aCoveredScreenReactingToActivityIsReported() throws {
        let found = try Self.findings(addOn: "viewDidLoad", removeOn: "deinit")
        #expect(found.map(\.rule) == [.deliveryWhileOffscreen, .deliveryWhileOffscreen])
        #expect(Set(found.compactMap(\.message)) == ["didEnterBackground", "willEnterForeground"])
        #expect(found.allSatisfy { $0.owner == "Conversation" })
    }

    @Test func theFixedScreenThatStopsObservingWhenCoveredIsNot() throws {
        let found = try Self.findings(addOn: "viewWillAppear", removeOn: "viewWillDisappear")
        #expect(found.isEmpty)
    }
}

/// `deinit { bus.removeObserver(self) }` written in Swift, as Foundation code does it: the removal
/// runs while the owner deinitializes (the session's owner registry still knows it).
@MainActor @Suite struct DeinitRemovalLeakTests {
    final class Settings: TraceLabeled, @unchecked Sendable {
        // @unchecked: touched on the test's thread only.
        var traceLabel: String { "Settings" }
        let bus: Bus
        var observation: BlockObservation?
        init(bus: Bus) {
            self.bus = bus
            bus.addObserver(self, selector: "keyboardWillShow:", name: KeyboardWillShow.self, action: Settings.keyboardWillShow)
            observation = bus.addObserver(forName: KeyboardWillHide.self, owner: self, capture: .weak) { _ in }
        }
        func keyboardWillShow(_ note: KeyboardWillShow) {}
        deinit { bus.removeObserver(self) }
    }

    static func findings(_ semantics: SelectorSemantics) throws -> [LeakFinding] {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "deinit", selectorSemantics: semantics))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock, selectorSemantics: semantics)
        var settings: Settings? = Settings(bus: bus)
        bus.post(ObserverKindLeakTests.show)
        _ = settings
        settings = nil
        bus.post(ObserverKindLeakTests.show)
        bus.post(KeyboardWillHide(beginFrame: .zero, endFrame: .zero, curve: .easeInOut, duration: 0.25))
        bus.sweepReleasedOwners()
        try recorder.close()
        return try LeakAnalyzer.analyze(try TraceReader(path: path), session: recorder.sessionID)
    }

    @Test(arguments: SelectorSemantics.allCases)
    func removeSelfInDeinitRemovesTheSelectorAndReportsTheBlockOnce(semantics: SelectorSemantics) throws {
        let findings = try Self.findings(semantics)
        #expect(findings.map(\.rule.rawValue).sorted() == [
            "delivery-after-owner-gone", "observer-outlives-owner", "removal-misses-observer",
        ], "\(semantics): \(findings.map { "\($0.rule.rawValue) \($0.message ?? "*")" })")
        #expect(findings.allSatisfy { $0.message == KeyboardWillHide.name })
        #expect(!findings.contains { $0.deliveriesAfter.contains { $0.outcome == .trapped } })
    }
}
