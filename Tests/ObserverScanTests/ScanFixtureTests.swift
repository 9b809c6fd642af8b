import Foundation
import ObserverScan
import Testing
import TestSupport
import TraceStore

/// The folder of the scan fixtures.
let fixtures = repositoryFile("Tests/Fixtures/scan").path

/// Scans fixture files (relative to the fixtures folder) and returns `rule file:line` per finding.
func scanFindings(_ paths: [String], target: String? = nil) throws -> [String] {
    let report = try ObserverScan.scan(ScanOptions(paths: paths.map { fixtures + "/" + $0 }, sourceRoot: fixtures,
                                                   deploymentTarget: target))
    return report.findings.map { "\($0.rule.rawValue) \($0.location)" }
}

/// Each pattern's fixture gives exactly its findings; its fixed twin gives none, and no note.
@Suite struct ScanFixtureTests {
    @Test func addInWillAppearRemoveInDidDisappearIsAddedTwiceByACancelledInteractivePop() throws {
        #expect(try scanFindings(["appear-disappear-pairing.swift"]) == [
            "duplicate-registration appear-disappear-pairing.swift:8",
        ])
        #expect(try scanFindings(["appear-disappear-pairing-fixed.swift"]) == [])
    }

    @Test func aDiscardedBlockTokenOutlivesItsScreen() throws {
        #expect(try scanFindings(["discarded-block-token.swift"]) == [
            "delivery-after-owner-gone discarded-block-token.swift:8",
            "observer-outlives-owner discarded-block-token.swift:8",
        ])
        #expect(try scanFindings(["discarded-block-token-fixed.swift"]) == [])
    }

    @Test func removeObserverSelfInDeinitMissesABlockObserver() throws {
        #expect(try scanFindings(["remove-self-misses-block.swift"]) == [
            "delivery-after-owner-gone remove-self-misses-block.swift:9",
            "observer-outlives-owner remove-self-misses-block.swift:9",
            "removal-misses-observer remove-self-misses-block.swift:17",
        ])
        #expect(try scanFindings(["remove-self-misses-block-fixed.swift"]) == [])
    }

    @Test func anUnownedBlockInAHelperRunsAfterTheHelperIsReleased() throws {
        #expect(try scanFindings(["unowned-block-in-helper.swift"]) == [
            "observer-outlives-owner unowned-block-in-helper.swift:11",
            "unowned-capture-after-release unowned-block-in-helper.swift:11",
        ])
        #expect(try scanFindings(["unowned-block-in-helper-fixed.swift"]) == [])
    }

    @Test func aStrongSelfBlockKeepsThePopupAlive() throws {
        #expect(try scanFindings(["strong-self-block.swift"]) == [
            "block-retains-owner strong-self-block.swift:10",
            "delivery-after-owner-gone strong-self-block.swift:10",
            "observer-outlives-owner strong-self-block.swift:10",
        ])
        #expect(try scanFindings(["strong-self-block-fixed.swift"]) == [])
    }

    @Test func aTokenReassignedAtEachAppearanceLeavesTheOldBlockRegistered() throws {
        #expect(try scanFindings(["token-overwritten.swift"]) == [
            "delivery-after-owner-gone token-overwritten.swift:10",
            "duplicate-registration token-overwritten.swift:10",
            "observer-outlives-owner token-overwritten.swift:10",
        ])
        #expect(try scanFindings(["token-overwritten-fixed.swift"]) == [])
    }

    @Test func aRemovalUnderTheWrongNameIsReportedAtTheRemoval() throws {
        #expect(try scanFindings(["removal-wrong-name.swift"]) == [
            "delivery-while-offscreen removal-wrong-name.swift:8",
            "duplicate-registration removal-wrong-name.swift:8",
            "removal-misses-observer removal-wrong-name.swift:14",
        ])
        #expect(try scanFindings(["removal-wrong-name-fixed.swift"]) == [])
    }

    @Test func aDroppedTypedTokenNeverHears() throws {
        #expect(try scanFindings(["typed-token-dropped.swift"]) == [
            "token-released-unheard typed-token-dropped.swift:13",
        ])
        #expect(try scanFindings(["typed-token-dropped-fixed.swift"]) == [])
    }

    @Test func aNotificationsLoopInATaskNeverCancelledKeepsItsScreen() throws {
        #expect(try scanFindings(["async-loop-task.swift"]) == [
            "block-retains-owner async-loop-task.swift:9",
            "delivery-after-owner-gone async-loop-task.swift:9",
            "observer-outlives-owner async-loop-task.swift:9",
        ])
        #expect(try scanFindings(["async-loop-task-fixed.swift"]) == [])
    }

    @Test func aCombineSinkHoldingSelfInSelfsCancellablesIsACycle() throws {
        #expect(try scanFindings(["combine-strong-sink.swift"]) == [
            "block-retains-owner combine-strong-sink.swift:11",
            "delivery-after-owner-gone combine-strong-sink.swift:11",
            "observer-outlives-owner combine-strong-sink.swift:11",
        ])
        #expect(try scanFindings(["combine-strong-sink-fixed.swift"]) == [])
    }

    @Test func aViewRegisteringAtEachWindowEntryRegistersTwice() throws {
        #expect(try scanFindings(["view-did-move-to-window.swift"]) == [
            "duplicate-registration view-did-move-to-window.swift:8",
        ])
        #expect(try scanFindings(["view-did-move-to-window-fixed.swift"]) == [])
    }

    @Test func aProtocolExtensionsRegistrationIsFollowedFromTheLifecycle() throws {
        #expect(try scanFindings(["protocol-extension-keyboard.swift"]) == [
            "delivery-while-offscreen protocol-extension-keyboard.swift:11",
            "duplicate-registration protocol-extension-keyboard.swift:11",
        ])
        #expect(try scanFindings(["protocol-extension-keyboard-fixed.swift"]) == [])
    }

    @Test func seed000sBaseControllerInAnotherFileLeavesTheKeyboardObservedWhenCovered() throws {
        #expect(try scanFindings(["seed000-base-controller"]) == [
            "delivery-while-offscreen seed000-base-controller/LifecycleViewController.swift:34",
            "unbalanced-removal seed000-base-controller/LifecycleViewController.swift:39",
        ])
        #expect(try scanFindings(["seed000-base-controller-fixed"]) == [])
    }

    @Test func aSelectorNeverRemovedCrashesBeforeIOS9Only() throws {
        #expect(try scanFindings(["legacy-selector-never-removed.swift"], target: "8.0") == [
            "delivery-after-owner-gone legacy-selector-never-removed.swift:8",
            "observer-outlives-owner legacy-selector-never-removed.swift:8",
        ])
        #expect(try scanFindings(["legacy-selector-never-removed.swift"], target: "15.0") == [])
        #expect(try scanFindings(["legacy-selector-never-removed-fixed.swift"], target: "8.0") == [])
    }

    @Test func aTokenRemovedUnderAnotherNameStaysRegistered() throws {
        let leaked = [13, 19].flatMap { line in
            ["delivery-after-owner-gone", "delivery-while-offscreen", "duplicate-registration", "observer-outlives-owner"]
                .map { "\($0) token-removed-under-wrong-name.swift:\(line)" }
        }
        #expect(try scanFindings(["token-removed-under-wrong-name.swift"]) == leaked)
        #expect(try scanFindings(["token-removed-under-wrong-name-fixed.swift"]) == [])
    }

    /// A strong block keeps its screen alive, and so the screen's correct selector observers keep
    /// hearing posts: only the block is reported (fixing it fixes them), and an activity message to the
    /// covered screen is a note, one below the rule (Pocket Casts' tab bar controller, docs/SCAN.md).
    @Test func aStrongBlockIsReportedAloneNotTheSelectorsItKeepsAlive() throws {
        #expect(try scanFindings(["strong-block-beside-selectors.swift"]) == [
            "delivery-while-offscreen strong-block-beside-selectors.swift:13",
            "block-retains-owner strong-block-beside-selectors.swift:15",
            "delivery-after-owner-gone strong-block-beside-selectors.swift:15",
            "observer-outlives-owner strong-block-beside-selectors.swift:15",
        ])
        let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/strong-block-beside-selectors.swift"], sourceRoot: fixtures))
        #expect(report.findings.first?.severity == .note && report.findings.first?.lowered != nil)
        #expect(try scanFindings(["strong-block-beside-selectors-fixed.swift"]) == [])
    }

    /// Correct code that the scan once reported (docs/SCAN.md, the large apps' review): a token removed
    /// through a local that unwraps it, a view that leaves when `nil == newSuperview`, a cell made from code
    /// or a nib (`awakeFromNib` follows `init(coder:)` only), and an implicit `.init(…)` that is no `self.init`.
    @Test(arguments: ["token-unwrapped-into-local-fixed.swift", "superview-leave-fixed.swift",
                      "nib-or-code-initializer-fixed.swift", "implicit-member-init-fixed.swift"])
    func correctCodeOnceMisreadGivesNothing(file: String) throws {
        for target in ["8.0", "17.0"] {
            let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/" + file], sourceRoot: fixtures, deploymentTarget: target))
            #expect(report.findings.isEmpty, "\(file) at \(target): \(report.findings.map(\.text))")
            #expect(report.notes.isEmpty, "\(file) at \(target): \(report.notes.map(\.text))")
        }
    }

    /// `guard token == nil else { return }` keeps a registration to one, which the journeys cannot
    /// evaluate: what a second appearance shows of it is a note, never an error.
    @Test func aRegistrationGuardedByItsOwnPropertyIsNeverMoreThanANote() throws {
        let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/guarded-registration.swift"], sourceRoot: fixtures))
        #expect(!report.findings.isEmpty)
        for finding in report.findings {
            #expect(finding.severity == .note, "\(finding.text)")
            #expect(finding.conditions == ["guard keyboardObserver == nil"])
        }
    }

    @Test func everyFixedTwinGivesNoNoteEither() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures).filter { $0.hasSuffix("-fixed.swift") || $0.hasSuffix("-fixed") }
        #expect(files.count >= 15)
        for file in files {
            let report = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/" + file], sourceRoot: fixtures, deploymentTarget: "8.0"))
            #expect(report.findings.isEmpty, "\(file): \(report.findings.map(\.text))")
            #expect(report.notes.isEmpty, "\(file): \(report.notes.map(\.text))")
            #expect(report.warnings.isEmpty, "\(file): \(report.warnings.map(\.text))")
        }
    }
}
