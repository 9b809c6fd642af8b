import Foundation
import Logging
import PostgresNIO
import Synchronization
public import TraceFleet

extension FleetStore {
    /// What a push did: sessions written, and sessions whose UUID was already there.
    public struct PushOutcome: Sendable, Hashable {
        /// Sessions written now.
        public var added: Int
        /// Sessions the store already held.
        public var present: Int
        /// Sessions given more than once in this push (a trace copied, or named twice): pushed once.
        public var repeated: Int

        public init(added: Int, present: Int, repeated: Int = 0) {
            self.added = added
            self.present = present
            self.repeated = repeated
        }
    }

    /// How many sessions ``push(_:batchSize:connections:)`` writes per transaction unless told.
    public static let defaultBatchSize = 500

    /// Pushes many sessions, `batchSize` per transaction, over `connections` connections at once (this
    /// store's and new ones to its server).
    ///
    /// A batch is three statements, whatever its size: its sessions, the fingerprints they use, their
    /// findings, each as arrays the server unnests. A session is never split across transactions: a
    /// push cut short leaves each session whole or absent, and pushing again completes the rest (a
    /// session whose UUID is there is skipped). Sessions repeated in `sessions` are pushed once.
    ///
    /// - Throws: ``FleetError`` for the first failure, saying how many sessions were written before it.
    public func push(_ sessions: [FleetSession], batchSize: Int = FleetStore.defaultBatchSize,
                     connections: Int = 2) async throws(FleetError) -> PushOutcome {
        try await push(sessions, batchSize: batchSize, connections: connections, beforeCommit: nil)
    }

    /// ``push(_:batchSize:connections:)``, with `beforeCommit` run inside each batch's transaction after
    /// its rows are written (the fault test stops the server there).
    package func push(_ sessions: [FleetSession], batchSize: Int, connections: Int,
                      beforeCommit: (@Sendable () async -> Void)?) async throws(FleetError) -> PushOutcome {
        final class Tally: Sendable {
            let counts = Mutex(PushOutcome(added: 0, present: 0))
        }
        let tally = Tally()
        // One row per UUID: a trace given twice, or one copied, is pushed once.
        var seen = Set<UUID>()
        let unique = sessions.filter { seen.insert($0.uuid).inserted }
        tally.counts.withLock { $0.repeated = sessions.count - unique.count }
        let batches = stride(from: 0, to: unique.count, by: max(1, batchSize)).map { start in
            Array(unique[start..<min(unique.count, start + max(1, batchSize))])
        }
        var stores = [self]
        var failure: FleetError?
        do throws(FleetError) {
            try await createPartitions(for: unique)
            for _ in 1..<max(1, min(connections, batches.count)) { stores.append(try await FleetStore.connect(address)) }
        } catch {
            failure = error
        }
        if failure == nil {
            let lanes = stores
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (lane, store) in lanes.enumerated() {
                        group.addTask {
                            for index in stride(from: lane, to: batches.count, by: lanes.count) {
                                let batch = batches[index]
                                let added = try await store.pushBatch(batch, beforeCommit: beforeCommit)
                                tally.counts.withLock {
                                    $0.added += added
                                    $0.present += batch.count - added
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } catch let error as FleetError {
                failure = error
            } catch {
                failure = FleetError(.server, "pushing to \(address.description): \(error)")
            }
        }
        for store in stores.dropFirst() { await store.close() }
        let outcome = tally.counts.withLock { $0 }
        if let failure {
            throw FleetError(failure.kind, failure.message + "; \(outcome.added) session\(outcome.added == 1 ? "" : "s") pushed before it, "
                             + "none half-written: push again to complete")
        }
        return outcome
    }

    /// Creates the month partitions of `findings` that `sessions` need and this connection has not seen,
    /// each in a transaction of its own, before any batch: creating one locks `findings` whole, and two
    /// connections doing it while others insert could deadlock.
    func createPartitions(for sessions: [FleetSession]) async throws(FleetError) {
        var needed: [String: (name: String, create: String)] = [:]
        for session in sessions where !session.findings.isEmpty {
            let partition = FleetSchema.partition(of: session.startedAt)
            needed[partition.name] = partition
        }
        let known = partitions.withLock { $0 }
        for name in needed.keys.sorted() where !known.contains(name) {
            try await createPartition(needed[name]!)
        }
    }

    /// Writes one batch in one transaction: the sessions whose UUID is new, then the fingerprints and
    /// findings of those only. Returns how many sessions were new.
    func pushBatch(_ batch: [FleetSession], beforeCommit: (@Sendable () async -> Void)?) async throws(FleetError) -> Int {
        // Never empty: batches are cut from the sessions to push.
        let first = batch.first.map { "session \($0.uuid.uuidString.lowercased()) (\($0.trace))" } ?? ""
        let doing = batch.count == 1 ? "pushing \(first) to" : "pushing \(batch.count) sessions from \(first) to"
        let rows = SessionRows(batch)
        return try await run(doing) { connection, logger in
            try await connection.withTransaction(logger: logger) { connection -> Int in
                let inserted = try await connection.query("""
                    INSERT INTO sessions(uuid, trace, session_id, name, app, app_version, build, os, device, test, extra,
                                         started_at, state, events, duration_ns)
                    SELECT u, tr, i, n, a, CASE WHEN hv THEN v END, CASE WHEN hb THEN b END, CASE WHEN ho THEN o END,
                           CASE WHEN hd THEN d END, CASE WHEN ht THEN te END, x::jsonb, s, st, e, du
                    FROM unnest(\(rows.uuid)::uuid[], \(rows.trace)::text[], \(rows.sessionID)::bigint[], \(rows.name)::text[],
                                \(rows.app)::text[], \(rows.appVersion.present)::bool[], \(rows.appVersion.values)::text[],
                                \(rows.build.present)::bool[], \(rows.build.values)::text[], \(rows.os.present)::bool[],
                                \(rows.os.values)::text[], \(rows.device.present)::bool[], \(rows.device.values)::text[],
                                \(rows.test.present)::bool[], \(rows.test.values)::text[], \(rows.extra)::text[],
                                \(rows.startedAt)::timestamptz[], \(rows.state)::text[], \(rows.events)::bigint[],
                                \(rows.duration)::bigint[])
                         AS t(u, tr, i, n, a, hv, v, hb, b, ho, o, hd, d, ht, te, x, s, st, e, du)
                    ON CONFLICT (uuid) DO NOTHING RETURNING uuid
                    """, logger: logger)
                var added = Set<UUID>()
                for try await uuid in inserted.decode(UUID.self) { added.insert(uuid) }
                let findings = FindingRows(batch.filter { added.contains($0.uuid) })
                if !findings.fingerprint.isEmpty {
                    // Fingerprints in one order everywhere: two connections adding the same new ones wait, never deadlock.
                    let kinds = findings.kinds
                    try await connection.query("""
                        INSERT INTO fingerprints(fingerprint, rule, severity, message, owner_type, call_site)
                        SELECT f, r, s, CASE WHEN hm THEN m END, CASE WHEN ho THEN o END, c
                        FROM unnest(\(kinds.map(\.fingerprint))::text[], \(kinds.map(\.rule))::text[],
                                    \(kinds.map(\.severity.rawValue))::text[], \(kinds.map { $0.message != nil })::bool[],
                                    \(kinds.map { $0.message ?? "" })::text[], \(kinds.map { $0.ownerType != nil })::bool[],
                                    \(kinds.map { $0.ownerType ?? "" })::text[], \(kinds.map(\.callSite))::text[])
                             AS t(f, r, s, hm, m, ho, o, c)
                        ORDER BY f
                        ON CONFLICT (fingerprint) DO NOTHING
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO findings(started_at, session_uuid, fingerprint, count, deliveries, evidence)
                        SELECT s, u, f, c, d, string_to_array(e, ',')::bigint[]
                        FROM unnest(\(findings.startedAt)::timestamptz[], \(findings.session)::uuid[], \(findings.fingerprint)::text[],
                                    \(findings.count)::bigint[], \(findings.deliveries)::bigint[], \(findings.evidence)::text[])
                             AS t(s, u, f, c, d, e)
                        """, logger: logger)
                }
                if let beforeCommit { await beforeCommit() }
                return added.count
            }
        }
    }
}

/// A batch of sessions as one array per column, what the server unnests into rows. A column that can be
/// NULL goes as two arrays: whether there is a value, and the value (PostgresNIO encodes no optional elements).
private struct SessionRows: Sendable {
    var uuid: [UUID] = [], trace: [String] = [], sessionID: [Int64] = [], name: [String] = [], app: [String] = []
    var appVersion = Nullable(), build = Nullable(), os = Nullable(), device = Nullable(), test = Nullable()
    var extra: [String] = [], startedAt: [Date] = [], state: [String] = [], events: [Int64] = [], duration: [Int64] = []

    struct Nullable: Sendable {
        var present: [Bool] = [], values: [String] = []
        mutating func append(_ value: String?) {
            present.append(value != nil)
            values.append(value ?? "")
        }
    }

    init(_ sessions: [FleetSession]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for session in sessions {
            uuid.append(session.uuid)
            trace.append(session.trace)
            sessionID.append(session.sessionID)
            name.append(session.name)
            app.append(session.app)
            appVersion.append(session.appVersion)
            build.append(session.build)
            os.append(session.os)
            device.append(session.deviceModel)
            test.append(session.testName)
            extra.append(session.extra.isEmpty ? "{}"
                         : String(decoding: (try? encoder.encode(session.extra)) ?? Data("{}".utf8), as: UTF8.self))
            startedAt.append(session.startedAt)
            state.append(session.state.rawValue)
            events.append(Int64(session.events))
            duration.append(Int64(clamping: session.durationNanoseconds))
        }
    }
}

/// The findings of a batch's new sessions, one array per column, and the fingerprints they use.
private struct FindingRows: Sendable {
    var startedAt: [Date] = [], session: [UUID] = [], fingerprint: [String] = []
    var count: [Int64] = [], deliveries: [Int64] = [], evidence: [String] = []
    /// Each fingerprint once, in fingerprint order.
    var kinds: [FleetFinding] = []

    init(_ sessions: [FleetSession]) {
        var kinds: [String: FleetFinding] = [:]
        for session in sessions {
            for finding in session.findings {
                startedAt.append(session.startedAt)
                self.session.append(session.uuid)
                fingerprint.append(finding.fingerprint)
                count.append(Int64(finding.count))
                deliveries.append(Int64(finding.deliveries))
                // Event numbers are `seq`s, far below `Int64.max`; one that is not (a hostile trace) is
                // clamped rather than failing the whole batch on the server's cast.
                evidence.append(finding.evidence.map { String(Int64(clamping: $0)) }.joined(separator: ","))
                if kinds[finding.fingerprint] == nil { kinds[finding.fingerprint] = finding }
            }
        }
        self.kinds = kinds.values.sorted { $0.fingerprint < $1.fingerprint }
    }
}
