public import NotifyBus
import Foundation

/// Finds the leak rules' findings in one streaming pass over a session.
///
/// Memory grows with live observers, owners and findings, never with the
/// number of events: the analyzer folds a ``TraceState`` and keeps per-finding
/// accumulators only.
///
/// What counts as a finding follows how each ``ObserverKind`` really behaves
/// (`docs/NOTIFICATIONCENTER.md`): a modern selector observer whose target was
/// released is dropped by the center and is no finding; a `weak` block keeps
/// running after its owner and each run is counted; a `strong` block keeps its
/// owner alive; an `unowned` one traps.
///
/// ```swift
/// let findings = try LeakAnalyzer.analyze(reader, session: id)
/// ```
public struct LeakAnalyzer {
    /// What the analysis looks for.
    public struct Configuration: Sendable {
        /// The rules to report.
        public var rules: Set<LeakRule>
        /// The messages whose delivery to a screen that is covered (in the hierarchy,
        /// not visible) is a finding.
        public var offscreenMessages: Set<String>
        /// Messages that one user action posts together: one handler registered for
        /// two of a set runs twice.
        public var postedTogether: [Set<String>]
        /// The selector semantics to assume when the session does not say (version-1 traces).
        public var selectorSemantics: SelectorSemantics

        public init(rules: Set<LeakRule> = Set(LeakRule.allCases),
                    offscreenMessages: Set<String> = LeakAnalyzer.defaultOffscreenMessages,
                    postedTogether: [Set<String>] = LeakAnalyzer.defaultPostedTogether,
                    selectorSemantics: SelectorSemantics = .modern) {
            self.rules = rules
            self.offscreenMessages = offscreenMessages
            self.postedTogether = postedTogether
            self.selectorSemantics = selectorSemantics
        }
    }

    /// Keyboard, orientation and application-activity messages: a covered screen
    /// should not be reacting to them.
    public static let defaultOffscreenMessages: Set<String> = MessageCatalog.keyboardNames
        .union([OrientationDidChange.name])
        .union([WillResignActive.name, DidBecomeActive.name, DidEnterBackground.name, WillEnterForeground.name])

    /// Keyboard will/did show and hide, each with the change-frame message UIKit posts beside it.
    public static let defaultPostedTogether: [Set<String>] = [
        [KeyboardWillShow.name, KeyboardWillChangeFrame.name], [KeyboardWillHide.name, KeyboardWillChangeFrame.name],
        [KeyboardDidShow.name, KeyboardDidChangeFrame.name], [KeyboardDidHide.name, KeyboardDidChangeFrame.name],
    ]

    /// The groups ``offscreenMessages(_:)`` knows by name.
    public static let offscreenGroups: [String: Set<String>] = [
        "keyboard": MessageCatalog.keyboardNames, "orientation": [OrientationDidChange.name],
        "activity": LeakRuleDefinition.activityMessages, "default": defaultOffscreenMessages,
    ]

    /// Reads a message set as `tracectl leaks --offscreen-messages` gives it: message names and groups
    /// (`keyboard`, `orientation`, `activity`, `default`) joined by `+` (or `,`) to add and `-` to take
    /// away, read left to right: `default-activity` narrows the default set, `default+NAME` widens it,
    /// `keyboard+orientation` replaces it. The list starts with a name, so that it never reads as an option.
    ///
    /// - Throws: ``TraceStoreError`` (`.invalidArgument`) for an empty name.
    public static func offscreenMessages(_ list: String) throws(TraceStoreError) -> Set<String> {
        var result: Set<String> = []
        var name = "", adding = true
        func apply() throws(TraceStoreError) {
            guard !name.isEmpty else {
                throw TraceStoreError(.invalidArgument, "'\(list)': an empty name (expected message names and groups "
                                      + "\(offscreenGroups.keys.sorted().joined(separator: ", ")) joined by + and -)")
            }
            let names = offscreenGroups[name] ?? [name]
            if adding { result.formUnion(names) } else { result.subtract(names) }
            name = ""
        }
        for character in list {
            switch character {
            case "+", ",", "-":
                try apply()
                adding = character != "-"
            case " ":
                continue
            default:
                name.append(character)
            }
        }
        try apply()
        return result
    }

    /// The messages whose delivery to a screen off screen is a finding, by default.
    public static var onScreenMessages: Set<String> { defaultOffscreenMessages }

    private let configuration: Configuration
    /// Answers of ``offscreenMessage(_:)``; a class so that the check needs no `mutating`.
    private final class OffscreenCache { var known: [UInt64: Bool] = [:] }
    private let offscreenCache = OffscreenCache()
    fileprivate(set) var state = TraceState()
    private var findings: [LeakFinding] = []
    /// Open findings that gather deliveries, by rule and observer.
    private var open: [Key: Int] = [:]
    /// Observers already reported, by rule, for rules that report an observer once.
    private var reported: Set<Key> = []
    private var recentPosts: [UInt64: String] = [:]
    /// Observers of every message added and not removed: while there are some, posts name their deliveries' messages.
    private var wildcardObservers = Set<UInt64>()
    /// Observers whose deliveries cannot trigger a rule while every owner that was here stays
    /// (``deliveryMayMatter(to:)``'s answer, kept): forgotten when ``TraceState/ownersGone`` moves
    /// past ``quietSince``. An array by id: this is asked for most rows of a trace.
    private var quiet = IDFlags()
    private var quietSince = 0

    /// Whether every post must reach the fold: observers of every message are registered (a post
    /// names their deliveries' messages), or a token released unheard waits for its message's
    /// next post. `mutating` for the same reason as ``deliveryMayMatter(to:)``.
    mutating func postsMatter() -> Bool { !wildcardObservers.isEmpty || !releasedUnheard.isEmpty }

    /// A post the walk kept inside SQLite: all it changes is when the last activity was.
    mutating func passedPost(at seq: UInt64) { lastActivity = seq }
    /// For version-1 traces only, whose second removals carry no message: the removed observers.
    private var removed: [UInt64: TraceState.Observer] = [:]
    /// The names the owners of each type observed, to tell a removal of a name never added.
    private var namesObserved: [String: Set<String>] = [:]
    /// Removals by name that found nothing: settled at ``finish()``, once it is known whether
    /// any owner of that type ever observed the name (a typo never is).
    private var pendingRemovals: [(finding: LeakFinding, ownerType: String?)] = []
    /// Live observers that some post reached.
    private var heard = IDFlags()
    /// The last post or lifecycle step: a token released with none since it was added was dropped at once.
    private var lastActivity: UInt64 = 0
    /// Token observers released before hearing anything, by message, until it is next posted.
    private var releasedUnheard: [String: [(observer: TraceState.Observer, seq: UInt64)]] = [:]

    private struct Key: Hashable {
        let rule: LeakRule
        let observer: UInt64
    }
    /// An observer a removal line missed: reported once per line.
    private struct MissKey: Hashable {
        let observer: UInt64
        let callSite: String
    }
    private var missedReported: Set<MissKey> = []
    /// Owners whose `deinit` was recorded, until the removals it makes have been read.
    private var releasing: [(owner: UInt64, seq: UInt64)] = []

    /// An analyzer for `rules` (every rule by default).
    public init(rules: Set<LeakRule> = Set(LeakRule.allCases)) {
        self.init(configuration: Configuration(rules: rules))
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Reads a session and returns its findings, ordered by where they were seen.
    ///
    /// - Parameter offscreenMessages: The messages whose delivery to a covered screen is a finding
    ///   (default ``defaultOffscreenMessages``; ``offscreenMessages(_:)`` reads `tracectl`'s option).
    public static func analyze(_ reader: TraceReader, session: Int64, rules: Set<LeakRule> = Set(LeakRule.allCases),
                               offscreenMessages: Set<String> = LeakAnalyzer.defaultOffscreenMessages) throws -> [LeakFinding] {
        var configuration = Configuration(rules: rules, offscreenMessages: offscreenMessages)
        if let semantics = try reader.session(session).selectorSemantics { configuration.selectorSemantics = semantics }
        return try analyze(reader, session: session, configuration: configuration)
    }

    /// Reads a session with a configuration of your own.
    public static func analyze(_ reader: TraceReader, session: Int64, configuration: Configuration) throws -> [LeakFinding] {
        try analyze(reader, session: session, configuration: configuration, companion: nil)
    }

    /// Reads a session, and hands `companion` the same walk: the timeline is built in the pass
    /// that finds the leaks, not in a second one.
    package static func analyze(_ reader: TraceReader, session: Int64, configuration: Configuration,
                                companion: (any SessionWalkCompanion)?, prefilter: Bool = true) throws -> [LeakFinding] {
        let box = Box(LeakAnalyzer(configuration: configuration))
        let columns = companion == nil ? "e.seq, e.kind, e.observer, e.message" : "e.seq, e.kind, e.observer, e.message, e.post, e.parent"
        let (sql, values) = reader.eventQuery(session: session, filter: EventFilter(), payloads: false,
                                              condition: "\(RowWalk.name)(\(columns))")
        let statement = try reader.db.prepare(sql)
        try statement.bind(values)
        let cursor = EventCursor(statement: statement, session: session, strings: reader.strings, path: reader.path)
        // Deliveries that cannot trigger a rule stay inside SQLite's loop; the fold sees the rest.
        let delivered = Int64(EventKind.delivered.rawValue), posted = Int64(EventKind.posted.rawValue)
        // Posts matter to the fold when they change the application state, or name the
        // message of a delivery to an observer of every message.
        let stateMessages = Set(TraceState.applicationStateMessages.compactMap(reader.stringID))
        @inline(__always) func wanted(_ row: WalkRow) -> Bool {
            box.last = UInt64(bitPattern: row.int64(0))
            guard prefilter else { return true }
            switch row.int64(1) {
            case delivered:
                guard let observer = row.id(2) else { return true }
                return box.analyzer.deliveryMayMatter(to: observer)
            case posted:
                if box.analyzer.postsMatter() || row.optional(3).map(stateMessages.contains) ?? true { return true }
                box.analyzer.passedPost(at: box.last)
                return false
            default:
                return true
            }
        }
        if let companion {
            // A row comes back when either side wants it as an event; each is given the rows it asked for.
            reader.walk.body = { row in
                box.analyzerWants = wanted(row)
                box.companionTook = companion.take(row)
                return box.analyzerWants || !box.companionTook
            }
        } else {
            reader.walk.body = { row in wanted(row) }
        }
        defer { reader.walk.body = nil }
        if let companion {
            while let event = try cursor.next() {
                if box.analyzerWants { box.analyzer.consume(event) }
                if !box.companionTook { companion.consume(event) }
            }
        } else {
            while let event = try cursor.next() { box.analyzer.consume(event) }
        }
        box.analyzer.state.advance(to: box.last)
        return box.analyzer.finish()
    }

    /// Whether deliveries of `message` to a covered screen are findings, answered once per
    /// observer: hashing the name on every delivery would cost more than the rest of the check.
    private func offscreenMessage(_ message: String, of observer: UInt64) -> Bool {
        if let known = offscreenCache.known[observer] { return known }
        let answer = configuration.offscreenMessages.contains(message)
        offscreenCache.known[observer] = answer
        return answer
    }

    private final class Box {
        // One thread, and the walk and the fold never overlap.
        var analyzer: LeakAnalyzer
        /// The last row the walk saw.
        var last: UInt64 = 0
        /// With a companion, of the last row the walk saw: whether the analyzer wants it as an
        /// event, and whether the companion took it from its integers.
        var analyzerWants = true, companionTook = false
        init(_ analyzer: LeakAnalyzer) { self.analyzer = analyzer }
    }

    /// Whether a delivery to `observer` now could trigger a rule (or is not known to be
    /// harmless): ``LeakRuleDefinition/deliveryRule(_:)`` on what ``checkDelivery(_:)`` would
    /// give it, without building the event.
    ///
    /// `mutating` only so that a call through the walk's box reaches the analyzer in place:
    /// a non-mutating call there copies the whole analyzer, its dictionaries retained, per row.
    mutating func deliveryMayMatter(to id: UInt64) -> Bool {
        if quiet.contains(id) {
            if quietSince == state.ownersGone { return false }
            quiet.removeAll()   // an owner went: every answer below is asked again
            quietSince = state.ownersGone
        }
        if !heard.contains(id) { return true }   // an observer's first delivery: it has heard
        guard let observer = state.observers[id], let ownerID = observer.owner, let owner = state.owners[ownerID] else {
            return false   // `checkDelivery` ignores it, and a delivery changes no state
        }
        guard let message = observer.message else { return true }   // the post decides: let the fold see it
        let facts = delivery(to: observer, owner: owner, message: message, outcome: .delivered, trapReason: nil)
        if !facts.ownerGone && !facts.offscreenMessage {
            // Its owner here, a message that is never a finding off screen: the same answer until an
            // owner goes (or the observer is removed, after which nothing reaches the fold).
            quiet.insert(id)
        }
        return LeakRuleDefinition.deliveryRule(facts) != nil
    }

    /// What the delivery rules look at, for the analysis and the prefilter alike.
    private func delivery(to observer: TraceState.Observer, owner: TraceState.Owner, message: String?,
                          outcome: DeliveryOutcome, trapReason: TrapReason?) -> LeakRuleDefinition.Delivery {
        let offscreen = message.map { offscreenMessage($0, of: observer.id) } ?? false
        let covered = offscreen && state.screen(of: owner.id).map { $0.inHierarchy && !$0.visible } == true
        return LeakRuleDefinition.Delivery(outcome: outcome, trapReason: trapReason, ownerGone: goneAt(owner) != nil,
                                           droppedByCenter: droppedByCenter(observer), offscreenMessage: offscreen,
                                           screenCovered: covered)
    }

    /// When an owner went: when it left the hierarchy or was released, or, for an object that is
    /// not a screen, when the screen it lives in did (a helper a cache keeps alive goes on hearing
    /// posts after its screen is gone, as a retained screen would).
    func goneAt(_ owner: TraceState.Owner) -> UInt64? {
        if let goneAt = owner.goneAt { return goneAt }
        guard !owner.hasLifecycle, let host = owner.host else { return nil }
        return state.screen(of: host)?.goneAt
    }

    /// Folds one event and checks the rules it can trigger.
    public mutating func consume(_ event: RecordedEvent) {
        defer { if event.kind == .posted || event.kind == .lifecycle { lastActivity = event.seq } }
        settleReleases(before: event)
        switch event.kind {
        case .observerAdded where event.message == nil:
            if let id = event.observer { wildcardObservers.insert(id); quiet.remove(id) }
            checkDuplicates(event)
        case .observerAdded:
            if let id = event.observer { quiet.remove(id) }
            forgiveDefensiveRemoval(before: event)
            if let message = event.message, let type = event.owner.flatMap({ state.owners[$0]?.type }) {
                namesObserved[type, default: []].insert(message)
            }
            checkDuplicates(event)
        case .observerRemoved:
            if let id = event.observer { wildcardObservers.remove(id); quiet.remove(id) }
            // What a removal in Foundation's form could not reach, before it is folded; a removal
            // that missed something is reported once, by what it missed.
            let missed = checkMissedBlocks(event)
            checkRemoval(event, missedSomething: missed)
            checkReleasedUnheard(event)
        case .posted:
            if let post = event.post, let message = event.message {
                if recentPosts.count > 4_096 { recentPosts.removeAll(keepingCapacity: true) }
                recentPosts[post] = message
                if let unheard = releasedUnheard.removeValue(forKey: message) {
                    // Its owner gone since (its release dropped the token): nothing to keep.
                    for (observer, _) in unheard where !ownerGone(observer) {
                        reportOnce(.tokenReleasedUnheard, observer: observer, seq: event.seq)
                    }
                }
            }
        case .delivered, .skipped, .trapped:
            if event.kind == .delivered, let observer = event.observer { heard.insert(observer) }
            checkDelivery(event)
        default:
            break
        }
        state.apply(event)
        switch event.kind {
        case .lifecycle where event.phase == .deinit:
            // Settled at the next event that is not one of its deinit's removals: what `deinit` removes did not outlive it.
            if let owner = event.owner { releasing.append((owner, event.seq)) }
        case .ownerReleased:
            guard let owner = event.owner else { break }
            if let holder = event.retainedBy, let observer = state.observers[holder] {
                reportOnce(.blockRetainsOwner, observer: observer, seq: event.seq)
            } else if event.retainedBy == nil {
                ownerReleased(owner, at: event.seq)
            }
        default:
            break
        }
    }

    /// Brings the state to `seq`, the session's last: what the walk does after its last row.
    mutating func advance(to seq: UInt64) {
        state.advance(to: seq)
    }

    /// Closes the pass: observers still registered whose owner is gone outlived it.
    public mutating func finish() -> [LeakFinding] {
        settleReleases(before: nil)
        // A name no owner of the type ever observed: the removal meant another (a typo, the
        // wrong constant). Otherwise a removal of a name not registered at the time: harmless.
        for (var finding, ownerType) in pendingRemovals {
            if let message = finding.message, !(ownerType.flatMap { namesObserved[$0] }?.contains(message) ?? false) {
                finding.rule = .removalMissesObserver
                finding.fingerprint = LeakFinding.fingerprint(rule: .removalMissesObserver, message: message,
                                                              ownerType: finding.ownerType, callSite: finding.callSite)
            }
            findings.append(finding)
        }
        pendingRemovals = []
        for observer in state.liveObservers {
            guard let ownerID = observer.owner, let owner = state.owners[ownerID], goneAt(owner) != nil else { continue }
            if observer.kind == .block, observer.capture == .strong, !owner.released {
                reportOnce(.blockRetainsOwner, observer: observer, seq: state.seq)
            }
            if owner.released && droppedByCenter(observer) { continue }
            outlives(observer, seq: state.seq, released: owner.released)
        }
        return findings.filter { configuration.rules.contains($0.rule) }
            .sorted { ($0.seq, $0.rule.rawValue) < ($1.seq, $1.rule.rawValue) }
    }

    // MARK: Rules

    /// The owner is gone for good: its observers that the center keeps outlived it.
    private mutating func ownerReleased(_ owner: UInt64, at seq: UInt64) {
        let owned = state.observers(ownedBy: owner)
        for observer in owned where !droppedByCenter(observer) {
            outlives(observer, seq: seq, released: true)
        }
    }

    /// A modern selector observer is dropped silently once its target is deallocated.
    private func droppedByCenter(_ observer: TraceState.Observer) -> Bool {
        observer.kind == .selector && configuration.selectorSemantics == .modern
    }

    /// A selector observer whose owner's only other registrations of the name are selectors with other
    /// selectors: Foundation calls each method once per post, as the code asks (rules table: two
    /// selectors for one name are not a duplicate).
    private func isSecondSelector(_ added: TraceState.Observer) -> Bool {
        guard added.kind == .selector, let handler = added.handler, let owner = added.owner else { return false }
        return state.onlyOtherSelectors(owner: owner, message: added.message, sender: added.sender, handler: handler)
    }

    private mutating func checkDuplicates(_ event: RecordedEvent) {
        guard let new = event.observer, let owner = event.owner else { return }
        let added = TraceState.Observer(id: new, message: event.message, owner: owner, sender: event.sender,
                                        callSite: event.callSite ?? "?", addedAt: event.seq,
                                        kind: event.observerKind ?? .token, capture: event.capture, handler: event.handler)
        if state.isRegistered(owner: owner, message: added.message, sender: added.sender), !isSecondSelector(added) {
            findings.append(make(.duplicateRegistration, observer: added, seq: event.seq))
            return
        }
        // One handler for two messages one action posts together runs twice.
        guard let handler = added.handler, let message = added.message else { return }
        let together = configuration.postedTogether.filter { $0.contains(message) }.reduce(into: Set<String>()) {
            $0.formUnion($1)
        }
        if state.messages(handledBy: handler, ownedBy: owner).contains(where: { $0 != message && together.contains($0 ?? "") }) {
            findings.append(make(.duplicateRegistration, observer: added, seq: event.seq))
        }
    }

    private mutating func checkRemoval(_ event: RecordedEvent, missedSomething: Bool) {
        if let id = event.observer, let observer = state.observers[id] {
            remember(observer)
            if event.removalReason == .ownerGone, !droppedByCenter(observer) {
                outlives(observer, seq: event.seq, released: true)
            }
            return
        }
        // A removal that found nothing. By owner: harmless on its own (a deinit's
        // `removeObserver(self)`); what it missed is checked after the fold.
        if event.observer == nil && event.message == nil { return }
        // A removal by name that missed a block: `removal-misses-observer` says what it missed.
        if missedSomething { return }
        let earlier = event.observer.flatMap { removed[$0] }
        let ownerID = event.owner ?? earlier?.owner
        let message = event.message ?? earlier?.message
        if event.observer == nil, let ownerID, message != nil {
            pendingRemovals.append((removalFinding(.unbalancedRemoval, event: event, owner: ownerID, message: message),
                                    state.owners[ownerID]?.type))
            return
        }
        var finding = removalFinding(.unbalancedRemoval, event: event, owner: ownerID, message: message)
        finding.observer = event.observer
        finding.addedAt = earlier?.addedAt
        finding.observerKind = earlier?.kind
        findings.append(finding)
    }

    /// A token dropped at once (released with no post or lifecycle step since it was added),
    /// its owner alive: remembered until its message is next posted, which it would have heard.
    /// A token released later, on purpose (when its screen disappears), is no finding.
    private mutating func checkReleasedUnheard(_ event: RecordedEvent) {
        guard let id = event.observer, let observer = state.observers[id] else { return }
        let wasHeard = heard.contains(id)
        heard.remove(id)
        guard event.removalReason == .tokenReleased, observer.kind == .token, !wasHeard,
              lastActivity < observer.addedAt, let message = observer.message else { return }
        if ownerGone(observer) { return }
        releasedUnheard[message, default: []].append((observer, event.seq))
    }

    /// A removal by owner (or by owner and name) in Foundation's form: the block and token
    /// observers it could not reach (only their observation or token removes them), one finding
    /// per observer and removal line, whether or not the same call removed selector observers.
    /// Asked before the removal is folded. Returns whether it missed any.
    private mutating func checkMissedBlocks(_ event: RecordedEvent) -> Bool {
        guard let ownerID = event.owner else { return false }
        let foundationForm: Bool
        switch event.removalReason {
        case .ownerSelectors: foundationForm = true
        case .explicit:
            // `removeObserver(self, name:)`: nothing found, or a selector observer of that name removed.
            let removedKind = event.observer.flatMap { state.observers[$0]?.kind }
            foundationForm = event.message != nil && (event.observer == nil ? removedKind == nil : removedKind == .selector)
        default: foundationForm = false
        }
        guard foundationForm else { return false }
        // By owner, every message: the event's message is that of the selector observer it removed.
        let name = event.removalReason == .ownerSelectors ? nil : event.message
        let missed = state.observers(ownedBy: ownerID).filter {
            $0.kind != .selector && (name == nil || $0.message == name)
        }
        for observer in missed where missedReported.insert(MissKey(observer: observer.id, callSite: event.callSite ?? "")).inserted {
            var finding = removalFinding(.removalMissesObserver, event: event, owner: ownerID, message: observer.message)
            finding.observer = observer.id
            finding.addedAt = observer.addedAt
            finding.observerKind = observer.kind
            finding.capture = observer.capture
            finding.fingerprint = LeakFinding.fingerprint(rule: .removalMissesObserver, message: observer.message,
                                                          ownerType: finding.ownerType, callSite: finding.callSite)
            findings.append(finding)
        }
        return !missed.isEmpty
    }

    /// `removeObserver(self, name: N)` right before adding `N` again (no post or lifecycle step between):
    /// the defensive re-add that keeps one registration, correct code, not an unbalanced removal.
    private mutating func forgiveDefensiveRemoval(before event: RecordedEvent) {
        guard !pendingRemovals.isEmpty, let owner = event.owner, let message = event.message else { return }
        pendingRemovals.removeAll {
            $0.finding.ownerID == owner && $0.finding.message == message && $0.finding.seq > lastActivity
        }
    }

    /// Owners whose `deinit` was recorded, settled once the removals it makes have been read.
    private mutating func settleReleases(before event: RecordedEvent?) {
        guard !releasing.isEmpty else { return }
        if let event, event.kind == .observerRemoved, let owner = event.owner, releasing.contains(where: { $0.owner == owner }) {
            return
        }
        let settled = releasing
        releasing = []
        for (owner, seq) in settled { ownerReleased(owner, at: seq) }
    }

    /// Whether an observer's owner is gone (``goneAt(_:)``) or released.
    private func ownerGone(_ observer: TraceState.Observer) -> Bool {
        guard let ownerID = observer.owner, let owner = state.owners[ownerID] else { return false }
        return owner.released || goneAt(owner) != nil
    }

    private mutating func checkDelivery(_ event: RecordedEvent) {
        guard let id = event.observer, let observer = state.observers[id], let ownerID = observer.owner,
              let owner = state.owners[ownerID] else { return }
        let message = observer.message ?? event.post.flatMap { recentPosts[$0] }
        let outcome: DeliveryOutcome = switch event.kind {
        case .skipped: .skipped
        case .trapped: .trapped
        default: .delivered
        }
        var facts = delivery(to: observer, owner: owner, message: observer.message, outcome: outcome, trapReason: event.trapReason)
        if observer.message == nil, let message {
            // An observer of every message: the post names this delivery's message.
            facts.offscreenMessage = configuration.offscreenMessages.contains(message)
            facts.screenCovered = state.screen(of: ownerID).map { $0.inHierarchy && !$0.visible } == true
        }
        guard let rule = LeakRuleDefinition.deliveryRule(facts) else { return }
        gather(rule, observer: observer, delivery: FindingDelivery(seq: event.seq, post: event.post ?? 0, message: message,
                                                                   outcome: outcome), seq: event.seq)
    }

    private mutating func outlives(_ observer: TraceState.Observer, seq: UInt64, released: Bool) {
        guard reported.insert(Key(rule: .observerOutlivesOwner, observer: observer.id)).inserted else { return }
        var finding = make(.observerOutlivesOwner, observer: observer, seq: seq)
        finding.ownerReleased = released
        findings.append(finding)
    }

    private mutating func reportOnce(_ rule: LeakRule, observer: TraceState.Observer, seq: UInt64) {
        guard reported.insert(Key(rule: rule, observer: observer.id)).inserted else { return }
        findings.append(make(rule, observer: observer, seq: seq))
    }

    private mutating func gather(_ rule: LeakRule, observer: TraceState.Observer, delivery: FindingDelivery, seq: UInt64) {
        let key = Key(rule: rule, observer: observer.id)
        if let index = open[key] {
            findings[index].deliveryCount += 1
            if findings[index].deliveriesAfter.count < LeakFinding.listedDeliveries {
                findings[index].deliveriesAfter.append(delivery)
            }
            return
        }
        var finding = make(rule, observer: observer, seq: seq)
        finding.deliveriesAfter = [delivery]
        finding.deliveryCount = 1
        open[key] = findings.count
        findings.append(finding)
    }

    private mutating func remember(_ observer: TraceState.Observer) {
        if removed.count > 16_384 { removed.removeAll(keepingCapacity: true) }
        removed[observer.id] = observer
    }

    /// A finding about a removal: located at the line that removed, the one to fix.
    private func removalFinding(_ rule: LeakRule, event: RecordedEvent, owner: UInt64?, message: String?) -> LeakFinding {
        let ownerRecord = owner.flatMap { state.owners[$0] }
        let callSite = event.callSite ?? "-"
        return LeakFinding(
            rule: rule,
            fingerprint: LeakFinding.fingerprint(rule: rule, message: message, ownerType: ownerRecord?.type, callSite: callSite),
            message: message, observer: nil, owner: owner.flatMap { state.label(of: $0) }, ownerType: ownerRecord?.type,
            ownerLocation: ownerRecord?.host == nil ? nil : state.location(of: owner), observerKind: nil, capture: nil,
            callSite: callSite, addedAt: nil, ownerGoneAt: ownerRecord?.goneAt, ownerReleased: nil, seq: event.seq,
            deliveriesAfter: [], deliveryCount: 0, ownerID: owner)
    }

    private func make(_ rule: LeakRule, observer: TraceState.Observer, seq: UInt64) -> LeakFinding {
        let owner = observer.owner.flatMap { state.owners[$0] }
        let severity = LeakRuleDefinition.severity(of: rule, message: observer.message)
        return LeakFinding(
            rule: rule,
            fingerprint: LeakFinding.fingerprint(rule: rule, message: observer.message, ownerType: owner?.type,
                                                 callSite: observer.callSite),
            message: observer.message, observer: observer.id, owner: owner?.label, ownerType: owner?.type,
            ownerLocation: owner?.host == nil ? nil : state.location(of: observer.owner),
            observerKind: observer.kind, capture: observer.capture,
            callSite: observer.callSite, addedAt: observer.addedAt, ownerGoneAt: owner.flatMap(goneAt), ownerReleased: nil,
            seq: seq, deliveriesAfter: [], deliveryCount: 0, ownerID: observer.owner,
            loweredSeverity: severity == rule.severity ? nil : severity)
    }
}

/// Something that reads a session in the leak analysis's own walk (the timeline does).
///
/// Each row is offered to ``take(_:)`` as integers inside SQLite's loop, in `seq` order, before
/// any later row; a row it does not take reaches ``consume(_:)`` as an event, in the same order.
package protocol SessionWalkCompanion: AnyObject {
    /// The row's columns: 0 seq, 1 kind, 2 observer, 3 message, 4 post, 5 parent. Returns
    /// whether the companion took the row (it is then not given it as an event).
    func take(_ row: WalkRow) -> Bool
    /// A row the companion did not take.
    func consume(_ event: RecordedEvent)
}
