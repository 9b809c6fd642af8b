import FleetPostgres
import Foundation
import Synchronization
import Testing
import TestSupport
import TraceFleet
import TraceStore

/// The PostgreSQL server the tests use: `NOTIFYBUS_TEST_PG` (a URL to a role that may create databases),
/// by default the one `.ci/run` starts (role `notifybus`, password `notifybus`, 127.0.0.1:5432).
enum TestServer {
    static let url = ProcessInfo.processInfo.environment["NOTIFYBUS_TEST_PG"]
        ?? "postgresql://notifybus:notifybus@127.0.0.1:5432/postgres?sslmode=prefer"

    /// Whether something listens at the server's address (a TCP connect, synchronous: `.enabled(if:)` needs it now).
    static let isReachable: Bool = {
        guard let address = try? FleetStoreAddress(url) else { return false }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(address.port).bigEndian)
        guard inet_pton(AF_INET, address.host == "localhost" ? "127.0.0.1" : address.host, &sin.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }()

    static let skipReason: Comment = "no PostgreSQL server at \(url) (set NOTIFYBUS_TEST_PG, or run .ci/run, which starts one)"

    /// The commands that stop the server at once and start it again, for the fault test: the Debian cluster's
    /// by default (root only), or `NOTIFYBUS_TEST_PG_STOP` / `NOTIFYBUS_TEST_PG_START`.
    static let stopCommand = ProcessInfo.processInfo.environment["NOTIFYBUS_TEST_PG_STOP"] ?? "pg_ctlcluster 15 main stop -m immediate"
    static let startCommand = ProcessInfo.processInfo.environment["NOTIFYBUS_TEST_PG_START"] ?? "pg_ctlcluster 15 main start"
    static let canRestart: Bool = isReachable && (ProcessInfo.processInfo.environment["NOTIFYBUS_TEST_PG_STOP"] != nil
        || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/pg_ctlcluster")))

    /// Runs `body` with a store in a new database of its own, dropped afterwards.
    static func withDatabase<T>(_ body: (FleetStoreAddress) async throws -> T) async throws -> T {
        let admin = try FleetStoreAddress(url)
        let name = "notifybus_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let control = try await FleetStore.connect(admin)
        try await control.execute("CREATE DATABASE \(name)")
        var address = admin
        address.database = name
        do {
            let result = try await body(address)
            try await drop(name, admin: admin, control: control)
            return result
        } catch {
            try? await drop(name, admin: admin, control: control)
            throw error
        }
    }

    private static func drop(_ name: String, admin: FleetStoreAddress, control: FleetStore) async throws {
        // The fault test restarts the server: the first connection may be gone.
        do {
            try await control.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            await control.close()
        } catch {
            await control.close()
            let again = try await FleetStore.connect(admin)
            try await again.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            await again.close()
        }
    }

    /// Runs `command` with `/bin/sh` and waits for it. posix_spawn and waitpid, not Foundation's `Process`:
    /// its `waitUntilExit` never returned for `pg_ctlcluster start` run from this async test.
    static func shell(_ command: String) throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (word: String) in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard spawned == 0 else { throw FleetError(.server, "`\(command)` did not start: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        guard exited && code == 0 else {
            throw FleetError(.server, "`\(command)` " + (exited ? "exited \(code)" : "was killed by signal \(status & 0x7F)"))
        }
    }
}

@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: TestServer.isReachable, TestServer.skipReason))
struct FleetPostgresTests {
    @Test func pushingTwiceChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        let sessions = try FleetCollector.collect([directory.path]).sessions
        try await TestServer.withDatabase { address in
            let store = try await FleetStore.connect(address)
            try await store.migrate()
            var added: [Bool] = []
            for session in sessions { added.append(try await store.push(session)) }
            #expect(added == Array(repeating: true, count: sessions.count))
            let findings = try await store.count("SELECT count(*) FROM findings")
            #expect(findings == sessions.map(\.findings.count).reduce(0, +))
            // Again, and the schema migrated again: nothing changes.
            try await store.migrate()
            for session in sessions { #expect(try await store.push(session) == false) }
            #expect(try await store.count("SELECT count(*) FROM sessions") == sessions.count)
            #expect(try await store.count("SELECT count(*) FROM findings") == findings)
            // Findings are partitioned by month.
            #expect(try await store.count("SELECT count(*) FROM pg_inherits WHERE inhparent = 'findings'::regclass") >= 1)
            await store.close()
        }
    }

    @Test func theServerReportHasTheSameRowsAsTheLocalOne() async throws {
        let directory = try TemporaryDirectory()
        let files = try FleetFixtures.history(in: directory)
        let killed = try FleetFixtures.record("v2-popup-strong-block", to: directory.file("b102-killed.trace"), build: "102", minutes: 22)
        try FleetFixtures.unfinish(killed)
        let local = try FleetCollector.collect([directory.path])
        #expect(local.sessions.count == files.count + 1)
        try await TestServer.withDatabase { address in
            let store = try await FleetStore.connect(address)
            try await store.migrate()
            // In batches of two over two connections, each session given twice: every column the same as
            // the files gave it (the NULLs too), each session once.
            let outcome = try await store.push(local.sessions + local.sessions.reversed(), batchSize: 2, connections: 2)
            // The second copies are repeats of this push, not sessions the store held before it.
            #expect(outcome == .init(added: local.sessions.count, present: 0, repeated: local.sessions.count))
            let again = try await store.push(local.sessions, batchSize: 3, connections: 2)
            #expect(again == .init(added: 0, present: local.sessions.count))
            #expect(try await store.count("SELECT count(*) FROM findings") == local.sessions.map(\.findings.count).reduce(0, +))
            let remote = try await store.sessions()
            await store.close()
            #expect(Set(remote) == Set(local.sessions))
            for options in [FleetReport.Options(), .init(sinceBuild: "100"), .init(gap: 2, minSeverity: .warning)] {
                let a = try FleetReport(sessions: local.sessions, options: options)
                let b = try FleetReport(sessions: remote, options: options)
                #expect(a.rows == b.rows)
                #expect(a.builds == b.builds && a.incomplete == b.incomplete && a.totals == b.totals)
                #expect(a.json(source: "same") == b.json(source: "same"))
            }
        }
    }

    /// A store released open (a throw between connect and close) closes itself: PostgresNIO asserts on a
    /// connection released open, which would end this test process.
    @Test func aStoreReleasedOpenClosesItself() async throws {
        let address = try FleetStoreAddress(TestServer.url)
        for _ in 0..<3 {
            let store = try await FleetStore.connect(address)
            #expect(try await store.count("SELECT 1") == 1)
        }
        // And one closed by withConnection after its body threw.
        await #expect(throws: FleetError.self) {
            try await FleetStore.withConnection(to: address) { store throws(FleetError) in try await store.execute("SELECT nonsense FROM nowhere") }
        }
        try await Task.sleep(for: .milliseconds(200))
    }

    @Test func aServerThatIsNotThereIsOneLineAndCode76() async throws {
        var address = try FleetStoreAddress(TestServer.url)
        address.port = 1
        await #expect {
            // Closed if it unexpectedly connects: PostgresNIO traps on a connection dropped open.
            let store = try await FleetStore.connect(address)
            await store.close()
        } throws: { error in
            guard let error = error as? FleetError else { return false }
            return error.kind == .serverUnavailable && !error.message.contains("\n") && FleetExit.code(for: error) == 76
                && !error.message.contains(":notifybus@") && error.message.contains(":1/")
        }
    }

    @Test func aWrongPasswordIsRefusedWithCode76() async throws {
        var address = try FleetStoreAddress(TestServer.url)
        address.password = "wrong-\(UUID().uuidString)"
        await #expect {
            // Closed if it unexpectedly connects: PostgresNIO traps on a connection dropped open.
            let store = try await FleetStore.connect(address)
            await store.close()
        } throws: { error in
            (error as? FleetError)?.kind == .serverUnavailable && !(error as! FleetError).message.contains(address.password!)
        }
    }

    @Test(.enabled(if: TestServer.canRestart, "stopping the server needs pg_ctlcluster as root, or NOTIFYBUS_TEST_PG_STOP/START"))
    func aServerStoppedInThePushLeavesNothingHalfWrittenAndTheNextPushCompletesIt() async throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        let sessions = try FleetCollector.collect([directory.path]).sessions.filter { !$0.findings.isEmpty }
        try #require(sessions.count >= 2)
        try await TestServer.withDatabase { address in
            let store = try await FleetStore.connect(address)
            try await store.migrate()
            try await store.push(sessions[0])
            // The other sessions' rows are written, in one batch; the server stops before its COMMIT.
            let stopped = Atomic<Bool>(false)
            await #expect {
                try await store.push(Array(sessions.dropFirst()), batchSize: 100, connections: 1, beforeCommit: {
                    try? TestServer.shell(TestServer.stopCommand)
                    stopped.store(true, ordering: .releasing)
                })
            } throws: { error in
                (error as? FleetError)?.kind == .serverUnavailable
            }
            await store.close()
            // The push fails as soon as the connection closes, which can be before the stop command
            // returns: starting the server while it is still being stopped fails.
            while !stopped.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(20)) }
            // Debian's pg_ctlcluster can report a failed start after an immediate stop while the server is
            // still recovering and then comes up: what counts is that it answers below.
            try? TestServer.shell(TestServer.startCommand)
            var again: FleetStore?
            for _ in 0..<150 where again == nil {
                again = try? await FleetStore.connect(address)
                if again == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let store2 = try #require(again)
            #expect(try await store2.count("SELECT count(*) FROM sessions") == 1)
            #expect(try await store2.count("SELECT count(*) FROM findings") == sessions[0].findings.count)
            // The next push of everything completes the sessions, each exactly once.
            let outcome = try await store2.push(sessions)
            #expect(outcome == .init(added: sessions.count - 1, present: 1))
            for session in sessions {
                #expect(try await store2.count("SELECT count(*) FROM sessions WHERE uuid = '\(session.uuid)'") == 1)
                #expect(try await store2.count("SELECT count(*) FROM findings WHERE session_uuid = '\(session.uuid)'")
                        == session.findings.count)
            }
            await store2.close()
        }
    }
}
