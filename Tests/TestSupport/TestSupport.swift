// Helpers shared by the test targets: temporary directories, the built
// products, and files of this repository.
public import Foundation

/// A directory removed when the value is released: one per test.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notifybus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The directory holding the built products (the test bundle, tracectl, the crash child).
public func productsDirectory() -> URL {
    let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0])
    var directory = executable.deletingLastPathComponent()
    // On macOS the test bundle is a directory: climb out of it.
    while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
        directory.deleteLastPathComponent()
    }
    return directory
}

/// A file of this repository, by its path from the root.
public func repositoryFile(_ relative: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../\(relative)").standardized
}

/// An example scenario's path.
public func example(_ name: String) -> String { repositoryFile("Examples/\(name).json").path }

/// A golden trace's path.
public func fixture(_ name: String) -> String { repositoryFile("Tests/Fixtures/\(name).trace").path }

/// A thread-safe list of what handlers saw.
///
/// Locked with `NSLock` (a pthread mutex), which ThreadSanitizer sees; it cannot see
/// `Synchronization.Mutex`'s futex on Linux and would report every access it guards.
public final class Log<T: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is only touched with `lock` held.
    private let lock = NSLock()
    private var items: [T] = []
    public init() {}
    public func append(_ item: T) { lock.withLock { items.append(item) } }
    public var all: [T] { lock.withLock { items } }
}
