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
    /// One past the last event.
    public var end: UInt64

    /// Reads a session and its leak findings into a timeline.
    ///
    /// - Complexity: O(*n*) in the session's events, plus the leak analysis.
    public static func build(_ reader: TraceReader, session id: Int64) throws -> Timeline {
        let session = try reader.session(id)
        var configuration = LeakAnalyzer.Configuration(rules: Set(LeakRule.allCases))
        if let semantics = session.selectorSemantics { configuration.selectorSemantics = semantics }
        let companion = Companion(reader)
        let findings = try LeakAnalyzer.analyze(reader, session: session.id, configuration: configuration, companion: companion)
        return companion.builder.finish(session: session, groups: FindingGroup.groups(of: findings))
    }

    /// The timeline's side of the leak analysis's walk: deliveries and posts, most of a session,
    /// taken as integers inside SQLite's loop (they never become events); the rest folded as
    /// events. Posts that change the application state go through the fold, which keeps that state.
    private final class Companion: SessionWalkCompanion {
        var builder = Builder()
        private let reader: TraceReader
        private let stateMessages: Set<Int64>
        private var names: [Int64: String] = [:]
        private let delivered = Int64(EventKind.delivered.rawValue), posted = Int64(EventKind.posted.rawValue)

        init(_ reader: TraceReader) {
            self.reader = reader
            stateMessages = Set(TraceState.applicationStateMessages.compactMap(reader.stringID))
        }

        func take(_ row: WalkRow) -> Bool {
            let signedSeq = row.int64(0)
            // A negative seq is refused by the cursor, with the file's name.
            guard signedSeq >= 0 else { return false }
            switch row.int64(1) {
            case delivered:
                guard let observer = row.id(2) else { return false }
                builder.delivered(seq: UInt64(signedSeq), post: row.id(4) ?? 0, observer: observer)
                return true
            case posted:
                guard let post = row.id(4), let message = row.optional(3), !stateMessages.contains(message) else { return false }
                builder.posted(seq: UInt64(signedSeq), post: post, message: name(message), parent: row.id(5))
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

        /// A delivery the walk took as integers: what ``consume(_:)`` does with one.
        mutating func delivered(seq: UInt64, post: UInt64, observer: UInt64) {
            last = seq
            deliveries.append(Delivery(seq: seq, post: post, observer: observer, outcome: .delivered))
        }

        /// A post of a message that does not change the application state, taken as integers.
        mutating func posted(seq: UInt64, post: UInt64, message: String, parent: UInt64?) {
            last = seq
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
                guard let post = event.post else { break }
                posts.append(Post(seq: event.seq, post: post, message: event.message ?? "?", parent: event.parent))
            case .delivered, .skipped, .trapped:
                guard let observer = event.observer else { break }
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
            let end = last + 1
            for (id, start) in visibleSince { if let index = laneIndex[id] { lanes[index].visible.append(Interval(start: start, end: end)) } }
            for (id, start) in inHierarchySince {
                if let index = laneIndex[id] { lanes[index].inHierarchy.append(Interval(start: start, end: end)) }
            }
            for index in observerIndex.values { observers[index].interval.end = end }
            // A host must be a lane; an attachment to an object never registered is dropped.
            for index in lanes.indices where lanes[index].host.map({ laneIndex[$0] == nil }) ?? false {
                lanes[index].host = nil
            }
            return Timeline(session: session, lanes: lanes, observers: observers, posts: posts,
                            deliveries: deliveries, groups: groups, end: end)
        }
    }
}
