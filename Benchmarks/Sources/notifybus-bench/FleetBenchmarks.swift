import CSQLiteBench
import Foundation

/// The fleet commands at scale (issue 25, docs/FLEET.md), each against its baseline in the same run:
///
/// - `tracectl report` over many traces against the sum of single `tracectl leaks` runs on the same files
///   (wall time and CPU time, the children's own rusage);
/// - `tracectl push` of many session summaries against `psql \copy` of the same rows into the same schema;
/// - `tracectl report --from` over a million findings rows against `psql \copy (SELECT …) TO /dev/null`
///   of those rows.
///
/// It runs the release executables (build them first):
///
///     swift build -c release --product tracectl && swift build -c release --product tracectl-fleet
///     swift run -c release --package-path Benchmarks notifybus-bench fleet
///
/// `NOTIFYBUS_BENCH_PG` names a PostgreSQL role that may create databases (default: the one `.ci/run`
/// starts); `NOTIFYBUS_BENCH_FLEET_SMALL` (10000), `NOTIFYBUS_BENCH_FLEET_SAMPLE` (500: the `leaks` runs
/// timed one by one and scaled to all), `NOTIFYBUS_BENCH_FLEET_BIG` (8) and `NOTIFYBUS_BENCH_FLEET_EVENTS`
/// (1000000) size it; `NOTIFYBUS_BENCH_FLEET_FINDINGS` (1000000) sizes the server report.
enum FleetBenchmarks {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized.path
    static let environment = ProcessInfo.processInfo.environment
    /// Where the release executables are: `NOTIFYBUS_BENCH_BIN`, or the package's own `.build/release`.
    static var binaries: String { environment["NOTIFYBUS_BENCH_BIN"] ?? root + "/.build/release" }
    static var tracectl: String { binaries + "/tracectl" }
    static var companion: String { binaries + "/tracectl-fleet" }
    static let server = environment["NOTIFYBUS_BENCH_PG"] ?? "postgresql://notifybus:notifybus@127.0.0.1:5432/postgres"

    static func number(_ name: String, _ fallback: Int) -> Int { Int(environment[name] ?? "") ?? fallback }

    /// One child process: its wall time and CPU time (user + system, from the children's rusage).
    struct Run { var wall: Double; var cpu: Double; var status: Int32 }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], output: String = "/dev/null", errors: String = "/dev/null") throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        if errors != "/dev/null" { _ = FileManager.default.createFile(atPath: errors, contents: nil) }
        process.standardError = FileHandle(forWritingAtPath: errors)
        let before = childCPU()
        let start = now()
        try process.run()
        process.waitUntilExit()
        return Run(wall: Double(now() - start) / 1e9, cpu: childCPU() - before, status: process.terminationStatus)
    }

    static func childCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func sh(_ command: String) throws -> Run {
        try run("/bin/sh", ["-c", command])
    }

    /// Copies `seed` to `count` files in `directory`, each session with its own UUID, a build of 10 and a start a
    /// minute apart, as many CI runs would leave them.
    static func copies(of seed: String, count: Int, into directory: String, builds: Int = 10) throws -> [String] {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var files: [String] = []
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for index in 0..<count {
            let path = directory + "/run-\(String(format: "%05d", index)).trace"
            try FileManager.default.copyItem(atPath: seed, toPath: path)
            var db: OpaquePointer?
            guard sqlite3_open(path, &db) == SQLITE_OK else { throw BenchError("cannot open \(path)") }
            let start = formatter.string(from: Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 60))
            let build = String(1000 + index * builds / max(count, 1))
            let sql = """
                UPDATE session_meta SET value = '\(UUID().uuidString.lowercased())' WHERE key = 'uuid';
                INSERT OR REPLACE INTO session_meta(session, key, value) SELECT id, 'build', '\(build)' FROM sessions;
                UPDATE sessions SET started_at = '\(start)';
                """
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError("cannot update \(path)") }
            sqlite3_close(db)
            files.append(path)
        }
        return files
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// `report` over `files` against single `leaks` runs on a sample of them, scaled to all.
    static func reportAgainstLeaks(_ report: Report, name: String, directory: String, files: [String], sample: Int) throws {
        let chosen = stride(from: 0, to: files.count, by: max(1, files.count / sample)).map { files[$0] }
        var wall = 0.0, cpu = 0.0
        for file in chosen {
            let one = try run(tracectl, ["leaks", file, "--format", "json"])
            guard one.status <= 1 else { throw BenchError("tracectl leaks \(file) exited \(one.status)") }
            wall += one.wall
            cpu += one.cpu
        }
        let scale = Double(files.count) / Double(chosen.count)
        wall *= scale
        cpu *= scale
        var best: Run?
        for _ in 0..<2 {
            let fleet = try run(tracectl, ["report", directory, "--format", "json"])
            guard fleet.status <= 3 else { throw BenchError("tracectl report exited \(fleet.status)") }
            if best == nil || fleet.wall < best!.wall { best = fleet }
        }
        let fleet = best!
        report.add("\(name): report wall", subject: String(format: "%.2f s", fleet.wall),
                   baseline: String(format: "%.2f s (%d leaks runs%@)", wall, files.count,
                                    chosen.count < files.count ? ", \(chosen.count) timed and scaled" : ""),
                   ratio: times(fleet.wall / wall), target: "≤ 0.60×", met: fleet.wall / wall <= 0.6)
        report.add("\(name): report CPU", subject: String(format: "%.2f s", fleet.cpu), baseline: String(format: "%.2f s", cpu),
                   ratio: times(fleet.cpu / cpu), target: "≤ 1.10×", met: fleet.cpu / cpu <= 1.1)
    }

    /// A database of its own on the server, dropped first if a killed run left it.
    static func database(_ name: String) throws -> String {
        _ = try sh("psql '\(server)' -q -c 'DROP DATABASE IF EXISTS \(name) WITH (FORCE)' -c 'CREATE DATABASE \(name)'")
        guard let slash = server.range(of: "/", options: .backwards) else { throw BenchError("bad URL \(server)") }
        var url = String(server[..<slash.lowerBound]) + "/" + name
        if let query = server.range(of: "?") { url += String(server[query.lowerBound...]) }
        return url
    }

    static func run(_ report: Report) throws {
        for executable in [tracectl, companion] where !FileManager.default.isExecutableFile(atPath: executable) {
            throw BenchError("\(executable) is missing: swift build -c release --product tracectl && swift build -c release --product tracectl-fleet")
        }
        let work = environment["NOTIFYBUS_BENCH_DIR"] ?? NSTemporaryDirectory() + "notifybus-fleet-bench"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let small = number("NOTIFYBUS_BENCH_FLEET_SMALL", 10_000)
        let sample = number("NOTIFYBUS_BENCH_FLEET_SAMPLE", 500)
        let big = number("NOTIFYBUS_BENCH_FLEET_BIG", 8)
        let events = number("NOTIFYBUS_BENCH_FLEET_EVENTS", 1_000_000)

        // Small traces: one recorded scenario (a leak, a few hundred events), copied as many CI runs.
        let seed = work + "/seed.trace"
        try? FileManager.default.removeItem(atPath: seed)
        let recorded = try run(tracectl, ["record", root + "/Examples/seed000-keyboard-leak.json", "-o", seed, "--meta", "build=1"])
        guard recorded.status == 0 else { throw BenchError("tracectl record exited \(recorded.status)") }
        let smallDirectory = work + "/small"
        let smallFiles = try copies(of: seed, count: small, into: smallDirectory)
        try reportAgainstLeaks(report, name: "fleet \(small) small traces", directory: smallDirectory, files: smallFiles, sample: sample)

        // Large traces: the store benchmark's generated session, copied.
        if big > 0 {
            let bigSeed = work + "/big-seed.trace"
            if !FileManager.default.fileExists(atPath: bigSeed) {
                try StoreBenchmarks.generate(events: events, path: bigSeed)
            }
            let bigDirectory = work + "/big"
            let bigFiles = try copies(of: bigSeed, count: big, into: bigDirectory)
            try reportAgainstLeaks(report, name: "fleet \(big) traces of \(events / 1000)k events", directory: bigDirectory,
                                   files: bigFiles, sample: big)
            try? FileManager.default.removeItem(atPath: bigDirectory)
        }

        // Push: the small traces' sessions into an empty store, against \copy of the same rows into another.
        // The push's own clock splits it (--timings): connecting and migrating, analysing every trace, and
        // the upload of the summaries, which is what \copy is set against.
        let pushed = try database("notifybus_bench_push")
        let timings = work + "/push-timings.txt"
        let push = try run(companion, ["push", smallDirectory, "--to", pushed, "--timings"], errors: timings)
        guard push.status == 0 else { throw BenchError("tracectl-fleet push exited \(push.status)") }
        // Only the timings line: a warning on standard error may hold the same words.
        let line = ((try? String(contentsOfFile: timings, encoding: .utf8)) ?? "")
            .split(separator: "\n").last { $0.hasPrefix("tracectl: timings:") }.map(String.init) ?? ""
        func seconds(after label: String) throws -> Double {
            guard let range = line.range(of: label + " "),
                  let value = Double(line[range.upperBound...].prefix { $0 == "." || $0.isNumber }) else {
                throw BenchError("no \(label) time in push --timings: \(line)")
            }
            return value
        }
        let connect = try seconds(after: "connect and migrate"), analysis = try seconds(after: "analysis")
        let upload = try seconds(after: "upload")
        let rows = work + "/rows"
        try FileManager.default.createDirectory(atPath: rows, withIntermediateDirectories: true)
        var rowCount = 0
        for table in ["sessions", "fingerprints", "findings"] {
            // COPY reads no partitioned table directly (findings): through a query, every partition.
            let exported = try sh("psql '\(pushed)' -q -c \"\\copy (SELECT * FROM \(table)) TO '\(rows)/\(table).csv' CSV\"")
            guard exported.status == 0 else { throw BenchError("psql \\copy of \(table) exited \(exported.status)") }
            rowCount += ((try? String(contentsOfFile: "\(rows)/\(table).csv", encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        let copied = try database("notifybus_bench_copy")
        // The same schema and month partitions, empty: one push, then emptied.
        _ = try run(companion, ["push", smallFiles[0], smallFiles[smallFiles.count - 1], "--to", copied])
        _ = try sh("psql '\(copied)' -q -c 'TRUNCATE sessions, fingerprints, findings'")
        var copy = Run(wall: .infinity, cpu: 0, status: 0)
        for _ in 0..<3 {
            _ = try sh("psql '\(copied)' -q -c 'TRUNCATE sessions, fingerprints, findings'")
            let one = try sh("psql '\(copied)' -q -c \"\\copy sessions FROM '\(rows)/sessions.csv' CSV\" "
                             + "-c \"\\copy fingerprints FROM '\(rows)/fingerprints.csv' CSV\" -c \"\\copy findings FROM '\(rows)/findings.csv' CSV\"")
            guard one.status == 0 else { throw BenchError("psql \\copy exited \(one.status)") }
            if one.wall < copy.wall { copy = one }
        }
        let sent = connect + upload
        report.add("fleet push \(small) session summaries (\(rowCount) rows; rate vs \\copy)",
                   subject: String(format: "%.2f s (%.0f rows/s)", sent, Double(rowCount) / sent),
                   baseline: String(format: "%.2f s (%.0f rows/s)", copy.wall, Double(rowCount) / copy.wall),
                   ratio: times(copy.wall / sent), target: "≥ 0.50×", met: copy.wall / sent >= 0.5)
        report.add("fleet push \(small) traces, analysis included", subject: String(format: "%.2f s", push.wall),
                   baseline: String(format: "%.2f s (its analysis)", analysis), ratio: times(push.wall / analysis))

        // The server report at a million findings rows: synthetic sessions, 10 findings each, 50 builds.
        let findings = number("NOTIFYBUS_BENCH_FLEET_FINDINGS", 1_000_000)
        let sessions = findings / 10
        let large = try database("notifybus_bench_query")
        _ = try run(companion, ["push", smallFiles[0], "--to", large])
        _ = try sh("""
            psql '\(large)' -q -c "TRUNCATE sessions, fingerprints, findings" \
              -c "CREATE TABLE IF NOT EXISTS findings_y2026m01 PARTITION OF findings FOR VALUES FROM ('2026-01-01') TO ('2026-02-01')" \
              -c "INSERT INTO fingerprints SELECT 'fp' || i, 'observer-outlives-owner', 'error', 'Message' || i, 'Screen' || (i % 50), 'x.swift:' || i FROM generate_series(0, 999) i" \
              -c "INSERT INTO sessions(uuid, trace, session_id, name, app, build, started_at, state, events, duration_ns) SELECT md5(i::text)::uuid, 'runs/' || i || '.trace', 1, 'run', 'app', (1000 + i * 50 / \(sessions))::text, timestamptz '2026-01-01' + i * interval '1 second', 'ended', 500, 1000000 FROM generate_series(0, \(sessions - 1)) i" \
              -c "INSERT INTO findings SELECT timestamptz '2026-01-01' + i * interval '1 second', md5(i::text)::uuid, 'fp' || ((i * 7 + j * 13) % 1000), 1, 2, ARRAY[i, j] FROM generate_series(0, \(sessions - 1)) i, generate_series(0, 9) j" \
              -c "ANALYZE"
            """)
        var query = Run(wall: .infinity, cpu: 0, status: 0), raw = Run(wall: .infinity, cpu: 0, status: 0)
        for _ in 0..<3 {
            let a = try run(companion, ["report", "--from", large, "--format", "json"])
            guard a.status <= 3 else { throw BenchError("tracectl-fleet report exited \(a.status)") }
            if a.wall < query.wall { query = a }
            let b = try sh("psql '\(large)' -q -c \"\\copy (SELECT f.session_uuid, f.fingerprint, f.count, f.deliveries, f.evidence FROM findings f) TO '/dev/null'\" -c \"\\copy sessions TO '/dev/null'\"")
            if b.wall < raw.wall { raw = b }
        }
        report.add("fleet report --from at \(findings / 1000)k findings rows", subject: String(format: "%.2f s", query.wall),
                   baseline: String(format: "%.2f s (psql \\copy of the rows)", raw.wall), ratio: times(query.wall / raw.wall))
        for name in ["notifybus_bench_push", "notifybus_bench_copy", "notifybus_bench_query"] {
            _ = try sh("psql '\(server)' -q -c 'DROP DATABASE IF EXISTS \(name) WITH (FORCE)'")
        }
        report.notes.append("fleet: \(ProcessInfo.processInfo.activeProcessorCount) cores; leaks baseline = the sum of one `tracectl leaks --format json` process per file (a sample timed and scaled when the files are many); push's own clock (--timings) splits connecting and migrating, analysing and uploading; the rate row is connecting plus uploading, against the best of 3 psql \\copy runs of the same rows")
    }
}
