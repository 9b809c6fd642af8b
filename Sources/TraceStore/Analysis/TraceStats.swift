/// Counts that describe a session: what was posted, who received it, what nobody heard.
public struct TraceStats: Sendable {
    public struct MessageCount: Sendable, Hashable {
        public var message: String
        public var posts: Int
        public var deliveries: Int
        public var skips: Int
        /// Deliveries per post.
        public var fanOut: Double { posts == 0 ? 0 : Double(deliveries) / Double(posts) }
    }

    public struct ObserverCount: Sendable, Hashable {
        public var observer: UInt64
        public var message: String?
        public var owner: String?
        public var callSite: String?
        public var deliveries: Int
    }

    /// Events per kind, in kind order.
    public var kinds: [(kind: EventKind, count: Int)]
    /// Posts and deliveries per message, most posted first.
    public var messages: [MessageCount]
    /// The observers that received the most deliveries.
    public var topObservers: [ObserverCount]
    /// Posts that reached no observer, per message.
    public var unheard: [(message: String, posts: Int)]

    /// Computes the statistics of a session in one streaming pass over its rows.
    ///
    /// Reads five integer columns per row in primary-key order (no index needed, so a
    /// killed trace is as fast as a finished one). Memory grows with messages, observers
    /// and owners, and with posts nobody has heard yet, never with deliveries: a delivery
    /// finds its post's message among the recent posts, which is where the bus puts it.
    public static func compute(_ reader: TraceReader, session: Int64, top: Int = 10) throws -> TraceStats {
        let statement = try reader.db.prepare(
            "SELECT kind, message, owner, observer, post, note, callsite FROM events WHERE session = ?1 ORDER BY seq")
        try statement.bind([.integer(session)])
        var kindCounts = [Int](repeating: 0, count: EventKind.allCases.count)
        struct PerMessage { var posts = 0, deliveries = 0, skips = 0 }
        var perMessage: [Int64: PerMessage] = [:]
        struct Observed { var message: Int64?, owner: UInt64?, callSite: Int64?, deliveries = 0 }
        var observers: [UInt64: Observed] = [:]
        var ownerLabels: [UInt64: Int64] = [:]
        // Posts not yet heard by anyone, and a two-generation window of recent posts.
        var unheardSoFar: [UInt64: Int64] = [:]
        var recent: [UInt64: Int64] = [:], older: [UInt64: Int64] = [:]
        let window = 65_536
        var lookup: Statement?
        func message(ofPost post: UInt64) throws(TraceStoreError) -> Int64? {
            if let id = recent[post] ?? older[post] ?? unheardSoFar[post] { return id }
            // A delivery far from its post: ask the file (an index search once the trace is finished).
            let query: Statement
            if let lookup { query = lookup } else {
                query = try reader.db.prepare("SELECT message FROM events WHERE session = ?1 AND post = ?2 AND kind = 4 LIMIT 1")
                lookup = query
            }
            try query.bind([.integer(session), .integer(Int64(bitPattern: post))])
            return try query.step() ? query.optionalInt64(0) : nil
        }
        let posted = Int64(EventKind.posted.rawValue), delivered = Int64(EventKind.delivered.rawValue)
        let skipped = Int64(EventKind.skipped.rawValue), added = Int64(EventKind.observerAdded.rawValue)
        let registered = Int64(EventKind.ownerRegistered.rawValue)
        do {
            while try statement.step() {
                let kind = statement.int64(0)
                if kind >= 0 && kind < Int64(kindCounts.count) { kindCounts[Int(kind)] += 1 }
                switch kind {
                case posted:
                    guard let post = statement.optionalInt64(4).map({ UInt64(bitPattern: $0) }),
                          let message = statement.optionalInt64(1) else { continue }
                    perMessage[message, default: PerMessage()].posts += 1
                    unheardSoFar[post] = message
                    if recent.count >= window { (older, recent) = (recent, [:]) }
                    recent[post] = message
                case delivered, skipped:
                    let observer = statement.optionalInt64(3).map { UInt64(bitPattern: $0) }
                    if kind == delivered, let observer { observers[observer, default: Observed()].deliveries += 1 }
                    guard let post = statement.optionalInt64(4).map({ UInt64(bitPattern: $0) }),
                          let message = try message(ofPost: post) else { continue }
                    unheardSoFar[post] = nil
                    if kind == delivered { perMessage[message, default: PerMessage()].deliveries += 1 }
                    else { perMessage[message, default: PerMessage()].skips += 1 }
                case added:
                    guard let observer = statement.optionalInt64(3).map({ UInt64(bitPattern: $0) }) else { continue }
                    let deliveries = observers[observer]?.deliveries ?? 0
                    observers[observer] = Observed(message: statement.optionalInt64(1),
                                                   owner: statement.optionalInt64(2).map { UInt64(bitPattern: $0) },
                                                   callSite: statement.optionalInt64(6), deliveries: deliveries)
                case registered:
                    if let owner = statement.optionalInt64(2), let label = statement.optionalInt64(5) {
                        ownerLabels[UInt64(bitPattern: owner)] = label
                    }
                default:
                    break
                }
            }
        } catch {
            throw TraceReader.damaged(reader.path, error)
        }
        func text(_ id: Int64?) -> String? { id.flatMap { reader.string($0) } }
        let kinds = EventKind.allCases.compactMap { kind in kindCounts[kind.rawValue] > 0 ? (kind, kindCounts[kind.rawValue]) : nil }
        let messages = perMessage.map { id, counts in
            MessageCount(message: text(id) ?? "?", posts: counts.posts, deliveries: counts.deliveries, skips: counts.skips)
        }
        let topObservers = observers.filter { $0.value.deliveries > 0 }
            .sorted { ($1.value.deliveries, $0.key) < ($0.value.deliveries, $1.key) }
            .prefix(top)
            .map { id, observed in
                ObserverCount(observer: id, message: text(observed.message),
                              owner: text(observed.owner.flatMap { ownerLabels[$0] }), callSite: text(observed.callSite),
                              deliveries: observed.deliveries)
            }
        var unheard: [String: Int] = [:]
        for message in unheardSoFar.values { unheard[text(message) ?? "?", default: 0] += 1 }
        return TraceStats(
            kinds: kinds,
            messages: messages.sorted { ($0.posts, $1.message) > ($1.posts, $0.message) },
            topObservers: Array(topObservers),
            unheard: unheard.map { (message: $0.key, posts: $0.value) }.sorted { ($1.posts, $0.message) < ($0.posts, $1.message) })
    }
}

extension SQLValue {
    var int: Int {
        switch self {
        case .integer(let value): Int(value)
        case .real(let value): Int(value)
        default: 0
        }
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
