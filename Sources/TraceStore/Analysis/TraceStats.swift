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

    /// The one pass of ``compute(_:session:top:)``: the session's rows in primary-key order,
    /// each folded by `notifybus_walk`; only observer and owner registrations come back.
    package static func scanSQL(_ reader: TraceReader, session: Int64) -> String {
        let walk = reader.sessionWalk(session, alias: "events")
        return """
            SELECT kind, message, owner, observer, note, callsite, seq FROM events
            WHERE \(walk.condition) AND notifybus_walk(kind, message, observer, post) ORDER BY \(walk.order)
            """
    }
    /// A post's message, for the rare delivery that comes long after its post. Named
    /// explicitly, the index serves it: without statistics SQLite's planner would rather
    /// walk the session's primary key. A killed trace has no index, and scans.
    /// One post's message, through the post index of a finished trace.
    package static let postLookupSQL =
        "SELECT message FROM events INDEXED BY events_by_post WHERE session = ?1 AND post = ?2 AND kind = \(EventKind.posted.rawValue) LIMIT 1"

    /// Every post's message in one walk: a killed trace has no post index, and a lookup per
    /// post would walk the session once per post.
    package static let postsSQL = "SELECT post, message FROM events WHERE session = ?1 AND kind = \(EventKind.posted.rawValue)"

    /// The fold of a session's statistics.
    ///
    /// Per delivery, one count by observer: a typed observer only ever receives its own
    /// message, so deliveries per message are summed over observers after the pass; only
    /// deliveries to observers of every message look their post up. A post is unheard when
    /// no delivery names it; deliveries follow their post, so only posts not heard by the
    /// time the next one comes are remembered.
    // Exclusivity is not checked at run time on the fold's state: one thread, and no
    // access overlaps another (the checks cost a tenth of the pass).
    private final class Fold {
        @exclusivity(unchecked) var kindCounts = [Int](repeating: 0, count: EventKind.allCases.count)
        @exclusivity(unchecked) var posts: [Int64: Int] = [:]
        @exclusivity(unchecked) var deliveries = IDCounter(), skips = IDCounter()
        /// Observers of every message (told by the caller as they are added), and their deliveries by message.
        @exclusivity(unchecked) var wildcards = IDFlags()
        @exclusivity(unchecked) var wildcardCounts: [Int64: (deliveries: Int, skips: Int)] = [:]
        @exclusivity(unchecked) var lastPost: UInt64?, lastMessage: Int64 = 0, lastHeard = true
        @exclusivity(unchecked) var unheard: [UInt64: Int64] = [:]
        /// A two-generation window of recent posts' messages, kept only while observers of every message exist.
        @exclusivity(unchecked) var recent: [UInt64: Int64] = [:], older: [UInt64: Int64] = [:]
        /// Deliveries and skips of wildcard observers to posts out of the window, looked up after the pass.
        @exclusivity(unchecked) var late: [UInt64: (deliveries: Int, skips: Int)] = [:]
        static let window = 65_536
        let posted = Int64(EventKind.posted.rawValue), delivered = Int64(EventKind.delivered.rawValue)
        let skipped = Int64(EventKind.skipped.rawValue), added = Int64(EventKind.observerAdded.rawValue)
        let registered = Int64(EventKind.ownerRegistered.rawValue)

        /// Folds a row; `true` for the rows the caller reads itself.
        func apply(_ row: WalkRow) -> Bool {
            let kind = row.int64(0)
            if kind >= 0 && kind < Int64(kindCounts.count) { kindCounts[Int(kind)] += 1 }
            switch kind {
            case delivered, skipped:
                guard let observer = row.id(2) else { return false }
                if kind == delivered { deliveries.increment(observer) } else { skips.increment(observer) }
                guard let post = row.id(3) else { return false }
                if post == lastPost { lastHeard = true } else if !unheard.isEmpty { unheard[post] = nil }
                if !wildcards.isEmpty && wildcards.contains(observer) {
                    if let message = post == lastPost ? lastMessage : recent[post] ?? older[post] {
                        if kind == delivered { wildcardCounts[message, default: (0, 0)].deliveries += 1 }
                        else { wildcardCounts[message, default: (0, 0)].skips += 1 }
                    } else if kind == delivered {
                        late[post, default: (0, 0)].deliveries += 1
                    } else {
                        late[post, default: (0, 0)].skips += 1
                    }
                }
            case posted:
                guard let post = row.id(3), let message = row.optional(1) else { return false }
                posts[message, default: 0] += 1
                if let previous = lastPost, !lastHeard { unheard[previous] = lastMessage }
                (lastPost, lastMessage, lastHeard) = (post, message, false)
                if !wildcards.isEmpty {
                    if recent.count >= Self.window { (older, recent) = (recent, [:]) }
                    recent[post] = message
                }
            case added, registered:
                return true
            default:
                // A kind no reader knows comes back to the caller, which refuses the file.
                return kind < 0 || kind >= Int64(kindCounts.count)
            }
            return false
        }

        /// Closes the pass: the last post counts as unheard if nothing heard it.
        func finish() {
            if let lastPost, !lastHeard { unheard[lastPost] = lastMessage }
        }
    }

    /// Computes the statistics of a session in one pass over its rows.
    ///
    /// Reads four integer columns per row in primary-key order, inside SQLite's loop (no
    /// index needed, so a killed trace is as fast as a finished one). Memory grows with
    /// messages, observers and owners, and with posts nobody has heard yet, never with
    /// deliveries: a delivery finds its post's message among the recent posts, which is
    /// where the bus puts it, or, rarely, by a lookup after the pass.
    public static func compute(_ reader: TraceReader, session: Int64, top: Int = 10) throws -> TraceStats {
        let statement = try reader.db.prepare(scanSQL(reader, session: session))
        try statement.bind([.integer(session)])
        let fold = Fold()
        struct Observed { var message: Int64?, owner: UInt64?, callSite: Int64? }
        var observers: [UInt64: Observed] = [:]
        var ownerLabels: [UInt64: Int64] = [:]
        var unknownKind: (kind: Int64, seq: Int64)?
        do {
            try reader.walk.run(statement, body: fold.apply) {
                let id = statement.optionalInt64(2).map { UInt64(bitPattern: $0) }
                let kind = statement.int64(0)
                if EventKind(rawValue: Int(truncatingIfNeeded: kind)) == nil {
                    if unknownKind == nil { unknownKind = (kind, statement.int64(6)) }
                } else if kind == Int64(EventKind.observerAdded.rawValue) {
                    guard let observer = statement.optionalInt64(3).map({ UInt64(bitPattern: $0) }) else { return }
                    let message = statement.optionalInt64(1)
                    observers[observer] = Observed(message: message, owner: id, callSite: statement.optionalInt64(5))
                    if message == nil { fold.wildcards.insert(observer) }
                } else if let owner = id, let label = statement.optionalInt64(4) {
                    ownerLabels[owner] = label
                }
            }
            if let unknownKind {
                throw TraceStoreError(.notATrace, "\(reader.path): trace is damaged: unknown event kind \(unknownKind.kind) at seq \(unknownKind.seq) of session \(session)")
            }
            fold.finish()
            if !fold.late.isEmpty {
                func count(_ post: UInt64, as message: Int64) {
                    guard let counts = fold.late[post] else { return }
                    fold.wildcardCounts[message, default: (0, 0)].deliveries += counts.deliveries
                    fold.wildcardCounts[message, default: (0, 0)].skips += counts.skips
                }
                if reader.hasIndexes {
                    let lookup = try reader.db.prepare(postLookupSQL)
                    for post in fold.late.keys {
                        try lookup.bind([.integer(session), .integer(Int64(bitPattern: post))])
                        guard try lookup.step(), let message = lookup.optionalInt64(0) else { continue }
                        count(post, as: message)
                    }
                } else {
                    let posts = try reader.db.prepare(postsSQL)
                    try posts.bind([.integer(session)])
                    while try posts.step() {
                        guard let message = posts.optionalInt64(1) else { continue }
                        count(UInt64(bitPattern: posts.int64(0)), as: message)
                    }
                }
            }
        } catch let error as TraceStoreError {
            throw TraceReader.damaged(reader.path, error)
        }
        // Deliveries per message: each typed observer's count under its message, then the wildcards'.
        struct PerMessage { var posts = 0, deliveries = 0, skips = 0 }
        var perMessage: [Int64: PerMessage] = [:]
        for (message, count) in fold.posts { perMessage[message, default: PerMessage()].posts = count }
        for (observer, count) in fold.deliveries.counts where !fold.wildcards.contains(observer) {
            guard let message = observers[observer]?.message else { continue }
            perMessage[message, default: PerMessage()].deliveries += count
        }
        for (observer, count) in fold.skips.counts where !fold.wildcards.contains(observer) {
            guard let message = observers[observer]?.message else { continue }
            perMessage[message, default: PerMessage()].skips += count
        }
        for (message, counts) in fold.wildcardCounts {
            perMessage[message, default: PerMessage()].deliveries += counts.deliveries
            perMessage[message, default: PerMessage()].skips += counts.skips
        }
        func text(_ id: Int64?) -> String? { id.flatMap { reader.string($0) } }
        let kinds = EventKind.allCases.compactMap { kind in
            fold.kindCounts[kind.rawValue] > 0 ? (kind, fold.kindCounts[kind.rawValue]) : nil
        }
        let messages = perMessage.map { id, counts in
            MessageCount(message: text(id) ?? "?", posts: counts.posts, deliveries: counts.deliveries, skips: counts.skips)
        }
        let topObservers = fold.deliveries.counts
            .sorted { ($1.count, $0.id) < ($0.count, $1.id) }
            .prefix(top)
            .map { id, count in
                let observed = observers[id]
                return ObserverCount(observer: id, message: text(observed?.message),
                                     owner: text(observed?.owner.flatMap { ownerLabels[$0] }), callSite: text(observed?.callSite),
                                     deliveries: count)
            }
        var unheard: [String: Int] = [:]
        for message in fold.unheard.values { unheard[text(message) ?? "?", default: 0] += 1 }
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
