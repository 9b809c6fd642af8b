public import NotifyBus

/// The leak rules, each with a stable id used in reports, baselines and `--rule`.
public enum LeakRule: String, Sendable, CaseIterable, Codable {
    /// The owner left the hierarchy for good or was released, and the observer was still registered afterwards.
    case observerOutlivesOwner = "observer-outlives-owner"
    /// A delivery (or skip) reached an observer after its owner left the hierarchy or was released.
    case deliveryAfterOwnerGone = "delivery-after-owner-gone"
    /// A keyboard, orientation or activity message reached a screen in the hierarchy but not on screen.
    case deliveryWhileOffscreen = "delivery-while-offscreen"
    /// The same owner registered the same message, sender filter and call site again while the first was live.
    case duplicateRegistration = "duplicate-registration"
    /// A removal found no such observer registered: a token or block removed twice, a
    /// name removed again. Harmless in Foundation; listed because it shows confusion.
    case unbalancedRemoval = "unbalanced-removal"
    /// A block observer captures its owner `strong`: the owner left the hierarchy or was
    /// let go by the program, and only the center's block keeps it alive (a cycle).
    case blockRetainsOwner = "block-retains-owner"
    /// A block observer capturing its owner `unowned` ran after the owner was gone: a trap.
    case unownedCaptureAfterRelease = "unowned-capture-after-release"
    /// A removal by owner, or by owner and name, that left the observer it was meant
    /// for registered: a block observer (only its token removes it), or a name the owner
    /// never added (a typo, the wrong constant).
    case removalMissesObserver = "removal-misses-observer"
    /// A token observer was removed because its last token copy was released at once (no
    /// post or lifecycle step since it was added), while its owner (if any) was alive, and
    /// its message was posted afterwards: the token was dropped (`_ = center.addObserver(of:for:)`,
    /// a local), so the observation the code meant to keep never heard anything.
    case tokenReleasedUnheard = "token-released-unheard"
}

/// What a post did with an observer a finding is about.
public enum DeliveryOutcome: String, Sendable, Hashable, Codable {
    /// The handler ran.
    case delivered
    /// The bus found the owner deallocated and skipped (and removed) the observer.
    case skipped
    /// A real app would have crashed: an `unowned` capture, or a legacy selector target.
    case trapped
}

/// One delivery that a finding is about.
public struct FindingDelivery: Sendable, Hashable, Codable {
    public var seq: UInt64
    public var post: UInt64
    public var message: String?
    public var outcome: DeliveryOutcome
}

/// One finding of the leak analysis.
public struct LeakFinding: Sendable, Hashable {
    public var rule: LeakRule
    /// Groups the same bug across traces: a hash of rule, message, owner type and call site.
    public var fingerprint: String
    /// The observed message; `nil` for an observation of every message.
    public var message: String?
    public var observer: UInt64?
    /// The owner's label (the screen's name in recorded scenarios).
    public var owner: String?
    public var ownerType: String?
    /// Where the owner lives, when it is attached to a host: `KeyboardFrameObserver in AztecEditor`.
    public var ownerLocation: String?
    /// The observer's kind (token for version-1 traces), when the finding is about one observer.
    public var observerKind: ObserverKind?
    /// For a block observer: how it captures its owner.
    public var capture: BlockCapture?
    /// Where the observer was added; for `unbalanced-removal`, where the removal was called.
    public var callSite: String
    /// When the observer was added.
    public var addedAt: UInt64?
    /// When the owner left the hierarchy or was released.
    public var ownerGoneAt: UInt64?
    /// For `observer-outlives-owner`: whether the owner was released (`false`: still alive, retained).
    public var ownerReleased: Bool?
    /// Where the analysis saw the problem.
    public var seq: UInt64
    /// The deliveries the finding is about (the first few; ``deliveryCount`` counts them all).
    public var deliveriesAfter: [FindingDelivery]
    public var deliveryCount: Int
    /// The owner's id in the trace, to place the finding on its lane; not part of the fingerprint.
    public var ownerID: UInt64?
    /// Set when this finding is less severe than its rule (``LeakRuleDefinition/severity(of:message:)``).
    public var loweredSeverity: LeakSeverity? = nil

    /// How serious this finding is: its rule's severity, or one below for an activity message
    /// delivered to a covered screen.
    public var severity: LeakSeverity { loweredSeverity ?? rule.severity }

    /// How many deliveries a finding lists before it only counts.
    public static let listedDeliveries = 20

    /// The fingerprint of a rule, message, owner type and call site: FNV-1a, 64 bits, hex.
    ///
    /// Stable across runs and machines, unlike Swift's seeded `Hasher`, and across the folder a
    /// scenario was recorded from: a scenario's call site counts by its file name
    /// (`Examples/login.json: screens…` as `login.json: screens…`, as traces recorded it before
    /// `record` kept the relative path for SARIF), so baselines written before stay valid.
    public static func fingerprint(rule: LeakRule, message: String?, ownerType: String?, callSite: String) -> String {
        let site = switch CallSiteLocation(callSite) {
        case .scenario(let file, let path): "\(file.split(separator: "/").last.map(String.init) ?? file): \(path)"
        case .source, .unknown: callSite
        }
        return stableHash([rule.rawValue, message ?? "*", ownerType ?? "-", site])
    }

    /// FNV-1a over the parts joined by a unit separator, 64 bits, hex.
    static func stableHash(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16).leftPadded(16)
    }
}
