import NotifyBus

/// Finds the leak rules' findings in one streaming pass over a session.
///
/// Memory grows with live observers, owners and findings, never with the
/// number of events: the analyzer folds a ``TraceState`` and keeps per-finding
/// accumulators only.
///
/// ```swift
/// let findings = try LeakAnalyzer.analyze(reader, session: id)
/// ```
public struct LeakAnalyzer {
    private var state = TraceState()
    private var findings: [LeakFinding] = []
    /// Open findings that gather deliveries, by rule and observer.
    private var open: [Key: Int] = [:]
    private var outlived: Set<UInt64> = []
    private var recentPosts: [UInt64: String] = [:]
    private var removed: [UInt64: TraceState.Observer] = [:]
    /// Live registrations by what makes two of them duplicates.
    private var registrations: [Registration: Int] = [:]

    private struct Registration: Hashable {
        let owner: UInt64?
        let message: String?
        let sender: UInt64?
        let callSite: String?
    }
    private let rules: Set<LeakRule>

    private struct Key: Hashable {
        let rule: LeakRule
        let observer: UInt64
    }

    /// The messages whose delivery to a screen off screen is a finding.
    public static let onScreenMessages: Set<String> = MessageCatalog.keyboardNames.union([OrientationDidChange.name])

    /// An analyzer for `rules` (every rule by default).
    public init(rules: Set<LeakRule> = Set(LeakRule.allCases)) {
        self.rules = rules
    }

    /// Reads a session and returns its findings, ordered by where they were seen.
    public static func analyze(_ reader: TraceReader, session: Int64,
                               rules: Set<LeakRule> = Set(LeakRule.allCases)) throws -> [LeakFinding] {
        var analyzer = LeakAnalyzer(rules: rules)
        try reader.forEachEvent(session: session) { event in
            analyzer.consume(event)
            return true
        }
        return analyzer.finish()
    }

    /// Folds one event and checks the rules it can trigger.
    public mutating func consume(_ event: RecordedEvent) {
        switch event.kind {
        case .observerAdded:
            if let new = event.observer, event.owner != nil {
                let key = Registration(owner: event.owner, message: event.message, sender: event.sender, callSite: event.callSite)
                if registrations[key, default: 0] > 0 {
                    findings.append(make(.duplicateRegistration, observer: TraceState.Observer(
                        id: new, message: event.message, owner: event.owner, sender: event.sender,
                        callSite: event.callSite ?? "?", addedAt: event.seq), seq: event.seq))
                }
                registrations[key, default: 0] += 1
            }
        case .observerRemoved:
            let known = event.observer.flatMap { state.observers[$0] }
            if known == nil {
                let earlier = event.observer.flatMap { removed[$0] }
                var observer = earlier ?? TraceState.Observer(
                    id: event.observer ?? 0, message: event.message, owner: event.owner, sender: nil,
                    callSite: "-", addedAt: 0)
                // The line that removed is the one to fix.
                if let site = event.callSite { observer.callSite = site }
                var finding = make(.unbalancedRemoval, observer: observer, seq: event.seq)
                finding.message = event.message ?? observer.message
                finding.observer = event.observer
                if finding.owner == nil, let owner = event.owner {
                    finding.owner = state.label(of: owner)
                    finding.ownerType = state.owners[owner]?.type
                }
                finding.addedAt = earlier?.addedAt
                finding.fingerprint = LeakFinding.fingerprint(rule: .unbalancedRemoval, message: finding.message,
                                                              ownerType: finding.ownerType, callSite: finding.callSite)
                findings.append(finding)
            } else if let observer = known {
                let key = Registration(owner: observer.owner, message: observer.message, sender: observer.sender,
                                       callSite: observer.callSite)
                if let count = registrations[key] { registrations[key] = count > 1 ? count - 1 : nil }
                if event.detail == "ownerGone" { outlives(observer, seq: event.seq, released: true) }
                remember(observer)
            }
        case .posted:
            if let post = event.post, let message = event.message {
                if recentPosts.count > 4_096 { recentPosts.removeAll(keepingCapacity: true) }
                recentPosts[post] = message
            }
        case .delivered, .skipped:
            guard let id = event.observer, let observer = state.observers[id], let ownerID = observer.owner,
                  let owner = state.owners[ownerID] else { break }
            let message = observer.message ?? event.post.flatMap { recentPosts[$0] }
            let delivery = FindingDelivery(seq: event.seq, post: event.post ?? 0, message: message,
                                           outcome: event.kind == .delivered ? "delivered" : "skipped")
            if owner.goneAt != nil {
                gather(.deliveryAfterOwnerGone, observer: observer, delivery: delivery, seq: event.seq)
            } else if event.kind == .delivered, owner.hasLifecycle, owner.inHierarchy, !owner.visible,
                      let message, Self.onScreenMessages.contains(message) {
                gather(.deliveryWhileOffscreen, observer: observer, delivery: delivery, seq: event.seq)
            }
        default:
            break
        }
        state.apply(event)
        if event.kind == .lifecycle, event.detail == "deinit", let owner = event.owner {
            let owned = state.observers.values.filter { $0.owner == owner }.sorted { $0.id < $1.id }
            for observer in owned {
                outlives(observer, seq: event.seq, released: true)
            }
        }
    }

    /// Closes the pass: observers still registered whose owner is gone outlived it.
    public mutating func finish() -> [LeakFinding] {
        for observer in state.liveObservers {
            guard let ownerID = observer.owner, let owner = state.owners[ownerID], owner.goneAt != nil else { continue }
            outlives(observer, seq: state.seq, released: owner.released)
        }
        return findings.filter { rules.contains($0.rule) }.sorted { ($0.seq, $0.rule.rawValue) < ($1.seq, $1.rule.rawValue) }
    }

    private mutating func outlives(_ observer: TraceState.Observer, seq: UInt64, released: Bool) {
        guard outlived.insert(observer.id).inserted else { return }
        var finding = make(.observerOutlivesOwner, observer: observer, seq: seq)
        finding.ownerReleased = released
        findings.append(finding)
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

    private func make(_ rule: LeakRule, observer: TraceState.Observer, seq: UInt64) -> LeakFinding {
        let owner = observer.owner.flatMap { state.owners[$0] }
        return LeakFinding(
            rule: rule,
            fingerprint: LeakFinding.fingerprint(rule: rule, message: observer.message, ownerType: owner?.type,
                                                 callSite: observer.callSite),
            message: observer.message, observer: observer.id, owner: owner?.label, ownerType: owner?.type,
            callSite: observer.callSite, addedAt: observer.addedAt, ownerGoneAt: owner?.goneAt, ownerReleased: nil,
            seq: seq, deliveriesAfter: [], deliveryCount: 0)
    }
}
