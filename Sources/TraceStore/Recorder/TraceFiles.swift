import Foundation

/// A trace file together with the side files SQLite keeps beside it, and which names are the same file.
package enum TraceFiles {
    /// The files SQLite keeps beside a database while it is open, or after a process was killed.
    package static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Removes a trace file and its SQLite side files, ignoring those that do not exist. Files
    /// only: a directory at one of the names is left as it is (`unlink` refuses it).
    package static func remove(at path: String) {
        for suffix in [""] + sideSuffixes { unlink(path + suffix) }
    }

    /// Removes the side files a killed run may have left beside `path`: once a new file is moved
    /// to `path`, SQLite would otherwise read a stale `-wal` as part of it.
    package static func removeSideFiles(of path: String) {
        for suffix in sideSuffixes { unlink(path + suffix) }
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
    /// - the same file as one of `inputs`, through any spelling or link, is refused with
    ///   `.invalidArgument`: the output would replace what is being read.
    package static func output(_ path: String, inputs: [String]) throws(TraceStoreError) -> Output {
        for input in inputs where isSameFile(path, input) {
            let which = input == path ? "an input of this command" : "the same file as the input \(input)"
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
                  ([""] + sideSuffixes).contains(String(rest.dropFirst(digits.count))),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            unlink(directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name))
        }
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
