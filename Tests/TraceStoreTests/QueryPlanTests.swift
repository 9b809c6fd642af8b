import Foundation
import Testing
@testable import TraceStore

/// Every query a command runs against a trace is one pass in primary-key order or an
/// index search: checked with SQLite's own `EXPLAIN QUERY PLAN`, on a finished trace
/// (indexes) and on the same trace as a killed recorder leaves it (no indexes).
@Suite struct QueryPlanTests {
    /// One node of a query plan.
    struct Node {
        var id: Int
        var parent: Int
        var detail: String
    }

    func plan(_ reader: TraceReader, _ sql: String, _ values: [SQLValue]) throws -> [Node] {
        try reader.rows("EXPLAIN QUERY PLAN " + sql, values).map { row in
            Node(id: row[0].int, parent: row[1].int, detail: row[3].description)
        }
    }

    /// Whether a plan step walks a whole session: a scan, or a "search" that SQLite
    /// constrains by the session alone (or a range of `seq`), which visits every row.
    static func walksSession(_ detail: String) -> Bool {
        if detail.hasPrefix("SCAN") { return !detail.contains("CONSTANT ROW") }
        guard detail.hasPrefix("SEARCH"), let open = detail.lastIndex(of: "("), detail.hasSuffix(")") else { return false }
        let terms = detail[detail.index(after: open)..<detail.index(before: detail.endIndex)].components(separatedBy: " AND ")
        return terms.allSatisfy { $0 == "session=?" || $0.hasPrefix("seq>") || $0.hasPrefix("seq<") }
    }

    /// The problems of a plan: a walk of a session inside a correlated subquery (a walk per
    /// row: quadratic), more than one walk in the statement or in a subquery run once, or a
    /// sort of the result (which holds it all in memory).
    func problems(_ nodes: [Node]) -> [String] {
        var byID: [Int: Node] = [:]
        for node in nodes { byID[node.id] = node }
        /// The nearest enclosing subquery step, if any.
        func subquery(of node: Node) -> Node? {
            var next = byID[node.parent]
            while let current = next {
                if current.detail.contains("SUBQUERY") { return current }
                next = byID[current.parent]
            }
            return nil
        }
        var found: [String] = []
        var walks: [Int: Int] = [:]   // by enclosing subquery id, -1 for the statement itself
        for node in nodes where Self.walksSession(node.detail) {
            let scope = subquery(of: node)
            if let scope, scope.detail.contains("CORRELATED") {
                found.append("walks a session inside a correlated subquery: \(node.detail)")
            }
            walks[scope?.id ?? -1, default: 0] += 1
        }
        for (_, count) in walks where count > 1 { found.append("\(count) walks of a session in one query") }
        for node in nodes where node.detail.contains("TEMP B-TREE") {
            found.append("sorts or groups its result in memory: \(node.detail)")
        }
        return found
    }

    /// The demo fixture, and a copy of it with its indexes dropped and its session never
    /// ended: a killed recorder's file (CrashSafetyTests make real ones).
    func traces() throws -> (closed: String, killed: String, directory: TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let killed = dir.file("killed.trace")
        try FileManager.default.copyItem(atPath: fixture("demo"), toPath: killed)
        let db = try Database(path: killed, mode: .readWrite)
        try db.execute("""
            DROP INDEX events_by_kind; DROP INDEX events_by_observer; DROP INDEX events_by_post; DROP INDEX events_by_owner;
            UPDATE sessions SET ended_at = NULL, last_seq = NULL;
            """)
        return (fixture("demo"), killed, dir)
    }

    /// Every query that streams a session, by the command that runs it.
    func streamingQueries(_ reader: TraceReader) throws -> [(name: String, sql: String, values: [SQLValue])] {
        let session = try reader.lastSessionID()
        let s = SQLValue.integer(session)
        var all: [(String, String, [SQLValue])] = [
            ("stats", TraceStats.scanSQL(reader, session: session), [s]),
            ("verify", TraceVerification.scanSQL(reader, session: session), [s]),
            ("stats: late deliveries' posts on a killed trace", TraceStats.postsSQL, [s]),
        ]
        let leaks = reader.eventQuery(session: session, filter: EventFilter(), payloads: false,
                                      condition: "\(RowWalk.name)(e.seq, e.kind, e.observer)")
        all.append(("leaks", leaks.sql, leaks.values))
        for at in [UInt64(40), nil] {
            let state = reader.stateQuery(session: session, at: at)
            all.append(("observers --at \(at.map(String.init) ?? "end")", state.sql, state.values))
        }
        let filters: [(String, EventFilter)] = [
            ("leaks, observers, replay, diff, events", EventFilter()),
            ("observers --at", EventFilter(until: 40)),
            ("events --kind, two kinds", EventFilter(kinds: [.posted, .delivered])),
            ("events --kind; owners, observers (one kind)", EventFilter(kinds: [.observerAdded])),
            ("events --message", EventFilter(message: "KeyboardWillShow")),
            ("events --owner ID", EventFilter(owner: "3")),
            ("events --owner LABEL", EventFilter(owner: "Login")),
            ("events --observer", EventFilter(observer: 2)),
            ("events --since --until --limit", EventFilter(since: 10, until: 90, limit: 5)),
        ]
        for (name, filter) in filters {
            for payloads in [true, false] {
                let (sql, values) = reader.eventQuery(session: session, filter: filter, payloads: payloads)
                all.append(("\(name)\(payloads ? "" : " (no payloads)")", sql, values))
            }
            // `events` on a trace without indexes (or narrowed by `seq` alone): one walk, the
            // filter in its WHERE beside the registrations.
            let (sql, values) = reader.registrationsAndEventsQuery(session: session, filter: filter)
            all.append(("\(name), walking with the registrations", sql, values))
        }
        // `events` printing every event (or a seq range): one walk, deliveries read inside SQLite.
        for (filter, wholeTable) in [(EventFilter(), false), (EventFilter(), true), (EventFilter(since: 10, until: 90), false)] {
            let (sql, values) = reader.printingWalkQuery(session: session, filter: filter, wholeTable: wholeTable)
            all.append(("events, every event\(filter.since == nil ? "" : " of a range")\(wholeTable ? " of the whole table" : ""), printing deliveries in the walk", sql, values))
        }
        // `diff` and replay: one walk per side, deliveries and posts read inside SQLite.
        for wholeTable in [false, true] {
            let (sql, values) = TraceRows.walkQuery(reader, session: session, wholeTable: wholeTable)
            all.append(("diff, replay\(wholeTable ? " of the whole table" : ""), comparing rows in the walk", sql, values))
        }
        return all
    }

    /// Queries that read a few rows: a `LIMIT` on a walk in key order, or an index search.
    func limitedQueries(_ reader: TraceReader) throws -> [(name: String, sql: String, values: [SQLValue])] {
        let s = SQLValue.integer(try reader.lastSessionID())
        return [
            ("sessions: first event", TraceReader.firstEventSQL, [s]),
            ("sessions: last events", TraceReader.lastEventsSQL, [s]),
            ("observers --at: the last event", TraceReader.lastEventAtSQL, [s, .integer(40)]),
        ] + (reader.hasIndexes ? [("stats: a late delivery's post", TraceStats.postLookupSQL, [s, .integer(3)])] : [])
    }

    @Test(arguments: ["closed", "killed"])
    func everyCommandsQueryIsOnePassOrAnIndexSearch(trace: String) throws {
        let (closed, killed, directory) = try traces()
        let reader = try TraceReader(path: trace == "closed" ? closed : killed)
        #expect(reader.hasIndexes == (trace == "closed"))
        for (name, sql, values) in try streamingQueries(reader) {
            let nodes = try plan(reader, sql, values)
            #expect(nodes.contains { Self.walksSession($0.detail) || $0.detail.hasPrefix("SEARCH e USING") })
            #expect(problems(nodes).isEmpty, "\(name) on the \(trace) trace: \(problems(nodes))\n\(nodes.map(\.detail))")
        }
        for (name, sql, values) in try limitedQueries(reader) {
            let nodes = try plan(reader, sql, values)
            #expect(sql.hasSuffix("LIMIT 1") || sql.hasSuffix("LIMIT 2"), "\(name)")
            #expect(problems(nodes).isEmpty, "\(name) on the \(trace) trace: \(problems(nodes))\n\(nodes.map(\.detail))")
        }
        let sessions = try plan(reader, reader.sessionsSQL, []).map(\.detail)
        #expect(!sessions.contains { $0.contains("events") || $0.contains(" e ") }, "sessions reads only its own table: \(sessions)")
        withExtendedLifetime(directory) {}
    }

    /// The checker itself catches the quadratic query that made `verify` hang (issue 13).
    @Test func theCheckerRejectsACorrelatedScan() throws {
        let (_, killed, directory) = try traces()
        let reader = try TraceReader(path: killed)
        let nodes = try plan(reader, """
            SELECT d.seq FROM events d WHERE d.session = ?1 AND d.kind IN (5, 6)
              AND NOT EXISTS (SELECT 1 FROM events a WHERE a.session = d.session AND a.kind = 2 AND a.observer = d.observer AND a.seq < d.seq)
            """, [.integer(1)])
        #expect(problems(nodes).contains { $0.hasPrefix("walks a session inside a correlated subquery") })
        #expect(Self.walksSession("SEARCH a USING PRIMARY KEY (session=? AND seq<?)"))
        #expect(!Self.walksSession("SEARCH e USING INDEX events_by_observer (session=? AND observer=?)"))
        withExtendedLifetime(directory) {}
    }

    /// On a finished trace, the filters an index serves use it.
    @Test func filtersUseTheirIndexOnAFinishedTrace() throws {
        let reader = try TraceReader(path: fixture("demo"))
        let session = try reader.lastSessionID()
        for (filter, index) in [(EventFilter(observer: 2), "events_by_observer"), (EventFilter(owner: "3"), "events_by_owner"),
                                (EventFilter(kinds: [.ownerRegistered]), "events_by_kind")] {
            let (sql, values) = reader.eventQuery(session: session, filter: filter, payloads: true)
            let details = try plan(reader, sql, values).map(\.detail)
            #expect(details.contains { $0.contains("SEARCH e USING INDEX \(index)") }, "\(details)")
        }
        let details = try plan(reader, TraceStats.postLookupSQL, [.integer(session), .integer(3)]).map(\.detail)
        #expect(details.contains { $0.contains("USING INDEX events_by_post") }, "\(details)")
    }
}

/// `tracectl events` on a trace without indexes: one walk whose `WHERE` applies the filter, so
/// only the registrations and the events asked for come back to Swift (issue 13).
@Suite struct FilteredWalkTests {
    let plans = QueryPlanTests()

    @Test(arguments: ["closed", "killed"])
    func aFilteredWalkIsOneWalkOfThePrimaryKey(trace: String) throws {
        let (closed, killed, directory) = try plans.traces()
        let reader = try TraceReader(path: trace == "closed" ? closed : killed)
        let session = try reader.lastSessionID()
        for filter in [EventFilter(observer: 2), EventFilter(kinds: [.lifecycle]), EventFilter(kinds: [.posted, .delivered]),
                       EventFilter(owner: "Login"), EventFilter(owner: "3"), EventFilter(message: "keyboardWillShow"),
                       EventFilter(since: 30, until: 60)] {
            let (sql, values) = reader.registrationsAndEventsQuery(session: session, filter: filter)
            let details = try plans.plan(reader, sql, values).map(\.detail)
            // No search of an index, no union of two: the primary key, once, in order.
            #expect(details.filter(QueryPlanTests.walksSession).count == 1, "\(filter): \(details)")
            #expect(details.contains { $0.hasPrefix("SEARCH e USING PRIMARY KEY") }, "\(filter): \(details)")
            #expect(!details.contains { $0.contains("INDEX events_by") || $0.contains("MULTI-INDEX") || $0.contains("TEMP B-TREE") },
                    "\(filter): \(details)")
        }
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: ["closed", "killed"])
    func aFilteredWalkReturnsOnlyTheRegistrationsAndTheEventsAskedFor(trace: String) throws {
        let (closed, killed, directory) = try plans.traces()
        let reader = try TraceReader(path: trace == "closed" ? closed : killed)
        let session = try reader.lastSessionID()
        let all = try reader.events(session: session)
        let filters = [EventFilter(observer: 2), EventFilter(kinds: [.lifecycle]), EventFilter(kinds: [.posted, .delivered]),
                       EventFilter(owner: "Login"), EventFilter(kinds: [.lifecycle], owner: "Login", limit: 3),
                       EventFilter(owner: "3"), EventFilter(message: "keyboardWillShow"), EventFilter(message: "never interned"),
                       EventFilter(owner: "Nobody"), EventFilter(since: 30, until: 60), EventFilter(observer: 2, since: 30, limit: 2),
                       EventFilter(limit: 0)]
        for filter in filters {
            // Rows are read in place: what each was is known by its seq.
            var returned: [UInt64] = [], wanted: [UInt64] = []
            try reader.forEachEventRowWithRegistrations(session: session, filter: filter) { row, passes in
                let seq = UInt64(row.int64(.seq))
                returned.append(seq)
                if passes { wanted.append(seq) }
                return true
            }
            // The same events as the indexed (or plain SQL) read of the filter.
            #expect(wanted == (try reader.events(session: session, filter: filter)).map(\.seq), "\(filter)")
            // And nothing else but registrations up to the last row read.
            let last = returned.last ?? 0
            let registrations = all.filter { TraceReader.registrationKinds.contains($0.kind) && $0.seq <= last }.map(\.seq)
            let expected = Set(registrations).union(wanted)
            #expect(returned.count == expected.count && Set(returned) == expected, "\(filter)")
            #expect(returned == returned.sorted())
            if filter.since != nil || filter.observer != nil || filter.kinds != nil || filter.message != nil || filter.owner != nil {
                #expect(returned.count < all.count, "\(filter): \(returned.count) of \(all.count) rows")
            }
        }
        withExtendedLifetime(directory) {}
    }
}
