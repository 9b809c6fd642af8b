import Foundation

/// The folder a report's file locations are relative to, and the search that finds a recorded call
/// site's file in it.
///
/// A trace names Swift call sites by `#fileID` (`Module/File.swift`), which says the module and the
/// file name but not the folder, and a scenario by the path `tracectl record` was given. Code scanning
/// annotates a line only when the URI is the file's path in the repository, so each name is looked up
/// under the root: as a path first, then by file name, keeping the one candidate that fits.
struct SourceRoot {
    /// The root's absolute path, without a trailing slash (`/` itself excepted).
    let path: String
    /// How the root was chosen, for the SARIF log's description.
    let origin: String

    /// Folders never searched: version control, build products, dependencies.
    static let skipped: Set<String> = ["DerivedData", "Pods", "Carthage", "node_modules", "build"]
    /// The search stops after this many entries: a root that large is not a repository.
    static let searchLimit = 200_000

    private var index: [String: [String]]?

    init(path: String, origin: String) {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        self.path = standardized.count > 1 && standardized.hasSuffix("/") ? String(standardized.dropLast()) : standardized
        self.origin = origin
    }

    /// The root for a report on `trace`: `explicit` when given, else the repository (a folder with a
    /// `.git`) that holds the working directory, else the one that holds the trace, else the working directory.
    static func choose(explicit: String?, trace: String,
                       workingDirectory: String = FileManager.default.currentDirectoryPath) -> SourceRoot {
        if let explicit {
            return SourceRoot(path: URL(fileURLWithPath: explicit, relativeTo: URL(fileURLWithPath: workingDirectory)).path,
                              origin: "--source-root")
        }
        if let repository = repositoryRoot(above: workingDirectory) {
            return SourceRoot(path: repository, origin: "the repository holding the working directory")
        }
        let traceFolder = URL(fileURLWithPath: trace, relativeTo: URL(fileURLWithPath: workingDirectory))
            .deletingLastPathComponent().path
        if let repository = repositoryRoot(above: traceFolder) {
            return SourceRoot(path: repository, origin: "the repository holding the trace")
        }
        return SourceRoot(path: workingDirectory, origin: "the working directory (no repository above it or the trace)")
    }

    /// The nearest folder at or above `folder` that has a `.git` (a folder, or a file in a worktree).
    static func repositoryRoot(above folder: String) -> String? {
        var url = URL(fileURLWithPath: folder).standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(".git").path) { return url.path }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// The path under the root of the file a call site names, or `nil` when none fits or several do.
    ///
    /// `recorded` is a path as recorded (`Examples/x.json`, `x.json`, `Module/File.swift`). A path that
    /// exists under the root is taken as it is. Otherwise the files of that name are candidates: those
    /// whose path ends with the recorded path, then those with a folder named like the first component
    /// (a `#fileID`'s module: `Sources/Module/Sub/File.swift`); and when `contents` is given (a scenario
    /// the trace stored), the one file among them with exactly those contents.
    mutating func resolve(_ recorded: String, contents: Data? = nil) -> String? {
        let components = recorded.split(separator: "/").filter { $0 != "." }.map(String.init)
        guard let name = components.last, !components.contains("..") else { return nil }
        let relative = components.joined(separator: "/")
        var isDirectory: ObjCBool = false
        if !recorded.hasPrefix("/"), FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory),
           !isDirectory.boolValue,
           contents.map({ FileManager.default.contents(atPath: path + "/" + relative) == $0 }) ?? true {
            return relative
        }
        var candidates = files(named: name)
        if let contents {
            candidates = candidates.filter { FileManager.default.contents(atPath: path + "/" + $0) == contents }
            return candidates.count == 1 ? candidates[0] : nil
        }
        let suffix = candidates.filter { $0 == relative || $0.hasSuffix("/" + relative) }
        if suffix.count == 1 { return suffix[0] }
        if components.count > 1 {
            let module = components[0]
            let inModule = candidates.filter { $0.split(separator: "/").dropLast().contains { $0 == module } }
            if inModule.count == 1 { return inModule[0] }
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// Files called `name` under the root, as paths relative to it; the root is walked once.
    private mutating func files(named name: String) -> [String] {
        if index == nil { index = Self.walk(path) }
        return index?[name] ?? []
    }

    private static func walk(_ root: String) -> [String: [String]] {
        var index: [String: [String]] = [:]
        guard let walker = FileManager.default.enumerator(
            at: URL(fileURLWithPath: root), includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
            options: [.skipsHiddenFiles, .skipsPackageDescendants]) else { return index }
        let prefix = root == "/" ? 1 : root.count + 1
        var seen = 0
        for case let url as URL in walker {
            seen += 1
            if seen > searchLimit { break }
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey])
            if values?.isDirectory == true {
                if skipped.contains(url.lastPathComponent) { walker.skipDescendants() }
                continue
            }
            guard values?.isRegularFile == true else { continue }
            let full = url.standardizedFileURL.path
            guard full.count > prefix else { continue }
            index[url.lastPathComponent, default: []].append(String(full.dropFirst(prefix)))
        }
        for key in index.keys { index[key]?.sort() }
        return index
    }
}
