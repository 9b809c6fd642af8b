public import NotifyBus

/// One leak rule, defined once: its id, severity, what it means, how to fix what it finds, and
/// the lines the documentation shows.
///
/// Everything that needs a rule reads it from here: the analysis (``LeakAnalyzer``) and the walk's
/// prefilter share the delivery rules' predicate (``LeakRuleDefinition/deliveryRule(_:)``), the
/// reports take the severity, title and help, and `docs/NOTIFICATIONCENTER.md`'s rule tables are
/// generated from ``markdownTable`` and ``misuseTable`` (a test fails when the file differs).
public struct LeakRuleDefinition: Sendable, Hashable {
    public let rule: LeakRule
    public let severity: LeakSeverity
    /// A one-line title, for reports and SARIF's `shortDescription`.
    public let title: String
    /// What the rule means and how to fix what it finds, for SARIF's `help` and the timeline.
    public let help: String
    /// The documentation's "reported when" line.
    public let reportedWhen: String
    /// The documentation's "not reported" line: the correct code that looks like the misuse.
    public let notReported: String
    /// The misuses of NotificationCenter this rule reports (`docs/NOTIFICATIONCENTER.md`).
    public let misuses: [Misuse]

    /// A way to get an observer wrong that real code has, as `docs/NOTIFICATIONCENTER.md` lists them.
    public struct Misuse: Sendable, Hashable {
        /// The observer kinds it concerns.
        public let kinds: String
        /// The code.
        public let code: String
        /// What Foundation does with it.
        public let foundation: String
    }
}

extension LeakRule {
    /// The rule's one definition.
    public var definition: LeakRuleDefinition { LeakRuleDefinition.all[self]! }

    /// The rule's severity (``deliveryWhileOffscreen`` of an activity message is one below:
    /// ``LeakRuleDefinition/severity(of:message:)``).
    public var severity: LeakSeverity { definition.severity }
    /// A one-line title, for reports and SARIF's `shortDescription`.
    public var title: String { definition.title }
    /// What the rule means and how to fix what it finds.
    public var help: String { definition.help }
}

extension LeakRuleDefinition {
    /// The application-activity messages: a covered screen hearing one is often normal (saving state on
    /// background), sometimes a real bug (a covered conversation marking messages read on become-active),
    /// so ``LeakRule/deliveryWhileOffscreen`` reports them one severity below keyboard and orientation.
    public static let activityMessages: Set<String> = [
        WillResignActive.name, DidBecomeActive.name, DidEnterBackground.name, WillEnterForeground.name,
    ]

    /// The severity of a finding of `rule` about `message`.
    public static func severity(of rule: LeakRule, message: String?) -> LeakSeverity {
        if rule == .deliveryWhileOffscreen, let message, activityMessages.contains(message) { return .note }
        return rule.severity
    }

    /// What the delivery rules look at in one delivery, skip or trap.
    public struct Delivery: Sendable {
        public var outcome: DeliveryOutcome
        public var trapReason: TrapReason?
        /// The owner left the hierarchy or was released (or, for an object that is not a screen,
        /// the screen it lives in did): ``LeakAnalyzer``'s effective "gone".
        public var ownerGone: Bool
        /// A modern selector observer: the center drops it silently once its target is deallocated.
        public var droppedByCenter: Bool
        /// The message is one whose delivery to a covered screen is a finding.
        public var offscreenMessage: Bool
        /// The owner's screen (itself, or the screen it lives in) is in the hierarchy and not visible.
        public var screenCovered: Bool

        public init(outcome: DeliveryOutcome, trapReason: TrapReason? = nil, ownerGone: Bool, droppedByCenter: Bool,
                    offscreenMessage: Bool, screenCovered: Bool) {
            self.outcome = outcome
            self.trapReason = trapReason
            self.ownerGone = ownerGone
            self.droppedByCenter = droppedByCenter
            self.offscreenMessage = offscreenMessage
            self.screenCovered = screenCovered
        }
    }

    /// The delivery rules' one predicate: which rule a delivery triggers, if any. The analysis
    /// calls it for each delivery it folds; the walk's prefilter calls it for each delivery row
    /// to decide whether the fold must see it, so the two cannot disagree.
    public static func deliveryRule(_ delivery: Delivery) -> LeakRule? {
        if delivery.trapReason == .unownedCapture { return .unownedCaptureAfterRelease }
        if delivery.ownerGone || delivery.outcome != .delivered {
            // A modern selector observer dropped at its released target's next post: the center's job.
            if delivery.outcome == .skipped && delivery.droppedByCenter { return nil }
            return .deliveryAfterOwnerGone
        }
        if delivery.offscreenMessage && delivery.screenCovered { return .deliveryWhileOffscreen }
        return nil
    }

    /// Every rule's definition, by rule.
    public static let all: [LeakRule: LeakRuleDefinition] = Dictionary(uniqueKeysWithValues: list.map { ($0.rule, $0) })

    /// The definitions in ``LeakRule`` order.
    public static var ordered: [LeakRuleDefinition] { LeakRule.allCases.map { $0.definition } }

    private static let list: [LeakRuleDefinition] = [
        LeakRuleDefinition(
            rule: .observerOutlivesOwner, severity: .error,
            title: "Observer outlives its owner",
            help: "The owner left the screen hierarchy for good or was released while this observer was still registered. "
                + "Remove the observer when the owner goes (viewWillDisappear, or deinit for a token), "
                + "not on an event that may never come.",
            reportedWhen: "the owner left the hierarchy or was released (or, for an object that is not a screen, "
                + "the screen it lives in did while the object stays alive) and the observer is still registered",
            notReported: "a modern selector observer of a released target (the center drops it); an observer "
                + "its owner's deinit removes",
            misuses: [
                Misuse(kinds: "block, token", code: "no removal, or removal on a moment that never comes (resign-active on a popped screen)",
                       foundation: "the center keeps the block (and what it captures) registered"),
                Misuse(kinds: "selector (before iOS 9)", code: "no `removeObserver(self)` in `deinit`/`dealloc`",
                       foundation: "the center keeps an unretained pointer to the deallocated target"),
                Misuse(kinds: "any", code: "a helper (a text view kept by a cache) outlives its screen, still registered",
                       foundation: "the helper keeps hearing posts meant for a screen that is gone"),
            ]),
        LeakRuleDefinition(
            rule: .deliveryAfterOwnerGone, severity: .error,
            title: "Delivery after the owner is gone",
            help: "A post reached this observer after its owner was gone: its handler ran (or the bus skipped it) for a "
                + "screen nobody sees. Remove the observer when the owner leaves the hierarchy.",
            reportedWhen: "a post reached (or skipped, or trapped on) an observer whose owner was gone; a `weak` "
                + "block's every run is counted; under legacy selector semantics a post to a released target is a crash",
            notReported: "a modern selector's silent drop",
            misuses: [
                Misuse(kinds: "block (`weak`)", code: "the owner is gone, the block stays registered",
                       foundation: "the block runs on every post, with `self` nil"),
                Misuse(kinds: "selector (before iOS 9)", code: "the target is deallocated while registered",
                       foundation: "the next post messages a deallocated instance: a crash"),
            ]),
        LeakRuleDefinition(
            rule: .deliveryWhileOffscreen, severity: .warning,
            title: "Delivery while the owner is off screen",
            help: "A keyboard, orientation or app-activity message reached a screen that is in the hierarchy but covered. "
                + "Add the observer in viewWillAppear and remove it in viewWillDisappear.",
            reportedWhen: "a keyboard, orientation or activity message reached a covered screen (or an object living in "
                + "it); activity messages one severity lower (note); the message set is "
                + "`LeakAnalyzer.Configuration.offscreenMessages`, `tracectl leaks --offscreen-messages`",
            notReported: "visible screens; screens out of the hierarchy (that is the rule above)",
            misuses: [
                Misuse(kinds: "any", code: "keyboard observers added in `viewDidLoad`, removed in `deinit`",
                       foundation: "a covered screen moves its views for the keyboard of the screen above"),
            ]),
        LeakRuleDefinition(
            rule: .duplicateRegistration, severity: .warning,
            title: "Duplicate registration",
            help: "The same owner registered the same message again (or one handler for two messages one action posts "
                + "together) while the first was live: the handler runs twice. Register once, or remove before adding.",
            reportedWhen: "one owner registered the same message and sender twice, whatever the call sites; one selector "
                + "registered for two messages one action posts together (keyboard will-show and will-change-frame)",
            notReported: "different senders; re-adding after a removal; two selectors",
            misuses: [
                Misuse(kinds: "any", code: "added in `viewWillAppear`/`viewDidAppear` and removed on a moment that may not "
                    + "come first (`viewDidDisappear` on a cancelled swipe, `deinit`)",
                       foundation: "adding twice registers twice: the handler runs twice per post"),
            ]),
        LeakRuleDefinition(
            rule: .unbalancedRemoval, severity: .note,
            title: "Removal of an observer that is not registered",
            help: "A removal found nothing registered: a token or block removed twice, or a name removed again. "
                + "Harmless in Foundation; it shows the add and remove calls are not paired.",
            reportedWhen: "a token or block removed twice; a name removed when not registered (harmless, but confused)",
            notReported: "`removeObserver(self)` with nothing registered; a removal that missed an observer "
                + "(that is `removal-misses-observer`, once)",
            misuses: [
                Misuse(kinds: "any", code: "the same removal in `viewWillDisappear` and in `deinit`",
                       foundation: "the second finds nothing and does nothing"),
            ]),
        LeakRuleDefinition(
            rule: .blockRetainsOwner, severity: .error,
            title: "Block observer keeps its owner alive",
            help: "A block observer captures its owner strongly: after the program let the owner go, only the center's "
                + "block keeps it alive. Capture [weak self] and remove the observation with its token.",
            reportedWhen: "only a `strong` block keeps its owner alive after the program let go of it (or after it left "
                + "the hierarchy)",
            notReported: "a strong block removed before the owner goes",
            misuses: [
                Misuse(kinds: "block (`strong`)", code: "`self` captured strongly, removal in `deinit`",
                       foundation: "the center retains the block, the block retains `self`: `deinit` never runs"),
            ]),
        LeakRuleDefinition(
            rule: .unownedCaptureAfterRelease, severity: .error,
            title: "Unowned capture runs after release",
            help: "A block observer capturing its owner unowned ran after the owner was released: a real app traps. "
                + "Capture [weak self], and remove the observation when the owner goes.",
            reportedWhen: "an `unowned` block ran after its owner was gone: a crash",
            notReported: "an `unowned` block removed before its owner goes",
            misuses: [
                Misuse(kinds: "block (`unowned`)", code: "`[unowned self]`, never removed",
                       foundation: "the next post traps: \"attempted to read an unowned reference\""),
            ]),
        LeakRuleDefinition(
            rule: .removalMissesObserver, severity: .warning,
            title: "Removal misses the observer it was meant for",
            help: "A removal by owner (or owner and name) left the observer it was meant for registered: a block "
                + "observer only its token removes, or a name the owner never observed. Remove by token, "
                + "or fix the name.",
            reportedWhen: "`removeObserver(owner)` or `removeObserver(owner, name:)` left a block or token observer "
                + "registered (one finding per observer missed, even when the same call removed selector observers); "
                + "a removal by a name no owner of that type ever observed",
            notReported: "`removeObserver(self)` with nothing registered",
            misuses: [
                Misuse(kinds: "block, token", code: "`removeObserver(self)` (or `removeObserver(self, name:)`) for a block",
                       foundation: "removes selector observers only: the block stays registered"),
                Misuse(kinds: "selector", code: "`removeObserver(self, name:)` under the wrong name",
                       foundation: "removes nothing, silently"),
            ]),
        LeakRuleDefinition(
            rule: .tokenReleasedUnheard, severity: .warning,
            title: "Token released before its observer heard anything",
            help: "A typed token was released before any post reached its observer, while its owner was alive, and the "
                + "message was posted afterwards: the token was dropped (assigned to _ or a local), so releasing it "
                + "removed the observation. Keep the token for as long as the observation should last.",
            reportedWhen: "a token was released at once (no post or lifecycle step since it was added: `_ = bus.observe(…)`, "
                + "SF-0011's `_ = center.addObserver(of:for:)`), its owner alive, and its message was posted afterwards",
            notReported: "a token released after it heard a post, later on purpose (a screen dropping it when it "
                + "disappears), or with its owner gone (the owner's own release drops it)",
            misuses: [
                Misuse(kinds: "token (SF-0011)", code: "`_ = center.addObserver(of:for:)`, or the token kept in a local",
                       foundation: "the token's release removes the observation at once"),
            ]),
    ]

    /// The rules as a Markdown table: rule, severity, reported when, not reported.
    public static var markdownTable: String {
        var lines = ["| rule | severity | reported when | not reported |", "| --- | --- | --- | --- |"]
        for definition in ordered {
            lines.append("| `\(definition.rule.rawValue)` | \(definition.severity.rawValue) | \(definition.reportedWhen) | \(definition.notReported) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The misuses as a Markdown table: kinds, code, what Foundation does, the rule that reports it.
    public static var misuseTable: String {
        var lines = ["| observer kind | the code | what Foundation does | reported as |", "| --- | --- | --- | --- |"]
        for definition in ordered {
            for misuse in definition.misuses {
                lines.append("| \(misuse.kinds) | \(misuse.code) | \(misuse.foundation) | `\(definition.rule.rawValue)` |")
            }
        }
        return lines.joined(separator: "\n")
    }
}
