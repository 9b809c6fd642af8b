import Foundation
import Testing
@testable import TraceStore

/// The views users query with their own SQL: the one-pass definitions (version 4, and version 5's
/// `deliveries`) give the rows version 3's gave, and none of them walks a session once per row of another loop (version
/// 3's `observers` walked it per observer, `deliveries` per observer too: minutes at 1M events).
@Suite struct ViewTests {
    static let views = ["event_log", "owners", "observers", "posts", "deliveries", "lifecycle", "attachments", "releases", "traps"]
    static let fixtures = ["demo", "seed000-keyboard-leak", "pagesheet-keyboard", "v2-keyboard-helper-leak",
                           "v2-audio-interruption-unowned"]

    /// Every row of `view`, as text, in one order.
    func rows(_ path: String, _ view: String) throws -> [String] {
        let db = try Database(path: path, mode: .readOnly)
        let statement = try db.prepare("SELECT * FROM \(view)")
        var rows: [String] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.text($0) ?? "NULL" }.joined(separator: "|"))
        }
        return rows.sorted()
    }

    /// A copy of a version-3 fixture upgraded by `tracectl finish`'s code: its views are replaced.
    @Test(arguments: fixtures)
    func theNewViewsGiveTheOldViewsRows(fixture name: String) throws {
        let dir = try TemporaryDirectory()
        let upgraded = dir.file("upgraded.trace")
        try FileManager.default.copyItem(atPath: fixture(name), toPath: upgraded)
        let outcome = try TraceFinisher.finish(path: upgraded)
        #expect(outcome.upgradedFrom != nil && outcome.upgradedFrom! < 4)
        let statement = try Database(path: upgraded, mode: .readOnly).prepare("SELECT sql FROM sqlite_master WHERE name = 'observers'")
        #expect(try statement.step())
        #expect(statement.text(0)?.contains("lead(e.kind) OVER lifetime") == true)
        for view in Self.views {
            #expect(try rows(upgraded, view) == rows(fixture(name), view), "\(view) in \(name)")
        }
        #expect(try !rows(upgraded, "observers").isEmpty)
        #expect(try !rows(upgraded, "deliveries").isEmpty)
    }

    /// The problems of a view's plan: a correlated subquery, or a walk of a session (or a whole
    /// index) nested inside a loop over anything but the sessions table.
    func problems(_ nodes: [QueryPlanTests.Node]) -> [String] {
        var found: [String] = []
        for node in nodes {
            if node.detail.contains("CORRELATED") { found.append("a correlated subquery: \(node.detail)") }
            let walks = QueryPlanTests.walksSession(node.detail) || node.detail.hasPrefix("SCAN")
            guard walks else { continue }
            let outer = nodes.filter {
                $0.parent == node.parent && $0.id < node.id && ($0.detail.hasPrefix("SCAN") || $0.detail.hasPrefix("SEARCH"))
            }
            for loop in outer where !(loop.detail == "SCAN s" || loop.detail.hasPrefix("SEARCH s ")) {
                found.append("\(node.detail) runs once per row of \(loop.detail)")
            }
        }
        return found
    }

    @Test(arguments: ["closed", "killed"])
    func noViewWalksASessionPerRow(trace: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("fresh.trace")
        try recordSample(at: path, posts: 20)
        if trace == "killed" {
            let db = try Database(path: path, mode: .readWrite)
            try db.execute("""
                DROP INDEX events_by_kind; DROP INDEX events_by_observer; DROP INDEX events_by_post; DROP INDEX events_by_owner;
                UPDATE sessions SET ended_at = NULL, last_seq = NULL;
                """)
        }
        let reader = try TraceReader(path: path)
        #expect(reader.schemaVersion == TraceSchema.version)
        for view in Self.views {
            let nodes = try QueryPlanTests().plan(reader, "SELECT * FROM \(view)", [])
            #expect(problems(nodes).isEmpty, "\(view) on the \(trace) trace: \(problems(nodes))\n\(nodes.map(\.detail))")
        }
        // The check finds what version 3's `observers` did: a walk of the session per observer.
        let old = try QueryPlanTests().plan(reader, """
            SELECT a.seq, (SELECT min(x.seq) FROM events x WHERE x.session = a.session AND x.kind = 3
                           AND x.observer = a.observer AND x.seq > a.seq) FROM events a WHERE a.kind = 2
            """, [])
        #expect(!problems(old).isEmpty)
        #expect(try rows(path, "observers").count == 1)
        #expect(try rows(path, "deliveries").count == 20)
    }
}

/// Appending a session to an older trace: a version-4 file (version 5 changed only the
/// `deliveries` view) is extended and its views replaced; an older one is refused, unchanged.
@Suite struct AppendToOlderVersionTests {
    /// Version 4's `deliveries`, which joined the message and owner once per delivery.
    static let version4Deliveries = """
        CREATE VIEW deliveries AS
            WITH added AS MATERIALIZED (
                SELECT e.session, e.observer, e.message, e.owner
                FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = 2 AND +e.observer IS NOT NULL)
            SELECT e.session, e.seq, e.post, e.observer, m.value AS message, a.owner, o.label AS owner_label,
                   CASE e.kind WHEN 5 THEN 'delivered' ELSE 'skipped' END AS outcome
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind IN (5, 6)
            CROSS JOIN added a ON a.session = +e.session AND a.observer = +e.observer
            LEFT JOIN strings m ON m.id = a.message
            LEFT JOIN owners o ON o.session = a.session AND o.owner = a.owner;
        """

    @Test func aVersion4FileTakesANewSessionAndTheNewViews() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v4.trace")
        try recordSample(at: path, name: "first", posts: 4)
        do {
            let db = try Database(path: path, mode: .readWrite)
            try db.execute("DROP VIEW deliveries; \(Self.version4Deliveries) UPDATE meta SET value = '4' WHERE key = 'schema_version';")
        }
        let before = try ViewTests().rows(path, "deliveries")
        try recordSample(at: path, name: "second", posts: 3)
        let reader = try TraceReader(path: path)
        #expect(reader.schemaVersion == TraceSchema.version)
        #expect(try reader.sessions().map(\.name) == ["first", "second"])
        let sql = try Database(path: path, mode: .readOnly).prepare("SELECT sql FROM sqlite_master WHERE name = 'deliveries'")
        #expect(try sql.step())
        #expect(sql.text(0)?.contains("LEFT JOIN strings m ON m.id = e.message") == true, "version 5's deliveries names each observer's message once")
        // The first session's deliveries read as the old view read them; the second's are there too.
        let after = try ViewTests().rows(path, "deliveries")
        #expect(after.filter { $0.hasPrefix("1|") } == before)
        #expect(after.filter { $0.hasPrefix("2|") }.count == 3)
    }

    @Test func aVersion3FileIsRefusedAndLeftAsItWas() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v3.trace")
        try recordSample(at: path, name: "first")
        do {
            let db = try Database(path: path, mode: .readWrite)
            try db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version';")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: TraceStoreError.self) {
            _ = try TraceRecorder(path: path, session: SessionInfo(name: "second", app: "tests"))
        }
        #expect(error.description.contains("schema version 3 can be read but not appended to"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
