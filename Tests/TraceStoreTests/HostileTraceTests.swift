import Foundation
import NotifyBus
import Testing
@testable import TraceStore

/// Issue 13, item 4: files, paths and payloads that used to trap, lose events or change what they should not.
@Suite struct HostileTraceTests {
    @Test(arguments: ["café.trace", "with space.trace", "100%.trace", "what?.trace", "hash#tag.trace", "%41%3F#?.trace",
                      "Ωmega/日本.trace"])
    func aTraceWithAnyNameReadsBack(name: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let session = try recordSample(at: path, posts: 4)
        let reader = try TraceReader(path: path)
        #expect(reader.path == path)
        #expect(try reader.events(session: session, filter: EventFilter(kinds: [.posted])).count == 4)
        // Nothing was created beside it under a mangled name.
        let entries = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(entries.allSatisfy { $0.hasPrefix((name as NSString).lastPathComponent) }, "\(entries)")
    }

    @Test func aRecorderCreatingAFileIgnoresAStaleWriteAheadLogBesideIt() throws {
        let dir = try TemporaryDirectory()
        let old = try TraceRecorder(path: dir.file("old.trace"), session: SessionInfo(name: "old-session"))
        try old.flush()
        // A killed run's -wal and -shm, without their database file.
        for suffix in ["-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: dir.file("old.trace") + suffix, toPath: dir.file("new.trace") + suffix)
        }
        let session = try recordSample(at: dir.file("new.trace"), name: "new-session")
        let reader = try TraceReader(path: dir.file("new.trace"))
        #expect(try reader.sessions().map(\.name) == ["new-session"])
        #expect(try reader.session(session).endedCleanly)
        _ = old
    }

    @Test func aForeignSQLiteFileIsLeftByteForByteUntouched() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("other.sqlite")
        do {
            let db = try Database(path: path, mode: .create)
            try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ada');")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: TraceStoreError.self) { _ = try TraceRecorder(path: path, session: SessionInfo(name: "x")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["other.sqlite"])
    }

    @Test func aNonTraceFileIsLeftUntouchedByTheRecorder() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        let text = Data(String(repeating: "not a database\n", count: 300).utf8)
        try text.write(to: URL(fileURLWithPath: path))
        #expect(throws: TraceStoreError.self) { _ = try TraceRecorder(path: path, session: SessionInfo(name: "x")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
    }

    @Test func closingTwiceReportsTheFirstFailureAgain() throws {
        let dir = try TemporaryDirectory()
        let recorder = try TraceRecorder(path: dir.file("t.trace"), session: SessionInfo(name: "twice"))
        // Two events with the same sequence number: the batch cannot be written.
        recorder.record(TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 1, typeName: "T", label: "a")))
        recorder.record(TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 2, typeName: "T", label: "b")))
        let first = #expect(throws: TraceStoreError.self) { try recorder.close() }
        let second = #expect(throws: TraceStoreError.self) { try recorder.close() }
        #expect(first?.kind == .sqlite(.constraint))
        #expect(second?.kind == first?.kind)
        #expect(second?.message == first?.message)
    }

    @Test func anEventThatCannotBeWrittenCostsOnlyItself() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "one-bad-event"))
        recorder.record(TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 1, typeName: "T", label: "first")))
        // A second event with seq 1 cannot be inserted; the events around it, and after it, must be.
        recorder.record(TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 2, typeName: "T", label: "duplicate")))
        for seq in UInt64(2)...101 {
            recorder.record(TraceEvent(seq: seq, time: seq, kind: .ownerRegistered(owner: seq + 1, typeName: "T", label: "later")))
        }
        let error = #expect(throws: TraceStoreError.self) { try recorder.close() }
        #expect(error?.kind == .sqlite(.constraint))
        let reader = try TraceReader(path: path)
        let events = try reader.events(session: recorder.sessionID)
        #expect(events.count == 103)
        #expect(events.map(\.seq) == Array(0...102))
        #expect(events.filter { $0.note == "later" }.count == 100)
        #expect(try reader.session(recorder.sessionID).endedCleanly)
    }

    /// A seq past what SQLite stores (a hand-made event: `TraceEvent` and `record` are public)
    /// trapped converting to Int64 on the writer thread, and at close when it was the last.
    @Test(arguments: [UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max])
    func aSeqBeyondInt64IsLostAloneAndTheSessionStillEnds(seq: UInt64) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "huge-seq"))
        recorder.record(TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 1, typeName: "T", label: "first")))
        recorder.record(TraceEvent(seq: 2, time: 0, kind: .ownerRegistered(owner: 2, typeName: "T", label: "second")))
        recorder.record(TraceEvent(seq: seq, time: 0, kind: .ownerRegistered(owner: 3, typeName: "T", label: "huge")))
        let error = #expect(throws: TraceStoreError.self) { try recorder.close() }
        #expect(error?.kind == .invalidArgument)
        let reader = try TraceReader(path: path)
        let events = try reader.events(session: recorder.sessionID)
        #expect(events.map(\.seq) == [0, 1, 2, 3])
        #expect(events.last?.kind == .sessionEnded)
        #expect(try reader.session(recorder.sessionID).endedCleanly)
    }

    @Test func aRolledBackBatchLeavesNoStaleInternedIds() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let db = try Database(path: path, mode: .create)
        let writer = try TraceWriter(db: db, info: SessionInfo(name: "rollback"))
        let message = KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: 1, width: 2, height: 3), curve: .keyboard, duration: 0.25)
        // The batch interns a label, a message name and a payload, then fails on a duplicate seq and rolls back.
        #expect(throws: TraceStoreError.self) {
            try writer.write([
                TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 1, typeName: "Screen", label: "Fresh")),
                TraceEvent(seq: 2, time: 0, kind: .posted(post: 1, message: message, sender: nil, parent: nil, origin: .stimulus)),
                TraceEvent(seq: 2, time: 0, kind: .delivered(post: 1, observer: 1)),
            ])
        }
        try writer.write([
            TraceEvent(seq: 1, time: 0, kind: .ownerRegistered(owner: 1, typeName: "Screen", label: "Fresh")),
            TraceEvent(seq: 2, time: 0, kind: .posted(post: 1, message: message, sender: nil, parent: nil, origin: .stimulus)),
        ])
        try writer.finish(lastSeq: 2, endedAt: Date())
        let reader = try TraceReader(path: path)
        let events = try reader.events(session: writer.session)
        #expect(events[1].note == "Fresh")
        #expect(events[1].detail == "Screen")
        #expect(events[2].message == "keyboardWillShow")
        let payload = try #require(events[2].payload)
        #expect(try MessageRegistry().decode(name: "keyboardWillShow", json: payload) as? KeyboardWillShow == message)
    }

    @Test func aNonFinitePayloadIsRecordedAndLaterEventsAreKept() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "nan"))
        let bus = Bus(sink: recorder)
        let screen = Owner("Login")
        let token = bus.observe(KeyboardWillShow.self, owner: screen) { _ in }
        let frame = Rect(x: 0, y: 508, width: 390, height: 336)
        for duration in [0.25, .nan, .infinity, -.infinity, 0.5] {
            bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: frame, curve: .keyboard, duration: duration))
        }
        for n in 0..<100 { bus.post(Ping(n: n)) }
        bus.remove(token)
        try recorder.close()
        let reader = try TraceReader(path: path)
        let posts = try reader.events(session: recorder.sessionID, filter: EventFilter(kinds: [.posted]))
        #expect(posts.count == 105)
        let durations = try posts.prefix(5).map { event in
            let payload = try #require(event.payload)
            return try #require(try MessageRegistry().decode(name: "keyboardWillShow", json: payload) as? KeyboardWillShow).duration
        }
        #expect(durations[0] == 0.25 && durations[1].isNaN && durations[2] == .infinity && durations[3] == -.infinity
                && durations[4] == 0.5)
        #expect(posts[1].payload?.contains(#""duration":"NaN""#) == true, "\(posts[1].payload ?? "")")
        #expect(try reader.events(session: recorder.sessionID).last?.kind == .sessionEnded)
    }

    @Test func aNegativeSequenceNumberIsADamagedTrace() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path)
        do {
            let db = try Database(path: path, mode: .create)
            try db.execute("UPDATE events SET seq = -7 WHERE seq = 2")
        }
        let reader = try TraceReader(path: path)
        let error = #expect(throws: TraceStoreError.self) { _ = try reader.session(session) }
        #expect(error?.kind == .notATrace)
        #expect(error?.isInvalidInput == true)
        #expect(error?.description.contains("seq -7") == true)
        let streamed = #expect(throws: TraceStoreError.self) { _ = try reader.events(session: session) }
        #expect(streamed?.kind == .notATrace)
    }

    @Test func filterBoundsBeyondTheStoredRangeDoNotTrap() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path)
        let reader = try TraceReader(path: path)
        let all = try reader.events(session: session)
        #expect(try reader.events(session: session, filter: EventFilter(since: .max)).isEmpty)
        #expect(try reader.events(session: session, filter: EventFilter(until: .max)).count == all.count)
        #expect(try reader.events(session: session, filter: EventFilter(observer: .max)).isEmpty)
        #expect(try reader.state(session: session, at: .max).seq == all.last?.seq)
    }
}
