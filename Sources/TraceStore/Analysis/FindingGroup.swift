/// The findings of one bug: the same owner type and the same call site.
///
/// A call site is the line that added the observer, or for a removal rule the line that
/// removed. Everything that goes wrong with observers added at one line of one type
/// (they outlive their screen, get posts after it, and so on) is one bug with one fix.
///
/// ```swift
/// for group in FindingGroup.groups(of: findings) {
///     print(group.severity, group.callSite, group.findings.count)
/// }
/// ```
public struct FindingGroup: Sendable, Hashable, Identifiable {
    /// A stable id for the group: FNV-1a of owner type and call site, 64 bits, hex.
    public var id: String
    public var ownerType: String?
    public var callSite: String
    /// The group's findings, most severe first, then in the order they were seen.
    public var findings: [LeakFinding]

    /// The most severe of the group's findings.
    public var severity: LeakSeverity { findings.map(\.severity).max() ?? .note }

    /// The group's rules, most severe first, each once.
    public var rules: [LeakRule] {
        var seen: Set<LeakRule> = []
        return findings.map(\.rule).filter { seen.insert($0).inserted }
    }

    /// Where the analysis first saw the bug.
    public var firstSeq: UInt64 { findings.map(\.seq).min() ?? 0 }

    /// The group id of an owner type and call site.
    public static func id(ownerType: String?, callSite: String) -> String {
        LeakFinding.stableHash([ownerType ?? "-", callSite])
    }

    /// Groups findings by owner type and call site: errors first, then by where each was first seen.
    ///
    /// - Complexity: O(*n* log *n*) in the number of findings.
    public static func groups(of findings: [LeakFinding]) -> [FindingGroup] {
        struct Key: Hashable {
            let ownerType: String?
            let callSite: String
        }
        var order: [Key] = []
        var members: [Key: [LeakFinding]] = [:]
        for finding in findings {
            let key = Key(ownerType: finding.ownerType, callSite: finding.callSite)
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(finding)
        }
        let groups = order.map { key in
            let sorted = members[key, default: []].enumerated().sorted { a, b in
                (b.element.severity, a.offset) < (a.element.severity, b.offset)
            }.map(\.element)
            return FindingGroup(id: id(ownerType: key.ownerType, callSite: key.callSite), ownerType: key.ownerType,
                                callSite: key.callSite, findings: sorted)
        }
        return groups.enumerated().sorted { a, b in
            (b.element.severity, a.element.firstSeq, a.offset) < (a.element.severity, b.element.firstSeq, b.offset)
        }.map(\.element)
    }
}
