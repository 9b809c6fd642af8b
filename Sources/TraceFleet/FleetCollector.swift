public import Foundation
import Synchronization
import TraceStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads many traces into session summaries: paths (files, directories, globs) expanded, each file
/// analysed once, the files spread over every core.
///
/// ```swift
/// let result = try FleetCollector.collect(["traces/", "ci/*.trace"])
/// for warning in result.warnings { print(warning) }
/// let report = FleetReport(sessions: result.sessions)
/// ```
public enum FleetCollector {
    /// What the collection found: the sessions of every readable trace, and one line per file that
    /// could not be read (the rest went on).
    public struct Result: Sendable {
        public var sessions: [FleetSession]
        /// One line per unreadable file: its path and why.
        public var warnings: [String]
        /// Trace files read.
        public var traces: Int
    }

    /// The file names a directory walk picks up: traces as `tracectl record` names them, and SQLite files.
    public static let traceExtensions: Set<String> = ["trace", "sqlite", "sqlite3", "db"]

    /// Expands `paths` into trace files, in a stable order, each once.
    ///
    /// A file is taken whatever its name; a directory is walked (recursively) for ``traceExtensions``;
    /// a path with `*`, `?` or `[` that is not a file is a glob.
    ///
    /// - Throws: ``FleetError`` (`.missingInput`) naming the first path that matches nothing.
    public static func expand(_ paths: [String]) throws(FleetError) -> [String] {
        var files: [String] = []
        var seen: Set<String> = []
        func add(_ file: String) {
            if seen.insert(URL(fileURLWithPath: file).standardizedFileURL.path).inserted { files.append(file) }
        }
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    let found = walk(path)
                    guard !found.isEmpty else {
                        throw FleetError(.missingInput, "\(path): a directory with no trace files (*.trace, *.sqlite, *.db)")
                    }
                    found.forEach(add)
                } else {
                    add(path)
                }
            } else if path.contains(where: { "*?[".contains($0) }) {
                let matches = glob(path)
                guard !matches.isEmpty else { throw FleetError(.missingInput, "\(path): no file matches") }
                for match in matches {
                    var isDirectory: ObjCBool = false
                    if manager.fileExists(atPath: match, isDirectory: &isDirectory), isDirectory.boolValue {
                        walk(match).forEach(add)
                    } else {
                        add(match)
                    }
                }
            } else {
                throw FleetError(.missingInput, "\(path): no such file or directory")
            }
        }
        return files
    }

    /// The trace files under a directory, sorted by path.
    private static func walk(_ directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let url = URL(fileURLWithPath: relative)
            guard traceExtensions.contains(url.pathExtension.lowercased()) else { continue }
            let full = directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(full)
            }
        }
        return found.sorted()
    }

    private static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        #if canImport(Glibc)
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        #else
        guard Darwin.glob(pattern, 0, nil, &result) == 0 else { return [] }
        #endif
        return (0..<Int(result.gl_pathc)).compactMap { index in result.gl_pathv[index].map { String(cString: $0) } }
    }

    /// Summarises every session of one trace file.
    public static func summarize(trace path: String) throws -> [FleetSession] {
        let reader = try TraceReader(path: path)
        return try reader.sessions().map { session in try FleetSession(reader: reader, session: session, trace: path) }
    }

    /// Summarises every session of every file, `workers` files at a time (default: one per core).
    ///
    /// A file that cannot be read (not a trace, damaged, unreadable) becomes one warning and the rest goes on.
    /// The sessions come back in file order, then session order, whatever finished first.
    public static func collect(files: [String], workers: Int = ProcessInfo.processInfo.activeProcessorCount) -> Result {
        let work = Work(count: files.count)
        let threads = max(1, min(workers, files.count))
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let index = work.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < files.count else { return }
                let outcome = Swift.Result { try summarize(trace: files[index]) }
                work.outcomes.withLock { $0[index] = outcome }
            }
        }
        let outcomes = work.outcomes.withLock { $0 }
        var sessions: [FleetSession] = []
        var warnings: [String] = []
        var traces = 0
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let found)?:
                sessions += found
                traces += 1
                if found.isEmpty { warnings.append("\(files[index]): holds no session") }
            case .failure(let error)?:
                let text = (error as? TraceStoreError)?.message ?? "\(error)"
                warnings.append(text.hasPrefix(files[index]) ? text : "\(files[index]): \(text)")
            case nil:
                warnings.append("\(files[index]): not read")
            }
        }
        return Result(sessions: sessions, warnings: warnings, traces: traces)
    }

    /// The files' outcomes, filled by the workers; the next file to take.
    private final class Work: Sendable {
        let outcomes: Mutex<[Swift.Result<[FleetSession], any Error>?]>
        let next = Atomic<Int>(0)
        init(count: Int) { outcomes = Mutex(Array(repeating: nil, count: count)) }
    }

    /// Expands `paths` and summarises every file.
    public static func collect(_ paths: [String], workers: Int = ProcessInfo.processInfo.activeProcessorCount) throws(FleetError) -> Result {
        collect(files: try expand(paths), workers: workers)
    }
}
