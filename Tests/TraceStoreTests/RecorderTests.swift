import Foundation
import NotifyBus
import Testing
@testable import TraceStore

@Suite struct RecorderTests {
    @Test func recordedEventsReadBackInOrderWithStringsResolved() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let session = try recordSample(at: path)
        let reader = try TraceReader(path: path)
        let events = try reader.events(session: session)
        #expect(events.map(\.kind) == [
            .sessionStarted, .ownerRegistered, .observerAdded,
            .posted, .delivered, .posted, .delivered, .posted, .delivered,
            .observerRemoved, .sessionEnded,
        ])
        #expect(events.map(\.seq) == Array(0...10).map(UInt64.init))
        let added = events[2]
        #expect(added.message == "TraceStoreTests.Ping")
        #expect(added.callSite?.hasPrefix("TraceStoreTests/Support.swift:") == true)
        #expect(events[1].note == "Login")
        #expect(events[1].detail == "Owner")
        #expect(events[3].payload == #"{"n":0}"#)
        #expect(events[3].detail == "app")
        #expect(events[3].time == 500_000_000)
        #expect(events[9].detail == "explicit")
    }

    #if os(Linux)
    /// The writer is background work: `SCHED_BATCH`, so that waking it never preempts the thread
    /// that posted (BENCHMARKS.md, the recording rows). Every writer thread of the process is
    /// checked, by its name, since other tests' recorders may be running beside this one.
    @Test func theWriterThreadIsNamedAndScheduledAsBatchWork() throws {
        let dir = try TemporaryDirectory()
        let recorder = try TraceRecorder(path: dir.file("t.trace"), session: SessionInfo(name: "writer"))
        defer { try? recorder.close() }
        // The writer names itself when it starts: wait for it (a few milliseconds).
        var writers: [(name: String, policy: Int)] = []
        for _ in 0..<500 {
            writers = Self.threads().filter { $0.name == TraceRecorder.writerName }
            if !writers.isEmpty { break }
            usleep(2_000)
        }
        #expect(!writers.isEmpty)
        #expect(writers.allSatisfy { $0.policy == 3 }, "SCHED_BATCH is 3: \(writers)")
    }

    /// This process's threads: each one's name and scheduling policy (`/proc/self/task/TID/stat`,
    /// field 41; the name, field 2, may hold spaces and parentheses, so fields are counted after its last `)`).
    private static func threads() -> [(name: String, policy: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { tid in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // fields[0] is field 3 (state): field 41 is fields[38].
            guard fields.count > 38, let policy = Int(fields[38]) else { return nil }
            return (String(stat[stat.index(after: open)..<close]), policy)
        }
    }
    #endif

    @Test func payloadsDecodeBackIntoTypedMessages() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "kb"))
        let bus = Bus(sink: recorder)
        let sent = KeyboardWillShow(beginFrame: Rect(x: 0, y: 844, width: 390, height: 0),
                                    endFrame: Rect(x: 0, y: 508, width: 390, height: 336), curve: .keyboard, duration: 0.25)
        bus.post(sent)
        bus.post(Ping(n: 9))
        try recorder.close()
        let reader = try TraceReader(path: path)
        let posts = try reader.events(session: recorder.sessionID, filter: EventFilter(kinds: [.posted]))
        var registry = MessageRegistry()
        let decoded = try registry.decode(name: posts[0].message!, json: posts[0].payload!)
        #expect(decoded as? KeyboardWillShow == sent)
        #expect(throws: TraceStoreError.self) { try registry.decode(name: Ping.name, json: posts[1].payload!) }
        registry.register(Ping.self)
        #expect(try registry.decode(name: Ping.name, json: posts[1].payload!) as? Ping == Ping(n: 9))
    }

    @Test func severalSessionsLiveInOneFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let first = try recordSample(at: path, name: "first", posts: 1)
        let second = try recordSample(at: path, name: "second", posts: 2)
        #expect(first != second)
        let reader = try TraceReader(path: path)
        let sessions = try reader.sessions()
        #expect(sessions.map(\.name) == ["first", "second"])
        #expect(sessions.map(\.endedCleanly) == [true, true])
        #expect(sessions.map(\.eventCount) == [7, 9])
        #expect(try reader.lastSessionID() == second)
        #expect(try reader.events(session: first).count == 7)
    }

    @Test func fullBufferMakesPostersWaitInsteadOfDropping() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "tiny"), bufferCapacity: 8)
        let bus = Bus(sink: recorder)
        let threads = 4, posts = 2_000
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                for n in 0..<posts { bus.post(Ping(n: n)) }
                group.leave()
            }
        }
        group.wait()
        try recorder.close()
        let reader = try TraceReader(path: path)
        let count = try reader.events(session: recorder.sessionID, filter: EventFilter(kinds: [.posted])).count
        #expect(count == threads * posts)
        let sessions = try reader.sessions()
        #expect(sessions[0].eventCount == threads * posts + 2)
    }

    @Test func flushMakesEverythingBeforeItDurable() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "flush"))
        let bus = Bus(sink: recorder)
        for n in 0..<1_000 { bus.post(Ping(n: n)) }
        try recorder.flush()
        #expect(recorder.counts.committed == 1_000)
        // A second connection sees the rows while the recorder is still open.
        let reader = try TraceReader(path: path)
        let rows = try reader.events(session: recorder.sessionID)
        #expect(rows.count == 1_001)
        #expect(try reader.sessions()[0].endedCleanly == false)
        try recorder.close()
        try recorder.close()
    }

    @Test func closedTraceIsOneSelfContainedFileWithIndexes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        try recordSample(at: path)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let db = try Database(path: path, mode: .readOnly)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_by_%'") == 4)
    }
}
