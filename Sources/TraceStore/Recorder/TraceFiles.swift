import Foundation

/// A trace file together with the side files SQLite keeps beside it, and which names are the same file.
package enum TraceFiles {
    /// The files SQLite keeps beside a database while it is open, or after a process was killed.
    package static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Removes a trace file and its SQLite side files and journals, ignoring those that do not exist.
    /// Files only: a directory at one of the names is left as it is (`unlink` refuses it).
    package static func remove(at path: String) {
        unlink(path)
        removeSideFiles(of: path)
    }

    /// Removes the side files a killed run may have left beside `path`: once a new file is moved
    /// to `path`, SQLite would otherwise read a stale `-wal` as part of it, and a reader a stale journal.
    package static func removeSideFiles(of path: String) {
        for suffix in sideSuffixes { unlink(path + suffix) }
        for journal in journals(of: path) { unlink(journal) }
    }

    /// The recorder journals beside the trace `path` (`path-eventlog-N`, ``EventJournal``).
    package static func journals(of path: String) -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + EventJournal.suffix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return [] }
        return names.filter { name in
            name.hasPrefix(prefix) && !name.dropFirst(prefix.count).isEmpty && name.dropFirst(prefix.count).allSatisfy { $0.isASCII && $0.isNumber }
        }.map { directory.isEmpty ? $0 : (directory as NSString).appendingPathComponent($0) }
    }

    /// Whether writing `output` would change one of the files that make up the trace `input`: the
    /// file itself, or a side file SQLite or the recorder keeps beside it (`-wal`, `-shm`, `-journal`,
    /// `-eventlog-N`), existing or not, through any spelling or link of either.
    package static func isPart(_ output: String, of input: String) -> Bool {
        if isSameFile(output, input) { return true }
        guard let inputName = canonical(input), let outputName = canonical(resolvingLinks(output)) else { return false }
        if outputName == inputName { return true }
        guard outputName.hasPrefix(inputName) else {
            // A hard link to an existing side file.
            return (sideSuffixes.map { input + $0 } + journals(of: input)).contains { isSameFile(output, $0) }
        }
        let rest = outputName.dropFirst(inputName.count)
        if sideSuffixes.contains(String(rest)) { return true }
        if rest.hasPrefix(EventJournal.suffix) {
            let id = rest.dropFirst(EventJournal.suffix.count)
            return !id.isEmpty && id.allSatisfy { $0.isASCII && $0.isNumber }
        }
        return false
    }

    /// `path` absolute, its folder's links resolved (the file itself need not exist); `nil` when its folder does not exist.
    static func canonical(_ path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        guard let real = realpath(directory.isEmpty ? "." : directory, nil) else { return nil }
        defer { free(real) }
        return (String(cString: real) as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// Whether `a` and `b` name the same existing file, through any spelling, symbolic or hard link.
    package static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Where an output goes, decided before anything is written: see ``output(_:inputs:)``.
    package enum Output: Equatable, Sendable {
        /// A regular file at this path, or none yet: written beside it and moved into place.
        case replace(String)
        /// An existing device or pipe (`/dev/null`, a FIFO): written to as it is, never replaced.
        case stream(String)
    }

    /// Where to write the output named `path`, without harming what is there:
    ///
    /// - a symbolic link is followed (the file it names is replaced, the link stays);
    /// - a device or pipe is written to, not replaced;
    /// - a directory is refused with `.cannotCreate`;
    /// - the same file as one of `inputs`, through any spelling or link, or one of an input's side
    ///   files (``isPart(_:of:)``), is refused with `.invalidArgument`: the output would replace what
    ///   is being read (a killed trace's `-wal` holds its events).
    package static func output(_ path: String, inputs: [String]) throws(TraceStoreError) -> Output {
        for input in inputs where isPart(path, of: input) {
            let which = input == path ? "an input of this command"
                : isSameFile(path, input) ? "the same file as the input \(input)"
                : "a side file of the input \(input) (SQLite's -wal/-shm/-journal or the recorder's journal hold part of it)"
            throw TraceStoreError(.invalidArgument, "\(path) is \(which); give another output path")
        }
        let target = resolvingLinks(path)
        var info = stat()
        guard lstat(target, &info) == 0 else { return .replace(target) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .replace(target)
        case S_IFDIR: throw TraceStoreError(.cannotCreate, "\(path): a directory; give a file path")
        default: return .stream(target)
        }
    }

    /// Where to write a trace named `path`, as ``output(_:inputs:)`` decides, and a device or pipe
    /// refused with `.cannotCreate` too: SQLite writes a trace in place, in a regular file.
    package static func traceOutput(_ path: String, inputs: [String]) throws(TraceStoreError) -> String {
        switch try output(path, inputs: inputs) {
        case .replace(let target): return target
        case .stream: throw TraceStoreError(.cannotCreate, "\(path): not a regular file; a trace needs one")
        }
    }

    /// The temporary file an output into `target` (a path ``output(_:inputs:)`` gave) is written
    /// to before it is moved into place: beside it, named for this process.
    package static func partialPath(of target: String) -> String {
        target + partialSuffix + String(ProcessInfo.processInfo.processIdentifier)
    }

    private static let partialSuffix = ".partial-"

    /// Removes the partial files (and their SQLite side files) that runs writing `target` left
    /// when they were killed: those named for a process that no longer runs.
    package static func removeAbandonedPartials(of target: String) {
        let directory = (target as NSString).deletingLastPathComponent
        let prefix = (target as NSString).lastPathComponent + partialSuffix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let pid = pid_t(digits), pid > 0, pid != ProcessInfo.processInfo.processIdentifier,
                  isPartialTail(rest.dropFirst(digits.count)),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            unlink(directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name))
        }
    }

    /// What may follow a partial's process id: nothing, an SQLite side file's suffix, or a journal's.
    private static func isPartialTail(_ tail: Substring) -> Bool {
        if ([""] + sideSuffixes).contains(String(tail)) { return true }
        // `record -o existing.trace` records into `existing.trace.partial-PID.append` (and its own partial) first.
        if tail.hasPrefix(".append") { return true }
        guard tail.hasPrefix(EventJournal.suffix) else { return false }
        let id = tail.dropFirst(EventJournal.suffix.count)
        return !id.isEmpty && id.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `path` with symbolic links followed to the name they end at, which may not exist yet (a
    /// dangling link names the file to create); `path` itself when it is no link (or a loop).
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<32 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target
                : (current as NSString).deletingLastPathComponent.appendingPathComponentIfAny(target)
        }
        return path
    }
}

private extension String {
    /// `component` in this directory (`component` alone when this is empty).
    func appendingPathComponentIfAny(_ component: String) -> String {
        isEmpty ? component : (self as NSString).appendingPathComponent(component)
    }
}
