public import NotifyBus

/// A session laid out in time: each owner's life on screen, each observer's registered interval,
/// every post and delivery, and where each finding was seen.
///
/// Built in one streaming pass that folds a ``TraceState``, so an owner is visible exactly when
/// the leak analysis thinks it is. Positions are sequence numbers: one event, one step.
///
/// ```swift
/// let timeline = try Timeline.build(reader, session: id)
/// for lane in timeline.lanes { print(lane.label, lane.visible) }
/// ```
public struct Timeline: Sendable {
    /// A half-open run of sequence numbers, `start..<end`.
    public struct Interval: Sendable, Hashable {
        public var start: UInt64
        public var end: UInt64

        public init(start: UInt64, end: UInt64) {
            self.start = start
            self.end = end
        }
    }

    /// An owner: a screen, or an object attached to one.
    public struct Lane: Sendable, Hashable {
        public var owner: UInt64
        public var label: String
        public var type: String
        /// The owner it is attached to, when that owner is in the timeline.
        public var host: UInt64?
        /// Whether it has a lifecycle (a screen or container).
        public var isScreen: Bool
        /// When it was first seen.
        public var registeredAt: UInt64
        /// Between `viewWillAppear` and `viewDidDisappear`.
        public var visible: [Interval]
        /// On a stack, presented, a tab or the root.
        public var inHierarchy: [Interval]
        /// When it left the hierarchy for good or was released.
        public var goneAt: UInt64?
        /// Whether it was released (its `deinit` ran or the bus found it gone).
        public var released: Bool
    }

    /// How an observer's registration ended.
    public enum Ending: Sendable, Hashable {
        /// Removed, for this reason.
        case removed(RemovalReason?)
        /// Still registered when the session ended.
        case stillRegistered
    }

    /// An observer's registered interval.
    public struct ObserverSpan: Sendable, Hashable {
        public var id: UInt64
        public var owner: UInt64?
        /// `nil` for an observation of every message.
        public var message: String?
        public var callSite: String
        public var kind: ObserverKind
        public var capture: BlockCapture?
        public var interval: Interval
        public var ending: Ending
    }

    /// One post.
    public struct Post: Sendable, Hashable {
        public var seq: UInt64
        public var post: UInt64
        public var message: String
        /// The post during whose delivery this one was made.
        public var parent: UInt64?
    }

    /// One delivery (or skip, or trap) of a post to an observer.
    public struct Delivery: Sendable, Hashable {
        public var seq: UInt64
        public var post: UInt64
        public var observer: UInt64
        public var outcome: DeliveryOutcome
    }

    public var session: SessionSummary
    /// Owners in the order they were first seen.
    public var lanes: [Lane]
    /// Observers in the order they were added.
    public var observers: [ObserverSpan]
    public var posts: [Post]
    public var deliveries: [Delivery]
    /// The findings, grouped by cause.
    public var groups: [FindingGroup]
    /// The first sequence number shown: 0, or the start of the window it was built for.
    public var start: UInt64
    /// One past the last event shown.
    public var end: UInt64
    /// The window it was built for, as asked (``start`` and ``end`` are what the session holds of it).
    public var window: ClosedRange<UInt64>?

    /// Reads a session and its leak findings into a timeline.
    ///
    /// With a `window`, the whole session is still folded (an owner's state and the leak rules
    /// need what came before), but only what the window shows is kept: its posts, deliveries and
    /// findings, the observers registered at some point of it, the owners registered before its
    /// end and their intervals that reach into it. Memory then grows with the window and the
    /// observers, not with the session.
    ///
    /// - Parameter window: The sequence numbers to show, both ends included; `nil` for all.
    /// - Complexity: O(*n*) in the session's events, plus the leak analysis.
    public static func build(_ reader: TraceReader, session id: Int64, window: ClosedRange<UInt64>? = nil) throws -> Timeline {
        let session = try reader.session(id)
        var configuration = LeakAnalyzer.Configuration(rules: Set(LeakRule.allCases))
        if let semantics = session.selectorSemantics { configuration.selectorSemantics = semantics }
        let shown = window.map { $0.lowerBound..<($0.upperBound == .max ? .max : $0.upperBound + 1) } ?? 0..<UInt64.max
        let companion = Companion(reader, window: shown)
        let findings = try LeakAnalyzer.analyze(reader, session: session.id, configuration: configuration, companion: companion)
        var timeline = companion.builder.finish(session: session, groups: FindingGroup.groups(of: findings.filter { shown.contains($0.seq) }))
        timeline.window = window
        return timeline
    }

    /// The timeline's side of the leak analysis's walk: deliveries and posts, most of a session,
    /// taken as integers inside SQLite's loop (they never become events); the rest folded as
    /// events. Posts that change the application state go through the fold, which keeps that state.
    private final class Companion: SessionWalkCompanion {
        // Not checked at run time (the checks were 7% of a windowed timeline's instructions and 5%
        // of a whole one's, BENCHMARKS.md): one thread, and `take` (inside SQLite's step) and `consume` (between
        // steps) never overlap; the same discipline as the leak analysis's own state.
        @exclusivity(unchecked) var builder: Builder
        private let reader: TraceReader
        private let stateMessages: Set<Int64>
        private var names: [Int64: String] = [:]
        private let delivered = Int64(EventKind.delivered.rawValue), posted = Int64(EventKind.posted.rawValue)

        init(_ reader: TraceReader, window: Range<UInt64>) {
            self.reader = reader
            builder = Builder(window: window)
            stateMessages = Set(TraceState.applicationStateMessages.compactMap(reader.stringID))
        }

        func take(_ row: WalkRow) -> Bool {
            let signedSeq = row.int64(0)
            // A negative seq is refused by the cursor, with the file's name.
            guard signedSeq >= 0 else { return false }
            let seq = UInt64(signedSeq)
            switch row.int64(1) {
            case delivered:
                guard let observer = row.id(2) else { return false }
                builder.delivered(seq: seq, post: row.id(4) ?? 0, observer: observer)
                return true
            case posted:
                // Outside the window, a post that changes the application state must still reach the fold.
                guard let post = row.id(4), let message = row.optional(3), !stateMessages.contains(message) else { return false }
                builder.posted(seq: seq, post: post, message: builder.shows(seq) ? name(message) : "", parent: row.id(5))
                return true
            default:
                return false
            }
        }

        func consume(_ event: RecordedEvent) { builder.consume(event) }

        private func name(_ id: Int64) -> String {
            if let known = names[id] { return known }
            let name = reader.string(id) ?? "?"
            names[id] = name
            return name
        }
    }

    /// The fold that builds a timeline; one event at a time.
    struct Builder {
        private var state = TraceState()
        private var lanes: [Lane] = []
        private var laneIndex: [UInt64: Int] = [:]
        private var visibleSince: [UInt64: UInt64] = [:]
        private var inHierarchySince: [UInt64: UInt64] = [:]
        private var observers: [ObserverSpan] = []
        private var observerIndex: [UInt64: Int] = [:]
        private var posts: [Post] = []
        private var deliveries: [Delivery] = []
        private var last: UInt64 = 0
        /// The sequence numbers whose posts and deliveries are kept.
        private let window: Range<UInt64>

        init(window: Range<UInt64> = 0..<UInt64.max) {
            self.window = window
        }

        /// Whether the window holds `seq`.
        @inline(__always) func shows(_ seq: UInt64) -> Bool { window.contains(seq) }

        /// A delivery the walk took as integers: what ``consume(_:)`` does with one.
        mutating func delivered(seq: UInt64, post: UInt64, observer: UInt64) {
            last = seq
            guard window.contains(seq) else { return }
            deliveries.append(Delivery(seq: seq, post: post, observer: observer, outcome: .delivered))
        }

        /// A post of a message that does not change the application state, taken as integers.
        mutating func posted(seq: UInt64, post: UInt64, message: String, parent: UInt64?) {
            last = seq
            guard window.contains(seq) else { return }
            posts.append(Post(seq: seq, post: post, message: message, parent: parent))
        }

        mutating func consume(_ event: RecordedEvent) {
            last = event.seq
            // The owners whose visibility or place in the hierarchy this event may change.
            var touched: [UInt64] = []
            switch event.kind {
            case .lifecycle, .ownerReleased:
                if let owner = event.owner { touched.append(owner) }
            case .skipped:
                if let owner = event.observer.flatMap({ state.observers[$0]?.owner }) { touched.append(owner) }
            default:
                break
            }
            state.apply(event)
            switch event.kind {
            case .ownerRegistered:
                guard let id = event.owner, let owner = state.owners[id] else { break }
                laneIndex[id] = lanes.count
                lanes.append(Lane(owner: id, label: owner.label, type: owner.type, host: nil, isScreen: false,
                                  registeredAt: event.seq, visible: [], inHierarchy: [], goneAt: nil, released: false))
            case .ownerAttached:
                if let id = event.owner, let index = laneIndex[id] { lanes[index].host = event.host }
            case .observerAdded:
                guard let id = event.observer else { break }
                observerIndex[id] = observers.count
                observers.append(ObserverSpan(
                    id: id, owner: event.owner, message: event.message, callSite: event.callSite ?? "?",
                    kind: event.observerKind ?? .token, capture: event.capture,
                    interval: Interval(start: event.seq, end: event.seq), ending: .stillRegistered))
            case .observerRemoved:
                // A removal that found nothing leaves no interval to close.
                guard let id = event.observer, let index = observerIndex.removeValue(forKey: id) else { break }
                observers[index].interval.end = event.seq
                observers[index].ending = .removed(event.removalReason)
            case .posted:
                guard let post = event.post, window.contains(event.seq) else { break }
                posts.append(Post(seq: event.seq, post: post, message: event.message ?? "?", parent: event.parent))
            case .delivered, .skipped, .trapped:
                guard let observer = event.observer, window.contains(event.seq) else { break }
                let outcome: DeliveryOutcome = switch event.kind {
                case .skipped: .skipped
                case .trapped: .trapped
                default: .delivered
                }
                deliveries.append(Delivery(seq: event.seq, post: event.post ?? 0, observer: observer, outcome: outcome))
            default:
                break
            }
            for owner in touched { track(owner, at: event.seq) }
        }

        /// Opens or closes an owner's visible and in-hierarchy intervals after an event.
        private mutating func track(_ id: UInt64, at seq: UInt64) {
            guard let index = laneIndex[id], let owner = state.owners[id] else { return }
            lanes[index].isScreen = lanes[index].isScreen || owner.hasLifecycle
            lanes[index].goneAt = owner.goneAt
            lanes[index].released = owner.released
            Self.toggle(owner.visible, since: &visibleSince, id: id, at: seq, into: &lanes[index].visible)
            Self.toggle(owner.inHierarchy, since: &inHierarchySince, id: id, at: seq, into: &lanes[index].inHierarchy)
        }

        private static func toggle(_ on: Bool, since: inout [UInt64: UInt64], id: UInt64, at seq: UInt64,
                                   into intervals: inout [Interval]) {
            if on, since[id] == nil {
                since[id] = seq
            } else if !on, let start = since.removeValue(forKey: id) {
                intervals.append(Interval(start: start, end: seq))
            }
        }

        mutating func finish(session: SessionSummary, groups: [FindingGroup]) -> Timeline {
            let start = min(window.lowerBound, last + 1), end = min(last + 1, window.upperBound)
            for (id, start) in visibleSince { if let index = laneIndex[id] { lanes[index].visible.append(Interval(start: start, end: end)) } }
            for (id, start) in inHierarchySince {
                if let index = laneIndex[id] { lanes[index].inHierarchy.append(Interval(start: start, end: end)) }
            }
            for index in observerIndex.values { observers[index].interval.end = end }
            // A host must be a lane; an attachment to an object never registered is dropped.
            for index in lanes.indices where lanes[index].host.map({ laneIndex[$0] == nil }) ?? false {
                lanes[index].host = nil
            }
            guard start > 0 || end <= last else {
                return Timeline(session: session, lanes: lanes, observers: observers, posts: posts,
                                deliveries: deliveries, groups: groups, start: start, end: end)
            }
            // A window: what reaches into start..<end (an interval open at the end reaches it).
            func reaches(_ interval: Interval) -> Bool {
                interval.start < end && (interval.end > start || interval.start == interval.end && interval.start >= start)
            }
            let shownLanes = lanes.filter { $0.registeredAt < end }.map { lane in
                var lane = lane
                lane.visible.removeAll { !reaches($0) }
                lane.inHierarchy.removeAll { !reaches($0) }
                return lane
            }
            let shownOwners = Set(shownLanes.map(\.owner))
            return Timeline(session: session,
                            lanes: shownLanes.map { lane in
                                var lane = lane
                                if let host = lane.host, !shownOwners.contains(host) { lane.host = nil }
                                return lane
                            },
                            observers: observers.filter { reaches($0.interval) }, posts: posts,
                            deliveries: deliveries, groups: groups, start: start, end: end)
        }
    }
}
