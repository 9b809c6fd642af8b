import Foundation
import Testing
@testable import TraceStore

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
