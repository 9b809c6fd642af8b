import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a scan reads, found under the paths it was given.
///
/// Directories are walked recursively; a symbolic link to a directory is followed once (a link
/// back to a directory already walked is skipped, so a loop ends); hidden folders and build or
/// dependency folders (`.build`, `Pods`, `Carthage`, `DerivedData`, `node_modules`) are skipped.
/// Objective-C files are counted, not read.
struct SourceFiles {
    /// Folders a scan does not enter: build products and third-party code.
    static let skippedFolders: Set<String> = [".build", "Pods", "Carthage", "DerivedData", "node_modules", "build"]
    /// Directory depth past which the walk stops (a warning says where).
    static let maximumDepth = 64

    /// Swift files, absolute paths, in a stable order.
    private(set) var swift: [String] = []
    /// The size of each of ``swift`` when it was listed, in bytes (the parse starts with the largest).
    private(set) var sizes: [Int] = []
    /// Objective-C sources and headers seen.
    private(set) var objectiveC: [String] = []
    private(set) var warnings: [ScanWarning] = []
    private var visited: Set<String> = []

    /// Finds the files under `paths`.
    ///
    /// - Throws: ``ScanError`` `.missingInput` for a path that does not exist.
    init(paths: [String]) throws(ScanError) {
        for path in paths {
            guard let status = Self.status(path) else {
                throw ScanError(.missingInput, "\(path): no such file or directory")
            }
            let absolute = Self.absolute(path)
            if status.isDirectory {
                walk(absolute, depth: 0)
            } else {
                add(absolute, size: status.size, explicit: true)
            }
        }
        var seen = Set<String>()
        let kept = swift.indices.filter { seen.insert(swift[$0]).inserted }
        swift = kept.map { swift[$0] }
        sizes = kept.map { sizes[$0] }
    }

    static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.standardizedFileURL.path
    }

    /// What `stat` says of `path`, links followed; nil when nothing is there (or a link dangles).
    private static func status(_ path: String) -> (isDirectory: Bool, size: Int)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return ((info.st_mode & S_IFMT) == S_IFDIR, Int(info.st_size))
    }

    private mutating func add(_ path: String, size: Int, explicit: Bool) {
        let lower = path.lowercased()
        if lower.hasSuffix(".swift") {
            swift.append(path)
            sizes.append(size)
        } else if [".m", ".mm", ".h"].contains(where: lower.hasSuffix) {
            objectiveC.append(path)
        } else if explicit {
            warnings.append(ScanWarning(path: path, text: "not a Swift file: skipped"))
        }
    }

    /// The names in `directory` (not `.` and `..`) with the type `readdir` gives, sorted by name.
    private static func entries(_ directory: String) -> [(name: String, type: UInt8)]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var result: [(name: String, type: UInt8)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            result.append((name, entry.pointee.d_type))
        }
        return result.sorted { $0.name < $1.name }
    }

    private mutating func walk(_ directory: String, depth: Int) {
        guard depth < Self.maximumDepth else {
            warnings.append(ScanWarning(path: directory, text: "more than \(Self.maximumDepth) folders deep: not entered"))
            return
        }
        let real = realpath(directory, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? directory
        guard visited.insert(real).inserted else { return }   // a link back to a folder already walked
        guard let entries = Self.entries(directory) else {
            warnings.append(ScanWarning(path: directory, text: "cannot be listed: \(String(cString: strerror(errno)))"))
            return
        }
        for (name, type) in entries {
            let path = directory + "/" + name
            let isDirectory: Bool
            var size = 0
            if type == UInt8(DT_DIR) {
                isDirectory = true
            } else if type == UInt8(DT_REG) && !name.hasSuffix(".swift") {
                isDirectory = false
            } else {
                // A link (followed), a type the file system does not give, or a Swift file (its size).
                // A dangling link or a file removed meanwhile: nothing to read.
                guard let status = Self.status(path) else { continue }
                isDirectory = status.isDirectory
                size = status.size
            }
            if isDirectory {
                if name.hasPrefix(".") || Self.skippedFolders.contains(name) || name.hasSuffix(".xcodeproj")
                    || name.hasSuffix(".xcassets") { continue }
                walk(path, depth: depth + 1)
            } else {
                add(path, size: size, explicit: false)
            }
        }
    }
}

/// A file the scan could not read, or read only in part: reported with its path, and the scan goes on.
public struct ScanWarning: Sendable, Hashable {
    public var path: String
    public var text: String
}
