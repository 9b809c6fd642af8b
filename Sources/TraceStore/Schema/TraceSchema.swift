/// The trace file's schema: tables, views and the indexes built when a session closes.
///
/// Documented column by column in `docs/TRACE_FORMAT.md`; a change here is a
/// change of ``version``.
package enum TraceSchema {
    /// The schema version this build writes.
    ///
    /// Version 2 (issue 10) added observer kinds, captures and handler names, owner
    /// attachments and releases, traps, and the session's selector semantics.
    /// Version 3 (issue 13) added `sessions.crashed_at`, set by `tracectl finish`.
    /// Version 3 also (issue 12) added event kind 14, `enqueued`: a delivery queued for a
    /// `@MainActor` or `async` handler.
    /// Version 4 (issue 13) changed only the views' SQL, so that each is one pass (see ``views``);
    /// `tracectl finish` replaces an older file's views.
    /// Version 5 (issue 13) changed only the `deliveries` view: each observer's message name and owner
    /// label are joined once, when its adds are materialised, not once per delivery (9.7× → 5.9× the
    /// plain scan at 1M events, BENCHMARKS.md).
    /// Version 6 (issue 25) added the `session_meta` table: each session's UUID, build, OS, device,
    /// test and free `key=value` facts (``SessionMetadata``). Older files read with a derived UUID;
    /// a version 4 or 5 file being recorded into gains the table.
    package static let version = 6
    /// The oldest schema version this build still reads. Version 1 traces have no
    /// observer kinds: their observers read as typed tokens.
    package static let oldestReadable = 1
    /// The value of `meta.format` that marks a NotifyBus trace.
    package static let format = "notifybus-trace"
    /// The version of the tool written into new traces.
    package static let toolVersion = "0.1.0"

    package static let tables = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sessions(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            app TEXT NOT NULL,
            started_at TEXT NOT NULL,
            tool_version TEXT NOT NULL,
            scenario TEXT,
            ended_at TEXT,
            last_seq INTEGER,
            selector_semantics TEXT,
            crashed_at TEXT
        );
        CREATE TABLE IF NOT EXISTS session_meta(
            session INTEGER NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY(session, key)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS payloads(id INTEGER PRIMARY KEY, json TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS event_kinds(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS events(
            session INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            time_ns INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            message INTEGER,
            owner INTEGER,
            observer INTEGER,
            post INTEGER,
            parent INTEGER,
            sender INTEGER,
            detail INTEGER,
            note INTEGER,
            callsite INTEGER,
            payload INTEGER,
            handler INTEGER,
            PRIMARY KEY(session, seq)
        ) WITHOUT ROWID;
        """

    /// Version 6's table, alone: what ``upgrade(_:from:)`` adds to an older file.
    static let sessionMetaTable = """
        CREATE TABLE IF NOT EXISTS session_meta(
            session INTEGER NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY(session, key)
        ) WITHOUT ROWID;
        """

    package static var kindRows: String {
        EventKind.allCases.map { "INSERT OR IGNORE INTO event_kinds(id, name) VALUES (\($0.rawValue), '\($0.name)');" }
            .joined(separator: "\n")
    }

    /// The views, for users' own SQL (no command reads them). Each reads the events of each
    /// session in one walk of the primary key (or one search of an index on a finished file):
    /// `sessions CROSS JOIN events` puts the session outermost, so the planner walks the
    /// session rather than scanning a whole secondary index and looking every row up; an
    /// observer's removal is the next add-or-remove row of its id (one window over the adds
    /// and removals, never a subquery per observer), and a delivery finds its observer in
    /// the adds materialised once, with its message name and owner label. Version 3's views walked the session once per observer
    /// (`observers`) or per delivery (`deliveries`): minutes on a million events.
    package static let views: String = """
        CREATE VIEW IF NOT EXISTS event_log AS
            SELECT e.session, e.seq, e.time_ns, k.name AS kind, m.value AS message, e.owner, e.observer,
                   e.post, e.parent, e.sender, d.value AS detail, n.value AS note, c.value AS callsite,
                   p.json AS payload
            FROM sessions s CROSS JOIN events e ON e.session = s.id
            JOIN event_kinds k ON k.id = e.kind
            LEFT JOIN strings m ON m.id = e.message
            LEFT JOIN strings d ON d.id = e.detail
            LEFT JOIN strings n ON n.id = e.note
            LEFT JOIN strings c ON c.id = e.callsite
            LEFT JOIN payloads p ON p.id = e.payload;
        CREATE VIEW IF NOT EXISTS owners AS
            SELECT e.session, e.owner, t.value AS type, l.value AS label, e.seq AS registered_seq
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.ownerRegistered.rawValue)
            LEFT JOIN strings t ON t.id = e.detail
            LEFT JOIN strings l ON l.id = e.note;
        CREATE VIEW IF NOT EXISTS observers AS
            SELECT a.session, a.observer, m.value AS message, a.owner, o.label AS owner_label,
                   o.type AS owner_type, a.sender, c.value AS callsite, a.seq AS added_seq,
                   CASE WHEN a.next_kind = \(EventKind.observerRemoved.rawValue) THEN a.next_seq END AS removed_seq,
                   CASE WHEN a.next_kind = \(EventKind.observerRemoved.rawValue) THEN rr.value END AS removal_reason,
                   coalesce(ok.value, 'token') AS kind, oc.value AS capture, oh.value AS handler
            FROM (SELECT e.session, e.seq, e.kind, e.observer, e.message, e.owner, e.sender, e.callsite, e.detail,
                         e.note, e.handler, lead(e.kind) OVER lifetime AS next_kind, lead(e.seq) OVER lifetime AS next_seq,
                         lead(e.detail) OVER lifetime AS next_detail
                  FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind IN (\(EventKind.observerAdded.rawValue), \(EventKind.observerRemoved.rawValue)) AND +e.observer IS NOT NULL
                  WINDOW lifetime AS (PARTITION BY e.session, e.observer ORDER BY e.seq)) a
            LEFT JOIN strings m ON m.id = a.message
            LEFT JOIN strings c ON c.id = a.callsite
            LEFT JOIN strings ok ON ok.id = a.detail
            LEFT JOIN strings oc ON oc.id = a.note
            LEFT JOIN strings oh ON oh.id = a.handler
            LEFT JOIN strings rr ON rr.id = a.next_detail
            LEFT JOIN owners o ON o.session = a.session AND o.owner = a.owner
            WHERE a.kind = \(EventKind.observerAdded.rawValue);
        CREATE VIEW IF NOT EXISTS posts AS
            SELECT e.session, e.post, e.seq, m.value AS message, e.sender, e.parent, d.value AS origin,
                   p.json AS payload
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.posted.rawValue)
            LEFT JOIN strings m ON m.id = e.message
            LEFT JOIN strings d ON d.id = e.detail
            LEFT JOIN payloads p ON p.id = e.payload;
        CREATE VIEW IF NOT EXISTS deliveries AS
            WITH added AS MATERIALIZED (
                SELECT e.session, e.observer, m.value AS message, e.owner, o.label AS owner_label
                FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.observerAdded.rawValue) AND +e.observer IS NOT NULL
                LEFT JOIN strings m ON m.id = e.message
                LEFT JOIN owners o ON o.session = e.session AND o.owner = e.owner)
            SELECT e.session, e.seq, e.post, e.observer, a.message, a.owner, a.owner_label,
                   CASE e.kind WHEN \(EventKind.delivered.rawValue) THEN 'delivered' ELSE 'skipped' END AS outcome
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind IN (\(EventKind.delivered.rawValue), \(EventKind.skipped.rawValue))
            CROSS JOIN added a ON a.session = +e.session AND a.observer = +e.observer;
        CREATE VIEW IF NOT EXISTS lifecycle AS
            SELECT e.session, e.seq, e.time_ns, e.owner, o.label AS owner_label, d.value AS phase, n.value AS note
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.lifecycle.rawValue)
            LEFT JOIN owners o ON o.session = e.session AND o.owner = e.owner
            LEFT JOIN strings d ON d.id = e.detail
            LEFT JOIN strings n ON n.id = e.note;
        CREATE VIEW IF NOT EXISTS attachments AS
            SELECT e.session, e.seq, e.owner, o.label AS owner_label, e.parent AS host, h.label AS host_label
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.ownerAttached.rawValue)
            LEFT JOIN owners o ON o.session = e.session AND o.owner = e.owner
            LEFT JOIN owners h ON h.session = e.session AND h.owner = e.parent;
        CREATE VIEW IF NOT EXISTS releases AS
            SELECT e.session, e.seq, e.owner, o.label AS owner_label, e.observer AS retained_by
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.ownerReleased.rawValue)
            LEFT JOIN owners o ON o.session = e.session AND o.owner = e.owner;
        CREATE VIEW IF NOT EXISTS traps AS
            SELECT e.session, e.seq, e.post, e.observer, d.value AS reason
            FROM sessions s CROSS JOIN events e ON e.session = s.id AND e.kind = \(EventKind.trapped.rawValue)
            LEFT JOIN strings d ON d.id = e.detail;
        """

    /// Drops every view, to replace an older version's (``TraceFinisher``).
    package static let dropViews = ["event_log", "owners", "observers", "posts", "deliveries", "lifecycle",
                                    "attachments", "releases", "traps"].map { "DROP VIEW IF EXISTS \($0);" }.joined(separator: "\n") + "\n"

    /// Secondary indexes. Built when a session closes, never while recording:
    /// they would slow the inserts by an order of magnitude.
    package static let indexes = """
        CREATE INDEX IF NOT EXISTS events_by_kind ON events(session, kind, seq);
        CREATE INDEX IF NOT EXISTS events_by_observer ON events(session, observer, seq) WHERE observer IS NOT NULL;
        CREATE INDEX IF NOT EXISTS events_by_post ON events(session, post) WHERE post IS NOT NULL;
        CREATE INDEX IF NOT EXISTS events_by_owner ON events(session, owner, seq) WHERE owner IS NOT NULL;
        """

    /// The first version from which each later one changed only the views' SQL or added a table: a file
    /// of such a version is brought up to ``version`` by ``upgrade(_:from:)`` when a session is recorded into it.
    package static let viewsOnlySince = 4

    /// Brings a trace of an older `version` (2 or later) to ``version``, inside the caller's
    /// transaction: version 3's `crashed_at` column, version 6's `session_meta`, then this version's views and `meta`.
    package static func upgrade(_ db: Database, from version: Int) throws(TraceStoreError) {
        if version < 3 { try db.execute("ALTER TABLE sessions ADD COLUMN crashed_at TEXT;") }
        if version < 6 { try db.execute(sessionMetaTable) }
        try db.execute(dropViews + views)
        try db.execute("UPDATE meta SET value = '\(self.version)' WHERE key = 'schema_version';")
    }

    /// Creates the schema in an empty database, or checks that an existing one is a trace this build can extend.
    package static func prepare(_ db: Database) throws(TraceStoreError) {
        let hasMeta = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") ?? 0
        let objects = try db.scalar("SELECT count(*) FROM sqlite_master") ?? 0
        if hasMeta == 0 && objects > 0 {
            throw TraceStoreError(.foreignDatabase, "\(db.path): an SQLite database, but not a NotifyBus trace (no meta table)")
        }
        if hasMeta != 0 {
            let found = try validate(db)
            if found >= viewsOnlySince && found < version {
                // Versions since 4 differ only in their views: such a file is extended as it is.
                try db.transaction { () throws(TraceStoreError) in try upgrade(db, from: found) }
                return
            }
            guard found == version else {
                throw TraceStoreError(.unsupportedSchema(found),
                                      "\(db.path): trace schema version \(found) can be read but not appended to by this tool (it writes \(version)); record into a new file")
            }
            return
        }
        try db.transaction { () throws(TraceStoreError) in
            try db.execute(tables)
            try db.execute(kindRows)
            try db.execute(views)
            try db.execute("""
                INSERT INTO meta(key, value) VALUES ('format', '\(format)'), ('schema_version', '\(version)'),
                    ('tool_version', '\(toolVersion)');
                """)
        }
    }

    /// Checks that `db` is a NotifyBus trace of a schema this build reads, with a
    /// one-line error for each way it can fail.
    @discardableResult
    package static func validate(_ db: Database) throws(TraceStoreError) -> Int {
        let hasMeta: Int64
        do {
            hasMeta = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") ?? 0
        } catch {
            if case .sqlite(let code) = error.kind, code == .notADatabase || code == .corrupt {
                throw TraceStoreError(.notATrace, "\(db.path): not an SQLite database, or damaged (\(error.message))")
            }
            throw error
        }
        guard hasMeta != 0 else {
            throw TraceStoreError(.foreignDatabase, "\(db.path): an SQLite database, but not a NotifyBus trace (no meta table)")
        }
        let statement = try db.prepare("SELECT key, value FROM meta WHERE key IN ('format', 'schema_version')")
        var fields: [String: String] = [:]
        while try statement.step() {
            fields[statement.text(0) ?? ""] = statement.text(1)
        }
        guard fields["format"] == format else {
            throw TraceStoreError(.foreignDatabase, "\(db.path): an SQLite database, but not a NotifyBus trace (meta.format is \(fields["format"].map { "'\($0)'" } ?? "missing"))")
        }
        guard let text = fields["schema_version"], let found = Int(text) else {
            throw TraceStoreError(.unsupportedSchema(-1), "\(db.path): trace has no readable schema version")
        }
        guard (oldestReadable...version).contains(found) else {
            let relation = found > version ? "newer than" : "older than"
            throw TraceStoreError(.unsupportedSchema(found),
                                  "\(db.path): trace schema version \(found) is \(relation) the versions this tool reads (\(oldestReadable)-\(version)); use a matching tracectl")
        }
        for table in ["sessions", "events", "strings", "payloads"] {
            guard try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", .text(table)) == 1 else {
                throw TraceStoreError(.notATrace, "\(db.path): trace is missing its \(table) table")
            }
        }
        return found
    }
}
