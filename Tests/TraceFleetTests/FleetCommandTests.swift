import FleetPostgres
import Foundation
import Testing
import TestSupport
import TraceFleet

/// `tracectl report`, `push` and `report --from` end to end, through the built executables.
struct CommandRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

func runTracectl(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandRun {
    let process = Process()
    process.executableURL = productsDirectory().appendingPathComponent("tracectl")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    for (key, value) in extra { environment[key] = value }
    process.environment = environment
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-out-\(UUID().uuidString)")
    let err = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-err-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    process.waitUntilExit()
    return CommandRun(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
}

/// The JSON report without its `source`, which names where it was read from.
func reportBody(_ json: String) throws -> NSDictionary {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    var body = object
    body["source"] = nil
    return body as NSDictionary
}

@Suite struct FleetCommandTests {
    @Test func recordMetaIsShownBySessions() throws {
        let directory = try TemporaryDirectory()
        let trace = directory.file("meta.trace")
        let record = try runTracectl(["record", example("seed000-keyboard-leak"), "-o", trace, "--meta", "build=77",
                                      "--meta", "device=iPad14,1", "--meta", "shard=2"])
        #expect(record.status == 0, "\(record.stderr)")
        let sessions = try runTracectl(["sessions", trace, "--format", "json"])
        let first = try #require((try JSONSerialization.jsonObject(with: Data(sessions.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(first["build"] as? String == "77" && first["device"] as? String == "iPad14,1")
        #expect((first["meta"] as? [String: String]) == ["shard": "2"])
        #expect((first["uuid"] as? String)?.count == 36)
        #expect(try runTracectl(["sessions", trace]).stdout.contains("(build 77)"))
        let bad = try runTracectl(["record", example("seed000-keyboard-leak"), "-o", directory.file("x.trace"), "--meta", "build"])
        #expect(bad.status == 64 && bad.stderr.contains("--meta build: expected key=value"))
    }

    @Test func reportOverADirectoryExitsByWhatItFound() throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        let json = try runTracectl(["report", directory.path, "--format", "json"])
        #expect(json.status == 1, "new and regressed fingerprints: \(json.stderr)")
        let body = try reportBody(json.stdout)
        #expect((body["rows"] as? [Any])?.isEmpty == false)
        #expect(try runTracectl(["report", directory.path, "--since-build", "102"]).status == 0)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: directory.file("garbage.trace")))
        let warned = try runTracectl(["report", directory.path])
        #expect(warned.status == 65)
        #expect(warned.stderr.split(separator: "\n").count == 1 && warned.stderr.contains("garbage.trace"))
        #expect(warned.stdout.contains("fingerprints"))
        let missing = try runTracectl(["report", directory.file("none-*.trace")])
        #expect(missing.status == 66)
    }

    @Test func pushToAServerThatIsNotThereIsOneLineAndExit76() throws {
        let directory = try TemporaryDirectory()
        let trace = try FleetFixtures.record("seed000-keyboard-leak", to: directory.file("a.trace"), build: "1", minutes: 0)
        let push = try runTracectl(["push", trace, "--to", "postgresql://someone:secret@127.0.0.1:1/none"])
        #expect(push.status == 76)
        #expect(push.stderr.split(separator: "\n").count == 1)
        #expect(!push.stderr.contains("secret"))
        let report = try runTracectl(["report", "--from", "postgresql://someone:secret@127.0.0.1:1/none"])
        #expect(report.status == 76 && !report.stderr.contains("secret"))
    }

    @Test(.enabled(if: TestServer.isReachable, TestServer.skipReason))
    func pushedTracesReportTheSameRowsFromTheServer() async throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        try await TestServer.withDatabase { address in
            var url = "postgresql://\(address.user):\(address.password ?? "")@\(address.host):\(address.port)/\(address.database)"
            url += "?sslmode=prefer"
            let first = try runTracectl(["push", directory.path, "--to", url])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("pushed 5 sessions"))
            let second = try runTracectl(["push", directory.path, "--to", url])
            #expect(second.stdout.contains("pushed 0 sessions") && second.stdout.contains("5 already there"))
            for options in [[], ["--since-build", "100"], ["--min-severity", "error", "--gap", "2"]] {
                let local = try runTracectl(["report", directory.path, "--format", "json"] + options)
                let remote = try runTracectl(["report", "--from", url, "--format", "json"] + options)
                #expect(remote.status == local.status, "\(remote.stderr)")
                #expect(try reportBody(remote.stdout) == reportBody(local.stdout))
            }
        }
    }
}
