import Foundation
import Testing
import TraceStore
@testable import tracectl

/// The text report gives each error rule's fix in one line under the group it concerns.
@Suite struct LeakFixLineTests {
    @Test func eachGroupListsTheFixOfEachOfItsErrorRulesOnce() throws {
        let dir = try Scratch()
        let trace = dir.file("leak.trace")
        #expect(try tracectl("record", example("seed000-keyboard-leak"), "-o", trace).status == 0)
        let run = try tracectl("leaks", trace)
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let fixes = lines.filter { $0.hasPrefix("  fix ") }
        // seed 000: the first group has two error rules, the second one; the notes get no fix line.
        #expect(fixes.count == 3, "\(run.stdout)")
        #expect(fixes.contains { $0.contains("observer-outlives-owner") && $0.hasSuffix(LeakRule.observerOutlivesOwner.fix) })
        #expect(fixes.contains { $0.contains("delivery-after-owner-gone") && $0.hasSuffix(LeakRule.deliveryAfterOwnerGone.fix) })
        #expect(!fixes.contains { $0.contains("unbalanced-removal") })
        // A group's fix lines come after its findings and before the blank line that ends it.
        let first = try #require(lines.firstIndex { $0.hasPrefix("  fix ") })
        #expect(lines[first - 1].hasPrefix("           "), "\(lines[first - 1])")
    }

    /// The fix is the last sentence of the rule's help (its one definition), an instruction.
    @Test(arguments: LeakRule.allCases)
    func aRulesFixIsTheLastSentenceOfItsHelp(rule: LeakRule) {
        let fix = rule.fix
        #expect(rule.help.hasSuffix(fix))
        #expect(fix.hasSuffix("."))
        #expect(fix.count < rule.help.count, "\(rule): the help has no sentence before its fix")
        #expect(!fix.contains(". "), "\(rule): \(fix)")
        if rule.severity == .error {
            let verb = fix.split(separator: " ").first.map(String.init) ?? ""
            #expect(["Remove", "Capture", "Add", "Keep", "Register"].contains(verb), "\(rule): \(fix)")
        }
    }
}
