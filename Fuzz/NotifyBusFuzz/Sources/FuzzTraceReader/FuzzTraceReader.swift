// libFuzzer target: hostile trace files.
//
// An input that starts with SQLite's header is the file itself (the seed corpus holds the
// repository's traces, so most inputs are byte-level mutations of real ones). Any other
// input is a program of row-level mutations applied through SQL to a copy of one of the
// repository's traces: set a column of some row to an extreme value (negative, huge, NULL,
// text where a number belongs), delete a row, duplicate a row. Byte flips mostly break the
// file's structure, which SQLite reports; row changes reach the reader's own decoding.
//
// Everything `tracectl` does on a trace it is given — open and validate it, list its
// sessions, stream and fold its events, find leaks, verify it — must either work or throw
// `TraceStoreError`: never trap, never read out of bounds.
import Foundation
import FuzzSQLite
import NotifyBus
import TraceStore

/// Where each input is written; one file per fuzzing process.
private let path = NSTemporaryDirectory() + "notifybus-fuzz-\(ProcessInfo.processInfo.processIdentifier).trace"

/// Sessions read per input, to keep each input fast.
private let maximumSessions = 4

/// The repository's traces, the starting points of row-level mutations.
private let fixtures: [Data] = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../Tests/Fixtures").standardized
    let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
        .filter { $0.hasSuffix(".trace") }.sorted() ?? []
    let traces = files.compactMap { FileManager.default.contents(atPath: root.appendingPathComponent($0).path) }
    guard !traces.isEmpty else { fatalError("no traces under \(root.path)") }
    return traces
}()

private let sqliteHeader = Data("SQLite format 3\0".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let suffixes = ["", "-wal", "-shm", "-journal"]
    for suffix in suffixes { unlink(path + suffix) }
    defer { for suffix in suffixes { unlink(path + suffix) } }
    if data.starts(with: sqliteHeader) {
        guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
    } else {
        var program = Program(bytes: [UInt8](data))
        let fixture = fixtures[Int(program.byte()) % fixtures.count]
        guard FileManager.default.createFile(atPath: path, contents: fixture) else { fatalError("cannot write \(path)") }
        program.apply(to: path)
    }
    read(path)
    return 0
}

/// Does with the trace what the commands do.
private func read(_ path: String) {
    do {
        let reader = try TraceReader(path: path)
        for session in try reader.sessions().prefix(maximumSessions) {
            var state = TraceState()
            var events = 0
            try reader.forEachEvent(session: session.id) { event in
                state.apply(event)
                events += 1
                return true
            }
            _ = state.liveObservers
            _ = state.hierarchy
            for owner in state.owners.keys { _ = state.location(of: owner) }
            let findings = try LeakAnalyzer.analyze(reader, session: session.id)
            for finding in findings { _ = finding.fingerprint }
            _ = try reader.state(session: session.id, at: UInt64(events / 2))
            // The walks of `stats` and of `timeline`/`export` (the leak analysis with its companion).
            _ = try TraceStats.compute(reader, session: session.id)
            let timeline = try Timeline.build(reader, session: session.id)
            _ = (timeline.lanes.count, timeline.deliveries.count)
            // A window (`timeline --since --until`) keeps exactly the whole timeline's posts and
            // deliveries inside it, whatever the file holds.
            let window = UInt64(events / 3)...UInt64(events / 2)
            let part = try Timeline.build(reader, session: session.id, window: window)
            precondition(part.posts == timeline.posts.filter { window.contains($0.seq) }, "windowed posts differ")
            precondition(part.deliveries == timeline.deliveries.filter { window.contains($0.seq) }, "windowed deliveries differ")
        }
        _ = try TraceVerification.run(reader)
        // `diff`'s own reader (rows in place, in batches): a trace it reads is equal to itself.
        let report = try TraceReplayer.diff(path, path)
        precondition(report.divergence == nil && report.expectedCount == report.actualCount, "a trace differs from itself")
    } catch {
        // Not a trace, damaged, unsupported: reported as errors, which is right.
    }
}

/// Row-level mutations read off the input.
private struct Program {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func int64() -> Int64 {
        Int64(bitPattern: (0..<8).reduce(UInt64(0)) { value, shift in value | UInt64(byte()) << (8 * UInt64(shift)) })
    }

    /// A value for a column: the extremes a reader must survive.
    enum Value {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])
    }

    mutating func value() -> Value {
        switch byte() % 14 {
        case 0: .null
        case 1: .integer(0)
        case 2: .integer(-1)
        case 3: .integer(.min)
        case 4: .integer(.max)
        case 5: .integer(Int64(Int32.max) + 1)
        case 6: .integer(int64())
        case 7: .integer(Int64(Int8(bitPattern: byte())))
        case 8: .real(1e300)
        case 9: .real(-0.5)
        case 10: .text("")
        case 11: .text(String(decoding: (0..<Int(byte() % 16)).map { _ in byte() }, as: UTF8.self))
        case 12: .blob((0..<Int(byte() % 16)).map { _ in byte() })
        default: .integer(Int64(byte()) - 16)
        }
    }

    /// Applies mutations until the input ends; a statement SQLite refuses is skipped.
    mutating func apply(to path: String) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { fatalError("cannot open the fixture copy") }
        defer { sqlite3_close(db) }
        let tables = strings(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        guard !tables.isEmpty else { return }
        var operations = 0
        while !isAtEnd && operations < 32 {
            operations += 1
            let table = tables[Int(byte()) % tables.count]
            let columns = strings(db, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
            guard !columns.isEmpty else { continue }
            let offset = Int(byte()) | Int(byte() & 3) << 8
            let row = "(SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(offset))"
            switch byte() % 4 {
            case 0, 1:
                let column = columns[Int(byte()) % columns.count]
                run(db, "UPDATE \"\(table)\" SET \"\(column)\" = ?1 WHERE rowid = \(row)", value())
            case 2:
                run(db, "DELETE FROM \"\(table)\" WHERE rowid = \(row)", nil)
            default:
                run(db, "INSERT INTO \"\(table)\" SELECT * FROM \"\(table)\" WHERE rowid = \(row)", nil)
            }
        }
    }

    private func strings(_ db: OpaquePointer, _ sql: String) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(statement) }
        var result: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { result.append(String(cString: text)) }
        }
        return result
    }

    private func run(_ db: OpaquePointer, _ sql: String, _ value: Value?) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch value {
        case .integer(let number)?: sqlite3_bind_int64(statement, 1, number)
        case .real(let number)?: sqlite3_bind_double(statement, 1, number)
        case .text(let text)?: sqlite3_bind_text(statement, 1, text, -1, transient)
        case .blob(let bytes)?: sqlite3_bind_blob(statement, 1, bytes, Int32(bytes.count), transient)
        case .null?, nil: sqlite3_bind_null(statement, 1)
        }
        _ = sqlite3_step(statement)
    }
}
