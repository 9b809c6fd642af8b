import Foundation
import Testing
import NotifyBus
@testable import TraceStore

/// The one-pass `stats` and `verify` give what the SQL they replace gave, and find
/// what they must find.
@Suite struct StreamingReadTests {
    static let traces = ["demo", "seed000-keyboard-leak", "seed004-keyboard-timing", "pagesheet-keyboard", "v1/seed000-keyboard-leak"]

    /// The former set-based SQL of `stats` (slow on large traces, exact on small ones): the reference.
    func referenceStats(_ reader: TraceReader, session: Int64) throws -> (messages: [String: [Int]], top: [[Int]], unheard: [String: Int]) {
        let s = SQLValue.integer(session)
        var messages: [String: [Int]] = [:]
        for row in try reader.rows("""
            SELECT m.value, count(*) FROM events p JOIN strings m ON m.id = p.message
            WHERE p.session = ?1 AND p.kind = 4 GROUP BY p.message
            """, [s]) { messages[row[0].description] = [row[1].int, 0, 0] }
        for row in try reader.rows("""
            SELECT m.value, d.kind, count(*) FROM events d
            JOIN events p ON p.session = d.session AND p.post = d.post AND p.kind = 4
            JOIN strings m ON m.id = p.message
            WHERE d.session = ?1 AND d.kind IN (5, 6) GROUP BY p.message, d.kind
            """, [s]) { messages[row[0].description, default: [0, 0, 0]][row[1].int == 5 ? 1 : 2] = row[2].int }
        let top = try reader.rows("""
            SELECT d.observer, count(*) AS n FROM events d WHERE d.session = ?1 AND d.kind = 5
            GROUP BY d.observer ORDER BY n DESC, d.observer LIMIT 10
            """, [s]).map { [$0[0].int, $0[1].int] }
        var unheard: [String: Int] = [:]
        for row in try reader.rows("""
            SELECT m.value, count(*) FROM events p JOIN strings m ON m.id = p.message
            WHERE p.session = ?1 AND p.kind = 4
              AND NOT EXISTS (SELECT 1 FROM events d WHERE d.session = p.session AND d.post = p.post AND d.kind IN (5, 6))
            GROUP BY p.message
            """, [s]) { unheard[row[0].description] = row[1].int }
        return (messages, top, unheard)
    }

    @Test(arguments: traces)
    func streamingStatsMatchTheSetBasedQueries(trace: String) throws {
        let reader = try TraceReader(path: fixture(trace))
        let session = try reader.lastSessionID()
        let stats = try TraceStats.compute(reader, session: session)
        let reference = try referenceStats(reader, session: session)
        #expect(!stats.messages.isEmpty)
        #expect(Dictionary(uniqueKeysWithValues: stats.messages.map { ($0.message, [$0.posts, $0.deliveries, $0.skips]) })
                == reference.messages)
        #expect(stats.topObservers.map { [Int($0.observer), $0.deliveries] } == reference.top)
        #expect(Dictionary(uniqueKeysWithValues: stats.unheard.map { ($0.message, $0.posts) }) == reference.unheard)
        var kinds: [EventKind: Int] = [:]
        try reader.forEachEvent(session: session) { kinds[$0.kind, default: 0] += 1; return true }
        #expect(Dictionary(uniqueKeysWithValues: stats.kinds.map { ($0.kind, $0.count) }) == kinds)
    }

    /// `leaks` leaves inside SQLite the deliveries that cannot trigger a rule: the findings
    /// are those of folding every event.
    @Test(arguments: traces)
    func leaksWithDeliveriesFilteredEqualFoldingEverything(trace: String) throws {
        let reader = try TraceReader(path: fixture(trace))
        let session = try reader.lastSessionID()
        var configuration = LeakAnalyzer.Configuration()
        if let semantics = try reader.session(session).selectorSemantics { configuration.selectorSemantics = semantics }
        var everything = LeakAnalyzer(configuration: configuration)
        try reader.forEachEvent(session: session) { everything.consume($0); return true }
        let expected = everything.finish()
        #expect(try LeakAnalyzer.analyze(reader, session: session, configuration: configuration) == expected)
    }

    /// The walk remembers which observers' deliveries cannot matter (heard, owner here, a message
    /// that is no finding off screen) and must forget that when an owner goes: a weak block that
    /// heard while its owner lived, then ran on after it, is found with every later run counted,
    /// as folding every event finds it.
    @Test func deliveriesAfterAnOwnerGoesAreSeenThoughEarlierOnesWereSkipped() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("quiet.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "quiet", app: "tests"))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock)
        var widget: Owner? = Owner("Widget")
        let steady = Owner("Steady")
        let observation = bus.addObserver(forName: Ping.self, owner: widget!, capture: .weak) { _ in }
        let token = bus.observe(Ping.self, owner: steady) { _ in }
        for n in 0..<5 { bus.post(Ping(n: n)) }
        widget = nil
        for n in 5..<12 { bus.post(Ping(n: n)) }
        try recorder.close()

        let reader = try TraceReader(path: path)
        let session = recorder.sessionID
        var everything = LeakAnalyzer()
        try reader.forEachEvent(session: session) { everything.consume($0); return true }
        let expected = everything.finish()
        let findings = try LeakAnalyzer.analyze(reader, session: session)
        #expect(findings == expected)
        let after = try #require(findings.first { $0.rule == .deliveryAfterOwnerGone })
        #expect(after.owner == "Widget")
        #expect(after.deliveryCount == 7)
        #expect(!findings.contains { $0.owner == "Steady" })
        _ = (observation, token)
    }

    /// A file of one session is walked whole (no range check per row); a file of several walks
    /// each session's key range. Either way every reading gives one session's events only, and a
    /// row of a session the file does not list (damage) is in none of them.
    @Test func eachSessionReadsOnlyItsOwnEventsWhateverTheFileHolds() throws {
        let dir = try TemporaryDirectory()
        let single = dir.file("single.trace"), double = dir.file("double.trace")
        try recordSample(at: single, posts: 3)
        try recordSample(at: double, name: "first", posts: 3)
        try recordSample(at: double, name: "second", posts: 5)
        do {
            let db = try Database(path: single, mode: .readWrite)
            try db.execute("INSERT INTO events(session, seq, time_ns, kind, observer, post) VALUES (99, 1, 0, 5, 1, 1)")
        }
        let one = try TraceReader(path: single)
        #expect(one.onlySession == 1)
        let two = try TraceReader(path: double)
        #expect(two.onlySession == nil)
        for (reader, session, posts) in [(one, Int64(1), 3), (two, Int64(1), 3), (two, Int64(2), 5)] {
            let events = try reader.events(session: session)
            #expect(events.filter { $0.kind == .posted }.count == posts)
            #expect(events.map(\.seq) == Array(0..<UInt64(events.count)))
            let stats = try TraceStats.compute(reader, session: session)
            #expect(stats.messages.map(\.posts) == [posts])
            #expect(stats.topObservers.map(\.deliveries) == [posts])
            #expect(try reader.state(session: session).seq == UInt64(events.count - 1))
            #expect(try LeakAnalyzer.analyze(reader, session: session).isEmpty)
        }
    }

    /// The walk calls its body without retaining it (RowWalk, `@exclusivity(unchecked)`): a body
    /// that replaced itself while running would free the closure that runs. A real process that
    /// tries stops at the precondition instead of running on.
    @Test func replacingTheWalkBodyWhileItRunsStopsTheProcess() throws {
        let child = try runCrashChild(["--replace-walk-body-while-running", fixture("demo")])
        // The trap is a signal; under AddressSanitizer, whose handler reports it, an exit with its status.
        #expect(child.reason == .uncaughtSignal || (child.status != 0 && child.stderr.contains("AddressSanitizer")),
                "\(child.reason) \(child.status)")
        #expect(!child.stdout.contains("ran on"))
        #expect(child.stderr.contains("cannot be replaced while it runs"))
    }

    #if DEBUG
    /// Nor does the walk, or a fold it runs (`TraceStats`, `TraceVerification`, `LeakAnalyzer`), check
    /// exclusivity at run time: a body called again while it runs (a walking statement stepped inside
    /// it) would overlap their accesses unseen. A debug build stops at the check in the walk instead.
    @Test func aWalkSteppedInsideItsOwnBodyStopsTheProcess() throws {
        let child = try runCrashChild(["--step-a-walk-inside-its-body", fixture("demo")])
        #expect(child.reason == .uncaughtSignal || (child.status != 0 && child.stderr.contains("AddressSanitizer")),
                "\(child.reason) \(child.status)")
        #expect(!child.stdout.contains("ran on"))
        #expect(child.stderr.contains("a walk's body was called again while it runs"), "\(child.stderr)")
    }
    #endif

    /// Runs `trace-crash-child` with `arguments` to its end, without the runtime's backtracer (which
    /// takes a minute and more under AddressSanitizer).
    func runCrashChild(_ arguments: [String]) throws
        -> (reason: Process.TerminationReason, status: Int32, stdout: String, stderr: String) {
        let child = Process()
        child.executableURL = productsDirectory().appendingPathComponent("trace-crash-child")
        child.arguments = arguments
        child.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, new in new }
        let out = Pipe(), err = Pipe()
        child.standardOutput = out
        child.standardError = err
        try child.run()
        child.waitUntilExit()
        return (child.terminationReason, child.terminationStatus,
                String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// `observers --at` reads only the events that change the state: the state is that of folding every event.
    @Test(arguments: traces)
    func stateFromTheEventsThatChangeItEqualsFoldingEverything(trace: String) throws {
        let reader = try TraceReader(path: fixture(trace))
        let session = try reader.lastSessionID()
        let count = try reader.session(session).eventCount
        for at in [UInt64(0), UInt64(count / 3), UInt64(count / 2), UInt64(count), nil] {
            var everything = TraceState()
            try reader.forEachEvent(session: session, filter: EventFilter(until: at)) { everything.apply($0); return true }
            let state = try reader.state(session: session, at: at)
            #expect(state.seq == everything.seq)
            #expect(state.liveObservers == everything.liveObservers)
            #expect(state.owners == everything.owners)
            #expect(state.applicationState == everything.applicationState)
        }
    }

    /// A copy of a fixture, damaged by `sql`, verified.
    func verifyDamaged(_ sql: String) throws -> [String] {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.trace")
        try FileManager.default.copyItem(atPath: fixture("demo"), toPath: path)
        try Database(path: path, mode: .readWrite).execute(sql)
        let verification = try TraceVerification.run(try TraceReader(path: path))
        #expect(!verification.isValid)
        return verification.sessions.flatMap(\.problems)
    }

    @Test func verifyFindsAGapADanglingDeliveryAndAMissingEnd() throws {
        #expect(try verifyDamaged("DELETE FROM events WHERE seq = 5").contains { $0.hasSuffix("first gap: seq 5 missing") })
        let post = try verifyDamaged("DELETE FROM events WHERE seq = (SELECT min(seq) FROM events WHERE kind = 4 AND seq > 1 AND post IN (SELECT post FROM events WHERE kind = 5))")
        #expect(post.contains { $0.contains("which was never posted before it") })
        let observer = try verifyDamaged("UPDATE events SET observer = 999999 WHERE seq = (SELECT min(seq) FROM events WHERE kind = 5)")
        #expect(observer.contains { $0.contains("delivery to observer 999999, which was never added before it") })
        let end = try verifyDamaged("DELETE FROM events WHERE kind = 10")
        #expect(end.contains("session is marked ended but its last event is not sessionEnded"))
    }

    @Test(arguments: traces)
    func fixturesVerify(trace: String) throws {
        let verification = try TraceVerification.run(try TraceReader(path: fixture(trace)))
        #expect(verification.isValid, "\(verification.sessions.map(\.problems))")
    }

    /// The range set behind `verify` agrees with `Set` on ids in order, out of order, repeated and at the ends.
    @Test func idSetAgreesWithASet() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            var ids = IDSet(), reference = Set<UInt64>()
            var next: UInt64 = round % 2 == 0 ? 0 : UInt64.max - 300
            for _ in 0..<400 {
                let id: UInt64 = switch Int.random(in: 0..<4, using: &generator) {
                case 0: next &+ UInt64.random(in: 0...3, using: &generator)
                case 1: next &- UInt64.random(in: 0...40, using: &generator)
                default: next
                }
                next = next &+ 1
                ids.insert(id)
                reference.insert(id)
            }
            for probe in reference.union(reference.map { $0 &+ 1 }).union(reference.map { $0 &- 1 }) {
                #expect(ids.contains(probe) == reference.contains(probe), "round \(round), id \(probe)")
            }
        }
        var ordered = IDSet()
        for id in UInt64(1)...10_000 { ordered.insert(id) }
        #expect(ordered.rangeCount == 1)
    }
}
