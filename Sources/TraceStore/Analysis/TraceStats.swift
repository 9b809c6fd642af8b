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

    /// Computes the statistics of a session with indexed SQL.
    public static func compute(_ reader: TraceReader, session: Int64, top: Int = 10) throws -> TraceStats {
        let s = SQLValue.integer(session)
        let kinds = try reader.rows("SELECT kind, count(*) FROM events WHERE session = ?1 GROUP BY kind ORDER BY kind", [s])
            .compactMap { row -> (EventKind, Int)? in
                guard case .integer(let kind) = row[0], case .integer(let count) = row[1],
                      let known = EventKind(rawValue: Int(kind)) else { return nil }
                return (known, Int(count))
            }
        var messages: [String: MessageCount] = [:]
        for row in try reader.rows("""
            SELECT m.value, count(*) FROM events p JOIN strings m ON m.id = p.message
            WHERE p.session = ?1 AND p.kind = 4 GROUP BY p.message
            """, [s]) {
            let name = row[0].description
            messages[name] = MessageCount(message: name, posts: row[1].int, deliveries: 0, skips: 0)
        }
        for row in try reader.rows("""
            SELECT m.value, d.kind, count(*) FROM events d
            JOIN events p ON p.session = d.session AND p.post = d.post AND p.kind = 4
            JOIN strings m ON m.id = p.message
            WHERE d.session = ?1 AND d.kind IN (5, 6) GROUP BY p.message, d.kind
            """, [s]) {
            let name = row[0].description
            if row[1].int == EventKind.delivered.rawValue {
                messages[name, default: MessageCount(message: name, posts: 0, deliveries: 0, skips: 0)].deliveries = row[2].int
            } else {
                messages[name, default: MessageCount(message: name, posts: 0, deliveries: 0, skips: 0)].skips = row[2].int
            }
        }
        let top = try reader.rows("""
            SELECT d.observer, count(*) AS n, m.value, o.value, c.value FROM events d
            JOIN events a ON a.session = d.session AND a.kind = 2 AND a.observer = d.observer
            LEFT JOIN strings m ON m.id = a.message
            LEFT JOIN strings c ON c.id = a.callsite
            LEFT JOIN (SELECT owner, note FROM events WHERE session = ?1 AND kind = 1) r ON r.owner = a.owner
            LEFT JOIN strings o ON o.id = r.note
            WHERE d.session = ?1 AND d.kind = 5
            GROUP BY d.observer ORDER BY n DESC, d.observer LIMIT ?2
            """, [s, .integer(Int64(top))]).map { row in
            ObserverCount(observer: UInt64(bitPattern: Int64(row[0].int)), message: row[2].text, owner: row[3].text, callSite: row[4].text,
                          deliveries: row[1].int)
        }
        let unheard = try reader.rows("""
            SELECT m.value, count(*) FROM events p JOIN strings m ON m.id = p.message
            WHERE p.session = ?1 AND p.kind = 4
              AND NOT EXISTS (SELECT 1 FROM events d WHERE d.session = p.session AND d.post = p.post AND d.kind IN (5, 6))
            GROUP BY p.message ORDER BY count(*) DESC, m.value
            """, [s]).map { (message: $0[0].description, posts: $0[1].int) }
        return TraceStats(
            kinds: kinds,
            messages: messages.values.sorted { ($0.posts, $1.message) > ($1.posts, $0.message) },
            topObservers: top, unheard: unheard)
    }
}

extension SQLValue {
    var int: Int {
        switch self {
        case .integer(let value): Int(value)
        // A damaged or hand-made file can hold a REAL anywhere: NaN reads as 0, the rest saturates.
        case .real(let value): value.isNaN ? 0 : value >= 0x1p63 ? .max : value < -0x1p63 ? .min : Int(value)
        default: 0
        }
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
