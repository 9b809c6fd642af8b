import Foundation
import NotifyBus
import Testing
@testable import TraceStore

@Suite struct ReaderTests {
    @Test func filtersNarrowWithBoundParameters() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path, posts: 5)
        let reader = try TraceReader(path: path)
        #expect(try reader.events(session: session, filter: EventFilter(kinds: [.delivered])).count == 5)
        #expect(try reader.events(session: session, filter: EventFilter(message: Ping.name)).count == 7)
        #expect(try reader.events(session: session, filter: EventFilter(owner: "Login")).map(\.kind)
                == [.ownerRegistered, .observerAdded, .observerRemoved])
        #expect(try reader.events(session: session, filter: EventFilter(since: 3, until: 5)).map(\.seq) == [3, 4, 5])
        #expect(try reader.events(session: session, filter: EventFilter(limit: 2)).map(\.seq) == [0, 1])
        // A value that would break string-built SQL is just a value.
        #expect(try reader.events(session: session, filter: EventFilter(message: "x' OR '1'='1")).isEmpty)
    }

    @Test func stateAtAPointIsAFoldOfTheLog() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path)
        let reader = try TraceReader(path: path)
        let before = try reader.state(session: session, at: 1)
        #expect(before.liveObservers.isEmpty)
        let during = try reader.state(session: session, at: 5)
        #expect(during.liveObservers.map(\.message) == [Ping.name])
        #expect(during.label(of: during.liveObservers.first?.owner) == "Login")
        let after = try reader.state(session: session)
        #expect(after.liveObservers.isEmpty)
    }

    @Test func readOnlyConnectionRefusesWritesAndChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path)
        let reader = try TraceReader(path: path)
        #expect(throws: TraceStoreError.self) {
            try reader.query("DELETE FROM events", columns: { _ in }, row: { _ in })
        }
        #expect(throws: TraceStoreError.self) {
            try reader.query("DROP TABLE events", columns: { _ in }, row: { _ in })
        }
        #expect(try reader.events(session: session).count == 11)
    }

    @Test func documentedViewsAnswerHandWrittenQueries() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        try recordSample(at: path, posts: 2)
        let reader = try TraceReader(path: path)
        var rows: [[SQLValue]] = []
        try reader.query("SELECT message, owner_label, added_seq, removed_seq, removal_reason FROM observers",
                         columns: { #expect($0 == ["message", "owner_label", "added_seq", "removed_seq", "removal_reason"]) },
                         row: { rows.append($0) })
        #expect(rows == [[.text(Ping.name), .text("Login"), .integer(2), .integer(7), .text("explicit")]])
        var deliveries: [[SQLValue]] = []
        try reader.query("SELECT post, owner_label, outcome FROM deliveries ORDER BY seq", columns: { _ in },
                         row: { deliveries.append($0) })
        #expect(deliveries == [[.integer(1), .text("Login"), .text("delivered")], [.integer(2), .text("Login"), .text("delivered")]])
    }

    /// Text is bound and read by its length: a NUL inside a name is kept, not an end.
    @Test func textWithANulRoundTripsWhole() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "a\u{0}b", app: "tests"))
        try recorder.close()
        let reader = try TraceReader(path: path)
        #expect(try reader.sessions().map(\.name) == ["a\u{0}b"])
        let db = try Database(path: path, mode: .readOnly)
        let statement = try db.prepare("SELECT ?1, length(CAST(?1 AS BLOB)), ?2")
        try statement.bind([.text("x\u{0}y\u{0}"), .text("")])
        #expect(try statement.step())
        #expect(statement.text(0) == "x\u{0}y\u{0}")
        #expect(statement.int64(1) == 4)
        #expect(statement.text(2) == "" && !statement.isNull(2))
    }
}
