import Foundation

/// File-system facts about trace paths: which names are the same file, and the side files SQLite keeps.
enum TraceFiles {
    /// The files SQLite keeps beside a database while it is open, or after a process was killed.
    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Whether `a` and `b` name the same existing file, through any spelling, link or hard link.
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Removes the side files a killed run may have left beside `path`: once a new file is moved
    /// to `path`, SQLite would otherwise read a stale `-wal` as part of it.
    static func removeSideFiles(of path: String) {
        for suffix in sideSuffixes { unlink(path + suffix) }
    }
}
