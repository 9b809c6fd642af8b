import Foundation
import NotifyBus
import Testing
import TestSupport
@testable import TraceStore

/// The example app (Examples/ExistingApp), written against Foundation's API and recorded by its one
/// typealias line: each real-world mistake is found, and its fixed twin is clean. Each pattern runs
/// in a process of its own (`RecordExistingApp --pattern`), as the leaked observers of one would
/// otherwise reach the next through Foundation's default center.
@Suite struct RecordingNotificationCenterExampleTests {
    private func record(_ pattern: String, fixed: Bool) throws -> [LeakFinding] {
        let dir = try TemporaryDirectory()
        let path = dir.file("\(pattern).trace")
        let example = Process()
        example.executableURL = productsDirectory().appendingPathComponent("RecordExistingApp")
        example.arguments = [path, "--pattern", pattern] + (fixed ? ["--fixed"] : [])
        example.standardOutput = FileHandle.nullDevice
        try example.run()
        example.waitUntilExit()
        #expect(example.terminationStatus == 0)
        return try LeakAnalyzer.analyze(TraceReader(path: path), session: 1)
    }

    private func summary(_ findings: [LeakFinding]) -> Set<String> {
        Set(findings.map { "\($0.rule.rawValue) \($0.message ?? "*") \($0.ownerType ?? "-")" })
    }

    @Test(arguments: ["helper-discards-tokens", "remove-self-by-name-on-block", "unowned-self-block",
                      "readded-after-cancelled-pop", "strong-self-capture"])
    func eachFixedTwinIsClean(pattern: String) throws {
        #expect(try record(pattern, fixed: true).isEmpty)
    }

    /// A keyboard helper discarding its block tokens: the blocks outlive it and run after it.
    @Test func aHelperThatDiscardsItsTokensIsFoundByItsType() throws {
        let found = summary(try record("helper-discards-tokens", fixed: false))
        #expect(found == [
            "observer-outlives-owner keyboardWillShow DiscardingKeyboardHelper",
            "observer-outlives-owner keyboardWillHide DiscardingKeyboardHelper",
            "delivery-after-owner-gone keyboardWillShow DiscardingKeyboardHelper",
            "delivery-after-owner-gone keyboardWillHide DiscardingKeyboardHelper",
        ])
    }

    /// `removeObserver(self, name:)` on a block: the miss, the block hearing the keyboard while
    /// its screen is covered, and the block left behind when the next one replaces its token.
    @Test func removingABlockBySelfAndNameIsAMissOnItsScreen() throws {
        let findings = try record("remove-self-by-name-on-block", fixed: false)
        let found = summary(findings)
        // One finding per faulty removal: the miss, never an `unbalanced-removal` beside it.
        #expect(found == [
            "removal-misses-observer keyboardWillShow ProfileScreen",
            "delivery-while-offscreen keyboardWillShow ProfileScreen",
            "observer-outlives-owner keyboardWillShow ProfileScreen",
            "delivery-after-owner-gone keyboardWillShow ProfileScreen",
        ])
        #expect(findings.filter { $0.rule == .removalMissesObserver }.count == 2, "one per removal: two appearances, two misses")
        let missed = try #require(findings.first { $0.rule == .removalMissesObserver })
        #expect(missed.ownerLocation?.hasSuffix("in ProfileScreen") == true)
        #expect(missed.callSite == "ExistingApp/ProfileScreen.swift:22")
    }

    /// An `[unowned self]` block "removed" by `removeObserver(self)` in `deinit`.
    @Test func anUnownedBlockRemovedBySelfInDeinitOutlivesItsScreen() throws {
        let found = summary(try record("unowned-self-block", fixed: false))
        #expect(found == [
            "removal-misses-observer didEnterBackground PlayerScreen",
            "observer-outlives-owner didEnterBackground PlayerScreen",
        ])
    }

    /// Selectors added in `viewWillAppear`, removed in `viewDidDisappear`, and a cancelled back swipe.
    @Test func aSelectorReaddedAfterACancelledPopIsADuplicate() throws {
        let findings = try record("readded-after-cancelled-pop", fixed: false)
        #expect(summary(findings) == ["duplicate-registration keyboardWillShow CheckoutScreen"])
        #expect(findings.first?.observerKind == .selector)
    }

    /// A block capturing `self` strongly: the popped screen stays, its block outlives its place
    /// in the hierarchy and keeps running.
    @Test func aStrongSelfCaptureOutlivesItsScreen() throws {
        let found = summary(try record("strong-self-capture", fixed: false))
        #expect(found == [
            "observer-outlives-owner didBecomeActive ChatScreen",
            "delivery-after-owner-gone didBecomeActive ChatScreen",
        ])
    }

    /// Without --pattern, every pattern and its fix, one session each, in one trace.
    @Test func theExampleRecordsEveryPatternIntoOneTrace() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("all.trace")
        let example = Process()
        example.executableURL = productsDirectory().appendingPathComponent("RecordExistingApp")
        example.arguments = [path]
        example.standardOutput = FileHandle.nullDevice
        try example.run()
        example.waitUntilExit()
        #expect(example.terminationStatus == 0)
        let reader = try TraceReader(path: path)
        #expect(try reader.sessions().count == 10)
        #expect(try LeakAnalyzer.analyze(reader, session: 2).isEmpty)
        #expect(try !LeakAnalyzer.analyze(reader, session: 1).isEmpty)
    }
}
