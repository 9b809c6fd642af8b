import Foundation
import Testing
@testable import TraceStore
import NotifyBus
import Synchronization

/// Kills a real recording process with SIGKILL and checks what it leaves.
@Suite struct CrashSafetyTests {
    /// Starts the child, waits until it has reported `flushes` flushes, kills it,
    /// and returns the highest event count it reported as committed.
    func recordAndKill(path: String, flushes: Int) throws -> UInt64 {
        let child = Process()
        child.executableURL = productsDirectory().appendingPathComponent("trace-crash-child")
        child.arguments = [path]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        var reported: UInt64 = 0
        var seen = 0
        var buffer = Data()
        let handle = pipe.fileHandleForReading
        while seen < flushes {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.hasPrefix("committed "), let value = UInt64(line.dropFirst(10)) {
                    reported = max(reported, value)
                    seen += 1
                }
            }
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
        return reported
    }

    @Test(arguments: [1, 3, 8, 20])
    func killedRecorderLeavesAValidTraceWithEverythingItFlushed(flushes: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("crash.trace")
        let reported = try recordAndKill(path: path, flushes: flushes)
        #expect(reported > 0)

        let db = try Database(path: path, mode: .readOnly)
        let check = try db.prepare("PRAGMA integrity_check")
        #expect(try check.step())
        #expect(check.text(0) == "ok")

        let reader = try TraceReader(path: path)
        let session = try #require(try reader.sessions().first)
        #expect(!session.endedCleanly, "a killed session must read as not ended")
        let maxSeq = try #require(try db.scalar("SELECT max(seq) FROM events WHERE session = ?1", .integer(session.id)))
        let rows = try #require(try db.scalar("SELECT count(*) FROM events WHERE session = ?1", .integer(session.id)))
        // Seq 0 is the session start: rows 0...max with no gap.
        #expect(rows == maxSeq + 1)
        #expect(UInt64(maxSeq) >= reported, "every event reported as flushed is in the file")
        // Events read back and the fold works on the partial log.
        let state = try reader.state(session: session.id)
        #expect(state.liveObservers.count == 1)
    }
}

extension CrashSafetyTests {
    func indexCount(_ path: String) throws -> Int64 {
        try Database(path: path, mode: .readOnly).scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_by_%'") ?? -1
    }

    /// A real SIGKILLed recording, finished: every event kept, the session marked crashed, the indexes built.
    @Test func finishingAKilledTraceKeepsEveryEventAndMarksItCrashed() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("crash.trace")
        let reported = try recordAndKill(path: path, flushes: 3)
        let before = try TraceReader(path: path).events(session: 1)
        #expect(UInt64(before.count) > reported)
        #expect(try indexCount(path) == 0, "a killed recorder built no index")
        do {
            let verification = try TraceVerification.run(try TraceReader(path: path))
            #expect(verification.isValid)
            #expect(!verification.sessions[0].session.endedCleanly && verification.sessions[0].session.crashedAt == nil)
        }

        let outcome = try TraceFinisher.finish(path: path)
        #expect(outcome.finished == [.init(id: 1, lastSeq: before.last?.seq)])
        #expect(outcome.upgradedFrom == nil)

        let reader = try TraceReader(path: path)
        #expect(try reader.events(session: 1) == before, "finishing adds, changes and loses no event")
        let session = try reader.session(1)
        #expect(session.crashedAt != nil)
        #expect(!session.endedCleanly)
        #expect(session.eventCount == before.count)
        #expect(try indexCount(path) == 4)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the file is self-contained again")
        let verification = try TraceVerification.run(reader, thorough: true)
        #expect(verification.isValid, "\(verification.sessions.map(\.problems))")
        #expect(verification.sessions[0].rowCount == before.count)

        // Finishing again changes nothing.
        #expect(try TraceFinisher.finish(path: path).finished.isEmpty)
        #expect(try TraceReader(path: path).session(1).crashedAt == session.crashedAt)
    }

    /// A schema-2 trace left by a killed recorder is upgraded to schema 3 as it is finished.
    @Test func finishingASchema2TraceUpgradesIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v2.trace")
        _ = try recordAndKill(path: path, flushes: 1)
        do {
            // What a schema-2 recorder left: no crashed_at column.
            let db = try Database(path: path, mode: .readWrite)
            try db.execute("ALTER TABLE sessions DROP COLUMN crashed_at; UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        }
        let before = try TraceReader(path: path).events(session: 1)
        let outcome = try TraceFinisher.finish(path: path)
        #expect(outcome.upgradedFrom == 2)
        #expect(outcome.finished.map(\.id) == [1])
        let reader = try TraceReader(path: path)
        #expect(reader.schemaVersion == TraceSchema.version)
        #expect(try reader.events(session: 1) == before)
        #expect(try reader.session(1).crashedAt != nil)
    }
}

/// Many kill points, off by default: `NOTIFYBUS_SOAK=1 swift test --filter Soak`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["NOTIFYBUS_SOAK"] != nil, "set NOTIFYBUS_SOAK=1 to run"))
struct CrashSoakTests {
    @Test(arguments: Array(stride(from: 1, through: 120, by: 7)))
    func killedRecorderAlwaysLeavesAValidTrace(flushes: Int) throws {
        try CrashSafetyTests().killedRecorderLeavesAValidTraceWithEverythingItFlushed(flushes: flushes)
    }
}

/// A recording process that dies inside a delivery: the trace, read as it is or finished, holds every
/// event up to and including that delivery (the journal, `EventJournal`). Many runs each, as the
/// loss this guards against showed in 3 runs of 15.
@Suite struct CrashInDeliveryTests {
    /// Runs the child until it dies in the handler of post `posts`, by `how` (`kill` or `trap`).
    func crash(_ how: String, posts: Int, path: String) throws -> Process {
        let child = Process()
        child.executableURL = productsDirectory().appendingPathComponent("trace-crash-child")
        child.arguments = ["--crash-in-delivery", how, String(posts), path]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        return child
    }

    /// Checks that the session holds posts 1...`posts`, each delivered, and ends with the delivery of the last.
    func expectEveryEventUpToTheCrash(_ reader: TraceReader, posts: Int, _ note: String) throws {
        let events = try reader.events(session: 1)
        #expect(events.map(\.seq) == Array(0..<UInt64(events.count)), "no gap, \(note)")
        let postIDs = events.filter { $0.kind == .posted }.compactMap(\.post)
        let delivered = events.filter { $0.kind == .delivered }.compactMap(\.post)
        #expect(postIDs == Array(1...UInt64(posts)), "every post up to the crash, \(note)")
        #expect(delivered == Array(1...UInt64(posts)), "every delivery up to the crash, \(note)")
        let last = try #require(events.last)
        #expect(last.kind == .delivered && last.post == UInt64(posts), "the crash's delivery is the last event, \(note)")
    }

    @Test(arguments: ["kill", "trap"])
    func everyEventUpToTheCrashingDeliveryIsKept(how: String) throws {
        let dir = try TemporaryDirectory()
        for run in 0..<20 {
            // From a first post to several laps of the journal's ring.
            let posts = [1, 2, 7, 300, 1_800, 5_000][run % 6] + run
            let path = dir.file("crash-\(how)-\(run).trace")
            let child = try crash(how, posts: posts, path: path)
            #expect(child.terminationReason == .uncaughtSignal, "the child died by a signal, run \(run)")
            let note = "\(how), run \(run), \(posts) posts"
            // Read as it is: a reader adds the journal's events without writing to the file.
            let sizeBefore = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            let reader = try TraceReader(path: path)
            try expectEveryEventUpToTheCrash(reader, posts: posts, note)
            #expect(try !reader.session(1).endedCleanly)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == sizeBefore, "a reader writes nothing")
            // Finished: the events are written into the file and the journal goes.
            let outcome = try TraceFinisher.finish(path: path)
            #expect(outcome.finished.map(\.id) == [1])
            #expect(outcome.finished.first?.lastSeq == (try reader.events(session: 1).last?.seq))
            #expect(!FileManager.default.fileExists(atPath: path + "-eventlog-1"), "the journal is gone once finished")
            let finished = try TraceReader(path: path)
            #expect(finished.recoveredEvents.isEmpty)
            try expectEveryEventUpToTheCrash(finished, posts: posts, note + ", finished")
            #expect(try finished.session(1).crashedAt != nil)
            #expect(try TraceVerification.run(finished).isValid)
        }
    }

    /// Two threads recording through two buses into one recorder when the process is killed in a
    /// delivery of one of them: the trace holds one gapless sequence, every post of the killed thread
    /// up to its crash with its delivery, and every post of the other thread enqueued but perhaps its last.
    @Test func twoThreadsKilledMidDeliveryKeepOneGaplessSequence() throws {
        let dir = try TemporaryDirectory()
        for run in 0..<6 {
            let posts = [1, 50, 900, 3_000, 7_000, 12_000][run]
            let path = dir.file("two-threads-\(run).trace")
            let child = Process()
            child.executableURL = productsDirectory().appendingPathComponent("trace-crash-child")
            child.arguments = ["--two-threads-crash", String(posts), path]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "run \(run)")
            _ = try TraceFinisher.finish(path: path)
            let events = try TraceReader(path: path).events(session: 1)
            let note = "run \(run), \(posts) posts"
            #expect(events.map(\.seq) == Array(0..<UInt64(events.count)), "no gap, \(note)")
            let postIDs = Set(events.filter { $0.kind == .posted }.compactMap(\.post))
            #expect(postIDs.count == events.filter { $0.kind == .posted }.count, "post ids unique, \(note)")
            let delivered = events.filter { $0.kind == .delivered }.compactMap(\.post)
            #expect(Set(delivered).count == delivered.count, "each post delivered once, \(note)")
            let firstPosts = events.filter { $0.kind == .posted && $0.message == KeyboardWillShow.name }.compactMap(\.post)
            #expect(firstPosts.count == posts, "every post of the killed thread, \(note)")
            let deliveredSet = Set(delivered)
            #expect(firstPosts.allSatisfy(deliveredSet.contains), "each delivered, the crashing one included, \(note)")
            let secondPosts = events.filter { $0.kind == .posted && $0.message == KeyboardDidShow.name }.compactMap(\.post)
            // KeyboardDidShow is a main-actor message: posted off the main actor, each is enqueued for it.
            let enqueued = Set(events.filter { $0.kind == .enqueued }.compactMap(\.post))
            #expect(!secondPosts.isEmpty, "the other thread posted before the kill, \(note)")
            #expect(secondPosts.dropLast().allSatisfy(enqueued.contains), "the other thread's posts enqueued, \(note)")
            // Each delivery follows its post.
            var postedAt: [UInt64: UInt64] = [:]
            for event in events {
                if event.kind == .posted, let post = event.post { postedAt[post] = event.seq }
                if event.kind == .delivered || event.kind == .enqueued, let post = event.post {
                    #expect(postedAt[post].map { $0 < event.seq } == true, "delivery after its post, \(note)")
                }
            }
            #expect(try TraceVerification.run(try TraceReader(path: path)).isValid, "\(note)")
        }
    }

    #if os(Linux)
    /// A reader's lock on a journal belongs to the open file, which a process forked at that moment
    /// shares until it execs: once the reader is done, that copy must not keep the journal locked,
    /// or `finish` finds it "still being recorded". (A child spawned by a parallel test did this:
    /// `everyEventUpToTheCrashingDeliveryIsKept` failed 2 runs in 8.) Here a child is given a copy
    /// of the reader's descriptor on purpose and outlives the reader.
    @Test func aForkedCopyOfAJournalDoesNotKeepItLocked() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("copied.trace")
        _ = try crash("kill", posts: 3, path: path)
        let journal = path + "-eventlog-1"
        var reader: JournalRecovery.File? = try JournalRecovery.open(journal, session: 1, startedAt: nil, exclusive: false)
        #expect(reader?.events.isEmpty == false)
        // The reader's descriptor, found by what it opens.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        let descriptor = try #require(descriptors.first { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == journal
        })
        // A child holding a copy of it (as fd 3, past its exec), alive for a while.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        var child: pid_t = 0
        let arguments = ["/bin/sleep", "30"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        #expect(posix_spawn(&child, "/bin/sleep", &actions, nil, &argv, environ) == 0)
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        reader = nil
        // The child still has the file open; the lock must be gone all the same.
        let finisher = try JournalRecovery.open(journal, session: 1, startedAt: nil, exclusive: true)
        #expect(!finisher.events.isEmpty)
    }
    #endif

    /// A journal whose recorder is alive is left alone: `finish` refuses, a reader reads the file as it is.
    @Test func aLiveRecordingIsNotFinished() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("live.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "live"))
        let bus = Bus(sink: recorder)
        let token = bus.observe(KeyboardWillShow.self) { _ in }
        bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: .zero, curve: .keyboard, duration: 0.25))
        try recorder.flush()
        #expect(FileManager.default.fileExists(atPath: path + "-eventlog-1"))
        #expect(throws: TraceStoreError.self) { try TraceFinisher.finish(path: path) }
        #expect(try TraceReader(path: path).recoveredEvents.isEmpty)
        try recorder.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-eventlog-1"), "a clean close removes the journal")
        #expect(try TraceFinisher.finish(path: path).finished.isEmpty)
        withExtendedLifetime(token) {}
    }

    /// Recovery reads from the `applied` mark to the last whole record: a torn last record (the process
    /// died while writing it) and the stale records of an earlier lap beyond it are not read.
    @Test func recoveryStopsAtATornOrStaleRecord() throws {
        let dir = try TemporaryDirectory()
        let trace = dir.file("ring.trace"), path = trace + "-eventlog-1"
        let accepting = Atomic<Bool>(true)
        var ends: [UInt64] = []
        do {
            // 256 KiB: 4096 delivery records a lap; 10 000 records go round it twice.
            let journal = try EventJournal(trace: trace, session: 1, startedAt: "start", events: 64)
            for seq in 1...10_000 as ClosedRange<UInt64> {
                if seq % 1000 == 0 { journal.markApplied(ends[Int(seq) - 200]) }
                let end = journal.append(TraceEvent(seq: seq, time: seq, kind: .delivered(post: seq, observer: 1)),
                                         accepting: accepting)
                ends.append(try #require(end))
            }
            journal.markApplied(ends[8_999])
        }
        let read = { () throws -> [UInt64] in
            try JournalRecovery.open(path, session: 1, startedAt: "start", exclusive: false).events.map(\.seq)
        }
        #expect(try read() == Array(9_001...10_000), "from the mark to the last record, not into the lap before")
        #expect(throws: JournalRecovery.Refusal.self) {
            try JournalRecovery.open(path, session: 1, startedAt: "another start", exclusive: false)
        }
        // Tear the last record: one byte of its body changed.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let lastOffset = EventJournal.headerSize + Int((ends[9_998]) % UInt64(1 << 18)) + 24
        try handle.seek(toOffset: UInt64(lastOffset))
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: UInt64(lastOffset))
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        #expect(try read() == Array(9_001...9_999))
    }
}
