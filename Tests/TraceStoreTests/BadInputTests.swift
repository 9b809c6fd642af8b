import Foundation
import NotifyBus
import Testing
@testable import TraceStore

@Suite struct BadInputTests {
    func openError(_ path: String) -> TraceStoreError? {
        do {
            _ = try TraceReader(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func missingFileIsNotFound() throws {
        let dir = try TemporaryDirectory()
        let error = try #require(openError(dir.file("nope.trace")))
        #expect(error.kind == .fileNotFound)
        #expect(error.description == "\(dir.file("nope.trace")): no such file")
    }

    @Test func fileThatIsNotSQLiteIsRejected() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        try String(repeating: "not a database\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(openError(path))
        #expect(error.kind == .notATrace)
        #expect(error.isInvalidInput)
        #expect(error.description.contains("not an SQLite database"))
        #expect(!error.description.contains("\n"))
    }

    @Test func emptyFileIsRejected() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("empty.trace")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(openError(path)?.kind == .notATrace)
    }

    @Test func truncatedTraceIsRejectedWithoutCrashing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        try recordSample(at: path, posts: 2_000)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: path))
        var error = openError(path)
        if error == nil {
            // The first pages may survive; reading the rest must then fail cleanly.
            do {
                let reader = try TraceReader(path: path)
                _ = try reader.events(session: try reader.lastSessionID())
            } catch let readError as TraceStoreError {
                error = readError
            }
        }
        let found = try #require(error)
        #expect(found.isInvalidInput, "\(found)")
    }

    @Test func sqliteFileThatIsNotATraceIsForeign() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("other.sqlite")
        let db = try Database(path: path, mode: .create)
        try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)")
        let error = try #require(openError(path))
        #expect(error.kind == .foreignDatabase)
        #expect(error.description == "\(path): an SQLite database, but not a NotifyBus trace (no meta table)")
        #expect(throws: TraceStoreError.self) { _ = try TraceRecorder(path: path, session: SessionInfo(name: "x")) }
    }

    @Test func traceOfANewerSchemaIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        try recordSample(at: path)
        let db = try Database(path: path, mode: .create)
        try db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        let error = try #require(openError(path))
        #expect(error.kind == .unsupportedSchema(99))
        #expect(error.description.contains("schema version 99 is newer than the versions this tool reads (1-\(TraceSchema.version))"))
        #expect(throws: TraceStoreError.self) { _ = try TraceRecorder(path: path, session: SessionInfo(name: "x")) }
    }

    @Test func sqliteErrorDescriptionNamesCodeMessageAndSQL() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("x.sqlite"), mode: .create)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")
        let statement = try db.prepare("INSERT INTO t VALUES (?1)")
        try statement.bind([.integer(1)])
        do {
            try statement.run()
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.kind == .sqlite(.constraint))
            #expect(error.description == "SQLite error 19: UNIQUE constraint failed: t.id - while executing `INSERT INTO t VALUES (?1)`")
        }
    }
}
