/// How serious a finding is, the same three levels SARIF uses.
///
/// Ordered: `note < warning < error`, so `--min-severity warning` keeps warnings and errors.
public enum LeakSeverity: String, Sendable, CaseIterable, Codable, Comparable {
    /// Harmless on its own, shown because it reveals confusion about what is registered.
    case note
    /// Wasted or wrong work that does not keep anything alive: a handler running when
    /// its screen is covered, twice for one post, or a removal that leaves an observer behind.
    case warning
    /// A leak or a crash: an observer that outlives its owner, runs after it, keeps it alive,
    /// or would trap.
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

extension LeakRule {
    /// The rule's severity.
    ///
    /// - `error`: ``observerOutlivesOwner``, ``deliveryAfterOwnerGone``, ``blockRetainsOwner``,
    ///   ``unownedCaptureAfterRelease``: memory kept or code run for an owner that is gone, or a trap.
    /// - `warning`: ``deliveryWhileOffscreen``, ``duplicateRegistration``: the owner is alive and
    ///   in use, but a handler runs when it should not (covered) or twice.
    ///   ``removalMissesObserver`` is a warning too: the removal line is wrong and leaves an observer
    ///   registered, but what that costs is reported on its own, as an error at the line that added it.
    ///   ``tokenReleasedUnheard`` is a warning: nothing is kept alive, but the code that meant to react never does.
    /// - `note`: ``unbalancedRemoval``: removing what is not registered does nothing in Foundation.
    public var severity: LeakSeverity {
        switch self {
        case .observerOutlivesOwner, .deliveryAfterOwnerGone, .blockRetainsOwner, .unownedCaptureAfterRelease: .error
        case .deliveryWhileOffscreen, .duplicateRegistration, .removalMissesObserver, .tokenReleasedUnheard: .warning
        case .unbalancedRemoval: .note
        }
    }

    /// A one-line title, for reports and SARIF's `shortDescription`.
    public var title: String {
        switch self {
        case .observerOutlivesOwner: "Observer outlives its owner"
        case .deliveryAfterOwnerGone: "Delivery after the owner is gone"
        case .deliveryWhileOffscreen: "Delivery while the owner is off screen"
        case .duplicateRegistration: "Duplicate registration"
        case .unbalancedRemoval: "Removal of an observer that is not registered"
        case .blockRetainsOwner: "Block observer keeps its owner alive"
        case .unownedCaptureAfterRelease: "Unowned capture runs after release"
        case .removalMissesObserver: "Removal misses the observer it was meant for"
        case .tokenReleasedUnheard: "Token released before its observer heard anything"
        }
    }

    /// What the rule means and how to fix what it finds, for SARIF's `help` and the timeline.
    public var help: String {
        switch self {
        case .observerOutlivesOwner:
            "The owner left the screen hierarchy for good or was released while this observer was still registered. "
                + "Remove the observer when the owner goes (viewWillDisappear, or deinit for a token), "
                + "not on an event that may never come."
        case .deliveryAfterOwnerGone:
            "A post reached this observer after its owner was gone: its handler ran (or the bus skipped it) for a "
                + "screen nobody sees. Remove the observer when the owner leaves the hierarchy."
        case .deliveryWhileOffscreen:
            "A keyboard, orientation or app-activity message reached a screen that is in the hierarchy but covered. "
                + "Add the observer in viewWillAppear and remove it in viewWillDisappear."
        case .duplicateRegistration:
            "The same owner registered the same message again (or one handler for two messages one action posts "
                + "together) while the first was live: the handler runs twice. Register once, or remove before adding."
        case .unbalancedRemoval:
            "A removal found nothing registered: a token or block removed twice, or a name removed again. "
                + "Harmless in Foundation; it shows the add and remove calls are not paired."
        case .blockRetainsOwner:
            "A block observer captures its owner strongly: after the program let the owner go, only the center's "
                + "block keeps it alive. Capture [weak self] and remove the observation with its token."
        case .unownedCaptureAfterRelease:
            "A block observer capturing its owner unowned ran after the owner was released: a real app traps. "
                + "Capture [weak self], and remove the observation when the owner goes."
        case .removalMissesObserver:
            "A removal by owner (or owner and name) left the observer it was meant for registered: a block "
                + "observer only its token removes, or a name the owner never observed. Remove by token, "
                + "or fix the name."
        case .tokenReleasedUnheard:
            "A typed token was released before any post reached its observer, while its owner was alive, and the "
                + "message was posted afterwards: the token was dropped (assigned to _ or a local), so releasing it "
                + "removed the observation. Keep the token for as long as the observation should last."
        }
    }
}
