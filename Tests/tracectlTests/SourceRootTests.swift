import Foundation
import NotifyBus
import Testing
import TraceStore

private struct Ping: BusMessage { var n: Int }

private final class LoginScreen: TraceLabeled, Sendable {
    let traceLabel = "Login"
}

/// `leaks --format sarif --source-root`: a `#fileID` (`Module/File.swift`) becomes the file's path in the
/// repository, so code scanning annotates the line that added the observer.
@Suite struct SourceRootTests {
    /// A trace whose one leaking observer was added at `fileID`, line 7.
    func leakTrace(_ dir: Scratch, fileID: String) throws -> String {
        let trace = dir.file("app.trace")
        let recorder = try TraceRecorder(path: trace, session: SessionInfo(name: "app", app: "tests"))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock)
        var screen: LoginScreen? = LoginScreen()
        let token = bus.observe(Ping.self, owner: screen!, file: fileID, line: 7) { _ in }
        screen = nil
        bus.post(Ping(n: 1))
        try recorder.close()
        _ = token
        return trace
    }

    /// A repository in `dir/repo` holding `files` (paths relative to it).
    func repository(_ dir: Scratch, _ files: [String]) throws -> String {
        let repo = dir.file("repo")
        try FileManager.default.createDirectory(atPath: repo + "/.git", withIntermediateDirectories: true)
        for file in files {
            let path = repo + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data("// \(file)\n".utf8).write(to: URL(fileURLWithPath: path))
        }
        return repo
    }

    func uris(_ trace: String, in directory: String, _ extra: [String] = []) throws -> Set<String> {
        let run = try tracectl(["leaks", trace, "--format", "sarif"] + extra, in: directory)
        #expect(run.status == 1, "\(run.stderr)")
        let log = try #require(try json(run.stdout) as? [String: Any])
        let results = try #require((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
        #expect(!results.isEmpty)
        return Set(results.flatMap { result in
            (result["locations"] as? [[String: Any]] ?? []).compactMap { location in
                ((location["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String
            }
        })
    }

    @Test func aFileIDIsFoundInItsModulesFolderUnderTheGivenRoot() throws {
        let dir = try Scratch()
        let repo = try repository(dir, ["Sources/App/Screens/Login.swift", "Sources/Other/Login.swift", "README.md"])
        let trace = try leakTrace(dir, fileID: "App/Login.swift")
        #expect(try uris(trace, in: dir.path, ["--source-root", repo]) == ["Sources/App/Screens/Login.swift"])
    }

    @Test func theDefaultRootIsTheRepositoryHoldingTheWorkingDirectory() throws {
        let dir = try Scratch()
        let repo = try repository(dir, ["App/Login.swift", "Sub/Deeper/.keep"])
        let trace = try leakTrace(dir, fileID: "App/Login.swift")
        #expect(try uris(trace, in: repo + "/Sub/Deeper") == ["App/Login.swift"])
    }

    /// Run from outside any repository, the one holding the trace is the root.
    @Test func withoutARepositoryAboveTheWorkingDirectoryTheTracesIsTheRoot() throws {
        let dir = try Scratch(), elsewhere = try Scratch()
        let repo = try repository(dir, ["Sources/App/Login.swift", "traces/.keep"])
        let trace = repo + "/traces/app.trace"
        try FileManager.default.moveItem(atPath: try leakTrace(dir, fileID: "App/Login.swift"), toPath: trace)
        #expect(try uris(trace, in: elsewhere.path) == ["Sources/App/Login.swift"])
    }

    /// Two files that fit equally, or none: the #fileID stays as recorded rather than pointing at a guess.
    @Test(arguments: [["Sources/App/A/Login.swift", "Sources/App/B/Login.swift"], ["Sources/App/Logout.swift"]])
    func anAmbiguousOrMissingFileStaysAsRecorded(files: [String]) throws {
        let dir = try Scratch()
        let repo = try repository(dir, files)
        let trace = try leakTrace(dir, fileID: "App/Login.swift")
        #expect(try uris(trace, in: dir.path, ["--source-root", repo]) == ["App/Login.swift"])
    }

    /// Build products and dependencies are not searched: a copy there does not make the name ambiguous.
    @Test func buildFoldersAreNotSearched() throws {
        let dir = try Scratch()
        let repo = try repository(dir, ["Sources/App/Login.swift", ".build/checkouts/x/Sources/App/Login.swift",
                                        "Pods/App/Login.swift", "DerivedData/App/Login.swift"])
        let trace = try leakTrace(dir, fileID: "App/Login.swift")
        #expect(try uris(trace, in: dir.path, ["--source-root", repo]) == ["Sources/App/Login.swift"])
    }

    @Test func aSourceRootThatIsNoFolderIsMissingInput() throws {
        let dir = try Scratch()
        let trace = try leakTrace(dir, fileID: "App/Login.swift")
        let run = try tracectl("leaks", trace, "--format", "sarif", "--source-root", dir.file("nowhere"))
        #expect(run.status == 66)
        #expect(run.stderr == "tracectl: \(dir.file("nowhere")): no such folder (--source-root)\n")
        #expect(run.stdout.isEmpty)
    }
}
