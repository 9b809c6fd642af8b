import CSQLiteBench
import Foundation
import AppModel
import NotifyBus
import TraceStore

final class BenchOwner: TraceLabeled, @unchecked Sendable {
    // @unchecked: immutable after init.
    let traceLabel: String
    init(_ label: String) { traceLabel = label }
}

enum StoreBenchmarks {
    static func temporaryPath(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notifybus-bench-\(name).trace").path
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    /// Posting-thread cost of recording: the same posts on a bus with a recorder (journaled, as by
    /// default), with a recorder without the crash journal, and without recording, in turn.
    static func postingCost(_ report: Report) throws {
        let recorder = try TraceRecorder(path: temporaryPath("posting"), session: SessionInfo(name: "posting"))
        let unjournaled = try TraceRecorder(path: temporaryPath("posting-unjournaled"), session: SessionInfo(name: "posting"),
                                            journaled: false)
        let recorded = Bus(sink: recorder), bare = Bus(sink: unjournaled), plain = Bus()
        let sink = Sink()
        let tokens = [recorded, bare, plain].map { bus in bus.observe(Tick.self) { _ in sink.count &+= 1 } }
        let burst = 16_000   // 32 000 events: below the buffer's capacity, so no backpressure is timed
        // Wall time, and the posting thread's CPU time: wall time also counts the time the thread
        // waited for a core while the writer (or another process) ran on it.
        var wall: [[Double]] = [[], [], []], cpu: [[Double]] = [[], [], []]
        // The posting thread's context switches during the bursts, (involuntary, voluntary) per bus: a
        // preemption (kernel work for the writer's commits, the writer itself) is wall time the thread
        // did not run, which the CPU-time rows leave out.
        var switches = [(0, 0), (0, 0), (0, 0)]
        for _ in 0..<15 {
            for (index, bus) in [recorded, bare, plain].enumerated() {
                let s0 = threadContextSwitches()
                let t0 = now(), c0 = threadCPUTime()
                for i in 0..<burst { bus.post(Tick(n: i)) }
                let t1 = now(), c1 = threadCPUTime()
                let s1 = threadContextSwitches()
                switches[index].0 += s1.involuntary - s0.involuntary
                switches[index].1 += s1.voluntary - s0.voluntary
                wall[index].append(Double(t1 - t0) / Double(burst))
                cpu[index].append(Double(c1 - c0) / Double(burst))
                try recorder.flush()
                try unjournaled.flush()
            }
        }
        print("posting thread's context switches in 15 bursts (involuntary, voluntary): recorded \(switches[0]),"
              + " without the journal \(switches[1]), not recorded \(switches[2])")
        try recorder.close()
        try unjournaled.close()
        // A post to one observer is two events.
        for (what, samples) in [("", wall), (" (posting thread's CPU time)", cpu)] {
            let on = median(samples[0]), bareOn = median(samples[1]), off = median(samples[2])
            let added = (on - off) / 2, bareAdded = (bareOn - off) / 2
            report.add("recording on: posting-thread cost per event" + what, subject: ns(added) + " added",
                       baseline: "post without recording " + ns(off) + ", with " + ns(on),
                       ratio: times(on / off) + " the post", target: "≤ 150 ns added", met: added <= 150)
            report.add("of it, the crash journal" + what, subject: ns(added - bareAdded) + " per event",
                       baseline: "recording without the journal " + ns(bareAdded) + " added",
                       ratio: times(added / max(bareAdded, 1)) + " the unjournaled cost")
        }
        withExtendedLifetime(tokens) {}
    }

    /// Events per second reaching disk, against a raw sqlite3 insert loop of the same rows.
    static func sustained(_ report: Report, posts: Int) throws {
        var recorderRates: [Double] = [], rawRates: [Double] = []
        for round in 0..<3 {
            let path = temporaryPath("sustained-\(round)")
            let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "sustained"))
            let bus = Bus(sink: recorder)
            let owner = BenchOwner("Screen")
            let token = bus.observe(Tick.self, owner: owner) { _ in }
            let elapsed = try seconds {
                for i in 0..<posts { bus.post(Tick(n: i & 1023)) }
                try recorder.flush()
            }
            let events = Double(recorder.counts.committed)
            try recorder.close()
            withExtendedLifetime((token, owner)) {}
            recorderRates.append(events / elapsed)
            rawRates.append(try rawInserts(rows: Int(events), path: temporaryPath("raw-\(round)")))
        }
        let recorderRate = median(recorderRates), rawRate = median(rawRates)
        report.add("sustained events to disk", subject: rate(recorderRate), baseline: "raw sqlite3 loop " + rate(rawRate),
                   ratio: times(recorderRate / rawRate) + " the raw loop", target: "≥ 0.8×", met: recorderRate / rawRate >= 0.8)
    }

    /// The floor: rows of the events table's shape, prepared once, 10 000 per transaction.
    static func rawInserts(rows: Int, path: String) throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw BenchError("open \(path)") }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, """
            PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
            CREATE TABLE events(session INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL, kind INTEGER NOT NULL,
              message INTEGER, owner INTEGER, observer INTEGER, post INTEGER, parent INTEGER, sender INTEGER,
              detail INTEGER, note INTEGER, callsite INTEGER, payload INTEGER, PRIMARY KEY(session, seq)) WITHOUT ROWID;
            """, nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let elapsed = seconds {
            var seq: Int64 = 0
            while seq < rows {
                sqlite3_exec(db, "BEGIN", nil, nil, nil)
                for _ in 0..<10_000 where seq < rows {
                    seq += 1
                    let posted = seq & 1 == 1
                    sqlite3_bind_int64(statement, 1, 1)
                    sqlite3_bind_int64(statement, 2, seq)
                    sqlite3_bind_int64(statement, 3, seq &* 1000)
                    sqlite3_bind_int64(statement, 4, posted ? 4 : 5)
                    if posted { sqlite3_bind_int64(statement, 5, 3) } else { sqlite3_bind_null(statement, 5) }
                    sqlite3_bind_null(statement, 6)
                    if posted { sqlite3_bind_null(statement, 7) } else { sqlite3_bind_int64(statement, 7, 1) }
                    sqlite3_bind_int64(statement, 8, (seq + 1) / 2)
                    sqlite3_bind_null(statement, 9)
                    sqlite3_bind_null(statement, 10)
                    if posted { sqlite3_bind_int64(statement, 11, 4) } else { sqlite3_bind_null(statement, 11) }
                    sqlite3_bind_null(statement, 12)
                    sqlite3_bind_null(statement, 13)
                    if posted { sqlite3_bind_int64(statement, 14, (seq / 2) % 1024 + 1) } else { sqlite3_bind_null(statement, 14) }
                    sqlite3_step(statement)
                    sqlite3_reset(statement)
                }
                sqlite3_exec(db, "COMMIT", nil, nil, nil)
            }
        }
        return Double(rows) / elapsed
    }

    /// Records a synthetic session of about `events` events: screens come and go, some leak.
    static func generate(events target: Int, path: String, kill killed: Bool = false) throws {
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "generated-\(target)"))
        let clock = ManualClock()
        let bus = Bus(sink: recorder, clock: clock.traceClock)
        var live: [(owner: BenchOwner, tokens: [ObservationToken])] = []
        var leaked: [ObservationToken] = []
        var screen = 0
        while recorder.counts.recorded < UInt64(target) {
            screen += 1
            let owner = BenchOwner("Screen\(screen % 50)")
            let tokens = [bus.observe(Tick.self, owner: owner) { _ in }, bus.observe(Wrap<Tick>.self, owner: owner) { _ in }]
            live.append((owner, tokens))
            if live.count > 8 {
                let (old, oldTokens) = live.removeFirst()
                if screen % 10 == 0 {
                    leaked.append(contentsOf: oldTokens)   // never removed: its owner goes, the observers stay
                } else {
                    for token in oldTokens { bus.remove(token) }
                }
                withExtendedLifetime(old) {}
            }
            for i in 0..<40 {
                clock.advance(bySeconds: 0.001)
                if i & 1 == 0 { bus.post(Tick(n: i)) } else { bus.post(Wrap<Tick>(n: i)) }
            }
            if leaked.count > 400 { leaked.removeFirst(200) }
        }
        if killed {
            try recorder.flush()
            Foundation.kill(getpid(), SIGKILL)
        }
        try recorder.close()
    }

    /// Times `leaks` and `observers --at` against one plain scan of the events table.
    static func analysis(_ report: Report, events: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notifybus-bench-analysis-\(events).trace").path
        if !FileManager.default.fileExists(atPath: path) {
            let elapsed = try seconds { try generate(events: events, path: path) }
            print("generated \(path) in \(String(format: "%.1f", elapsed)) s")
        }
        let reader = try TraceReader(path: path)
        let session = try reader.lastSessionID()
        let total = try reader.sessions()[0].eventCount
        var scans: [Double] = [], leakTimes: [Double] = [], stateTimes: [Double] = []
        var findings = 0
        for _ in 0..<3 {
            scans.append(try seconds { try rawScan(path: path) })
            leakTimes.append(try seconds { findings = try LeakAnalyzer.analyze(reader, session: session).count })
            stateTimes.append(try seconds { _ = try reader.state(session: session) })
        }
        let scan = median(scans), leaks = median(leakTimes), state = median(stateTimes)
        let label = events >= 1_000_000 ? "\(events / 1_000_000)M" : "\(events / 1000)k"
        report.add("leaks on a \(label)-event trace (\(findings) findings)", subject: String(format: "%.2f s", leaks),
                   baseline: String(format: "plain scan %.2f s", scan), ratio: times(leaks / scan) + " the scan",
                   target: "≤ 2×", met: leaks / scan <= 2)
        report.add("observers --at the end of a \(label)-event trace", subject: String(format: "%.2f s", state),
                   baseline: String(format: "plain scan %.2f s", scan), ratio: times(state / scan) + " the scan",
                   target: "≤ 2×", met: state / scan <= 2)
        for command in ["scan", "leaks", "observers"] {
            let rss = try childPeakRSS(command: command, path: path)
            report.notes.append("peak RSS, \(command), \(label) events (\(total) rows): \(rss / 1024) MiB")
            print(report.notes.last!)
        }
    }

    /// Reads every column of every event row once: the least any analysis must do.
    static func rawScan(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw BenchError("open") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT seq, time_ns, kind, message, owner, observer, post, parent, sender, detail, note, callsite, payload FROM events WHERE session = 1 ORDER BY seq", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var checksum: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<13 { checksum &+= sqlite3_column_int64(statement, Int32(column)) }
        }
        precondition(checksum != 0)
    }

    /// Runs this executable on one analysis in a child process and returns its peak RSS in KiB.
    static func childPeakRSS(command: String, path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--child", command, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let kib = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw BenchError("child said: \(output)") }
        return kib
    }

    /// The child side: run one analysis and print VmHWM in KiB.
    static func child(command: String, path: String) throws {
        let reader = try TraceReader(path: path)
        let session = try reader.lastSessionID()
        switch command {
        case "scan": try rawScan(path: path)
        case "leaks": _ = try LeakAnalyzer.analyze(reader, session: session)
        default: _ = try reader.state(session: session)
        }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        print(line.split(separator: " ").dropFirst().first ?? "0")
    }

    /// Replays the stimuli of a recorded session into a model, against recording them live.
    /// With `distinctPayloads`, every keyboard has its own height, so no stimulus's JSON repeats.
    static func replay(_ report: Report, stimuli: Int, distinctPayloads: Bool = false) throws {
        var registry = MessageRegistry()
        registry.register(ReplayModel.Moved.self)
        let stimulusPath = temporaryPath("replay-stimuli")
        try recordStimuli(count: stimuli, path: stimulusPath, distinctPayloads: distinctPayloads)
        var replayedReport: ReplayReport?
        let stimulusTime = try seconds {
            replayedReport = try TraceReplayer.replay(trace: stimulusPath, registry: registry) { bus in ReplayModel(bus: bus) }
        }
        precondition(replayedReport?.isEqual == true, replayedReport?.diffText ?? "")
        let liveTime = try seconds {
            try recordStimuli(count: stimuli, path: temporaryPath("replay-live"), distinctPayloads: distinctPayloads)
        }
        report.add("replay (decode, post, record, compare)" + (distinctPayloads ? ", every payload distinct" : ""), subject: rate(Double(stimuli) / stimulusTime) + " stimuli",
                   baseline: "recording them live " + rate(Double(stimuli) / liveTime), ratio: times(liveTime / stimulusTime) + " the live rate")
    }

    static func recordStimuli(count: Int, path: String, distinctPayloads: Bool = false) throws {
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "stimuli"))
        let clock = ManualClock()
        let bus = Bus(sink: recorder, clock: clock.traceClock)
        let model = ReplayModel(bus: bus)
        let app = AppModel(bus: bus, clock: clock)
        try app.launch(root: .screen(Screen(name: "Login")))
        for i in 0..<(count / 8) {
            try app.showKeyboard(height: distinctPayloads ? 200 + Double(i) / 64 : 336)
            try app.hideKeyboard()
        }
        try withExtendedLifetime(model) { try recorder.close() }
    }
}

/// The system under test of the replay benchmark: reacts to keyboard messages with a post.
final class ReplayModel: @unchecked Sendable {
    // @unchecked: the tokens are written once, in init.
    struct Moved: BusMessage { var by: Double }
    var tokens: [ObservationToken] = []
    init(bus: Bus) {
        tokens.append(bus.observe(KeyboardWillShow.self) { [weak bus] note in bus?.post(Moved(by: note.endFrame.height)) })
        tokens.append(bus.observe(KeyboardWillHide.self) { _ in })
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
