import Foundation
import Logging
import PostgresNIO
import Synchronization
public import TraceFleet
import TraceStore

/// A PostgreSQL database holding session summaries: what `tracectl push` fills and `report --from` reads.
///
/// The schema (``FleetSchema``) is created or migrated by ``migrate()``. Sessions are keyed by their
/// UUID: pushed twice, a session is there once. Each is written inside one transaction, alone
/// (``push(_:)``) or in a batch (``push(_:batchSize:connections:)``), so a push cut short leaves every
/// session whole or absent.
///
/// ```swift
/// let added = try await FleetStore.withConnection(to: FleetStoreAddress("postgresql://ci@db/notifybus")) { store throws(FleetError) in
///     try await store.migrate()
///     return try await store.push(session)
/// }
/// ```
///
/// ``withConnection(to:_:)`` closes the connection however `body` ends. A store from ``connect(_:)`` is
/// closed by ``close()``; one released open is closed in the background rather than left to the server.
public final class FleetStore: Sendable {
    public let address: FleetStoreAddress
    private let connection: PostgresConnection
    private let logger: Logger
    /// The month partitions of `findings` known to exist, so that each is checked once per connection.
    let partitions = Mutex<Set<String>>([])
    /// Whether ``close()`` ran.
    private let closed = Mutex(false)

    private init(address: FleetStoreAddress, connection: PostgresConnection, logger: Logger) {
        self.address = address
        self.connection = connection
        self.logger = logger
    }

    /// Connects, with TLS as the address's `sslmode` says.
    ///
    /// - Throws: ``FleetError`` (`.serverUnavailable`) when the server is down, unreachable, refuses the
    ///   login or has no such database: one line naming the server (without its password).
    public static func connect(_ address: FleetStoreAddress) async throws(FleetError) -> FleetStore {
        var logger = Logger(label: "notifybus.fleet")
        logger.logLevel = .critical
        do {
            let tls: PostgresConnection.Configuration.TLS
            switch address.tls {
            case .disable:
                tls = .disable
            case .prefer, .require:
                var configuration = TLSConfiguration.makeClientConfiguration()
                // libpq's prefer and require encrypt without checking the certificate; verify-full checks it.
                configuration.certificateVerification = .none
                let context = try NIOSSLContext(configuration: configuration)
                tls = address.tls == .prefer ? .prefer(context) : .require(context)
            case .verifyFull:
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var configuration: PostgresConnection.Configuration
            if address.host.hasPrefix("/") {
                configuration = .init(unixSocketPath: "\(address.host)/.s.PGSQL.\(address.port)", username: address.user,
                                      password: address.password, database: address.database)
            } else {
                configuration = .init(host: address.host, port: address.port, username: address.user,
                                      password: address.password, database: address.database, tls: tls)
            }
            configuration.options.connectTimeout = .seconds(10)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            return FleetStore(address: address, connection: connection, logger: logger)
        } catch {
            throw Self.failure(error, address: address, doing: "cannot connect to")
        }
    }

    /// Connects, runs `body` with the store, and closes the connection whether `body` returns or throws.
    public static func withConnection<T: Sendable>(to address: FleetStoreAddress,
                                                   _ body: (FleetStore) async throws(FleetError) -> T) async throws(FleetError) -> T {
        let store = try await connect(address)
        do throws(FleetError) {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// Closes the connection. Closing twice does nothing more.
    public func close() async {
        guard closed.withLock({ was in defer { was = true }; return !was }) else { return }
        try? await connection.close()
    }

    deinit {
        // Released open (a throw between connect and close): close in the background. The task holds the
        // connection until it is closed, so PostgresNIO never sees it released open.
        if !closed.withLock({ $0 }) {
            Task { [connection] in try? await connection.close() }
        }
    }

    /// Creates the schema, or brings an older one up to ``FleetSchema/version``, in one transaction
    /// under an advisory lock (two pushes starting at once do it once).
    ///
    /// - Throws: ``FleetError`` (`.invalidInput`) when the database holds a newer schema than this tool knows.
    public func migrate() async throws(FleetError) {
        let found: Int? = try await run("migrating the schema of") { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.lockKey))", logger: logger)
                let exists = try await connection.query("SELECT to_regclass('notifybus_fleet_schema') IS NOT NULL", logger: logger)
                var present = false
                for try await value in exists.decode(Bool.self) { present = value }
                var version = 0
                if present {
                    let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM notifybus_fleet_schema", logger: logger)
                    for try await value in rows.decode(Int.self) { version = value }
                }
                if version > FleetSchema.version { return version }
                // One statement per query: the extended protocol takes no more.
                for step in FleetSchema.migrations.dropFirst(version) {
                    for statement in FleetSchema.statements(step) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                }
                if version < FleetSchema.version {
                    try await connection.query("DELETE FROM notifybus_fleet_schema", logger: logger)
                    try await connection.query("INSERT INTO notifybus_fleet_schema(version) VALUES (\(FleetSchema.version))", logger: logger)
                }
                return nil
            }
        }
        if let found {
            throw FleetError(.invalidInput, "\(address.description): fleet schema version \(found) is newer than this tool's (\(FleetSchema.version)); use a newer tracectl")
        }
    }

    /// Stores one session and its findings in one transaction; `false` when its UUID was already there
    /// (then nothing is written).
    @discardableResult
    public func push(_ session: FleetSession) async throws(FleetError) -> Bool {
        try await push(session, beforeCommit: nil)
    }

    /// ``push(_:)``, with `beforeCommit` run inside the transaction after every row is written (the fault
    /// test stops the server there).
    @discardableResult
    package func push(_ session: FleetSession, beforeCommit: (@Sendable () async -> Void)?) async throws(FleetError) -> Bool {
        try await createPartitions(for: [session])
        return try await pushBatch([session], beforeCommit: beforeCommit) == 1
    }

    /// Creates a month partition of `findings` (if missing) in a transaction of its own, under the advisory lock.
    func createPartition(_ partition: (name: String, create: String)) async throws(FleetError) {
        try await run("creating \(partition.name) in") { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.lockKey))", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: partition.create), logger: logger)
            }
            return ()
        }
        _ = partitions.withLock { $0.insert(partition.name) }
    }

    /// Every session in the store with its findings: what ``FleetReport`` joins, exactly as the files gave them.
    public func sessions() async throws(FleetError) -> [FleetSession] {
        try await run("reading the sessions of") { connection, logger in
            var sessions: [UUID: FleetSession] = [:]
            let rows = try await connection.query("""
                SELECT uuid, trace, session_id, name, app, app_version, build, os, device, test, extra::text,
                       started_at, state, events, duration_ns FROM sessions
                """, logger: logger)
            for try await (uuid, trace, id, name, app, version, build, os, device, test, extra, started, state, events, duration)
                    in rows.decode((UUID, String, Int64, String, String, String?, String?, String?, String?, String?, String,
                                    Date, String, Int64, Int64).self) {
                let decoded = (try? JSONDecoder().decode([String: String].self, from: Data(extra.utf8))) ?? [:]
                sessions[uuid] = FleetSession(
                    uuid: uuid, trace: trace, sessionID: id, name: name, app: app, appVersion: version, build: build, os: os,
                    deviceModel: device, testName: test, extra: decoded, startedAt: FleetTime.round(started),
                    state: SessionState(rawValue: state) ?? .unfinished, events: Int(events),
                    durationNanoseconds: UInt64(max(0, duration)), findings: [])
            }
            var kinds: [String: (rule: String, severity: LeakSeverity, message: String?, ownerType: String?, callSite: String)] = [:]
            let described = try await connection.query(
                "SELECT fingerprint, rule, severity, message, owner_type, call_site FROM fingerprints", logger: logger)
            for try await (fingerprint, rule, severity, message, ownerType, callSite)
                    in described.decode((String, String, String, String?, String?, String).self) {
                kinds[fingerprint] = (rule, LeakSeverity(rawValue: severity) ?? .note, message, ownerType, callSite)
            }
            let findings = try await connection.query(
                "SELECT session_uuid, fingerprint, count, deliveries, evidence FROM findings", logger: logger)
            for try await (uuid, fingerprint, count, deliveries, evidence)
                    in findings.decode((UUID, String, Int64, Int64, [Int64]).self) {
                guard let kind = kinds[fingerprint] else { continue }
                sessions[uuid]?.findings.append(FleetFinding(
                    fingerprint: fingerprint, rule: kind.rule, severity: kind.severity, message: kind.message,
                    ownerType: kind.ownerType, callSite: kind.callSite, count: Int(count), deliveries: Int(deliveries),
                    evidence: evidence.map { UInt64(max(0, $0)) }))
            }
            return sessions.values.map { session in
                var session = session
                session.findings.sort { $0.fingerprint < $1.fingerprint }
                return session
            }
        }
    }

    /// Runs `body` on the connection, turning every failure into one line.
    ///
    /// `body` races the connection's closing: a query written after the server went away (PostgresNIO
    /// drops the write, and its answer never comes) would otherwise wait forever, as a push did when the
    /// server stopped before its COMMIT.
    func run<T: Sendable>(_ doing: String,
                                  _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws(FleetError) -> T {
        let (connection, logger) = (self.connection, self.logger)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let once = ResumeOnce(continuation)
                Task { once.resume(with: await Result(catching: { try await body(connection, logger) })) }
                connection.closeFuture.whenComplete { _ in once.resume(with: .failure(ConnectionClosed())) }
            }
        } catch {
            throw Self.failure(error, address: address, doing: doing)
        }
    }

    /// One line for a failure: the server's own message when it sent one; `.serverUnavailable` when the
    /// server is gone, refuses, or ends the session.
    static func failure(_ error: any Error, address: FleetStoreAddress, doing: String) -> FleetError {
        var error = error
        if let transaction = error as? PostgresTransactionError {
            error = transaction.beginError ?? transaction.closureError ?? transaction.commitError ?? transaction.rollbackError ?? error
        }
        guard let psql = error as? PSQLError else {
            return FleetError(.serverUnavailable, "\(doing) \(address.description): \(error)")
        }
        if let info = psql.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "\(psql.code)"
            // Class 08 connection exceptions, 28 authorization, 3D no such database, 57P admin shutdown and the like,
            // 53 insufficient resources (too many connections).
            let unavailable = ["08", "28", "3D", "57", "53"].contains(String(state.prefix(2)))
            return FleetError(unavailable ? .serverUnavailable : .server, "\(doing) \(address.description): \(message) (SQLSTATE \(state))")
        }
        let detail = psql.underlying.map { "\($0)" } ?? "\(psql.code)"
        switch psql.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .sslUnsupported, .failedToAddSSLHandler, .clientClosedConnection:
            return FleetError(.serverUnavailable, "\(doing) \(address.description): \(psql.code) (\(detail))")
        default:
            return FleetError(.server, "\(doing) \(address.description): \(psql.code) (\(detail))")
        }
    }
}

extension FleetStore {
    /// Runs SQL statements as they are (tests: creating and dropping their databases, counting rows).
    package func execute(_ sql: String) async throws(FleetError) {
        try await run("running SQL on") { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            return ()
        }
    }

    /// The first column of the first row of a query, as an integer (tests).
    package func count(_ sql: String) async throws(FleetError) -> Int {
        try await run("counting on") { connection, logger in
            var value = 0
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
                value = count
            }
            return value
        }
    }
}

/// The connection closed (the server went away) before an operation's answer came.
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection closed before the server answered" }
}

/// A continuation resumed by whichever of two racers comes first; the other's result is dropped.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing call.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
