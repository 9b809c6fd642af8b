import Foundation
import Testing

/// The leak report grouped by cause, with severities, `--min-severity` and baselines.
@Suite struct LeakGroupingCommandTests {
    /// Records seed 000's scenario (two keyboard observers of Login, added on become-active, never
    /// removed on pop) and returns the trace.
    private func seed000(_ dir: Scratch) throws -> String {
        let trace = dir.file("leak.trace")
        let record = try tracectl("record", example("seed000-keyboard-leak"), "-o", trace)
        try #require(record.status == 0, "\(record.stderr)")
        return trace
    }

    @Test func oneGroupPerOwnerTypeAndCallSiteWithEveryRuleBeneath() throws {
        let dir = try Scratch()
        let trace = try seed000(dir)
        let report = try #require(try json(try tracectl("leaks", trace, "--format", "json").stdout) as? [String: Any])
        let findings = try #require(report["leaks"] as? [[String: Any]])
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.map { $0["callsite"] as? String } == [
            "seed000-keyboard-leak.json: screens.Login.observers[0]",
            "seed000-keyboard-leak.json: screens.Login.observers[1]",
        ])
        #expect(groups.map { $0["ownerType"] as? String } == ["LoginViewController", "LoginViewController"])
        #expect(groups[0]["rules"] as? [String] == ["observer-outlives-owner", "delivery-after-owner-gone", "unbalanced-removal"])
        #expect(groups[1]["rules"] as? [String] == ["observer-outlives-owner", "unbalanced-removal"])
        #expect(groups.map { $0["severity"] as? String } == ["error", "error"])
        // Every finding is kept, with the group it belongs to; the groups partition them.
        #expect(findings.count == 5)
        for finding in findings {
            let group = try #require(groups.first { $0["id"] as? String == finding["group"] as? String })
            #expect(group["callsite"] as? String == finding["callsite"] as? String)
            #expect((group["fingerprints"] as? [String])?.contains(finding["fingerprint"] as? String ?? "") == true)
        }
        #expect(groups.map { $0["findings"] as? Int ?? 0 }.reduce(0, +) == findings.count)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["bugs"] as? Int == 2)
        #expect(summary["total"] as? Int == 5)
        #expect(summary["bySeverity"] as? [String: Int] == ["error": 3, "warning": 0, "note": 2])
    }

    @Test func everyFindingCarriesItsRulesSeverity() throws {
        let dir = try Scratch()
        let trace = try seed000(dir)
        let findings = try #require((try json(try tracectl("leaks", trace, "--format", "json").stdout)
            as? [String: Any])?["leaks"] as? [[String: Any]])
        let pairs = Set(findings.map { "\($0["rule"] as? String ?? "?")=\($0["severity"] as? String ?? "?")" })
        #expect(pairs == ["observer-outlives-owner=error", "delivery-after-owner-gone=error", "unbalanced-removal=note"])
    }

    @Test func minSeverityLeavesOutLowerFindingsAndTheirExitCode() throws {
        let dir = try Scratch()
        let trace = try seed000(dir)
        let warning = try tracectl("leaks", trace, "--min-severity", "warning")
        #expect(warning.status == 1)
        #expect(!warning.stdout.contains("unbalanced-removal  "))
        #expect(warning.stdout.contains(
            "2 bugs (2 errors), 3 findings: 2 observer-outlives-owner, 1 delivery-after-owner-gone (2 below warning not shown)"))

        // Only notes: nothing at or above warning, so exit 0.
        let notes = try tracectl("leaks", trace, "--rule", "unbalanced-removal", "--min-severity", "warning")
        #expect(notes.status == 0)
        #expect(notes.stdout == "no leaks in session 1 ('seed000-keyboard-leak') (2 below warning not shown)\n")
        let noteReport = try tracectl("leaks", trace, "--rule", "unbalanced-removal")
        #expect(noteReport.status == 1)
        #expect(noteReport.stdout.hasPrefix("note     seed000-keyboard-leak.json: screens.Login.observers[0]"))

        #expect(try tracectl("leaks", trace, "--min-severity", "fatal").status == 64)
    }

    @Test func baselinesFromBeforeGroupingStillMatch() throws {
        let dir = try Scratch()
        let trace = try seed000(dir)
        // The fingerprints of seed 000's findings, as the ungrouped report wrote them.
        let earlier = ["2e793fdf2afda03a", "f35ab8e7d5f49ac1", "3685916d6fb3b2c2", "8913e2c4660fdce4", "e7191b6624d7b02c"]
        let baseline = dir.file("baseline.json")
        try (#"[""# + earlier.joined(separator: #"",""#) + #""]"#).write(toFile: baseline, atomically: true, encoding: .utf8)
        let run = try tracectl("leaks", trace, "--baseline", baseline)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("(0 new, 5 baselined)"))
        #expect(run.stdout.contains("LoginViewController  [baselined]"))
    }
}
