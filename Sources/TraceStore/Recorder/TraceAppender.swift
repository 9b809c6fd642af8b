import Foundation

/// Adds a recorded session to another trace, whole or not at all: what `tracectl record -o
/// existing.trace` does, so that a file holding other sessions gains one, as a ``TraceRecorder``
/// opened on it would add one, while a failed run leaves it as it was.
package enum TraceAppender {
    /// Copies session `session` of the closed trace `source` into the trace `target`, in one
    /// transaction, and returns its id there (after the target's other sessions).
    ///
    /// Strings are matched by value and payloads renumbered after the target's; every other value
    /// is copied as it is, columns by name (a newer schema's extra session columns included).
    ///
    /// - Throws: ``TraceStoreError``: `.foreignDatabase`/`.notATrace` for a target that is not a
    ///   trace, `.unsupportedSchema` for one this build reads but does not extend, a busy error when
    ///   another process holds it locked past the timeout.
    package static func append(session: Int64, from source: String, into target: String) throws(TraceStoreError) -> Int64 {
        let db = try Database(path: target, mode: .readWrite)
        do {
            try TraceSchema.prepare(db)
        } catch {
            throw TraceReader.damaged(target, error)
        }
        // The file name as SQLite must not read a URI from (`file:x.trace` is a file).
        let attach = try db.prepare("ATTACH DATABASE ?1 AS source")
        try attach.bind([.text(Database.literal(source))])
        try attach.run()
        defer { try? db.execute("DETACH DATABASE source") }
        return try db.transaction { () throws(TraceStoreError) -> Int64 in
            let sessionColumns = try shared("sessions", db).filter { $0 != "id" }
            let list = sessionColumns.joined(separator: ", ")
            let copySession = try db.prepare("INSERT INTO main.sessions(\(list)) SELECT \(list) FROM source.sessions WHERE id = ?1")
            try copySession.bind([.integer(session)])
            try copySession.run()
            guard let id = try db.scalar("SELECT last_insert_rowid()") else {
                throw TraceStoreError(.misuse, "the appended session has no id")
            }
            try db.execute("""
                INSERT OR IGNORE INTO main.strings(value) SELECT value FROM source.strings;
                CREATE TEMP TABLE appended_strings(old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
                INSERT INTO appended_strings SELECT s.id, t.id FROM source.strings s JOIN main.strings t ON t.value = s.value;
                """)
            defer { try? db.execute("DROP TABLE temp.appended_strings") }
            let payloadBase = try db.scalar("SELECT coalesce(max(id), 0) FROM main.payloads") ?? 0
            try db.execute("INSERT INTO main.payloads(id, json) SELECT id + \(payloadBase), json FROM source.payloads")
            let stringColumns: Set<String> = ["message", "detail", "note", "callsite", "handler"]
            let eventColumns = try shared("events", db)
            let values = eventColumns.map { column in
                column == "session" ? "?2"
                    : stringColumns.contains(column) ? "(SELECT new FROM temp.appended_strings WHERE old = e.\(column))"
                    : column == "payload" ? "e.payload + \(payloadBase)"
                    : "e.\(column)"
            }
            let copyEvents = try db.prepare("""
                INSERT INTO main.events(\(eventColumns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM source.events e WHERE e.session = ?1 ORDER BY e.seq
                """)
            try copyEvents.bind([.integer(session), .integer(id)])
            try copyEvents.run()
            return id
        }
    }

    /// The columns `table` has in both the target and the source, in the target's order.
    private static func shared(_ table: String, _ db: Database) throws(TraceStoreError) -> [String] {
        let statement = try db.prepare("""
            SELECT m.name FROM pragma_table_info('\(table)', 'main') m
            WHERE m.name IN (SELECT name FROM pragma_table_info('\(table)', 'source')) ORDER BY m.cid
            """)
        var columns: [String] = []
        while try statement.step() { columns.append(statement.text(0) ?? "") }
        return columns
    }
}
