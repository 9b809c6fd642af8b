import Foundation
import Testing
@testable import TraceStore

/// SARIF locations resolve from the repository root: a scenario recorded from there by its relative
/// path is named by that path (it was `seed000-keyboard-leak.json`, which is not at the root), and
/// the log says what `%SRCROOT%` stands for, and what `#fileID` cannot say.
@Suite struct SARIFLocationTests {
    let root = repositoryFile("").path

    /// Records `scenario` in `directory`, then reports in `reportIn` (the repository root by default).
    func sarifLog(recording scenario: String, in directory: String, _ dir: Scratch,
                  reportIn: String? = nil, _ extra: String...) throws -> [String: Any] {
        let trace = dir.file("leak.trace")
        let record = try tracectl(["record", scenario, "-o", trace], in: directory)
        try #require(record.status == 0, "\(record.stderr)")
        let run = try tracectl(["leaks", trace, "--format", "sarif"] + extra, in: reportIn ?? root)
        #expect(run.status == 1, "\(run.stderr)")
        return try #require(try json(run.stdout) as? [String: Any])
    }

    func uris(_ log: [String: Any]) throws -> Set<String> {
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        return Set(results.flatMap { result in
            (result["locations"] as? [[String: Any]] ?? []).compactMap { location in
                ((location["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String
            }
        })
    }

    @Test(arguments: ["Examples/seed000-keyboard-leak.json", "./Examples/seed000-keyboard-leak.json",
                      "Examples/./seed000-keyboard-leak.json"])
    func aScenarioRecordedByItsRelativePathResolvesFromTheRoot(scenario: String) throws {
        let dir = try Scratch()
        let found = try uris(try sarifLog(recording: scenario, in: root, dir))
        #expect(found == ["Examples/seed000-keyboard-leak.json"])
        for uri in found { #expect(FileManager.default.fileExists(atPath: repositoryFile(uri).path), "\(uri)") }
    }

    /// An absolute path names no repository folder: the trace keeps the file name alone, and the report
    /// finds the file under the source root by the scenario text the session stored (a file of the same
    /// name elsewhere, Tests/Fixtures/export-golden/seed000-keyboard-leak.json, has other text).
    @Test func aScenarioRecordedByItsAbsolutePathIsFoundUnderTheRootByItsText() throws {
        let dir = try Scratch()
        #expect(try uris(try sarifLog(recording: example("seed000-keyboard-leak"), in: dir.path, dir))
                == ["Examples/seed000-keyboard-leak.json"])
    }

    /// Outside any repository (neither the working directory nor the trace is in one), the file name stays.
    @Test func outsideARepositoryTheRecordedNameStays() throws {
        let dir = try Scratch()
        #expect(try uris(try sarifLog(recording: example("seed000-keyboard-leak"), in: dir.path, dir, reportIn: dir.path))
                == ["seed000-keyboard-leak.json"])
    }

    @Test func theLogSaysWhatTheSourceRootIs() throws {
        let dir = try Scratch()
        let log = try sarifLog(recording: "Examples/seed000-keyboard-leak.json", in: root, dir)
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let bases = try #require(run["originalUriBaseIds"] as? [String: Any])
        let text = ((bases["%SRCROOT%"] as? [String: Any])?["description"] as? [String: Any])?["text"] as? String
        #expect(text?.contains("#fileID") == true, "\(String(describing: text))")
        #expect(text?.contains("the repository holding the working directory") == true)
        let uri = (bases["%SRCROOT%"] as? [String: Any])?["uri"] as? String
        #expect(uri == URL(fileURLWithPath: root, isDirectory: true).absoluteString, "\(String(describing: uri))")
    }

    /// A baseline does not depend on the folder a scenario was recorded from: the fingerprints of
    /// `Examples/x.json` are those of `x.json`, as every trace recorded before named it.
    @Test func fingerprintsDoNotDependOnTheScenariosFolder() throws {
        let dir = try Scratch()
        func fingerprints(_ scenario: String, in directory: String) throws -> [String] {
            let log = try sarifLog(recording: scenario, in: directory, dir)
            let run = try #require((log["runs"] as? [[String: Any]])?.first)
            return (run["results"] as? [[String: Any]] ?? []).compactMap {
                ($0["partialFingerprints"] as? [String: Any])?.values.first as? String
            }.sorted()
        }
        let fromRoot = try fingerprints("Examples/seed000-keyboard-leak.json", in: root)
        let fromExamples = try fingerprints("seed000-keyboard-leak.json", in: root + "/Examples")
        #expect(!fromRoot.isEmpty)
        #expect(fromRoot == fromExamples)
    }
}
