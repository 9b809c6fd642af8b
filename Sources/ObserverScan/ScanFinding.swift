import Foundation
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
    public var lowered: String? = nil
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

    /// Whether a registration stands under "its own property is nil" (`guard token == nil`,
    /// `if self.token == nil`, or after `if token != nil { return }`): the register-once idiom.
    static func registersOnce(_ registration: RegistrationFact) -> Bool {
        guard case .property(let property) = registration.destination else { return false }
        let forms = ["guard\(property)==nil", "guardself.\(property)==nil", "if\(property)==nil", "ifself.\(property)==nil",
                     "elseofif\(property)!=nil", "elseofifself.\(property)!=nil", "guardnil==\(property)", "ifnil==\(property)"]
        return registration.conditions.contains { condition in
            forms.contains(condition.replacingOccurrences(of: " ", with: ""))
        }
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
        // The finding's own severity: an activity message to a covered screen is a rule's severity lowered by one.
        severity = finding.severity
        if let lowered = finding.loweredSeverity {
            self.lowered = "a \(lowered.rawValue): an activity message (background, foreground) reaching a covered screen is often meant"
        }
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
        if finding.rule == .duplicateRegistration, let message = finding.message,
           builder.origins.values.contains(where: { other in
               guard let fact = other.registration, !fact.conditions.isEmpty,
                     case .message(let name, _) = builder.resolve(fact.name) else { return false }
               return name == message
           }) {
            // One of the registrations of this name is conditional (`if !isFirstLayout`): the
            // conditions may keep them apart, which the scan does not evaluate.
            severity = .note
            lowered = "a note: a registration of this name is conditional, and the scan does not evaluate conditions"
        }
        if builder.model.role == .object, !builder.model.heldByScreen, severity == .error {
            // Released with its screen is the journeys' guess for a helper no screen of the scanned
            // code keeps: an app-lifetime service never is. What is certain is the observer outlives
            // the object if the object is ever released.
            severity = .warning
            lowered = "a warning: no screen of the scanned code keeps a \(type), so its lifetime is a guess; "
                + "if it lives as long as the app, this is no leak"
        }
        if !aboutRemoval, let registration, Self.registersOnce(registration), severity > .note,
           [.duplicateRegistration, .observerOutlivesOwner, .deliveryAfterOwnerGone].contains(finding.rule) {
            // `guard token == nil else { return }` before `token = center.addObserver(…)`: the code keeps it
            // to one registration, which the journeys (a second appearance) cannot tell, as they do not
            // evaluate conditions. What they show may be only that second registration.
            severity = .note
            lowered = "a note: the registration is guarded by its own property being nil, which keeps it to one; "
                + "the scan does not evaluate conditions"
        }
        if finding.rule == .removalMissesObserver, finding.observerKind == nil, builder.model.hasUnresolved {
            severity = .note
            lowered = "a note: \(type) has registrations the scan could not follow, which may add this name"
        }
        fingerprint = LeakFinding.fingerprint(rule: finding.rule, message: notification, ownerType: type,
                                              callSite: location.description)
    }
}
