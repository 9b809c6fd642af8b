import Foundation

/// A trace file together with the side files SQLite keeps beside it, and which names are the same file.
package enum TraceFiles {
    /// The files SQLite keeps beside a database while it is open, or after a process was killed.
    package static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Removes a trace file and its SQLite side files, ignoring those that do not exist.
    package static func remove(at path: String) {
        for suffix in [""] + sideSuffixes {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
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
}
