import Testing
@testable import TraceStore

@Suite struct FindingGroupTests {
    private func finding(_ rule: LeakRule, type: String?, site: String, seq: UInt64) -> LeakFinding {
        LeakFinding(rule: rule, fingerprint: LeakFinding.fingerprint(rule: rule, message: "m", ownerType: type, callSite: site),
                    message: "m", observer: nil, owner: nil, ownerType: type, ownerLocation: nil, observerKind: nil,
                    capture: nil, callSite: site, addedAt: nil, ownerGoneAt: nil, ownerReleased: nil, seq: seq,
                    deliveriesAfter: [], deliveryCount: 0)
    }

    @Test func everyRuleHasTheSeverityTheReportDocuments() {
        let errors: Set<LeakRule> = [.observerOutlivesOwner, .deliveryAfterOwnerGone, .blockRetainsOwner, .unownedCaptureAfterRelease]
        let warnings: Set<LeakRule> = [.deliveryWhileOffscreen, .duplicateRegistration, .removalMissesObserver, .tokenReleasedUnheard]
        for rule in LeakRule.allCases {
            let expected: LeakSeverity = errors.contains(rule) ? .error : warnings.contains(rule) ? .warning : .note
            #expect(rule.severity == expected, "\(rule)")
            #expect(!rule.help.isEmpty && !rule.title.isEmpty)
        }
        #expect(LeakRule.unbalancedRemoval.severity == .note)
        #expect(LeakSeverity.note < .warning && LeakSeverity.warning < .error)
    }

    @Test func groupsAreOwnerTypeAndCallSiteMostSevereFirst() {
        let findings = [
            finding(.unbalancedRemoval, type: "A", site: "a.swift:1", seq: 1),
            finding(.duplicateRegistration, type: "B", site: "b.swift:2", seq: 2),
            finding(.observerOutlivesOwner, type: "A", site: "a.swift:1", seq: 5),
            finding(.observerOutlivesOwner, type: "C", site: "a.swift:1", seq: 6),
            finding(.deliveryAfterOwnerGone, type: "A", site: "a.swift:1", seq: 7),
        ]
        let groups = FindingGroup.groups(of: findings)
        #expect(groups.map { "\($0.ownerType ?? "-") \($0.callSite)" } == ["A a.swift:1", "C a.swift:1", "B b.swift:2"])
        #expect(groups.map(\.severity) == [.error, .error, .warning])
        #expect(groups[0].rules == [.observerOutlivesOwner, .deliveryAfterOwnerGone, .unbalancedRemoval])
        #expect(groups[0].findings.map(\.seq) == [5, 7, 1])
        #expect(groups[0].firstSeq == 1)
        #expect(groups.map(\.findings.count).reduce(0, +) == findings.count)
        #expect(groups[0].id == FindingGroup.id(ownerType: "A", callSite: "a.swift:1"))
        #expect(groups[0].id != groups[1].id)
    }

    @Test func callSitesReadAsSourceLinesOrScenarioPaths() {
        #expect(CallSiteLocation("App/Login.swift:42") == .source(file: "App/Login.swift", line: 42))
        #expect(CallSiteLocation("demo.json: screens.Login.observers[0]") == .scenario(file: "demo.json", path: "screens.Login.observers[0]"))
        #expect(CallSiteLocation("-") == .unknown("-"))
        #expect(CallSiteLocation("App/Login.swift:0") == .unknown("App/Login.swift:0"))
    }
}
