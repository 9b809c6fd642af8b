import Foundation
import NotifyBus
import PropertyBased
import TestSupport
import Testing
@testable import TraceStore

/// `TraceReplayer.diff`, which reads both traces as rows in place (deliveries inside SQLite's
/// walk, strings by id, payloads as bytes), against the comparison of the same sessions read as
/// `RecordedEvent`s (the `EventCursor`, every string a `String`): the same report, line for line,
/// or the same error, on traces mutated at random (events deleted, ids and strings changed,
/// strings the table lacks, payloads with NUL and invalid UTF-8 or longer than a walk keeps,
/// payload ids that share a slot, name nothing or are not ids, unknown kinds, negative
/// sequence numbers, indexes dropped as a killed recorder leaves them).
@Suite struct DiffDifferentialTests {
    /// The traces mutated: the golden fixtures, and one with long runs of deliveries (more than a
    /// walk's batch) made by ``recordLongRuns(at:)``.
    static let sources = ["demo", "seed000-keyboard-leak", "seed004-keyboard-timing", "pagesheet-keyboard",
                          "v2-audio-interruption-unowned", "v2-keyboard-helper-leak", "long-runs", "reaction-posts"]

    /// One change to one event (picked by its position in the session), or to the file.
    struct Mutation: Sendable, CustomStringConvertible {
        var operation: Int
        var position: Int
        var value: Int64
        var description: String { "op \(operation) at #\(position) value \(value)" }
    }

    static let mutation = zip(Gen.int(in: 0...15), Gen.int(in: 0...5_000), Gen.int64(in: -2...70))
        .map { Mutation(operation: $0.0, position: $0.1, value: $0.2) }

    /// Payloads a mutation writes: JSON, non-ASCII, a NUL inside, invalid UTF-8, empty, longer than a walk keeps.
    static let payloads = ["'{\"x\":1}'", "'{\"name\":\"café\"}'", "'a' || char(0) || 'b'", "CAST(x'ff41c3' AS TEXT)", "''",
                           "'{\"long\":\"' || replace(hex(zeroblob(\(PayloadLookup.keptBytes))), '00', 'xy') || '\"}'"]

    /// Applies `mutations` to the trace at `path`.
    static func mutate(_ path: String, _ mutations: [Mutation]) throws {
        let db = try Database(path: path, mode: .create)
        for m in mutations {
            let count = try db.scalar("SELECT count(*) FROM events") ?? 0
            guard count > 0 else { return }
            let seq = try db.scalar("SELECT seq FROM events ORDER BY session, seq LIMIT 1 OFFSET \(m.position % Int(count))") ?? 0
            let row = "WHERE seq = \(seq)"
            let columns = ["message", "detail", "note", "observer", "post", "owner", "parent", "sender"]
            switch m.operation {
            case 0, 1: try db.execute("DELETE FROM events \(row)")
            case 2...9: try db.execute("UPDATE events SET \(columns[m.operation - 2]) = \(m.value < 0 ? "NULL" : String(m.value)) \(row)")
            case 10:
                try db.execute("INSERT INTO payloads(json) VALUES (\(payloads[Int(m.value.magnitude) % payloads.count]))")
                try db.execute("UPDATE events SET payload = last_insert_rowid() \(row)")
            case 11: try db.execute("UPDATE events SET kind = \(m.value.magnitude % 16) \(row)")
            case 12: if m.value == 0 { try db.execute("UPDATE events SET seq = -\(seq + 1) \(row)") }
            case 13: try db.execute("UPDATE strings SET value = value || '·' WHERE id = \(m.value)")
            case 15:
                // The payload column naming another payload (a slot's neighbour), none, or not an id.
                let values = ["payload + \(PayloadLookup.slotCount)", "\(m.value) + 1000000", "'abc'", "2.5", "x'01'", "\(m.value)"]
                try db.execute("UPDATE events SET payload = \(values[Int(m.value.magnitude) % values.count]) \(row)")
            default:
                for index in ["events_by_kind", "events_by_observer", "events_by_post", "events_by_owner"] {
                    try db.execute("DROP INDEX IF EXISTS \(index)")
                }
            }
        }
    }

    /// The comparison as it was: both sessions read as `RecordedEvent`s by the cursor.
    static func recordedEventDiff(_ expected: String, _ actual: String) throws -> ReplayReport {
        func events(_ path: String) throws -> [RecordedEvent] {
            let reader = try TraceReader(path: path)
            let cursor = try reader.events(session: try reader.session(nil).id, payloads: true)
            var events: [RecordedEvent] = []
            while let event = try cursor.next() { events.append(event) }
            return events
        }
        let left = try events(expected), right = try events(actual)
        return ReplayReport.compare(expected: left, actual: right)
    }

    /// Everything a report prints, and where.
    static func transcript(_ report: ReplayReport) -> String {
        func lines(_ list: [ReplayReport.Line]) -> String {
            list.map { "\($0.seq) \($0.isStimulus) \($0.text)" }.joined(separator: "\n")
        }
        let divergence = report.divergence.map {
            "inStimuli \($0.inStimuli)\ncontext\n\(lines($0.context))\nexpected\n\(lines($0.expected))\nactual\n\(lines($0.actual))"
        }
        return """
            \(report.expectedCount) \(report.actualCount) \(report.isEqual)
            \(divergence ?? "no divergence")
            missing
            \(lines(report.missingReactions))
            added
            \(lines(report.addedReactions))
            \(report.diffText)
            """
    }

    /// The path of a source trace; `long-runs` and `reaction-posts` are recorded once per process.
    static func source(_ name: String) throws -> String {
        switch name {
        case "long-runs": try LongRuns.shared.path()
        case "reaction-posts": try LongRuns.shared.reactionPostsPath()
        default: fixture(name)
        }
    }

    @Test func rowsInPlaceCompareAsRecordedEventsDo() async throws {
        let input = zip(Gen.int(in: 0..<Self.sources.count), Self.mutation.array(of: 0...6), Self.mutation.array(of: 0...6), Gen.bool)
        await propertyCheck(count: iterations(default: 60), input: input) { sourceIndex, leftMutations, rightMutations, swap in
            let directory = try TemporaryDirectory()
            let original = try Self.source(Self.sources[sourceIndex])
            let left = directory.file("left.trace"), right = directory.file("right.trace")
            try FileManager.default.copyItem(atPath: original, toPath: left)
            try FileManager.default.copyItem(atPath: original, toPath: right)
            try Self.mutate(left, leftMutations)
            try Self.mutate(right, rightMutations)
            let (a, b) = swap ? (right, left) : (left, right)
            let slow = Result { try Self.recordedEventDiff(a, b) }
            let fast = Result { try TraceReplayer.diff(a, b) }
            // Batches of a few events and bytes: every way a walked event comes back is taken.
            let small = Result { try Self.smallBatchDiff(a, b, events: 1 + sourceIndex % 3, bytes: (sourceIndex * 7) % 24) }
            #expect(Self.outcome(small) == Self.outcome(fast))
            // Posts compared as rendered lines, not as their parts: the same report.
            let rendered = Result { try Self.smallBatchDiff(a, b, events: TraceRows.batchSize, bytes: TraceRows.batchBytes,
                                                            comparingPostsUnrendered: false) }
            #expect(Self.outcome(rendered) == Self.outcome(fast))
            switch (slow, fast) {
            case (.success(let slow), .success(let fast)):
                #expect(Self.transcript(fast) == Self.transcript(slow))
            case (.failure(let slow), .failure(let fast)):
                // Read in step, the fast side may meet the other trace's damage first; the slow
                // one reads the expected trace to its end before the actual.
                let either = try? Self.recordedEventDiff(b, b)
                let other = try? Self.recordedEventDiff(a, a)
                let messages = [String(describing: slow)] + (either == nil ? [Self.failure(b)] : [])
                    + (other == nil ? [Self.failure(a)] : [])
                #expect(messages.contains(String(describing: fast)), "fast threw \(fast); slow threw \(slow)")
            default:
                Issue.record("one comparison threw and the other did not: row path \(fast), RecordedEvent path \(slow)")
            }
        }
    }

    /// `diff` with the walks' batches limited to `events` events and `bytes` payload bytes.
    static func smallBatchDiff(_ expected: String, _ actual: String, events: Int, bytes: Int,
                               comparingPostsUnrendered: Bool = true) throws -> ReplayReport {
        let left = try TraceReader(path: expected), right = try TraceReader(path: actual)
        var leftRows = try TraceRows(left, session: try left.session(nil).id, batchSize: events, batchBytes: bytes)
        var rightRows = try TraceRows(right, session: try right.session(nil).id, batchSize: events, batchBytes: bytes)
        return try ReplayReport.compareStreams(expected: &leftRows, actual: &rightRows,
                                               comparingPostsUnrendered: comparingPostsUnrendered)
    }

    /// A comparison's transcript, or its error.
    static func outcome(_ result: Result<ReplayReport, any Error>) -> String {
        switch result {
        case .success(let report): transcript(report)
        case .failure(let error): "error: \(error)"
        }
    }

    /// The error reading `path` alone as `RecordedEvent`s gives.
    static func failure(_ path: String) -> String {
        do { _ = try recordedEventDiff(path, path); return "" } catch { return String(describing: error) }
    }

    /// Every golden fixture against every other, unmutated: the same reports.
    @Test func fixturesCompareAlike() throws {
        for a in Self.sources {
            for b in Self.sources {
                let left = try Self.source(a), right = try Self.source(b)
                #expect(Self.transcript(try TraceReplayer.diff(left, right)) == Self.transcript(try Self.recordedEventDiff(left, right)),
                        "\(a) vs \(b)")
            }
        }
    }
}

/// A trace whose deliveries come in runs longer than the walk's batch: one post heard by
/// 1.5 batches of observers, then a post heard by none, then a post that one observer skips.
final class LongRuns: @unchecked Sendable {
    // @unchecked: the path is set once, under the lock.
    static let shared = LongRuns()
    private let lock = NSLock()
    private var made: String?
    private var directory: TemporaryDirectory?

    private var madeReactionPosts: String?

    /// A trace of posts made by the app (reactions, compared without rendering), most heard by
    /// nobody, some by one observer, with payloads that repeat: divergences among posts.
    func reactionPostsPath() throws -> String {
        try lock.withLock {
            if let madeReactionPosts { return madeReactionPosts }
            let directory = try TemporaryDirectory()
            self.reactionDirectory = directory
            let path = directory.file("reaction-posts.trace")
            let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "reaction posts", app: "tests"))
            let bus = Bus(sink: recorder)
            final class Owner: TraceLabeled, @unchecked Sendable { let traceLabel = "Owner" }
            let owner = Owner()
            let token = bus.observe(Ping.self, owner: owner) { _ in }
            for n in 0..<120 {
                if n % 9 == 0 { bus.post(Ping(n: n % 4)) } else { bus.post(Pong(n: n % 7)) }
            }
            bus.remove(token)
            withExtendedLifetime(owner) {}
            try recorder.close()
            madeReactionPosts = path
            return path
        }
    }
    private var reactionDirectory: TemporaryDirectory?

    func path() throws -> String {
        try lock.withLock {
            if let made { return made }
            let directory = try TemporaryDirectory()
            self.directory = directory
            let path = directory.file("long-runs.trace")
            let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "long runs", app: "tests"))
            let bus = Bus(sink: recorder)
            final class Owner: TraceLabeled, @unchecked Sendable { let traceLabel = "Owner" }
            let owners = (0..<4).map { _ in Owner() }
            var tokens: [ObservationToken] = []
            for index in 0..<(TraceRows.batchSize * 3 / 2) {
                tokens.append(bus.observe(Ping.self, owner: owners[index % owners.count]) { _ in })
            }
            for n in 0..<3 { bus.post(Ping(n: n)) }
            bus.post(Pong(n: 0))
            for token in tokens.prefix(40) { bus.remove(token) }
            bus.post(Ping(n: 9))
            withExtendedLifetime(owners) {}
            try recorder.close()
            made = path
            return path
        }
    }
}
