import Foundation
import ScenarioTrace
import Testing
import TestSupport
import TraceFleet
import TraceStore

@Suite struct SessionMetadataTests {
    @Test func metadataGivenToTheRecorderIsReadBack() throws {
        let directory = try TemporaryDirectory()
        let uuid = UUID()
        var info = SessionInfo(name: "login", app: "Mail")
        info.metadata = SessionMetadata(uuid: uuid, appVersion: "2.4", build: "2417", os: "iOS 18.1", deviceModel: "iPhone16,2",
                                        testName: "LoginTests.testLogout", extra: ["branch": "main", "shard": "3"])
        let recorder = try TraceRecorder(path: directory.file("login.trace"), session: info)
        try recorder.close()
        let reader = try TraceReader(path: directory.file("login.trace"))
        let read = try reader.metadata(of: try reader.session(nil))
        #expect(read == info.metadata)
        #expect(reader.schemaVersion == 6)
    }

    @Test func aVersionOneTraceReadsWithTheSameDerivedUUIDFromAnyCopy() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("copy.trace")
        try FileManager.default.copyItem(atPath: repositoryFile("Tests/Fixtures/v1/seed000-keyboard-leak.trace").path, toPath: copy)
        let original = try TraceReader(path: repositoryFile("Tests/Fixtures/v1/seed000-keyboard-leak.trace").path)
        let copied = try TraceReader(path: copy)
        #expect(original.schemaVersion == 1)
        let first = try original.metadata(of: try original.session(nil))
        let second = try copied.metadata(of: try copied.session(nil))
        #expect(first.uuid == second.uuid)
        #expect(first.build == nil && first.extra.isEmpty)
        // The summary of an old trace is whole: findings, state, no build.
        let sessions = try FleetCollector.summarize(trace: copy)
        #expect(sessions.count == 1 && sessions[0].state == .ended && !sessions[0].findings.isEmpty)
    }

    /// `Tests/Fixtures/v5/` holds a trace written by the schema-5 tracectl (commit 6293a6d).
    @Test func recordingIntoAVersionFiveTraceAddsTheMetadataTable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.trace")
        try FileManager.default.copyItem(atPath: fixture("v5/seed000-keyboard-leak"), toPath: path)
        let before = try TraceReader(path: path).schemaVersion
        try #require(before == 5, "the fixture is a version 5 trace (found \(before))")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "more", metadata: SessionMetadata(build: "7")))
        try recorder.close()
        let reader = try TraceReader(path: path)
        let sessions = try reader.sessions()
        #expect(reader.schemaVersion == 6)
        #expect(try reader.metadata(of: sessions.last!).build == "7")
        #expect(try reader.metadata(of: sessions.first!).build == nil)
    }

    @Test func metaArgumentsSetTheFieldsAndKeepOtherKeys() throws {
        let metadata = try SessionMetadata(arguments: ["build=2417", "os=iOS 18", "device=iPad", "test=Login", "version=2.4",
                                                        "branch=feature/x=y"])
        #expect(metadata.build == "2417" && metadata.os == "iOS 18" && metadata.deviceModel == "iPad")
        #expect(metadata.testName == "Login" && metadata.appVersion == "2.4")
        #expect(metadata.extra == ["branch": "feature/x=y"])
        #expect(throws: TraceStoreError.self) { try SessionMetadata(arguments: ["build"]) }
        #expect(throws: TraceStoreError.self) { try SessionMetadata(arguments: ["uuid=nope"]) }
    }
}

@Suite struct FleetReportTests {
    @Test func aLeakFixedAndBackIsRegressedAndANewOneIsNew() throws {
        let directory = try TemporaryDirectory()
        let files = try FleetFixtures.history(in: directory)
        let result = try FleetCollector.collect([directory.path])
        #expect(result.warnings.isEmpty)
        #expect(result.sessions.count == 5)
        let clean = try FleetCollector.summarize(trace: files[1])
        try #require(clean[0].findings.isEmpty, "the fixed scenario has no finding")
        let leak = Set(try FleetCollector.summarize(trace: files[0])[0].findings.map(\.fingerprint))
        let block = Set(try FleetCollector.summarize(trace: files[4])[0].findings.map(\.fingerprint)).subtracting(leak)
        try #require(!leak.isEmpty && !block.isEmpty)

        let report = try FleetReport(sessions: result.sessions)
        #expect(report.builds.map(\.build) == ["100", "101", "102"])
        #expect(report.sinceBuild == "101")
        for row in report.rows where leak.contains(row.fingerprint) {
            #expect(row.status == .regressed)
            #expect(row.builds == ["100", "102"])
            #expect(row.sessions == 2 && row.traces == 2)
            #expect(row.firstSeen.build == "100" && row.lastSeen.build == "102")
            #expect(row.example.trace == files[3])
            #expect(!row.example.evidence.isEmpty)
        }
        for row in report.rows where block.contains(row.fingerprint) {
            #expect(row.status == .new)
            #expect(row.builds == ["102"])
        }
        #expect(report.exitCode == FleetExit.findings)

        // Absent for two builds before a return: with --gap 2 the leak is known.
        let strict = try FleetReport(sessions: result.sessions, options: .init(gap: 2))
        #expect(strict.rows.filter { leak.contains($0.fingerprint) }.allSatisfy { $0.status == .known })
        // Since 102 nothing is new; since 100 both are.
        let since102 = try FleetReport(sessions: result.sessions, options: .init(sinceBuild: "102"))
        #expect(since102.rows.allSatisfy { $0.status == .known })
        #expect(since102.exitCode == FleetExit.ok)
        // A baseline of the leak's fingerprints: the leak regressed, the block is new.
        let baselined = try FleetReport(sessions: result.sessions, options: .init(baseline: leak))
        #expect(baselined.rows.filter { leak.contains($0.fingerprint) }.allSatisfy { $0.status == .regressed })
        #expect(baselined.rows.filter { block.contains($0.fingerprint) }.allSatisfy { $0.status == .new })
        #expect(throws: FleetError.self) { try FleetReport(sessions: result.sessions, options: .init(sinceBuild: "99")) }
    }

    /// Sessions without a build: nothing is new, and the headline says why rather than "every fingerprint".
    @Test func withoutBuildsTheHeadlineSaysNothingCanBeNew() throws {
        let directory = try TemporaryDirectory()
        let data = try Data(contentsOf: URL(fileURLWithPath: example("seed000-keyboard-leak")))
        try ScenarioRecording.record(scenario: data, file: "seed000-keyboard-leak.json", to: directory.file("a.trace"))
        let report = try FleetReport(sessions: FleetCollector.collect([directory.path]).sessions)
        #expect(report.builds.isEmpty && !report.rows.isEmpty)
        #expect(report.rows.allSatisfy { $0.status == .known })
        #expect(report.comparison.contains("no session names its build"))
        #expect(!report.text().contains("every fingerprint"))
    }

    @Test func theRowsDoNotDependOnTheOrderOrTheNumberOfWorkers() throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        let one = try FleetCollector.collect([directory.path], workers: 1)
        let two = try FleetCollector.collect([directory.path], workers: 2)
        let a = try FleetReport(sessions: one.sessions), b = try FleetReport(sessions: two.sessions.reversed())
        #expect(a.rows == b.rows)
        #expect(a.json(source: "x") == b.json(source: "x"))
    }

    @Test func anUnreadableFileIsOneWarningAndTheRestIsReported() throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        try Data("not a trace".utf8).write(to: URL(fileURLWithPath: directory.file("broken.trace")))
        let result = try FleetCollector.collect([directory.path])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.hasPrefix(directory.file("broken.trace")) == true)
        #expect(result.sessions.count == 5)
        let report = try FleetReport(sessions: result.sessions, warnings: result.warnings)
        #expect(report.exitCode == FleetExit.invalidInput)
        #expect(report.text().contains("1 file not read"))
    }

    @Test func anUnfinishedSessionIsCountedListedAndNotClean() throws {
        let directory = try TemporaryDirectory()
        let path = try FleetFixtures.record("seed000-keyboard-leak", to: directory.file("killed.trace"), build: "5", minutes: 0)
        try FleetFixtures.unfinish(path)
        let result = try FleetCollector.collect([path])
        let report = try FleetReport(sessions: result.sessions, options: .init(sinceBuild: "5"))
        #expect(report.totals.unfinished == 1 && report.totals.ended == 0)
        #expect(report.incomplete.map(\.trace) == [path])
        #expect(report.rows.allSatisfy { $0.incompleteSessions == 1 })
        // Every row known, yet not a clean exit: the session was cut short.
        #expect(report.exitCode == FleetExit.incomplete)
        #expect(report.text().contains("did not end cleanly"))
    }

    @Test func pathsExpandFromDirectoriesAndGlobsAndAMissingOneIsNamed() throws {
        let directory = try TemporaryDirectory()
        let files = try FleetFixtures.history(in: directory)
        #expect(try FleetCollector.expand([directory.file("b10[02]-*.trace")]).count == 4)
        #expect(try FleetCollector.expand([directory.path, files[0]]).count == 5)
        #expect(throws: FleetError.self) { try FleetCollector.expand([directory.file("nothing-*.trace")]) }
        #expect(throws: FleetError.self) { try FleetCollector.expand([directory.file("absent.trace")]) }
    }

    @Test func theHTMLPageIsSelfContainedWithAChartPerBuild() throws {
        let directory = try TemporaryDirectory()
        _ = try FleetFixtures.history(in: directory)
        let report = try FleetReport(sessions: try FleetCollector.collect([directory.path]).sessions)
        let page = report.html(title: "fleet")
        #expect(page.contains("<svg"))
        for build in ["100", "101", "102"] { #expect(page.contains(">\(build)</text>")) }
        #expect(!page.contains("<script src") && !page.contains("<link") && !page.contains("http://") && !page.contains("https://"))
    }
}
