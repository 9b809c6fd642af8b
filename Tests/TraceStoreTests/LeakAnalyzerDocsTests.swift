import Foundation
import TestSupport
import Testing
@testable import TraceStore

/// `docs/NOTIFICATIONCENTER.md`'s rule tables are the rule definitions: generated from
/// ``LeakRuleDefinition`` (run with `NOTIFYBUS_REGENERATE_DOCS=1` to rewrite them), and this test
/// fails when the file and the definitions differ.
@Suite struct LeakAnalyzerDocsTests {
    static let path = repositoryFile("docs/NOTIFICATIONCENTER.md").path

    /// `text` with each generated section's body replaced by what the definitions generate now.
    static func regenerated(_ text: String) -> String {
        var result = text
        for (marker, table) in [("misuses", LeakRuleDefinition.misuseTable), ("rules", LeakRuleDefinition.markdownTable)] {
            let begin = "<!-- generated: \(marker) ", end = "<!-- end generated -->"
            guard let start = result.range(of: begin), let lineEnd = result[start.upperBound...].range(of: "\n"),
                  let stop = result[lineEnd.upperBound...].range(of: end) else { continue }
            result.replaceSubrange(lineEnd.upperBound ..< stop.lowerBound, with: table + "\n")
        }
        return result
    }

    @Test func theRuleTablesAreGeneratedFromTheDefinitions() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        let expected = Self.regenerated(text)
        if ProcessInfo.processInfo.environment["NOTIFYBUS_REGENERATE_DOCS"] == "1" {
            try expected.write(toFile: Self.path, atomically: true, encoding: .utf8)
        }
        #expect(text == expected, "docs/NOTIFICATIONCENTER.md differs from LeakRuleDefinition: rerun with NOTIFYBUS_REGENERATE_DOCS=1")
        #expect(text.contains("<!-- generated: misuses") && text.contains("<!-- generated: rules"))
    }

    @Test func everyRuleIsDocumentedWithAMisuseItReports() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        for rule in LeakRule.allCases {
            #expect(text.contains("| `\(rule.rawValue)` | \(rule.severity.rawValue) |"), "\(rule.rawValue)")
            #expect(!rule.definition.misuses.isEmpty, "\(rule.rawValue) reports no documented misuse")
            #expect(!rule.help.isEmpty && !rule.title.isEmpty && !rule.definition.reportedWhen.isEmpty)
        }
    }

    @Test func theRulesSeveritiesAreTheDocumentedOnes() {
        let errors: Set<LeakRule> = [.observerOutlivesOwner, .deliveryAfterOwnerGone, .blockRetainsOwner, .unownedCaptureAfterRelease]
        let notes: Set<LeakRule> = [.unbalancedRemoval]
        for rule in LeakRule.allCases {
            #expect(rule.severity == (errors.contains(rule) ? .error : notes.contains(rule) ? .note : .warning))
        }
        #expect(LeakRuleDefinition.severity(of: .deliveryWhileOffscreen, message: "didBecomeActive") == .note)
        #expect(LeakRuleDefinition.severity(of: .deliveryWhileOffscreen, message: "keyboardWillShow") == .warning)
        #expect(LeakRuleDefinition.severity(of: .observerOutlivesOwner, message: "didBecomeActive") == .error)
    }
}
