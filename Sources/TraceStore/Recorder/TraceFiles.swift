import Foundation

/// A trace file together with the side files SQLite keeps beside it.
package enum TraceFiles {
    /// Removes a trace file and its SQLite side files, ignoring those that do not exist.
    package static func remove(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
