public import TraceStore
import NotifyBus

/// One finding of a scan: a leak rule's finding on a journey, located at the source line to fix.
public struct ScanFinding: Sendable, Hashable {
    public var rule: LeakRule
    /// The rule's severity, or `note` when the scan lowered it (a condition it cannot evaluate).
    public var severity: LeakSeverity
    /// The registration's line, or the removal's for the removal rules.
    public var location: SourceLocation
    /// The class the observer belongs to.
    public var type: String
    /// Subclasses (or other classes) that inherit the same line and show the same finding.
    public var alsoIn: [String] = []
    /// The notification as the code names it.
    public var notification: String?
    /// `selector`, `block`, `token`.
    public var observerKind: String?
    /// `strong`, `weak`, `unowned` for a block.
    public var capture: String?
    /// The lifecycle method and the calls that lead to the line.
    public var via: [String]
    /// The conditions the line stands under.
    public var conditions: [String]
    /// The other end, when the finding is about a pair: the removal of a registration, or the registration a removal missed.
    public var related: SourceLocation?
    /// The journeys that showed it.
    public var journeys: [String]
    /// Why the severity was lowered, if it was.
    public var lowered: String?
    /// The same as ``LeakFinding/fingerprint``: rule, notification, type and source line, hashed.
    public var fingerprint: String

    struct Key: Hashable {
        var rule: LeakRule
        var location: SourceLocation
        var notification: String?
    }

    var key: Key { Key(rule: rule, location: location, notification: notification) }

    /// The one-line description of the finding.
    public var text: String {
        let what = [observerKind, capture.map { "[\($0)]" }].compactMap { $0 }.joined(separator: " ")
        var parts = ["\(rule.title): \(type)'s \(what.isEmpty ? "" : what + " ")observer of \(notification ?? "every notification")"]
        if !alsoIn.isEmpty { parts.append("(also in \(alsoIn.joined(separator: ", ")))") }
        if !via.isEmpty { parts.append("in \(via.joined(separator: " → "))") }
        if !conditions.isEmpty { parts.append("under \(conditions.joined(separator: ", "))") }
        if let related {
            parts.append(rule == .unbalancedRemoval || rule == .removalMissesObserver ? "(registered at \(related))" : "(removed at \(related))")
        }
        parts.append("— seen when \(journeys.joined(separator: "; "))")
        if let lowered { parts.append("[\(lowered)]") }
        return parts.joined(separator: " ")
    }

    /// A rule finding of a recorded journey, mapped back to the scanned source; `nil` for a finding
    /// about the journeys' own screens (which observe nothing) or one the scan knows misfires.
    init?(_ finding: LeakFinding, builder: ScenarioBuilder, journey: String) {
        guard case .scenario(_, let path) = CallSiteLocation(finding.callSite),
              let origin = builder.origins[path] else { return nil }
        let aboutRemoval = finding.rule == .unbalancedRemoval || finding.rule == .removalMissesObserver
        let registration = origin.registration, removal = origin.removal
        if finding.rule == .removalMissesObserver, finding.observerKind == .token,
           origin.removalMoment == "deinit" || origin.moment == "deinit" {
            // `removeObserver(self)` in deinit "misses" a token, which goes with the owner right after.
            return nil
        }
        guard let location = (aboutRemoval ? removal?.location : nil) ?? registration?.location ?? removal?.location else {
            return nil
        }
        rule = finding.rule
        severity = finding.rule.severity
        self.location = location
        type = builder.model.name
        if let registration, case .message(_, let written) = builder.resolve(registration.name) {
            notification = written
        } else if let removal, case .name(let name) = removal.target, case .message(_, let written) = builder.resolve(name) {
            notification = written
        } else {
            notification = finding.message
        }
        observerKind = finding.observerKind?.rawValue
        capture = finding.capture?.rawValue
        via = aboutRemoval && removal != nil ? (origin.removalVia.isEmpty ? origin.via : origin.removalVia) : origin.via
        conditions = (aboutRemoval ? removal?.conditions : registration?.conditions) ?? []
        related = aboutRemoval ? (removal == nil ? nil : registration?.location) : removal?.location
        journeys = [journey]
        lowered = nil
        if finding.rule == .duplicateRegistration, let registration, !registration.conditions.isEmpty {
            severity = .note
            lowered = "a note: the registration is conditional, and the scan cannot tell whether the condition holds twice"
        }
        if finding.rule == .removalMissesObserver, finding.observerKind == nil, builder.model.hasUnresolved {
            severity = .note
            lowered = "a note: \(type) has registrations the scan could not follow, which may add this name"
        }
        fingerprint = LeakFinding.fingerprint(rule: finding.rule, message: notification, ownerType: type,
                                              callSite: location.description)
    }
}
